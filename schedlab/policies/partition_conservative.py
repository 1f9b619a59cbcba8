"""Conservative backfilling on a cluster as Mu'alem & Feitelson define it: reservations at arrival, per pool.

:class:`PartitionConservative` is :class:`~schedlab.policies.conservative.Conservative`
(``--backfill conservative``) on a :class:`~schedlab.processes.cluster.cluster.Cluster`: each
job is given a reservation when it arrives, early ends compress the plan in the order
of the reservations, and a job starts when its reservation comes. What changes is what
it plans over: one :class:`~schedlab.policies.profile.Profile` of free cores per *pool*
of nodes (:func:`node_pools`: the nodes of a partition, or of several partitions
merged where they share nodes), counting that pool's free cores and the cores the
running jobs hold there until their requested ends. One count for the whole cluster
would mix the partitions up: a GPU partition's idle cores would make a CPU job look
as if it could start now (``docs/platforms.md`` works a case).

When the guarantee holds
------------------------
A plan of counts is a promise the cluster can keep only if *any* cores its pool has
free can take the job. That is so, and no job starts later than the reservation it
was given on arrival (``tests/test_partition_conservative.py``, a Hypothesis
property), when, under ``walltime="kill"`` (or with no job running past its
requested time) and with no node failing:

- every job's partition is its whole pool (partitions are disjoint, or equal); and
- every job can be placed on whatever cores its pool has free (:func:`counts_exactly`):
  it asks for no more of any other resource (memory, GPUs) a core than every node of
  its pool has a core, so that no node's cores are free without their share of it
  while every job is so; and the nodes have one core each (any placement rule), or the
  rule is ``pack``, or it is ``first-fit`` or ``best-fit`` and the job asks for one
  core or for more than any node of its pool has (such a job spreads over whatever
  nodes have cores free).

So it holds on one-core nodes (``schedlab replay --platform`` of a log on its
``MaxProcs`` one-core nodes), and for LPC-EGEE's serial jobs on
``docs/platforms/lpc_egee.toml``. Where it does not (a job that must fit on one node,
exclusive nodes of several cores, more memory or GPUs a core than a node has a core:
``docs/platforms/two_types.toml``), a job
reserved now may find its pool's cores spread so that no node can take it; it then
waits, the plan is compressed at each decision until it starts, and it may start late.
:attr:`PartitionConservative.exact` says whether the run met the condition, and
``benchmarks/conservative_guarantee.py --platform`` counts the late starts.
``schedlab replay`` warns before such a run, from its placement rule, node shape and
jobs (:mod:`schedlab.replay.conservative_guarantee`), and reports the late starts in
its ``late_starts`` column.

Why counts and not nodes: a version that fixed each reservation's nodes when it
planned them was tried for the rebuilt plan and dropped (on one-core nodes it made
jobs wait longer, at some 300 times the cost: ``benchmarks/README.md``). The plan
rebuilt at each decision is kept as
:class:`~schedlab.policies.partition_conservative_rebuild.RebuildPartitionConservative`
(``conservative-rebuild``).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

from schedlab.model.contracts.machine import MachineView, Order, Score
from schedlab.model.contracts.placement import ClusterView, NodeState, Placement
from schedlab.model.core.job import Job
from schedlab.policies.conservative import Conservative
from schedlab.policies.placement import BestFitPlacement, FirstFitPlacement, PackPlacement
from schedlab.policies.profile import Profile

__all__ = ["PartitionConservative", "counts_exactly", "node_pools", "pool_profiles"]


def node_pools(groups: Sequence[Sequence[int]]) -> dict[int, int]:
    """Each node's pool: node groups that share a node are merged (``{node index: pool}``, pools numbered from 0)."""
    parent: dict[int, int] = {}

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for group in groups:
        for i in group:
            parent.setdefault(i, i)
        for i in group[1:]:
            a, b = root(group[0]), root(i)
            if a != b:
                parent[max(a, b)] = min(a, b)
    names: dict[int, int] = {}
    return {i: names.setdefault(root(i), len(names)) for i in sorted(parent)}


def pool_profiles(view: ClusterView, pool_of: Mapping[int, int]) -> dict[int, Profile]:
    """Each pool's profile of free cores now: its nodes' free cores, then what running jobs free there.

    A running job holds its cores on a pool's nodes until its requested end.
    """
    nodes = view.nodes
    free_now: dict[int, int] = {}
    ends: dict[int, list[tuple[float, int]]] = {}
    for i, pool in pool_of.items():
        free_now[pool] = free_now.get(pool, 0) + nodes[i].free_cores
    allocations = view.allocations
    for run in view.running:
        for i, cores in allocations[run.job].items():  # an exclusive rule's allocation is its nodes' whole cores
            held = pool_of.get(i)
            if held is not None:
                ends.setdefault(held, []).append((run.requested_end, cores))
    return {pool: Profile(view.now, free, ends.get(pool, ())) for pool, free in free_now.items()}


def counts_exactly(job: Job, nodes: Sequence[NodeState], allowed: Sequence[int], placement: Placement) -> bool:
    """Can ``placement`` place ``job`` on ``allowed``'s nodes whenever they have ``job.cpus`` cores free?

    The module's docstring says when (no more memory, GPUs... a core than every node
    has a core; one-core nodes, ``pack``, or ``first-fit``/``best-fit`` for a job of one
    core or wider than any node). A rule not named there is not assumed to.
    """
    if not allowed:
        return False
    for r, a in job.demands.items():
        # no more of it a core than every node has a core: if every job is so, a node's
        # free cores always come with their share of it, and the cores alone bind
        if a > 0 and any(nodes[i].resources.get(r, 0.0) / nodes[i].cores < a / job.cpus * (1 - 1e-9) for i in allowed):
            return False
    widest = max(nodes[i].cores for i in allowed)
    if widest == 1:
        return True  # a free core is a free node, whatever the rule
    if placement.exclusive:
        return False
    if isinstance(placement, PackPlacement):
        return True
    if isinstance(placement, FirstFitPlacement | BestFitPlacement):
        return job.cpus == 1 or job.cpus > widest
    return False


class PartitionConservative(Conservative):
    """Conservative backfilling over ``order`` with reservations made at arrival, one profile of free cores per pool.

    Needs a :class:`~schedlab.processes.cluster.cluster.Cluster` (its view is a
    :class:`~schedlab.model.contracts.placement.ClusterView`). See the module's
    docstring for when no job starts later than :attr:`promised`. Stateful: one per run.

    Attributes
    ----------
    exact
        True while every job seen could be placed on any cores its pool had free and
        every job's partition was its whole pool: the condition of the guarantee.
    """

    def __init__(self, order: Order | Score | str = "fcfs") -> None:
        super().__init__(order)
        self.exact = True
        self._groups: set[tuple[int, ...]] = set()  # the node sets the jobs seen may run on
        self._pool_of: dict[int, int] = {}  # node -> pool
        self._checked: dict[tuple[tuple[int, ...], int], bool] = {}  # counts_exactly by (nodes, cores)

    def _fresh(self, view: MachineView) -> dict[Hashable, Profile]:
        return dict(pool_profiles(view, self._pool_of))  # type: ignore[arg-type]  # it runs on a Cluster, whose view is a ClusterView

    def _pool(self, view: MachineView, job: Job) -> Hashable:
        allowed = view.allowed_nodes(job)  # type: ignore[attr-defined]  # a ClusterView
        return self._pool_of.get(allowed[0]) if allowed else None

    def _relaid(self, view: MachineView, new: list[Job]) -> bool:
        cluster: ClusterView = view  # type: ignore[assignment]  # it runs on a Cluster
        groups = self._groups
        known = len(groups)
        checked = self._checked
        for job in new:
            allowed = cluster.allowed_nodes(job)
            groups.add(allowed)
            if self.exact:
                key = (allowed, job.cpus) if not job.demands else None  # jobs alike are alike here
                exact = checked.get(key) if key is not None else None
                if exact is None:
                    exact = counts_exactly(job, cluster.nodes, allowed, cluster.placement)
                    if key is not None:
                        checked[key] = exact
                self.exact = exact
        if len(groups) == known:
            return False
        self._pool_of = node_pools(sorted(groups))
        members: dict[int, set[int]] = {}
        for i, pool in self._pool_of.items():
            members.setdefault(pool, set()).add(i)
        if any(len(members[self._pool_of[g[0]]]) != len(g) for g in groups if g):
            self.exact = False  # a partition shares a pool with nodes it may not use
        return True  # the pools changed: the plan is made again over them

    def __str__(self) -> str:
        return f"{self.order}+partition-conservative"

    def __repr__(self) -> str:
        return f"PartitionConservative({self.order!r})"

"""Conservative backfilling on a cluster: a profile of free cores per partition.

:class:`~schedlab.policies.conservative_rebuild.RebuildConservative` plans with one count
of free processors, rebuilt at each decision, and so does this rule per partition (the
arrival-reservation :class:`~schedlab.policies.conservative.Conservative` has no
cluster version yet). On a cluster with partitions that count mixes them up: a GPU partition's
idle cores make a CPU job look as if it could start now, and a job started "in its
slot" may then take cores that an earlier job's reservation, in its own partition,
needs. :class:`PartitionConservative` keeps one
:class:`~schedlab.policies.profile.Profile` per *pool* of nodes: the nodes of a
partition, or of several partitions merged where they share nodes. Each pool's profile
counts only its nodes' free cores and the cores the running jobs hold there, until
their requested ends; a job is planned in its pool's profile.

So with disjoint partitions no job's plan reads another partition's cores. It still
counts cores within a pool: a job that must fit on one node (GPUs, an exclusive
placement) may be reserved at a time when its pool has the cores but no node has them
all; the cluster then keeps it waiting (``fits`` asks the placement rule) and its
reservation moves on at the next decision. On nodes of one core, where counting is
exact, with no partitions it is :class:`RebuildConservative` (``tests/test_cluster.py``
replays a SDSC-SP2 window both ways).

Why not reserve nodes, as :class:`~schedlab.policies.node_backfilling.NodeEASY` does for
its one head? A version that fixed each reservation's nodes when it planned them was
tried: on one-core nodes it made jobs wait longer than counting does (a 512-job
SDSC-SP2 window: mean wait 4,725 s counting, 7,354 s fixing nodes), because a
reservation's nodes are better chosen when it starts, and it cost far more time
(measured: benchmarks/README.md).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from schedlab.model.contracts.machine import Start
from schedlab.model.contracts.placement import ClusterView
from schedlab.model.core.job import Job
from schedlab.policies.backfilling import Backfilling
from schedlab.policies.profile import Profile

__all__ = ["PartitionConservative", "node_pools"]


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


@dataclass(frozen=True, init=False)
class PartitionConservative(Backfilling):
    """Conservative backfilling over ``order`` with a profile of free cores per pool of partitions.

    Needs a :class:`~schedlab.processes.cluster.Cluster` (its view is a
    :class:`~schedlab.model.contracts.placement.ClusterView`). See the module's docstring.
    """

    def _starts(self, view: ClusterView) -> Iterator[Start]:  # type: ignore[override]  # it runs on a Cluster, whose view is a ClusterView
        now = view.now
        queue: Sequence[Job] = list(self.order.rank(view.waiting, now))  # a copy: starting jobs changes the queue
        allowed = [view.allowed_nodes(job) for job in queue]
        pool_of = node_pools(sorted(set(allowed)))
        nodes, allocations = view.nodes, view.allocations
        free_now: dict[int, int] = {}
        ends: dict[int, list[tuple[float, int]]] = {}
        for i, node in enumerate(nodes):
            pool = pool_of.get(i)
            if pool is not None:
                free_now[pool] = free_now.get(pool, 0) + node.free_cores
        for run in view.running:
            for i, cores in allocations[run.job].items():
                pool = pool_of.get(i)
                if pool is not None:
                    ends.setdefault(pool, []).append((run.requested_end, cores))
        profiles = {pool: Profile(now, free, ends.get(pool, ())) for pool, free in free_now.items()}
        for job, mine in zip(queue, allowed, strict=True):
            if view.free == 0:
                return  # nothing more can start now: the rest need no plan
            if not mine:
                continue  # no node to run on
            profile = profiles[pool_of[mine[0]]]
            i = profile.earliest(job.cpus, job.requested_time)
            if i < 0:
                continue  # wider than its pool: it holds nothing
            profile.reserve(i, job.cpus, job.requested_time)
            if i == 0 and view.fits(job):
                yield Start(job)

    def __str__(self) -> str:
        return f"{self.order}+partition-conservative"

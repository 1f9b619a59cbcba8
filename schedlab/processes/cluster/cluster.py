"""A machine made of nodes: each started job is placed on nodes, each node has its own resources.

A :class:`Cluster` is a :class:`~schedlab.processes.machine.machine.Machine` whose CPUs are the
cores of a :class:`~schedlab.model.core.platform.Platform`'s nodes. Its policy still decides
*which* job starts *when* (FCFS, EASY, the multi-queue policies...); a placement rule
(:mod:`schedlab.policies.placement`) decides *where*: on which nodes, with how many
cores each. A job fits when its rule can place it now on the nodes of its partition,
every node keeping within its cores, memory, GPUs and other resources.

Cores have ids, as Batsim numbers resources: node k's cores are ids ``first_k`` to
``first_k + cores_k - 1``, the nodes in the platform's order
(:meth:`Cluster.core_of`).
The placement rule picks the nodes; on each node a job takes the lowest block of
contiguous free cores (else the lowest free ones). :meth:`allocation_rows` and
:meth:`allocated` give the ids each job held as an interval set (``"0-3 7"``), as a
machine built with ``allocation=`` does, for Batsim's ``jobs.csv`` and the Gantt chart
over cores.

Each job's :class:`~schedlab.model.records.job_record.JobRecord` carries the core ids of
its last run (``allocation``, e.g. ``"0-3 16-19"``) and its node-failure ``restarts``;
its ``machine`` stays the cluster's name, so every metric reads the records as before.
Which nodes a job ran on, stretch by stretch, is kept in the cluster's placement table, its
``placements`` part (:mod:`~schedlab.processes.cluster.placement_table`; :meth:`Cluster.placement_rows`:
one row per job and node, with the cores it held there and when). ``schedlab replay --platform`` saves the
table beside the results, and ``schedlab plot`` draws a Gantt chart per node from it.

Nodes can fail (:mod:`schedlab.processes.machine.node_failures`, the code a
:class:`~schedlab.processes.machine.machine.Machine` runs): node ``k`` of a failure is
``cluster.nodes[k]``; the jobs holding cores on it are killed with status ``node_fail``
and requeued or dropped (``on_node_fail``), and its cores are not free until the repair,
so no placement rule puts a job on it. Failures come from :meth:`inject_failures` (an
Alea log, or :func:`~schedlab.model.core.failures.random_failures` over
``len(cluster.nodes)`` nodes), or ``cluster_model(..., failures=...)``.

What a cluster does not do: squeeze or grow a running job (``Resize``, or ``Start`` on
fewer cores than asked, raise :class:`~schedlab.processes.machine.machine.PolicyError`), or
change its size (:meth:`set_capacity`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Literal, cast

import simpy

from schedlab.model.contracts.machine import Policy
from schedlab.model.contracts.placement import Allocation, ClusterPolicy, NodeState, Placement, share
from schedlab.model.core.failures import NodeFailure
from schedlab.model.core.job import Job
from schedlab.model.core.platform import Platform
from schedlab.processes.cluster.core_ids import CoreIds
from schedlab.processes.cluster.placement_table import PlacementRow, PlacementTable
from schedlab.processes.cluster.view import ClusterPolicyView
from schedlab.processes.machine.machine import PolicyError
from schedlab.processes.machine.node_failures import NodeFailures, OnNodeFail
from schedlab.processes.machine.running import Running
from schedlab.processes.machine.with_ids import MachineWithIds
from schedlab.processes.model import Model
from schedlab.processes.source import Source

__all__ = ["Cluster", "cluster_model"]


def _states(platform: Platform) -> list[NodeState]:
    return [
        NodeState(i, n.name, n.kind, n.cores, n.resources, n.cores, dict(n.resources))
        for i, n in enumerate(platform.nodes)
    ]


class Cluster(MachineWithIds):
    """The nodes of ``platform``, run by ``policy``, jobs placed by ``placement``.

    Parameters
    ----------
    env
        The SimPy environment.
    platform
        Its nodes, partitions and queues (:func:`~schedlab.model.core.platform.load_platform`).
    policy
        Which job starts when, as on a :class:`Machine`.
    placement
        Where a job runs: a rule of :mod:`schedlab.policies.placement`, or any
        :class:`~schedlab.model.contracts.placement.Placement`.
    name
        As for :class:`Machine`: the label used in records and traces.
    oversize
        As for :class:`Machine`. A job no placement could ever fit on the empty
        nodes of its partition is rejected (or raises, with ``oversize="raise"``).
    batch_decisions
        As for :class:`Machine`: decide once per instant instead of at every event.
    walltime
        As for :class:`Machine`: ``"kill"`` a job that reaches its time limit
        (:meth:`time_limit`: its requested time, capped by its queue's and partition's
        ``max_runtime``), or let it ``"run-on"``.
    on_node_fail
        As for :class:`Machine`: a job a node failure kills is ``"requeue"``d (same id,
        started over) or ``"drop"``ped (a ``NODE_FAIL`` record).

    Attributes
    ----------
    nodes
        Each node's :class:`~schedlab.model.contracts.placement.NodeState`, live.
    allocations
        ``{job: {node index: cores}}`` for the running jobs.
    placements
        Its placement table, a part (:class:`~schedlab.processes.cluster.placement_table.PlacementTable`):
        where its jobs ran; the methods below under "where jobs ran" ask it.
    """

    def __init__(
        self,
        env: simpy.Environment,
        platform: Platform,
        policy: ClusterPolicy,
        placement: Placement,
        *,
        name: str = "cluster",
        oversize: Literal["reject", "raise"] = "reject",
        batch_decisions: bool = False,
        walltime: Literal["run-on", "kill"] = "run-on",
        on_node_fail: OnNodeFail = "requeue",
    ) -> None:
        # Machine calls its policy with self.view, which is here a ClusterView (set below)
        super().__init__(
            env,
            platform.cores,
            cast(Policy, policy),
            name=name,
            resources=platform.resources,
            oversize=oversize,
            batch_decisions=batch_decisions,
            walltime=walltime,
            on_node_fail=on_node_fail,
        )
        self.platform = platform
        self.placement = placement
        self.view = ClusterPolicyView(self)
        self.nodes = _states(platform)
        self._empty = _states(platform)  # never changed: where can_ever_fit places
        self.allocations: dict[Job, Allocation] = {}
        self._on_node: list[dict[Job, int]] = [{} for _ in self.nodes]
        self._allowed: dict[Job, tuple[int, ...]] = {}
        # each node's first core id (the nodes in the platform's order), then one past the last
        self._first_core = [0]
        for n in self.nodes:
            self._first_core.append(self._first_core[-1] + n.cores)
        self.placements = PlacementTable(env, name, self.nodes, self.allocations, self._first_core)
        # its parts for ids and failures: the cores of the placed nodes, the platform's nodes
        self.ids = CoreIds(self)
        shape = f" on the platform's {len(self.nodes)} nodes"
        self.failures = NodeFailures(self, self._first_core, shape, on_node_fail, failable=True)
        # fits() then start() place the same job on the same state: the plan is kept in between
        self._version = 0
        self._plan_of: tuple[Job, int, Allocation | None] | None = None

    # ------------------------------------------------------------------ queries
    def allowed_nodes(self, job: Job) -> tuple[int, ...]:
        """Indices of the nodes ``job`` may run on: its partition's (all nodes without one)."""
        allowed = self._allowed.get(job)
        if allowed is None:
            allowed = self.platform.nodes_of(job)
            if job in self._arrival_seq:  # only jobs that are here are remembered
                self._allowed[job] = allowed
        return allowed

    def plan(self, job: Job) -> Allocation | None:
        """Where ``job`` would run if it started now (``None``: it cannot be placed now)."""
        planned = self._plan_of
        if planned is not None and planned[0] is job and planned[1] == self._version:
            return planned[2]
        alloc = self.placement.place(job, self.nodes, self.allowed_nodes(job))
        self._plan_of = (job, self._version, alloc)
        return alloc

    def fits(self, job: Job, cpus: int | None = None) -> bool:
        """Could ``job`` start now: can the placement rule place all its cores on its partition's nodes?"""
        if (cpus is not None and cpus != job.cpus) or job.cpus > self.free:
            return False
        return self.plan(job) is not None

    def can_ever_fit(self, job: Job) -> bool:
        """Could the placement rule place ``job`` on its partition's nodes, were they all idle?"""
        if job.cpus > self.max_capacity:
            return False
        return self.placement.place(job, self._empty, self.platform.nodes_of(job)) is not None

    def time_limit(self, job: Job) -> float | None:
        """Under ``walltime="kill"``: the job's requested time, or its queue's or partition's limit if tighter.

        A job passed through :meth:`Platform.admit <schedlab.model.core.platform.Platform.admit>`
        already asks for no more than its queue's limit; one made by hand may not, and
        the platform's limit still holds. ``None`` (no limit) under ``"run-on"``. A queue
        with its own ``walltime`` overrides the cluster's for its jobs.
        """
        queue = self.platform.queue_of(job)
        mode = queue.walltime if queue is not None and queue.walltime is not None else self.walltime
        if mode != "kill":
            return None
        limit = min(job.estimate if job.estimate is not None else math.inf, self.platform.time_limit(job))
        return None if limit == math.inf else limit

    # ------------------------------------------------------------------ arrivals and actions
    def submit(self, job: Job) -> None:
        """Queue ``job`` (a job its partition can never hold is rejected), and let the policy decide."""
        if not self.can_ever_fit(job):
            self._reject(job)
            return
        super().submit(job)

    def start(self, job: Job, cpus: int | None = None) -> None:
        """Place waiting ``job`` on nodes and start it on all its cores."""
        if cpus is not None and cpus != job.cpus:
            raise PolicyError(
                f"cluster {self.name!r}: job {job.id} asks for {job.cpus} cores; a cluster does "
                f"not squeeze jobs, so it cannot start on {cpus}"
            )
        if job not in self._arrival_seq:
            raise PolicyError(f"cluster {self.name!r}: job {job.id} is not waiting here")
        alloc = self.plan(job)
        if alloc is None:
            raise PolicyError(
                f"cluster {self.name!r} at t={self.env.now}: job {job.id} ({job.cpus} cores, "
                f"{dict(job.demands)}) cannot be placed now by {self.placement}"
            )
        free = self.free
        super().start(job, cpus)  # its fits() check finds the plan just made; its ids part, the cores
        exclusive = self.placement.exclusive
        taken = 0
        for i, cores in alloc.items():
            node = self.nodes[i]
            node.jobs += 1
            self._on_node[i][job] = cores
            if exclusive:
                taken += node.free_cores
                node.exclusive = True
                node.free_cores = 0
                node.free = dict.fromkeys(node.resources, 0.0)
            else:
                taken += cores
                node.free_cores -= cores
                for r, a in share(job, cores).items():
                    node.free[r] -= a
        self.allocations[job] = alloc
        self.placements.since[job] = self.env.now
        # a running count, not a sum over every node here and in _release, paid at each start and end
        # (measured: benchmarks/README.md); exclusive nodes hold all their cores
        self.free = free - taken
        self._version += 1

    def resize(self, job: Job, cpus: int) -> None:
        """Refused: a cluster does not resize running jobs (a policy asking for it gets a PolicyError)."""
        raise PolicyError(f"cluster {self.name!r}: job {job.id}: a cluster does not resize running jobs")

    def set_capacity(self, cpus: int) -> None:
        """Refused: a cluster's size is its platform's nodes."""
        raise ValueError(f"cluster {self.name!r}: a cluster's size is its platform's nodes; it cannot be set")

    def _release(self, run: Running) -> None:
        free = self.free
        super()._release(run)
        job = run.job
        alloc = self.allocations.pop(job)
        placements = self.placements
        start = placements.since.pop(job)
        now = self.env.now
        for i, cores in alloc.items():
            node = self.nodes[i]
            on = self._on_node[i]
            del on[job]
            node.jobs -= 1
            node.exclusive = False
            # re-add what the node's other jobs hold rather than subtract: no float residue builds up
            held = node.cores - sum(on.values())
            free += held - node.free_cores
            node.free_cores = held
            node.free = {
                r: cap - math.fsum(share(j, c).get(r, 0.0) for j, c in on.items()) for r, cap in node.resources.items()
            }
            placements.rows.append((job.id, job.job_class, node.name, node.kind, cores, start, now))
        self.free = free  # what the nodes gave back, not Machine's run.cpus: an exclusive job held whole nodes
        self._version += 1
        self._allowed.pop(job, None)  # a preempted job looks its nodes up again when it is placed

    # ------------------------------------------------------------------ node failures (its failures part)
    def _take_down(self, node: int, ids: range) -> None:
        """Node ``node`` is down: none of its cores is free (the cores it had free leave ``free``)."""
        state = self.nodes[node]
        self.cpu_time.change_capacity(-state.cores, -state.free_cores)
        state.free_cores = 0
        state.free = dict.fromkeys(state.resources, 0.0)
        self._version += 1

    def _bring_up(self, node: int, ids: range) -> None:
        """Node ``node`` is repaired: on, idle, every core free."""
        state = self.nodes[node]
        state.free_cores = state.cores
        state.free = dict(state.resources)
        self.cpu_time.change_capacity(state.cores)
        self._version += 1

    # ------------------------------------------------------------------ where jobs ran (its placements part)
    def placement_rows(self, *, running: bool = True) -> list[PlacementRow]:
        """Where each job ran: one ``(job, queue, node, kind, cores, start, end)`` per job and node
        (:data:`~schedlab.processes.cluster.placement_table.PLACEMENT_COLUMNS`); with ``running``,
        the jobs still running too, ending now."""
        return self.placements.placement_rows(running=running)

    def placements_csv(self) -> str:
        """:meth:`placement_rows` as CSV text, with a header line."""
        return self.placements.placements_csv()

    def core_of(self, core_id: int) -> tuple[str, int]:
        """The node (its name) and the core on it of the cluster-wide core id ``core_id``."""
        return self.placements.core_of(core_id)

    def node_rows(self) -> list[tuple[int, str, str, int]]:
        """Every node, ``(index, node, kind, cores)``, idle and failed ones too."""
        return self.placements.node_rows()

    def nodes_csv(self) -> str:
        """:meth:`node_rows` as CSV text, with a header line."""
        return self.placements.nodes_csv()

    def node_usage(self) -> Mapping[str, tuple[int, dict[str, float]]]:
        """Each node's cores and other resources in use now: ``{node: (cores, {resource: amount})}``."""
        return self.placements.node_usage()

    def __repr__(self) -> str:
        return (
            f"Cluster({self.name!r}, nodes={len(self.nodes)}, cores={self.capacity}, free={self.free}, "
            f"waiting={len(self.waiting)}, running={len(self.running)})"
        )


def cluster_model(
    env: simpy.Environment,
    jobs: Sequence[Job],
    platform: Platform,
    policy: ClusterPolicy,
    placement: Placement,
    *,
    batch_decisions: bool = False,
    walltime: Literal["run-on", "kill"] = "run-on",
    failures: Sequence[NodeFailure] = (),
    on_node_fail: OnNodeFail = "requeue",
) -> Model:
    """A model that replays ``jobs`` (in submit order) on an idle cluster of ``platform``'s nodes.

    The cluster is ``model["cluster"]`` (its placement table:
    :meth:`Cluster.placement_rows`).
    ``failures`` (sorted by time; a failure's nodes are indices into the platform's nodes)
    are replayed on it, and ``on_node_fail`` says what becomes of the jobs they kill.
    """
    cluster = Cluster(
        env,
        platform,
        policy,
        placement,
        batch_decisions=batch_decisions,
        walltime=walltime,
        on_node_fail=on_node_fail,
    )
    Source(env, jobs, cluster)
    if failures:
        cluster.inject_failures(failures)
    return Model(env, [cluster], parts={"cluster": cluster, "machine": cluster})

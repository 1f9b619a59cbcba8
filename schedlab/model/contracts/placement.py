"""The placement contract: what a placement rule sees of a cluster's nodes, and what it answers.

A cluster (:class:`schedlab.processes.cluster.cluster.Cluster`) asks its placement rule where a
job that is about to start should run. The rule sees the nodes' state
(:class:`NodeState`, one per node) and the nodes the job may use (its partition's),
and answers an :data:`Allocation`, ``{node index: cores}``, or ``None`` when the job
cannot be placed now. Rules live in :mod:`schedlab.policies.placement`; like every
policy they import only this layer.

How a job's other resources are spread over its nodes: a job's ``demands`` (memory,
GPUs, ...) are totals for the job, as on a :class:`~schedlab.processes.machine.machine.Machine`,
and each node holds the share of them in proportion to the cores the job has there
(:func:`share`). SWF's memory is per CPU, so this is exact for logs: a job of
4 CPUs of 2 GiB each holds 2 GiB on a node where it has one core. A resource
such as GPUs is split the same way, so a two-node job asking for 2 GPUs holds one on
each node where it has half its cores; rules keep GPU jobs whole on one node where
they can (see :mod:`schedlab.policies.placement`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from schedlab.model.contracts.machine import Action, MachineView
from schedlab.model.core.job import Job

__all__ = [
    "Allocation",
    "ClusterPolicy",
    "ClusterView",
    "NodeState",
    "Placement",
    "copy_nodes",
    "fits_one_node",
    "hold",
    "let_go",
    "room",
    "share",
]

#: cores per node, ``{node index: cores}``: where a started job runs
Allocation = Mapping[int, int]

#: relative tolerance on resources: 0.1 + 0.2 GiB must fit in 0.3 (as Machine.fits)
_TOLERANCE = 1e-9


@dataclass
class NodeState:
    """One node as a placement rule sees it: its capacity and what is free now.

    ``jobs`` counts the jobs on it; ``exclusive`` is true while a job holds it whole
    (no other job may then use it, whatever is free).
    """

    index: int
    name: str
    kind: str
    cores: int
    resources: Mapping[str, float] = field(default_factory=dict)
    free_cores: int = 0
    free: dict[str, float] = field(default_factory=dict)
    jobs: int = 0
    exclusive: bool = False

    @property
    def idle(self) -> bool:
        """No job on the node."""
        return self.jobs == 0


def share(job: Job, cores: int) -> dict[str, float]:
    """What ``job`` holds of each other resource on a node where it has ``cores`` of its cores."""
    if not job.demands:
        return {}
    part = cores / job.cpus
    return {r: a * part for r, a in job.demands.items() if a > 0}


def room(node: NodeState, job: Job, *, idle: bool = False) -> int:
    """The most of ``job``'s cores ``node`` can take now (0 if it is held exclusively or lacks a resource).

    With ``idle``, the most it could take were it idle: what its capacity allows.
    """
    if not job.demands:  # cores only, the common case: no resource to weigh
        if idle:
            return min(node.cores, job.cpus)
        return 0 if node.exclusive else min(node.free_cores, job.cpus)
    if node.exclusive and not idle:
        return 0
    most = min(node.cores if idle else node.free_cores, job.cpus)
    amounts = node.resources if idle else node.free
    for r, a in job.demands.items():
        if a <= 0:
            continue
        per_core = a / job.cpus
        most = min(most, int(amounts.get(r, 0.0) * (1 + _TOLERANCE) / per_core + _TOLERANCE))
        if most <= 0:
            return 0
    return max(most, 0)


def fits_one_node(job: Job, nodes: Sequence[NodeState], allowed: Sequence[int]) -> bool:
    """Could one of ``allowed``'s nodes, idle, hold the whole job?"""
    cpus = job.cpus
    if not job.demands:
        return any(nodes[i].cores >= cpus for i in allowed)
    return any(room(nodes[i], job, idle=True) >= cpus for i in allowed)


class Placement(Protocol):
    """A placement rule: where a job runs, on which of ``allowed``'s nodes, with how many cores each.

    ``exclusive`` says whether the cluster must hold the chosen nodes whole for the job.
    ``place`` answers an allocation whose cores add up to ``job.cpus`` (for an exclusive
    rule, the nodes' whole cores), or ``None`` when the job cannot be placed now.
    """

    exclusive: bool

    def place(self, job: Job, nodes: Sequence[NodeState], allowed: Sequence[int]) -> Allocation | None:
        """The cores to take on each node for ``job``, among ``allowed``; ``None`` if it cannot start now."""
        ...


class ClusterView(MachineView, Protocol):
    """What a policy sees of a cluster: a machine's view, and its nodes, placements and rule.

    Node-aware policies (:class:`~schedlab.policies.node_backfilling.NodeEASY`) read it
    to place jobs on copies of the nodes' state, at future times.
    """

    @property
    def nodes(self) -> Sequence[NodeState]:
        """Each node's state now (read-only)."""
        ...

    @property
    def allocations(self) -> Mapping[Job, Allocation]:
        """Where each running job is: ``{job: {node index: cores}}``."""
        ...

    @property
    def placement(self) -> Placement:
        """The cluster's placement rule, for a policy to place jobs on copies of the nodes."""
        ...

    def allowed_nodes(self, job: Job) -> tuple[int, ...]:
        """The nodes ``job`` may run on (its partition's)."""
        ...

    def plan(self, job: Job) -> Allocation | None:
        """Where ``job`` would run if it started now."""
        ...


def copy_nodes(nodes: Sequence[NodeState]) -> list[NodeState]:
    """A copy of the nodes' state to place jobs on without touching the cluster's."""
    # the constructor, not dataclasses.replace: replace was a third of a node-aware EASY replay's time
    return [
        NodeState(n.index, n.name, n.kind, n.cores, n.resources, n.free_cores, dict(n.free), n.jobs, n.exclusive)
        for n in nodes
    ]


def hold(nodes: Sequence[NodeState], job: Job, alloc: Allocation, exclusive: bool) -> None:
    """Book ``job`` on ``nodes`` (a copy) where ``alloc`` places it: what the cluster does when it starts."""
    for i, cores in alloc.items():
        node = nodes[i]
        node.jobs += 1
        if exclusive:
            node.exclusive, node.free_cores = True, 0
            node.free = dict.fromkeys(node.resources, 0.0)
        else:
            node.free_cores -= cores
            for r, a in share(job, cores).items():
                node.free[r] = node.free.get(r, 0.0) - a


def let_go(nodes: Sequence[NodeState], job: Job, alloc: Allocation, exclusive: bool) -> None:
    """Free what ``job`` held on ``nodes`` (a copy): what the cluster does when it ends."""
    for i, cores in alloc.items():
        node = nodes[i]
        node.jobs -= 1
        if exclusive:
            node.exclusive, node.free_cores = False, node.cores
            node.free = dict(node.resources)
        else:
            node.free_cores += cores
            for r, a in share(job, cores).items():
                node.free[r] = node.free.get(r, 0.0) + a


#: a policy for a cluster: called with its :class:`ClusterView` (nodes and placements too), it answers
#: as a :data:`~schedlab.model.contracts.machine.Policy` does. Every machine policy is also one.
ClusterPolicy = Callable[[ClusterView], Action | Iterable[Action] | None]

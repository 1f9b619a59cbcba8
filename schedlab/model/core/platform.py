"""A cluster described as data: node types, nodes, partitions and queues, read from a TOML file.

A *platform* is what a Slurm ``slurm.conf`` or a Batsim platform file says about a
machine: which nodes it has (each with cores, memory, GPUs and any other named
resource), how they are grouped into *partitions*, and which *queues* jobs are
submitted to (with their runtime limits and priorities). :func:`load_platform` reads a
small TOML file into a frozen :class:`Platform`
(:func:`schedlab.model.formats.platform_file.load_platform`); every mistake in the file raises a
:class:`~schedlab.model.formats.platform_file.PlatformError` whose one-line message names the
file, the key path and the value, e.g. ``platform.toml: nodes.gpu.count: must be a
whole number >= 1, got -2``.

The file (every key, its type and default, is in ``docs/platforms.md``)::

    name = "two-types"

    [nodes.cpu]          # a node type: `count` nodes named cpu-0, cpu-1, ...
    count = 4
    cores = 16
    memory = 64          # GiB per node

    [nodes.gpu]
    count = 2
    cores = 8
    memory = 128
    gpus = 2
    resources = { scratch = 800 }   # any other named resource, per node

    [partitions.batch]
    nodes = ["cpu"]      # node types or node names
    default = true       # jobs that name no partition run here

    [partitions.gpu]
    nodes = ["gpu"]

    [queues.short]
    swf_id = 1           # the log's queue number (SWF field 15)
    max_runtime = 3600   # seconds: the job's time limit
    priority = 10        # higher first
    [queues.gpu]
    swf_id = 2
    partition = "gpu"
    demands = { gpus = 1 }   # what every job of this queue asks for besides its cores

Plain data: no SimPy. The cluster that runs a platform is
:class:`schedlab.processes.cluster.cluster.Cluster`; placement rules are in
:mod:`schedlab.policies.placement`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from schedlab.model.core.job import Job

__all__ = [
    "SWF_MEMORY_TO_GIB",
    "Node",
    "NodePower",
    "NodeType",
    "Partition",
    "Platform",
    "Pstate",
    "Queue",
    "Switch",
    "frozen_amounts",
]

#: SWF's requested memory (field 10) is kilobytes per CPU; a platform's memory is GiB per node
SWF_MEMORY_TO_GIB = 1.0 / 2**20


def frozen_amounts(amounts: Mapping[str, float]) -> Mapping[str, float]:
    """A read-only copy of resource amounts."""
    return MappingProxyType(dict(amounts))


@dataclass(frozen=True)
class Switch:
    """One power transition of a node (off to on, or on to off): how long it takes and what it costs."""

    seconds: float
    joules: float


@dataclass(frozen=True)
class Pstate:
    """One DVFS power state of a node: its relative ``speed`` and its ``idle`` and ``full`` watts.

    ``speed`` is relative to the speed the log's runtimes were measured at (1.0): a job
    of runtime ``r`` on nodes at speed ``s`` runs ``r / s`` seconds.
    """

    speed: float
    idle: float
    full: float


@dataclass(frozen=True)
class NodePower:
    """A node's electrical power, in watts: ``idle`` with no core busy, ``full`` with all of them.

    In between, power is linear in the busy cores (``idle + (full - idle) * busy / cores``),
    as SimGrid's host energy model is between its idle and all-cores values.

    A node that gives ``off`` watts can be switched off (Batsim's sleep pstate): it then
    draws ``off`` watts and runs nothing. Switching off takes ``switch_off`` (seconds,
    joules) and booting ``switch_on``; while switching the node runs nothing either, and
    the switch's joules are spread evenly over its seconds (Batsim's virtual shutdown and
    boot pstates: ``watts = joules / seconds``). ``None``: the node is never switched off.

    ``pstates``: the node's DVFS power states (:class:`Pstate`), pstate 0 first, whose
    watts are ``idle`` and ``full``; empty: one pstate, ``Pstate(1.0, idle, full)``
    (:attr:`levels`). ``pstate``: the one a node starts in.
    """

    idle: float
    full: float
    off: float | None = None
    switch_off: Switch = field(default_factory=lambda: Switch(0.0, 0.0))
    switch_on: Switch = field(default_factory=lambda: Switch(0.0, 0.0))
    pstates: tuple[Pstate, ...] = ()
    pstate: int = 0

    @property
    def levels(self) -> tuple[Pstate, ...]:
        """The node's pstates, pstate 0 first: ``pstates``, or the one pstate ``idle``/``full`` give."""
        return self.pstates or (Pstate(1.0, self.idle, self.full),)

    @property
    def can_switch(self) -> bool:
        """Can these nodes be switched off (do they give their ``off`` watts)?"""
        return self.off is not None


@dataclass(frozen=True)
class NodeType:
    """``count`` identical nodes of ``cores`` cores and ``resources`` (memory in GiB, gpus, ...) each.

    ``power``: the nodes' watts, idle and full (``None``: no energy model). ``flops``:
    their pstate 0 speed in floating-point operations per second, where the platform
    gives it (a Batsim XML platform does; a TOML one does not), to turn a workload's
    flops into seconds.
    """

    name: str
    count: int
    cores: int
    resources: Mapping[str, float] = field(default_factory=dict)
    power: NodePower | None = None
    flops: float | None = None


@dataclass(frozen=True)
class Node:
    """One node: its name (``<type>-<i>``), its type, its cores and its other resources."""

    name: str
    kind: str
    cores: int
    resources: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Partition:
    """A named set of nodes (indices into :attr:`Platform.nodes`) that jobs are bound to.

    ``swf_id`` is the partition's number in a log (SWF field 16); ``max_runtime`` caps
    the time limit of its jobs (seconds, ``inf`` for none), as Slurm's ``MaxTime``.
    """

    name: str
    nodes: tuple[int, ...]
    swf_id: int | None = None
    max_runtime: float = math.inf
    default: bool = False


@dataclass(frozen=True)
class Queue:
    """A queue jobs are submitted to (a log's queue, a job's ``job_class``).

    ``priority``: higher goes first under strict priority; ``weight``: its share under
    weighted round robin; ``max_runtime``: the time limit of its jobs (seconds);
    ``partition``: where its jobs run when they name none; ``demands``: resources every
    job of the queue asks for besides its cores (``{"gpus": 1}``), as job totals;
    ``walltime``: what happens to its jobs at their time limit, ``"kill"`` or
    ``"run-on"`` (``None``: the machine's ``walltime`` setting), so one queue's jobs can
    be killed while another's run on, as Slurm's per-partition ``OverTimeLimit`` allows.
    """

    name: str
    swf_id: int | None = None
    priority: int = 0
    weight: float = 1.0
    max_runtime: float = math.inf
    partition: str | None = None
    demands: Mapping[str, float] = field(default_factory=dict)
    walltime: str | None = None


@dataclass(frozen=True)
class Platform:
    """Nodes, partitions and queues: a cluster as :func:`load_platform` reads it."""

    name: str
    node_types: tuple[NodeType, ...]
    nodes: tuple[Node, ...]
    partitions: Mapping[str, Partition] = field(default_factory=dict)
    queues: Mapping[str, Queue] = field(default_factory=dict)
    source: str = ""

    @property
    def cores(self) -> int:
        """Cores of all the nodes."""
        return sum(n.cores for n in self.nodes)

    @property
    def resources(self) -> dict[str, float]:
        """Totals of the nodes' other resources (memory, gpus, ...)."""
        out: dict[str, float] = {}
        for n in self.nodes:
            for r, a in n.resources.items():
                out[r] = out.get(r, 0.0) + a
        return out

    @property
    def flops(self) -> float | None:
        """The nodes' pstate 0 speed (flop/s) where they all give the same one; ``None`` where none gives it.

        Raises ValueError where node types give different speeds: a job's duration
        would depend on its nodes, and a workload's flops are turned into seconds once,
        when it is read.
        """
        speeds = {t.flops for t in self.node_types}
        if speeds == {None}:
            return None
        if len(speeds) > 1:
            shown = ", ".join(f"{t.name} {t.flops:g}" if t.flops else f"{t.name} none" for t in self.node_types)
            raise ValueError(
                f"{self.source or self.name}: hosts of different speeds ({shown} flop/s): schedlab turns a "
                "profile's flops into seconds at one speed; give hosts of one pstate 0 speed"
            )
        return speeds.pop()

    def queue_of(self, job: Job) -> Queue | None:
        """The queue ``job`` was submitted to: its ``job_class`` as a queue's name or SWF number."""
        return _by_label(self.queues, job.job_class)

    def partition_of(self, job: Job) -> Partition | None:
        """Where ``job`` runs: the partition it names, else its queue's, else the default one."""
        found = _by_label(self.partitions, job.partition)
        if found is not None:
            return found
        queue = self.queue_of(job)
        if queue is not None and queue.partition is not None:
            return self.partitions[queue.partition]
        return next((p for p in self.partitions.values() if p.default), None)

    def nodes_of(self, job: Job) -> tuple[int, ...]:
        """Indices of the nodes ``job`` may run on (all of them when it has no partition)."""
        partition = self.partition_of(job)
        return partition.nodes if partition is not None else tuple(range(len(self.nodes)))

    def time_limit(self, job: Job) -> float:
        """The tightest runtime limit of ``job``'s queue and partition (``inf`` when neither has one)."""
        queue, partition = self.queue_of(job), self.partition_of(job)
        return min(queue.max_runtime if queue else math.inf, partition.max_runtime if partition else math.inf)

    def admit(self, job: Job) -> Job:
        """``job`` as this platform's scheduler sees it at submission.

        Its queue's ``demands`` are added to its own, and its requested time becomes
        the queue's (or partition's) limit where it asked for none or for more, as
        PBS and Slurm set a job's time limit from its queue.
        """
        queue = self.queue_of(job)
        changes: dict[str, Any] = {}
        if queue is not None and queue.demands:
            changes["demands"] = {**job.demands, **queue.demands}
        limit = self.time_limit(job)
        if limit < math.inf and (job.estimate is None or job.estimate > limit):
            changes["estimate"] = limit
        return replace(job, **changes) if changes else job

    def swf_job(self, job: Job) -> Job:
        """A job read from an SWF log (``load_log(..., memory=True)``) as this platform runs it.

        SWF's requested memory is kilobytes per CPU; a platform's memory is GiB
        per node. Where the nodes have memory, the request becomes the job's total in
        GiB (``kB x CPUs / 2**20``), which each node holds in proportion to the
        job's cores there; where they have none, it is dropped. Then :meth:`admit`.
        """
        memory = job.demands.get("memory")
        if memory is not None:
            demands = {r: a for r, a in job.demands.items() if r != "memory"}
            if "memory" in self.resources:
                demands["memory"] = memory * job.cpus * SWF_MEMORY_TO_GIB
            job = replace(job, demands=demands)
        return self.admit(job)


def _by_label(table: Mapping[str, Any], label: str) -> Any:
    if not label:
        return None
    found = table.get(label)
    if found is not None:
        return found
    return next((item for item in table.values() if item.swf_id is not None and str(item.swf_id) == label), None)

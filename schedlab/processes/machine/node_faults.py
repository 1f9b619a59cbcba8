"""Node failures on a machine: the jobs on a failed node are killed, its processors are down until the repair.

A *node* of a :class:`~schedlab.processes.machine.machine.Machine` is a block of ``node_size``
consecutive processor ids: node ``k`` holds ids ``k * node_size`` to
``(k + 1) * node_size - 1`` (``node_size=1``, the default, makes each processor a
node, as Alea's machine ids are on a log of processors). Failures need processor ids,
so the machine must be built with ``allocation=``: a failure kills the jobs holding
one of the node's ids, and no other.

When node ``k`` fails at ``t``:

1. every job holding one of its processors is killed. Its attempt is booked in
   :attr:`NodeFaults.node_kills` (a :class:`~schedlab.model.records.node_fail.NodeKill`:
   time, node, job id, CPUs, the attempt's start and the CPU-time it held). Then,
   by the machine's ``on_node_fail``:

   - ``"requeue"``: the job waits again at its place in arrival order, with the same
     id, and starts over (its work is lost, unless its process body checkpointed:
     :mod:`schedlab.processes.machine.job_body`); its record, when it ends, is the last
     attempt's (``allocation`` that attempt's ids), with ``restarts`` counting the
     requeued kills before it;
   - ``"drop"``: the job ends with a ``NODE_FAIL`` record (``end`` the kill time,
     ``cpu_time`` what it held);

2. the node's processors go down: no allocation rule finds them free, and the
   machine's ``capacity`` drops by them (so utilization is over the processors that
   were up, and ``capacity_time`` is the processor-time available);
3. the policy decides (once, after every kill of this failure).

At ``t + duration`` the node comes back, its processors are free, and the policy
decides. Overlapping failures of one node keep it down until the last repair; each
stretch a node is down is one :class:`~schedlab.model.records.node_fail.NodeOutage`.
Jobs wider than the processors up wait for the repair; they are never rejected for it.

On a :class:`~schedlab.processes.cluster.cluster.Cluster` the nodes are the platform's nodes
(node ``k`` is ``cluster.nodes[k]``, its processors its core ids) and this same code
runs: the cluster only says what a node is (:meth:`NodeFaults.node_procs`) and how it
goes down and comes back (``_take_down``/``_bring_up``: its cores are not free, so no
placement rule puts a job on it). A
:class:`~schedlab.processes.cluster.power.PoweredCluster` also shows a down node's power state
as ``"down"`` (:mod:`schedlab.processes.cluster.power`).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Generator, Iterable, Sequence
from functools import partial
from typing import Any, Literal

import simpy

from schedlab.model.contracts.processor_map import ProcessorMap
from schedlab.model.core.failures import NodeFailure
from schedlab.model.core.job import Job
from schedlab.model.core.procset import format_procset
from schedlab.model.records.job_record import Status
from schedlab.model.records.node_fail import NodeKill, NodeOutage
from schedlab.processes.machine.running import Running, RunningSet
from schedlab.processes.tracing import Tracer

__all__ = ["NodeFaults", "OnNodeFail"]

#: what a machine does with a job that a node failure killed
OnNodeFail = Literal["requeue", "drop"]


class NodeFaults:
    """A mix-in of :class:`~schedlab.processes.machine.machine.Machine`: nodes that fail and are repaired."""

    env: simpy.Environment
    name: str
    capacity: int
    max_capacity: int
    free: int
    waiting: list[Job]
    running: RunningSet
    processors: ProcessorMap | None
    _arrival_seq: dict[Job, int]
    _suspended: dict[Job, Running]
    _deciding: bool
    _capacity_area: float
    _capacity_since: float
    _trace: Tracer | None

    def _init_faults(self, node_size: int, on_node_fail: OnNodeFail) -> None:
        if not (isinstance(node_size, int) and node_size >= 1):
            raise ValueError(f"machine {self.name!r}: node_size must be a whole number >= 1, got {node_size!r}")
        if on_node_fail not in ("requeue", "drop"):
            raise ValueError(f"machine {self.name!r}: on_node_fail must be 'requeue' or 'drop', got {on_node_fail!r}")
        #: processors per node (node k holds ids k * node_size ..)
        self.node_size = node_size
        #: "requeue" or "drop": what becomes of a job a node failure kills
        self.on_node_fail: OnNodeFail = on_node_fail
        #: every job a node failure killed, in order
        self.node_kills: list[NodeKill] = []
        #: every stretch a node was down, in the order they began (end nan while down)
        self.node_outages: list[NodeOutage] = []
        self._down: dict[int, tuple[int, int]] = {}  # node -> (failures holding it down, its outage's index)
        self._attempts: dict[Job, int] = {}  # kills so far, per requeued job still here

    # -- queries ---------------------------------------------------------------------------

    @property
    def node_count(self) -> int:
        """How many nodes the machine has (its processors over ``node_size``, the last node maybe smaller)."""
        return -(-self.max_capacity // self.node_size)

    def node_procs(self, node: int) -> range:
        """The processor ids of ``node``."""
        if not (isinstance(node, int) and 0 <= node < self.node_count):
            raise ValueError(
                f"machine {self.name!r}: no node {node!r}; it has nodes 0-{self.node_count - 1} "
                f"({self.max_capacity} processors{self._node_shape()})"
            )
        return range(node * self.node_size, min((node + 1) * self.node_size, self.max_capacity))

    def nodes_down(self) -> list[int]:
        """The nodes down now."""
        return sorted(self._down)

    def restarts(self, job: Job) -> int:
        """Times ``job`` was killed by a node failure and requeued, while here (then its record's ``restarts``)."""
        return self._attempts.get(job, 0)

    # -- failing and repairing --------------------------------------------------------------

    def fail_nodes(self, nodes: Iterable[int]) -> None:
        """Nodes fail now: kill the jobs on them (requeue or drop), take their processors down, decide."""
        self._check_failable()
        nodes = list(dict.fromkeys(nodes))
        ranges = [self.node_procs(n) for n in nodes]  # checks every node before any is failed
        now = self.env.now
        deciding, self._deciding = self._deciding, True  # one decision after the whole failure
        try:
            for node, ids in zip(nodes, ranges, strict=True):
                hit = set(ids)
                for run in [r for r in self.running if not hit.isdisjoint(self.held_ids(r.job))]:
                    self._kill_on_node(run, node, now)
                count, outage = self._down.get(node, (0, -1))
                if count == 0:
                    self._account()
                    self._take_down(node, ids)
                    outage = len(self.node_outages)
                    self.node_outages.append(NodeOutage(node, format_procset(ids), float(now), math.nan))
                    if self._trace is not None:
                        self._trace(now, self.name, "node down", f"node {node} (processors {format_procset(ids)})")
                self._down[node] = (count + 1, outage)
        finally:
            self._deciding = deciding
        self.decide()

    def repair_nodes(self, nodes: Iterable[int]) -> None:
        """One failure of each of ``nodes`` is repaired; a node with no failure left comes back up."""
        now = self.env.now
        up = False
        for node in dict.fromkeys(nodes):
            if node not in self._down:
                raise ValueError(
                    f"machine {self.name!r} at t={now}: node {node!r} is not down; nodes down: {self.nodes_down()}"
                )
            count, outage = self._down[node]
            if count > 1:
                self._down[node] = (count - 1, outage)
                continue
            del self._down[node]
            ids = self.node_procs(node)
            self._account()
            self._bring_up(node, ids)
            self.node_outages[outage] = self.node_outages[outage]._replace(end=float(now))
            up = True
            if self._trace is not None:
                self._trace(now, self.name, "node up", f"node {node}")
        if up:
            self.decide()

    def inject_failures(self, failures: Sequence[NodeFailure]) -> simpy.Process:
        """Replay ``failures`` (sorted by time) on this machine: a SimPy process failing and repairing nodes.

        A failure before now is clipped to now (what is left of its duration); one whose
        node is not on the machine raises a ValueError naming the failure's line.
        """
        for f in failures:
            for node in f.nodes or ():
                if not (isinstance(node, int) and 0 <= node < self.node_count):
                    where = f"failure log line {f.line}" if f.line else f"failure at t={f.time}"
                    raise ValueError(
                        f"{where}: node {node} is not on machine {self.name!r} "
                        f"(nodes 0-{self.node_count - 1}: {self.max_capacity} processors{self._node_shape()})"
                    )
        return self.env.process(self._failure_process(list(failures)))

    def _failure_process(self, failures: list[NodeFailure]) -> Generator[simpy.Event, Any, None]:
        env = self.env
        every = tuple(range(self.node_count))
        for f in failures:
            if f.time > env.now:
                yield env.timeout(f.time - env.now)
            left = f.time + f.duration - env.now
            if left <= 0:
                continue
            nodes = every if f.nodes is None else f.nodes
            self.fail_nodes(nodes)
            env.timeout(left).callbacks.append(partial(self._repair_event, nodes))

    # -- what a node is, and how it goes down and comes back: a Machine's; a Cluster overrides --------

    def _node_shape(self) -> str:
        """How nodes are cut from the processors, for error messages."""
        return f", node_size {self.node_size}"

    def _check_failable(self) -> None:
        """A machine fails nodes only if it names its processors (``allocation=``)."""
        if self.processors is None:
            raise ValueError(
                f"machine {self.name!r}: node failures need processor ids; "
                "build the machine with allocation='first-fit' (or another rule)"
            )

    def _take_down(self, node: int, ids: range) -> None:
        """``node``'s processors ``ids`` (its jobs killed, so free) go down: none is allocated, the capacity drops."""
        assert self.processors is not None  # _check_failable passed
        self.processors.set_down(ids)
        self._set_capacity_by(-len(ids))

    def _bring_up(self, node: int, ids: range) -> None:
        """``node`` is repaired: its processors ``ids`` are free again, the capacity grows back."""
        assert self.processors is not None
        self.processors.set_up(ids)
        self._set_capacity_by(len(ids))

    # -- internals -------------------------------------------------------------------------

    def _repair_event(self, nodes: Sequence[int], _event: simpy.Event) -> None:
        self.repair_nodes(nodes)

    def _kill_on_node(self, run: Running, node: int, now: float) -> None:
        """Kill ``run``'s job, which holds a processor of failed ``node``: book it, then requeue or drop it."""
        job = run.job
        self._account()
        run._book(now)
        attempt = self._attempts.get(job, 0) + 1
        outcome = "requeued" if self.on_node_fail == "requeue" else "dropped"
        self.node_kills.append(
            NodeKill(float(now), node, job.id, job.cpus, float(run.first_start), run.cpu_time, outcome, attempt)
        )
        self._interrupt_body(run, "node_fail")
        if self._trace is not None:
            self._trace(now, self.name, "node_fail", f"job {job.id} killed on node {node}, {outcome}")
        if outcome == "dropped":
            self._attempts.pop(job, None)
            self._forget_body(job)
            self._leave(run, Status.NODE_FAIL, now)  # decide() is held off until the failure is done
            return
        self._attempts[job] = attempt
        run.event = None  # its planned end is stale now
        self._release(run)
        self._suspended.pop(job, None)
        # back in the queue at its place in arrival order (the queue is sorted by arrival)
        arrival = self._arrival_seq
        self.waiting.insert(bisect.bisect(self.waiting, arrival[job], key=arrival.__getitem__), job)

    def _set_capacity_by(self, delta: int, free: int | None = None) -> None:
        """Processors up change by ``delta`` (after _account), the free ones by ``free`` (default
        ``delta``: the node's processors were all free): the capacity integral is kept exact."""
        now = self.env.now
        self._capacity_area += self.capacity * (now - self._capacity_since)
        self._capacity_since = now
        self.capacity += delta
        self.free += delta if free is None else free

    # provided by the machine and its other parts
    def held_ids(self, job: Job) -> list[int]:
        """The processor ids ``job`` holds: ProcessorIds', declared here for the mix-in."""
        raise NotImplementedError

    def decide(self) -> None:
        """Ask the policy for its actions: the host Machine's ``decide``, declared here for the mix-in."""
        raise NotImplementedError

    def _account(self) -> None:
        raise NotImplementedError

    def _leave(self, run: Running, status: Status, now: float) -> None:
        raise NotImplementedError

    def _release(self, run: Running) -> None:
        raise NotImplementedError

    def _interrupt_body(self, run: Running, cause: str) -> None:  # JobBodies'
        raise NotImplementedError

    def _forget_body(self, job: Job) -> None:  # JobBodies'
        raise NotImplementedError

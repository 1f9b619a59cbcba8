"""Node failures on a machine: the jobs on a failed node are killed, its CPUs are down until the repair.

A *node* of a :class:`~schedlab.processes.machine.machine.Machine` is a block of ``node_size``
consecutive CPU ids: node ``k`` holds ids ``k * node_size`` to
``(k + 1) * node_size - 1`` (``node_size=1``, the default, makes each CPU a
node, as Alea's machine ids are on a log of CPUs). Failures need CPU ids,
so the machine must be built with ``allocation=``: a failure kills the jobs holding
one of the node's ids, and no other.

When node ``k`` fails at ``t``:

1. every job holding one of its CPUs is killed. Its attempt is booked in
   :attr:`NodeFailures.node_kills` (a :class:`~schedlab.model.records.node_fail.NodeKill`:
   time, node, job id, CPUs, the attempt's start and the CPU-time it held). Then,
   by the machine's ``on_node_fail``:

   - ``"requeue"``: the job waits again at its place in arrival order, with the same
     id, and starts over (its work is lost, unless its process body checkpointed:
     :mod:`schedlab.processes.machine.job_body`); its record, when it ends, is the last
     attempt's (``allocation`` that attempt's ids), with ``restarts`` counting the
     requeued kills before it;
   - ``"drop"``: the job ends with a ``NODE_FAIL`` record (``end`` the kill time,
     ``cpu_time`` what it held);

2. the node's CPUs go down: no allocation rule finds them free, and the
   machine's ``capacity`` drops by them (so utilization is over the CPUs that
   were up, and ``capacity_time`` is the CPU-time available);
3. the policy decides (once, after every kill of this failure).

At ``t + duration`` the node comes back, its CPUs are free, and the policy
decides. Overlapping failures of one node keep it down until the last repair; each
stretch a node is down is one :class:`~schedlab.model.records.node_fail.NodeOutage`.
Jobs wider than the CPUs up wait for the repair; they are never rejected for it.

On a :class:`~schedlab.processes.cluster.cluster.Cluster` the nodes are the platform's nodes
(node ``k`` is ``cluster.nodes[k]``, its CPUs its core ids) and this same code
runs: the cluster only says what a node is (the ``starts`` of its :class:`NodeFailures`) and
how it goes down and comes back (its ``_take_down``/``_bring_up``: its cores are not free,
so no placement rule puts a job on it). A
:class:`~schedlab.processes.cluster.power.PoweredCluster` also shows a down node's power state
as ``"down"`` (:mod:`schedlab.processes.cluster.power`).

:class:`NodeFailures` is a part the machine holds (``machine.failures``) and calls; the
machine's ``fail_nodes``, ``node_kills`` and the rest are its answers.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Generator, Iterable, Sequence
from functools import partial
from typing import Any, Literal, cast

import simpy

from schedlab.model.core.failures import NodeFailure
from schedlab.model.core.job import Job
from schedlab.model.core.procset import format_procset
from schedlab.model.records.job_record import Status
from schedlab.model.records.node_fail import NodeKill, NodeOutage
from schedlab.processes.machine.parts_view import MachineWithNodes, PartsView
from schedlab.processes.machine.running import Running

__all__ = ["NodeFailures", "OnNodeFail", "node_starts"]

#: what a machine does with a job that a node failure killed
OnNodeFail = Literal["requeue", "drop"]


def node_starts(name: str, cpus: int, node_size: int) -> range:
    """The first CPU id of each node of ``node_size`` CPUs, then one past the last (a lazy range)."""
    if not (isinstance(node_size, int) and node_size >= 1):
        raise ValueError(f"machine {name!r}: node_size must be a whole number >= 1, got {node_size!r}")
    return range(0, cpus + node_size, node_size)  # the last node may be smaller


class NodeFailures:
    """The nodes of ``machine`` that fail and are repaired, and the jobs the failures killed (its ``failures``).

    Parameters
    ----------
    machine
        The machine whose nodes fail (it kills, requeues and records their jobs).
    starts
        Node ``k``'s CPUs are ids ``starts[k]`` to ``starts[k + 1] - 1`` (capped at the
        machine's CPUs): :func:`node_starts` for a machine, each node's first core for a cluster.
    shape
        How the nodes are cut from the CPUs, for error messages (``", node_size 2"``).
    on_node_fail
        ``"requeue"`` or ``"drop"``: what becomes of a job a node failure kills.
    failable
        Whether nodes can fail at all: only on a machine that names its CPUs.
    """

    def __init__(
        self, machine: PartsView, starts: Sequence[int], shape: str, on_node_fail: OnNodeFail, *, failable: bool
    ) -> None:
        if on_node_fail not in ("requeue", "drop"):
            raise ValueError(
                f"machine {machine.name!r}: on_node_fail must be 'requeue' or 'drop', got {on_node_fail!r}"
            )
        self.machine = machine
        self.starts = starts
        self.shape = shape
        #: "requeue" or "drop": what becomes of a job a node failure kills
        self.on_node_fail: OnNodeFail = on_node_fail
        self.failable = failable
        #: every job a node failure killed, in order
        self.node_kills: list[NodeKill] = []
        #: every stretch a node was down, in the order they began (end nan while down)
        self.node_outages: list[NodeOutage] = []
        self._down: dict[int, tuple[int, int]] = {}  # node -> (failures holding it down, its outage's index)
        self._attempts: dict[Job, int] = {}  # kills so far, per requeued job still here

    # -- queries ---------------------------------------------------------------------------

    @property
    def node_count(self) -> int:
        """How many nodes the machine has."""
        return len(self.starts) - 1

    def node_procs(self, node: int) -> range:
        """The CPU ids of ``node``."""
        m = self.machine
        if not (isinstance(node, int) and 0 <= node < self.node_count):
            raise ValueError(
                f"machine {m.name!r}: no node {node!r}; it has nodes 0-{self.node_count - 1} "
                f"({m.max_capacity} CPUs{self.shape})"
            )
        return range(self.starts[node], min(self.starts[node + 1], m.max_capacity))

    def nodes_down(self) -> list[int]:
        """The nodes down now."""
        return sorted(self._down)

    def restarts(self, job: Job) -> int:
        """Times ``job`` was killed by a node failure and requeued, while here (then its record's ``restarts``)."""
        return self._attempts.get(job, 0)

    def ended(self, job: Job) -> int:
        """``job`` leaves the machine: its restarts, for its record, forgotten here."""
        return self._attempts.pop(job, 0)

    # -- failing and repairing --------------------------------------------------------------

    def fail_nodes(self, nodes: Iterable[int]) -> None:
        """Nodes fail now: kill the jobs on them (requeue or drop), take their CPUs down, decide."""
        m = self.machine
        if not self.failable:
            raise ValueError(
                f"machine {m.name!r}: node failures need CPU ids; "
                "build the machine with allocation='first-fit' (or another rule)"
            )
        nodes = list(dict.fromkeys(nodes))
        ranges = [self.node_procs(n) for n in nodes]  # checks every node before any is failed
        now = m.env.now
        deciding, m.decisions.deciding = m.decisions.deciding, True  # one decision after the whole failure
        try:
            for node, ids in zip(nodes, ranges, strict=True):
                hit = set(ids)
                for run in [r for r in m.running if not hit.isdisjoint(m.ids.held_ids(r.job))]:
                    self._kill_on_node(run, node, now)
                count, outage = self._down.get(node, (0, -1))
                if count == 0:
                    m.cpu_time.account()
                    cast(MachineWithNodes, m)._take_down(node, ids)  # failable: it names its CPUs
                    outage = len(self.node_outages)
                    self.node_outages.append(NodeOutage(node, format_procset(ids), float(now), math.nan))
                    if m._trace is not None:
                        m._trace(now, m.name, "node down", f"node {node} (CPUs {format_procset(ids)})")
                self._down[node] = (count + 1, outage)
        finally:
            m.decisions.deciding = deciding
        m.decide()

    def repair_nodes(self, nodes: Iterable[int]) -> None:
        """One failure of each of ``nodes`` is repaired; a node with no failure left comes back up."""
        m = self.machine
        now = m.env.now
        up = False
        for node in dict.fromkeys(nodes):
            if node not in self._down:
                raise ValueError(
                    f"machine {m.name!r} at t={now}: node {node!r} is not down; nodes down: {self.nodes_down()}"
                )
            count, outage = self._down[node]
            if count > 1:
                self._down[node] = (count - 1, outage)
                continue
            del self._down[node]
            ids = self.node_procs(node)
            m.cpu_time.account()
            cast(MachineWithNodes, m)._bring_up(node, ids)  # it failed, so it names its CPUs
            self.node_outages[outage] = self.node_outages[outage]._replace(end=float(now))
            up = True
            if m._trace is not None:
                m._trace(now, m.name, "node up", f"node {node}")
        if up:
            m.decide()

    def inject_failures(self, failures: Sequence[NodeFailure]) -> simpy.Process:
        """Replay ``failures`` (sorted by time) on the machine: a SimPy process failing and repairing nodes.

        A failure before now is clipped to now (what is left of its duration); one whose
        node is not on the machine raises a ValueError naming the failure's line.
        """
        m = self.machine
        for f in failures:
            for node in f.nodes or ():
                if not (isinstance(node, int) and 0 <= node < self.node_count):
                    where = f"failure log line {f.line}" if f.line else f"failure at t={f.time}"
                    raise ValueError(
                        f"{where}: node {node} is not on machine {m.name!r} "
                        f"(nodes 0-{self.node_count - 1}: {m.max_capacity} CPUs{self.shape})"
                    )
        return m.env.process(self._failure_process(list(failures)))

    def _failure_process(self, failures: list[NodeFailure]) -> Generator[simpy.Event, Any, None]:
        env = self.machine.env
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

    def _repair_event(self, nodes: Sequence[int], _event: simpy.Event) -> None:
        self.repair_nodes(nodes)

    def _kill_on_node(self, run: Running, node: int, now: float) -> None:
        """Kill ``run``'s job, which holds a CPU of failed ``node``: book it, then requeue or drop it."""
        m = self.machine
        job = run.job
        m.cpu_time.account()
        run._book(now)
        attempt = self._attempts.get(job, 0) + 1
        outcome = "requeued" if self.on_node_fail == "requeue" else "dropped"
        self.node_kills.append(
            NodeKill(float(now), node, job.id, job.cpus, float(run.first_start), run.cpu_time, outcome, attempt)
        )
        m.bodies.interrupt(run, "node_fail")
        if m._trace is not None:
            m._trace(now, m.name, "node_fail", f"job {job.id} killed on node {node}, {outcome}")
        if outcome == "dropped":
            self._attempts.pop(job, None)
            m.bodies.forget(job)
            m._leave(run, Status.NODE_FAIL, now)  # decide() is held off until the failure is done
            return
        self._attempts[job] = attempt
        run.event = None  # its planned end is stale now
        m._release(run)
        m._suspended.pop(job, None)
        # back in the queue at its place in arrival order (the queue is sorted by arrival)
        arrival = m._arrival_seq
        m.waiting.insert(bisect.bisect(m.waiting, arrival[job], key=arrival.__getitem__), job)

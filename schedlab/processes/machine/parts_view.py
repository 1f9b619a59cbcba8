"""The machine as its parts see it: what they read, write and call on the machine that holds them.

A :class:`~schedlab.processes.machine.machine.Machine` holds its features as parts, one module
each (``decisions``, ``cpu_time``, ``ends``, ``reallocation``, ``bodies``, ``ids``, ``failures``:
docs/architecture.md, "The Machine"). A part is given the machine, and reads its state, calls
its methods and asks the other parts through it. The parts are typed against
:class:`PartsView`, not against ``Machine``: ``machine.py`` imports the parts, so a part that
imported ``Machine``, even for its type only, would make the two modules a cycle that no
module could be read or type-checked without the other (tests/test_architecture.py).

:class:`PartsView` lists exactly what the parts use, and the protocols above it the members
that one part uses of another; mypy checks that the machine is a ``PartsView`` where it
hands itself to its parts, so this list cannot drift from the class. It costs nothing at run
time: the parts hold the machine itself. :class:`MachineWithNodes` adds what the ``failures``
part calls on a machine whose nodes go down and come back (a ``MachineWithIds``, a cluster).
"""

from __future__ import annotations

from typing import Protocol

import simpy

from schedlab.model.contracts.cpu_map import CpuMap
from schedlab.model.contracts.machine import Action, Policy
from schedlab.model.core.job import Job
from schedlab.model.records.job_record import JobRecord, Status
from schedlab.model.records.log import RecordLog
from schedlab.processes.machine.running import Running, RunningSet
from schedlab.processes.machine.view import PolicyView
from schedlab.processes.signal import Signal
from schedlab.processes.tracing import Tracer

__all__ = [
    "BodiesPart",
    "CpuTimePart",
    "DecisionsPart",
    "EndsPart",
    "FailuresPart",
    "IdsPart",
    "MachineWithNodes",
    "PartsView",
]


class DecisionsPart(Protocol):
    """What the parts use of ``decisions`` (:class:`~schedlab.processes.machine.decisions.Decisions`)."""

    #: the policy is being asked now (node failures hold it so, to decide once after all their kills)
    deciding: bool

    def event(self) -> None:
        """A decision event: decide now, or once the instant's other events are done."""
        ...


class CpuTimePart(Protocol):
    """What the parts use of ``cpu_time`` (:class:`~schedlab.processes.machine.capacity.CpuTime`)."""

    def account(self) -> None:
        """Add the CPU-time allocated since the last change; called before every change."""
        ...


class EndsPart(Protocol):
    """What the parts use of ``ends`` (:class:`~schedlab.processes.machine.job_end.JobEnds`)."""

    def plan(self, event: simpy.Event) -> None:
        """Schedule the end of a job's current allocation (a plain job's ``_Allocated`` callback)."""
        ...


class BodiesPart(Protocol):
    """What the parts use of ``bodies`` (:class:`~schedlab.processes.machine.job_body.JobBodies`)."""

    def allocated(self, run: Running, interrupted: str | None = None) -> simpy.Event:
        """The event that moves ``run`` next: a plain job's end is planned, a body job's body started."""
        ...

    def interrupt(self, run: Running, cause: str) -> None:
        """End ``run``'s current incarnation (if it has a body) with ``Interrupt(cause)``."""
        ...

    def forget(self, job: Job) -> None:
        """``job`` left the machine: its body's state goes."""
        ...


class IdsPart(Protocol):
    """What the parts use of ``ids`` (:class:`~schedlab.processes.machine.cpu_ids.CpuIds`)."""

    @property
    def cpu_map(self) -> CpuMap | None:
        """The CPUs, free or busy (``None`` without a rule's map)."""
        ...

    def held_ids(self, job: Job) -> list[int]:
        """The CPU ids ``job`` holds now (empty if none)."""
        ...

    def run_allocation(self, job: Job) -> str:
        """The interval set of the ids ``job`` held in its current run."""
        ...


class FailuresPart(Protocol):
    """What the parts use of ``failures`` (:class:`~schedlab.processes.machine.node_failures.NodeFailures`)."""

    def restarts(self, job: Job) -> int:
        """Times ``job`` was killed by a node failure and requeued, while here."""
        ...


class PartsView(Protocol):
    """What a machine's parts read, write and call on it (the machine's own docstring says what each is)."""

    env: simpy.Environment
    name: str
    capacity: int  # written by cpu_time, as the pool grows or a node goes down
    max_capacity: int
    free: int  # written by cpu_time and reallocation
    policy: Policy
    view: PolicyView
    waiting: list[Job]
    running: RunningSet
    records: RecordLog
    completed: Signal[JobRecord]
    _trace: Tracer | None
    _suspended: dict[Job, Running]
    _arrival_seq: dict[Job, int]

    @property
    def gives_ids(self) -> bool:
        """Whether its class gives CPU ids (a MachineWithIds does)."""
        ...

    # its parts, as the other parts use them (read-only here: a part never replaces another)
    @property
    def decisions(self) -> DecisionsPart:
        """When and how it asks its policy."""
        ...

    @property
    def cpu_time(self) -> CpuTimePart:
        """Its CPU-time integrals and elastic capacity."""
        ...

    @property
    def ends(self) -> EndsPart:
        """A plain job's end event, its time limit and its record."""
        ...

    @property
    def bodies(self) -> BodiesPart:
        """Its jobs' process bodies."""
        ...

    @property
    def ids(self) -> IdsPart:
        """The CPU ids its jobs hold."""
        ...

    @property
    def failures(self) -> FailuresPart:
        """Its nodes' failures."""
        ...

    # its methods the parts call
    def start(self, job: Job, cpus: int | None = None) -> None:
        """Start (or resume) waiting ``job`` on ``cpus`` CPUs (default: all it asked for)."""
        ...

    def apply(self, action: Action) -> None:
        """Carry out one action."""
        ...

    def decide(self) -> None:
        """Ask the policy for actions until it has none."""
        ...

    def _complete(self, event: simpy.Event) -> None: ...

    def _leave(self, run: Running, status: Status, now: float, restarts: int = 0, allocation: str = ...) -> None: ...

    def _release(self, run: Running) -> None: ...

    def _running_state(self, job: Job) -> Running: ...


class MachineWithNodes(PartsView, Protocol):
    """A machine whose nodes go down and come back: what ``failures`` calls on it when one does."""

    def _take_down(self, node: int, ids: range) -> None: ...

    def _bring_up(self, node: int, ids: range) -> None: ...

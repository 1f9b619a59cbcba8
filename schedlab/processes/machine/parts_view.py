"""The machine as its parts see it: what they read, write and call on the machine that holds them.

A :class:`~schedlab.processes.machine.machine.Machine` holds its features as parts, one module
each (``decisions``, ``cpu_time``, ``ends``, ``reallocation``, ``bodies``, ``ids``, ``faults``:
docs/architecture.md, "The Machine"). A part is given the machine, and reads its state, calls
its methods and asks the other parts through it. The parts are typed against
:class:`PartsView`, not against ``Machine``: ``machine.py`` imports the parts, so a part that
imported ``Machine``, even for its type only, would make the two modules a cycle that no
module could be read or type-checked without the other (tests/test_architecture.py).

:class:`PartsView` lists exactly what the parts use, and the protocols above it the members
that one part uses of another; mypy checks that the machine is a ``PartsView`` where it
hands itself to its parts, so this list cannot drift from the class. It costs nothing at run
time: the parts hold the machine itself. :class:`MachineWithNodes` adds what the ``faults``
part calls on a machine whose nodes go down and come back (a ``MachineWithIds``, a cluster).
"""

from __future__ import annotations

from typing import Protocol

import simpy

from schedlab.model.contracts.machine import Action, Policy
from schedlab.model.contracts.processor_map import ProcessorMap
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
    "FaultsPart",
    "IdsPart",
    "MachineWithNodes",
    "PartsView",
]


class DecisionsPart(Protocol):
    """What the parts use of ``decisions`` (:class:`~schedlab.processes.machine.decisions.Decisions`)."""

    #: the policy is being asked now (node failures hold it so, to decide once after all their kills)
    deciding: bool

    def event(self) -> None: ...


class CpuTimePart(Protocol):
    """What the parts use of ``cpu_time`` (:class:`~schedlab.processes.machine.capacity.CpuTime`)."""

    def account(self) -> None: ...


class EndsPart(Protocol):
    """What the parts use of ``ends`` (:class:`~schedlab.processes.machine.job_end.JobEnds`)."""

    def plan(self, event: simpy.Event) -> None: ...


class BodiesPart(Protocol):
    """What the parts use of ``bodies`` (:class:`~schedlab.processes.machine.job_body.JobBodies`)."""

    def allocated(self, run: Running, interrupted: str | None = None) -> simpy.Event: ...

    def interrupt(self, run: Running, cause: str) -> None: ...

    def forget(self, job: Job) -> None: ...


class IdsPart(Protocol):
    """What the parts use of ``ids`` (:class:`~schedlab.processes.machine.processor_ids.ProcessorIds`)."""

    @property
    def processors(self) -> ProcessorMap | None: ...

    def held_ids(self, job: Job) -> list[int]: ...

    def run_allocation(self, job: Job) -> str: ...


class FaultsPart(Protocol):
    """What the parts use of ``faults`` (:class:`~schedlab.processes.machine.node_faults.NodeFaults`)."""

    def restarts(self, job: Job) -> int: ...


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
    def gives_ids(self) -> bool: ...

    # its parts, as the other parts use them (read-only here: a part never replaces another)
    @property
    def decisions(self) -> DecisionsPart: ...

    @property
    def cpu_time(self) -> CpuTimePart: ...

    @property
    def ends(self) -> EndsPart: ...

    @property
    def bodies(self) -> BodiesPart: ...

    @property
    def ids(self) -> IdsPart: ...

    @property
    def faults(self) -> FaultsPart: ...

    # its methods the parts call
    def start(self, job: Job, cpus: int | None = None) -> None: ...

    def apply(self, action: Action) -> None: ...

    def decide(self) -> None: ...

    def _complete(self, event: simpy.Event) -> None: ...

    def _leave(self, run: Running, status: Status, now: float, restarts: int = 0, allocation: str = ...) -> None: ...

    def _release(self, run: Running) -> None: ...

    def _running_state(self, job: Job) -> Running: ...


class MachineWithNodes(PartsView, Protocol):
    """A machine whose nodes go down and come back: what ``faults`` calls on it when one does."""

    def _take_down(self, node: int, ids: range) -> None: ...

    def _bring_up(self, node: int, ids: range) -> None: ...

"""Step through a model one event at a time: the clock, the event list, what happened.

A discrete-event simulation keeps an *event list* (SimPy calls it the schedule): the
events due to happen, ordered by time. The simulation loop takes the first event,
moves the *clock* to its time and runs its callbacks, which resume the processes
waiting on it; they in turn schedule new events. :class:`Stepper` makes that loop
visible: :meth:`Stepper.pending` lists the next events, :meth:`Stepper.step` takes
one, and what the model's components traced meanwhile comes back with it.

Built on ``env.peek()`` and ``env.step()``. Listing the event list reads SimPy's heap
(``env._queue``), read-only, on a sorted copy: SimPy has no public way to list it,
and nothing here changes it.

What it prints speaks in public terms, never in internal names: a process is named by
its component (``source``), with its generator's name only when that is public; an
event class or a callback marked with :func:`~schedlab.processes.tracing.step_label`
is shown by its label (``CPUs allocated to job 0 -> server plans the end of job 0``),
and one with a private name and no label by the public SimPy class it extends.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import simpy
from simpy.events import Initialize, Process, Timeout

from schedlab.processes.tracing import TraceEntry, TraceLog, tracer_of

__all__ = ["PendingEvent", "Step", "Stepper", "describe_event"]

#: SimPy's priorities: URGENT (0) events at a time are taken before NORMAL (1) ones
_PRIORITY = {0: "urgent", 1: "normal"}


@dataclass(frozen=True, slots=True)
class PendingEvent:
    """One entry of the event list: when it is due, its priority, what it is."""

    time: float
    priority: str
    what: str

    def __str__(self) -> str:
        return f"{self.time:12.4f}  {self.priority:<7} {self.what}"


@dataclass(frozen=True, slots=True)
class Step:
    """What one step did: the clock before and after, the event taken, the trace it left."""

    before: float
    now: float
    event: str
    trace: tuple[TraceEntry, ...]

    def __str__(self) -> str:
        lines = [f"t={self.before:g} -> {self.now:g}: {self.event}"]
        lines += [f"    {e.process}: {e.action} {e.detail}" for e in self.trace]
        return "\n".join(lines)


#: names already given to processes: a finished generator has no frame left to ask
_NAMES: weakref.WeakKeyDictionary[Process, str] = weakref.WeakKeyDictionary()


def _owner(process: Process) -> str:
    """Name a process by the component whose generator it runs (``source``), else by its function.

    The generator's name follows the component's only when it is public (``grid.run``,
    not ``source._run``): a private method's name means nothing to the reader.
    """
    frame = getattr(getattr(process, "_generator", None), "gi_frame", None)
    if frame is None:
        return _NAMES.get(process, process.name)
    owner = frame.f_locals.get("self")
    name = getattr(owner, "name", None)
    if owner is not None and not isinstance(name, str):
        # a component without a name: its class, and its index among its kind if it has one
        index = getattr(owner, "index", None)
        name = type(owner).__name__ + (f" {index}" if isinstance(index, int) else "")
    if isinstance(name, str):
        text = name if process.name.startswith("_") else f"{name}.{process.name}"
    else:
        text = process.name
    _NAMES[process] = text
    return text


def _job(event: simpy.Event) -> str:
    """The job an event carries as its value (a machine's allocation and end events do), or ``the job``."""
    job = getattr(getattr(event, "_value", None), "job", None)  # _value: SimPy's field behind .value
    return f"job {job.id}" if job is not None and hasattr(job, "id") else "the job"


def _call(callback: Any, event: simpy.Event) -> str:
    """A component's method called back directly, in public terms: ``server completes job 0``."""
    name = callback.__self__.name
    label = getattr(callback, "step_label", None)
    if isinstance(label, str):
        return f"{name} {label.format(job=_job(event))}"
    method = callback.__name__
    return f"{name}.{method}" if not method.startswith("_") else f"{name} (a callback)"


def _event_name(event: simpy.Event) -> str:
    """An event's class in public terms: its label, its own name if public, else the SimPy class it extends."""
    label = getattr(event, "step_label", None)
    if isinstance(label, str):
        return label.format(job=_job(event))
    public = next(k for k in type(event).__mro__ if not k.__name__.startswith("_"))
    return public.__name__


def describe_event(event: simpy.Event) -> str:
    """A short, readable description of a SimPy event and of whom it will wake, in public names."""
    owners = [getattr(cb, "__self__", None) for cb in (event.callbacks or [])]  # a bound method's object, else None
    waiting = [owner for owner in owners if isinstance(owner, Process)]
    wakes = f" -> wakes {', '.join(_owner(p) for p in waiting)}" if waiting else ""
    # a component's method called back directly (a Machine ends its jobs so): say what it does
    calls = [
        _call(cb, event)
        for cb in (event.callbacks or [])
        if not isinstance(getattr(cb, "__self__", None), Process)
        and isinstance(getattr(getattr(cb, "__self__", None), "name", None), str)
    ]
    wakes += f" -> {', '.join(calls)}" if calls else ""
    if isinstance(event, Initialize):
        return f"start process {', '.join(_owner(p) for p in waiting) or '?'}"
    if isinstance(event, Timeout):
        delay = getattr(event, "_delay", None)  # SimPy keeps a timeout's delay under this name only
        return f"timeout({delay:g}){wakes}" if isinstance(delay, int | float) else f"timeout{wakes}"
    if isinstance(event, Process):
        return f"process {_owner(event)} ended{wakes}"
    return f"{_event_name(event)}{wakes}"


class Stepper:
    """Run a SimPy environment event by event, showing the clock and the event list.

    Parameters
    ----------
    env
        The environment, with its model already built on it. Build on a
        :class:`~schedlab.processes.tracing.TracedEnvironment` (or set a
        :class:`~schedlab.processes.tracing.TraceLog` as ``env.tracer`` first) to see
        what each step did to the model, not only which event it took.

    Examples
    --------
    >>> from schedlab.processes import TracedEnvironment
    >>> env = TracedEnvironment()
    >>> _ = env.timeout(2.5)
    >>> stepper = Stepper(env)
    >>> stepper.next_time, stepper.step().now
    (2.5, 2.5)
    """

    def __init__(self, env: simpy.Environment) -> None:
        self.env = env
        tracer = tracer_of(env)
        # only a TraceLog keeps entries we can hand back; another tracer still runs, unseen here
        self._log: TraceLog | None = tracer if isinstance(tracer, TraceLog) else None
        self.steps = 0

    @property
    def now(self) -> float:
        """The clock: the simulated time of the last event taken."""
        return float(self.env.now)

    @property
    def next_time(self) -> float:
        """Time of the next event (``inf`` when the event list is empty)."""
        return float(self.env.peek())

    @property
    def done(self) -> bool:
        """True when no event is left."""
        return self.env.peek() == float("inf")

    def pending(self, limit: int = 10) -> list[PendingEvent]:
        """The next ``limit`` events of the event list, in the order they will be taken."""
        if limit < 1:
            raise ValueError(f"limit must be >= 1, got {limit}")
        queue: list[tuple[float, int, int, simpy.Event]] = list(getattr(self.env, "_queue", []))
        queue.sort(key=lambda item: item[:3])  # (time, priority, insertion id): SimPy's own order
        return [
            PendingEvent(float(t), _PRIORITY.get(int(p), str(p)), describe_event(e)) for t, p, _, e in queue[:limit]
        ]

    def event_list(self, limit: int = 10) -> str:
        """:meth:`pending` as a small table, with the clock above it."""
        rows = self.pending(limit)
        more = len(getattr(self.env, "_queue", [])) - len(rows)
        lines = [
            f"clock t={self.now:g}; event list ({len(rows) + max(more, 0)} events):",
            f"{'time':>12}  {'prio':<7} event",
        ]
        lines += [str(r) for r in rows]
        if more > 0:
            lines.append(f"{'':>12}  ... {more} more")
        return "\n".join(lines)

    def step(self) -> Step:
        """Take the next event; returns what it was and what the model traced meanwhile.

        Raises
        ------
        RuntimeError
            When the event list is empty (the simulation has ended).
        """
        if self.done:
            raise RuntimeError(f"no event left to step: the simulation ended at t={self.now:g}")
        queue: list[Any] = getattr(self.env, "_queue", [])
        # the heap's first item is the next event; describe it before its callbacks clear
        what = describe_event(min(queue, key=lambda item: item[:3])[3]) if queue else "event"
        before, seen = self.now, len(self._log.entries) if self._log is not None else 0
        self.env.step()
        self.steps += 1
        trace = tuple(self._log.entries[seen:]) if self._log is not None else ()
        return Step(before, self.now, what, trace)

    def steps_until(self, time: float | None = None, *, limit: int | None = None) -> Iterator[Step]:
        """Yield steps until the next event is after ``time``, ``limit`` steps were taken, or none is left."""
        taken = 0
        while not self.done and (time is None or self.next_time <= time) and (limit is None or taken < limit):
            yield self.step()
            taken += 1

    def __repr__(self) -> str:
        return f"Stepper(now={self.now:g}, next={self.next_time:g}, steps={self.steps})"

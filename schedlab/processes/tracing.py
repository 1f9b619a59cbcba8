"""Event traces: what happened, when, to whom — the table a teacher shows a class.

Components look for a tracer on their environment (``env.tracer``) once, when built;
with none attached, tracing costs one ``is None`` test per event. Use
:class:`TracedEnvironment` (or set ``env.tracer`` on any SimPy environment before
building) to collect :class:`TraceEntry` rows.

:func:`step_label` names, in public terms, an event class or a callback that the
step-through (:class:`~schedlab.processes.stepping.Stepper`) would otherwise show by
its internal name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import simpy

__all__ = ["TraceEntry", "TraceLog", "TracedEnvironment", "step_label", "tracer_of"]

_Labelled = TypeVar("_Labelled")


@dataclass(frozen=True, slots=True)
class TraceEntry:
    """One traced event: simulated time, the process it happened in, the action, details."""

    time: float
    process: str
    action: str
    detail: str

    def __str__(self) -> str:
        return f"{self.time:12.4f}  {self.process:<14} {self.action:<10} {self.detail}"


Tracer = Callable[[float, str, str, str], None]


class TraceLog:
    """Collects trace entries; optionally stops collecting after ``limit`` of them."""

    def __init__(self, limit: int | None = None) -> None:
        self.entries: list[TraceEntry] = []
        self.limit = limit

    def __call__(self, time: float, process: str, action: str, detail: str) -> None:
        if self.limit is None or len(self.entries) < self.limit:
            self.entries.append(TraceEntry(time, process, action, detail))

    def table(self) -> str:
        """The entries as a plain-text table."""
        return self.format(self.entries)

    @staticmethod
    def format(entries: list[TraceEntry]) -> str:
        """``entries`` as a table: time, process, action and detail, one line each."""
        header = f"{'time':>12}  {'process':<14} {'action':<10} detail"
        return "\n".join([header, *map(str, entries)])


class TracedEnvironment(simpy.Environment):
    """A SimPy environment that carries a tracer for the components built on it."""

    def __init__(self, initial_time: float = 0, tracer: Tracer | None = None) -> None:
        super().__init__(initial_time)
        self.tracer: Tracer | None = tracer if tracer is not None else TraceLog()


def tracer_of(env: simpy.Environment) -> Tracer | None:
    """The tracer attached to ``env``, if any."""
    return getattr(env, "tracer", None)


def step_label(text: str) -> Callable[[_Labelled], _Labelled]:
    """Give an event class or a component's callback a public name for the step-through.

    The step-through shows what a teacher's class reads, so an internal name (a
    private event class, a method with a leading underscore) is replaced by ``text``:
    a component's callback is shown as ``"<component> <text>"`` (``server completes
    job 0``), an event as ``text`` (``CPUs allocated to job 0``). ``{job}`` in ``text``
    becomes the job the event carries (``job 0``), or ``the job``.
    """

    def label(obj: _Labelled) -> _Labelled:
        obj.step_label = text  # type: ignore[attr-defined]  # read back by stepping.describe_event
        return obj

    return label

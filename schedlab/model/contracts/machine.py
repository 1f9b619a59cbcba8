"""What a policy sees and what it may decide, as plain data (no SimPy).

At every decision event (an arrival, a completion, a tick) a machine calls its
policy with a read-only :class:`MachineView` and applies the :data:`Action` it returns,
then asks again, until the policy returns ``None``. Policies in
:mod:`schedlab.policies` and learners in :mod:`schedlab.learners` are written against
these types only.

A queue order is the other thing a policy may be built on: an :class:`Order` ranks the
waiting jobs, and the backfilling rules (EASY, conservative, their cluster variants)
start jobs in its ranking. A :data:`Score` is the short way to write one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NamedTuple, Protocol, runtime_checkable

from schedlab.model.core.job import Job

__all__ = ["Action", "MachineView", "Order", "Policy", "Preempt", "Resize", "RunningView", "Score", "Start"]


class Start(NamedTuple):
    """Start (or resume) waiting ``job`` on ``cpus`` CPUs (default: all it asked for).

    Actions are named tuples: immutable and small. (Their ``__new__`` is a short
    Python function that NamedTuple generates around tuple's constructor, not C; at a
    fraction of a microsecond per start it is not worth a less readable type.)

    Fewer CPUs than asked for "squeezes" the job: it runs at rate ``cpus / job.cpus``.
    """

    job: Job
    cpus: int | None = None


class Preempt(NamedTuple):
    """Suspend running ``job``: it gives its CPUs back and waits to resume where it left off."""

    job: Job


class Resize(NamedTuple):
    """Change running ``job``'s allocation to ``cpus`` (squeeze it, or grow it back)."""

    job: Job
    cpus: int


Action = Start | Preempt | Resize


class RunningView(Protocol):
    """A running job as a policy sees it."""

    @property
    def job(self) -> Job:
        """The job."""
        ...

    @property
    def cpus(self) -> int:
        """CPUs allocated now."""
        ...

    @property
    def first_start(self) -> float:
        """When the job first started: its wait ended there."""
        ...

    @property
    def started(self) -> float:
        """When the current allocation began (last start, resume or resize)."""
        ...

    @property
    def requested_end(self) -> float:
        """When it ends by its requested (user-estimated) time, as a scheduler would expect."""
        ...

    def remaining(self, now: float) -> float:
        """Ideal (full-allocation) execution time still to do at ``now``."""
        ...

    def expected_end(self, now: float) -> float:
        """When it ends at its current rate, were nothing to change."""
        ...


class MachineView(Protocol):
    """Read-only state of a machine at a decision event.

    ``waiting`` is in the order jobs reached the machine (a suspended job goes back
    to its first place); policies must not mutate it.
    """

    @property
    def name(self) -> str:
        """The machine's name."""
        ...

    @property
    def now(self) -> float:
        """The simulated time."""
        ...

    @property
    def capacity(self) -> int:
        """The machine's CPUs."""
        ...

    @property
    def free(self) -> int:
        """Its idle CPUs."""
        ...

    @property
    def waiting(self) -> Sequence[Job]:
        """The waiting jobs, in arrival order (preempted ones too)."""
        ...

    @property
    def running(self) -> Sequence[RunningView]:
        """The running jobs."""
        ...

    @property
    def resources(self) -> Mapping[str, float]:
        """Capacities of the machine's other named resources (memory...)."""
        ...

    @property
    def used(self) -> Mapping[str, float]:
        """How much of each other resource the running jobs hold now."""
        ...

    def fits(self, job: Job, cpus: int | None = None) -> bool:
        """Would ``job`` start now on ``cpus`` CPUs (default: all it asked for)?"""
        ...

    def is_suspended(self, job: Job) -> bool:
        """Is waiting ``job`` a preempted one, with work already done?"""
        ...

    def remaining(self, job: Job) -> float:
        """Ideal (full-allocation) execution time still to do for waiting ``job``."""
        ...


#: a policy: called with the view, returns the next action, or several at once (an iterable,
#: applied in order), or ``None`` (nothing more now)
Policy = Callable[[MachineView], Action | Iterable[Action] | None]


#: a score: maps a waiting job and the decision's time to a number; lower starts first
Score = Callable[[Job, float], float]


@runtime_checkable
class Order(Protocol):
    """A queue order: ranks the waiting jobs, the first to start first.

    This is the one thing a backfilling rule asks of its order, at every decision: the
    rule walks the ranking, starts jobs while they fit, and reserves for the first that
    does not. Keeping the ranking apart from the starting is what lets one rule (EASY,
    conservative, their cluster variants) run over any order, and one order run under
    any rule. Any object with this method is an order; a plain :data:`Score` is turned
    into one by :func:`schedlab.policies.scoring.as_order`.
    """

    def rank(self, waiting: Sequence[Job], now: float) -> Sequence[Job]:
        """``waiting`` in the order its jobs should start, at time ``now``.

        ``waiting`` is the machine's queue, in arrival order; return a new sequence (or
        ``waiting`` itself when it is already the order) and never mutate it. Sort
        stably, so that ties keep arrival order.
        """
        ...

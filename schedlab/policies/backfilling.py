"""EASY backfilling on top of any priority order, and RLScheduler's committed variant.

EASY (Lifka 1995; Mu'alem & Feitelson 2001): jobs start in priority order while they
fit. The first that does not fit, the *head*, gets a reservation: the earliest time
(the *shadow time*) at which enough CPUs free up, judged by the requested times
of the running jobs; the CPUs then left over beyond the head's need are the
*extra* CPUs. A later job starts now if it fits and either ends, by its
requested time, no later than the shadow time, or uses only extra CPUs. So no
backfilled job delays the head — as far as requested times can tell.

Every rule here, and the conservative and cluster variants, takes its order the same
way: any :class:`~schedlab.model.contracts.machine.Order` (an object with
``rank(waiting, now)``), or a score (a name in :data:`~schedlab.policies.scoring.SCORES`,
or a callable ``(job, now) -> float``), read through
:func:`~schedlab.policies.scoring.as_order`.

References
----------
D. Lifka, "The ANL/IBM SP scheduling system", JSSPP 1995.
A. W. Mu'alem and D. G. Feitelson, "Utilization, predictability, workloads, and user
runtime estimates in scheduling the IBM SP2 with backfilling", IEEE TPDS 12(6), 2001.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from operator import attrgetter

from schedlab.model.contracts.machine import MachineView, Order, Score, Start
from schedlab.model.core.job import Job
from schedlab.policies.scoring import SCORES, as_order, scores_of

__all__ = ["EASY", "Backfilling", "Committed", "reservation"]

_requested_end = attrgetter("requested_end")


def reservation(view: MachineView, head: Job) -> tuple[float, int]:
    """Shadow time and extra CPUs for ``head`` (which does not fit now).

    A running job is expected to end at its ``requested_end`` (its start plus its
    requested time), or now if it has overrun its request. Returns ``(inf, 0)`` if even
    the empty machine could not hold ``head``.
    """
    now = view.now
    available = view.free
    need = head.cpus
    shadow = None
    # Sorted by end alone, not by (end, cpus) tuples: every job ending at the shadow time
    # is counted whatever their order, so the result is the same, and no tuple is built
    # per running job (on Gaia, about 220 running at each of 5,463 reservations).
    for run in sorted(view.running, key=_requested_end):
        end = run.requested_end
        if shadow is not None and end > shadow:
            break
        available += run.cpus  # every job ending at the shadow time frees its CPUs then
        if shadow is None and available >= need:
            shadow = end if end > now else now
    if shadow is None:
        return float("inf"), 0
    return shadow, available - need


@dataclass(frozen=True, init=False)
class Backfilling:
    """A queue order with backfilling: what EASY and conservative backfilling share.

    A subclass writes :meth:`_starts`, the jobs to start when two or more wait.

    Parameters
    ----------
    order
        An :class:`~schedlab.model.contracts.machine.Order` (default FCFS), or a score:
        a name in :data:`~schedlab.policies.scoring.SCORES` or a callable
        ``(job, now) -> float`` (see :func:`~schedlab.policies.scoring.as_order`).
    """

    order: Order

    def __init__(self, order: Order | Score | str = "fcfs") -> None:
        object.__setattr__(self, "order", as_order(order))  # frozen: set once, here

    def __call__(self, view: MachineView) -> Iterable[Start] | None:
        waiting = view.waiting
        if not waiting:
            return None
        if len(waiting) == 1:
            # One job waiting (most decisions on a lightly loaded log): it starts or not,
            # and there is nothing to backfill (alone, its reservation is now exactly when
            # it fits now). A tuple instead of a generator, as this is the commonest
            # decision (measured: benchmarks/README.md; the same schedule).
            job = waiting[0]
            return (Start(job),) if view.fits(job) else None
        return self._starts(view)

    def _starts(self, view: MachineView) -> Iterator[Start]:
        raise NotImplementedError


@dataclass(frozen=True, init=False)
class EASY(Backfilling):
    """EASY backfilling over the queue order ``order`` (default FCFS).

    The order is re-scored at every decision, and so is the head's reservation.
    """

    def _starts(self, view: MachineView) -> Iterator[Start]:
        now = view.now
        queue = list(self.order.rank(view.waiting, now))  # a copy: starting jobs changes the queue
        fits = view.fits
        i = 0
        while i < len(queue) and fits(queue[i]):
            yield Start(queue[i])
            i += 1
        if i >= len(queue) - 1:
            return  # nothing blocked, or nothing behind the blocked head
        # The head's reservation (a sort of the running jobs) is made only if some job
        # behind it is narrow enough for the free CPUs; on Gaia a third of them are not.
        free = view.free
        first = next((k for k in range(i + 1, len(queue)) if queue[k].cpus <= free), None)
        if first is None:
            return
        shadow, extra = reservation(view, queue[i])
        for k in range(first, len(queue)):
            # The scan is bounded by what can still start, not by the queue's length: a
            # full machine ends it (every job needs a CPU); a job wider than the free CPUs,
            # or one that would delay the head, is passed over with plain comparisons, and
            # fits() (a call, which also weighs other resources) is asked only of jobs
            # that could start. The same jobs start as when fits() was asked first, and a
            # queue of hundreds is scanned at a fraction of the cost (measured: benchmarks/README.md).
            free = view.free
            if free == 0:
                return
            job = queue[k]
            cpus = job.cpus
            if cpus > free:
                continue
            if now + job.requested_time <= shadow:  # ends before the head's reservation
                if fits(job):
                    yield Start(job)
            elif cpus <= extra and fits(job):
                extra -= cpus  # it will still run at the shadow time: spend spare CPUs
                yield Start(job)

    def __str__(self) -> str:
        return f"{self.order}+easy"


class Committed:
    """RLScheduler's scheduling loop (Zhang et al., SC 2020), for comparing with its tables.

    The first job of ``order``'s ranking is chosen and the policy *commits* to it: it
    waits until it fits, and the queue is not ranked again meanwhile. With ``backfill``,
    while it waits, queued jobs are tried in FCFS order and start if they fit now and
    end, by their requested time, strictly before the committed job's shadow time —
    computed once, when it first blocked. Spare CPUs are not used. Stateful: one
    per run. ``order`` is read as :class:`Backfilling` reads it.

    ``reading`` says how a score *name* is read: ``"rlscheduler"`` (the default) reads
    WFP3 and UNICEP as RLScheduler computes them
    (:func:`~schedlab.policies.scoring.wfp3_rlscheduler`), ``"textbook"`` as
    :data:`~schedlab.policies.scoring.SCORES` does. An order or a callable is used as given.
    """

    def __init__(
        self, order: Order | Score | str = "fcfs", backfill: bool = False, reading: str = "rlscheduler"
    ) -> None:
        scores = scores_of(reading)
        if isinstance(order, str):
            if order not in SCORES:
                raise ValueError(f"unknown score {order!r}; choose from {', '.join(SCORES)}")
            self.label = order
            self.order = as_order(scores[order])
        else:
            self.order = as_order(order)
            self.label = str(self.order)
        self.backfill = backfill
        self.reading = reading
        self._head: Job | None = None
        self._shadow: float | None = None

    def choose(self, view: MachineView) -> Job | None:
        """The waiting job to commit to next: the lowest score (the first of equals in arrival order).

        A subclass may choose otherwise (an agent does); ``None`` means no answer yet:
        the policy then starts nothing more at this decision.
        """
        return self.order.rank(view.waiting, view.now)[0]  # a stable ranking's first: the lowest score

    def __call__(self, view: MachineView) -> Iterator[Start]:
        now = view.now
        while True:
            if self._head is None:
                if not view.waiting:
                    return
                head = self.choose(view)
                if head is None:
                    return
                self._head, self._shadow = head, None
            if not view.fits(self._head):
                break
            head, self._head = self._head, None
            yield Start(head)
        if not self.backfill:
            return
        head = self._head
        if self._shadow is None:
            self._shadow = reservation(view, head)[0]
        for job in sorted(view.waiting, key=lambda j: j.submit):
            if job is not head and view.fits(job) and now + job.requested_time < self._shadow:
                yield Start(job)

    def __repr__(self) -> str:
        return f"Committed({self.label!r}, backfill={self.backfill}, reading={self.reading!r})"

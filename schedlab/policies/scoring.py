"""The registry of queue orders, the policy that starts jobs in an order, and ``as_order``.

A score maps a waiting job (and the time of the decision) to a number; lower runs
first. Every named order is a score registered here with :func:`order`:

>>> from schedlab.policies.scoring import RLSCHEDULER_SCORES, SCORES, order
>>> @order("largest")
... def largest(job, now):
...     '''Largest job first: the most CPUs.'''
...     return -float(job.cpus)
>>> "largest" in SCORES
True
>>> del SCORES["largest"], RLSCHEDULER_SCORES["largest"]  # (this example's order, unregistered)

That one function is the whole of a new order: :class:`Priority`, EASY and conservative
backfilling, ``schedlab replay --policy``, its ``--help`` and the scenarios' config checks
all read :data:`SCORES`. :class:`Priority` re-scores the whole queue at every decision
event, so scores that grow with waiting time (WFP3, UNICEP) reorder the queue as time
passes.

There is one way to give a backfilling rule its order: an
:class:`~schedlab.model.contracts.machine.Order`, any object with
``rank(waiting, now)``. A score is a short form of one: a score's name in
:data:`SCORES`, or any callable ``(job, now) -> float``, is wrapped in a
:class:`Priority` by :func:`as_order`, the one place every rule reads its order
through. So ``EASY("wfp3")``, ``EASY(lambda job, now: job.cpus)``,
``EASY(Priority("wfp3"))`` and ``EASY(SJF())`` all work, and rank alike
(:func:`rank_by` is the one sort they share).

References
----------
D. Carastan-Santos and R. Y. de Camargo, "Obtaining dynamic scheduling policies with
simulation and machine learning", SC 2017 (F1).
W. Tang, Z. Lan, N. Desai, D. Buettner, "Fault-aware, utility-based job scheduling on
Blue Gene/P systems", Cluster 2009 (WFP3, UNICEP as used by RLScheduler).
D. Zhang, D. Dai, Y. He, F. S. Bao, B. Xie, "RLScheduler: an automated HPC batch job
scheduler using reinforcement learning", SC 2020.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from schedlab.model.contracts.machine import MachineView, Order, Score, Start
from schedlab.model.core.job import Job

__all__ = [
    "CLAIRVOYANT",
    "RLSCHEDULER_SCORES",
    "SCORES",
    "Priority",
    "as_order",
    "describe_orders",
    "f1",
    "f2",
    "f3",
    "f4",
    "fcfs",
    "order",
    "rank_by",
    "saf",
    "scores_of",
    "sjf",
    "sjf_runtime",
    "smallest",
    "unicep",
    "unicep_rlscheduler",
    "wfp3",
    "wfp3_rlscheduler",
]

#: the orders by name, as the CLI and scenarios spell them (the textbook readings); filled by :func:`order`
SCORES: dict[str, Score] = {}
#: the same names read as RLScheduler computes them (what its published heuristic columns measured)
RLSCHEDULER_SCORES: dict[str, Score] = {}
#: the orders that read what no real scheduler knows (the true runtimes): yardsticks, never a heuristic to beat
CLAIRVOYANT: set[str] = set()


def order(name: str, *, rlscheduler: Score | None = None, clairvoyant: bool = False) -> Callable[[Score], Score]:
    """Register the decorated score ``(job, now) -> float`` as the order ``name`` (lowest score first).

    ``rlscheduler`` is the same order as RLScheduler's code computes it, where that
    differs (:data:`RLSCHEDULER_SCORES`, read under ``--compat rlscheduler``);
    ``clairvoyant`` marks an order that reads what no scheduler knows (:data:`CLAIRVOYANT`). The first
    line of the score's docstring is what ``schedlab replay --help`` says of it. A name
    taken by another function is refused: two orders under one name would make a
    result's policy column ambiguous. A score must be defined at a module's top level
    to reach a process pool's workers (a lambda does not pickle).
    """

    def register(score: Score) -> Score:
        held = SCORES.get(name)
        if held is not None and _qualified(held) != _qualified(score):
            raise ValueError(f"order {name!r} is already registered, by {_qualified(held)}")
        SCORES[name] = score
        RLSCHEDULER_SCORES[name] = rlscheduler if rlscheduler is not None else score
        if clairvoyant:
            CLAIRVOYANT.add(name)
        return score

    return register


def _qualified(score: Score) -> str:
    return f"{getattr(score, '__module__', '?')}.{getattr(score, '__qualname__', repr(score))}"


def describe_orders() -> str:
    """The registered orders in one line, each with its docstring's first clause: the CLI's help."""
    parts = []
    for name, score in SCORES.items():
        doc = (getattr(score, "__doc__", None) or "").strip().splitlines()
        what = doc[0].split(":")[0].rstrip(".").strip() if doc else ""
        parts.append(f"{name} ({what})" if what and what.lower() != name else name)
    return "; ".join(parts)


def rank_by(score: Score, waiting: Sequence[Job], now: float) -> Sequence[Job]:
    """``waiting`` in the order of ``score``, lowest first; a stable sort, so ties keep arrival order.

    FCFS is the order jobs reached the machine, which the queue already keeps (for a
    trace, the submit order): no sort.
    """
    if score is fcfs:
        return waiting
    return sorted(waiting, key=lambda job: score(job, now))


@order("fcfs")
def fcfs(job: Job, now: float) -> float:
    """First come, first served: the submit time."""
    return job.submit


@order("sjf")
def sjf(job: Job, now: float) -> float:
    """Shortest job first, by the requested time: as a scheduler knows it.

    The same order as :class:`~schedlab.policies.ordering.SJF`'s default
    (``by="estimate"``); ``SJF(by="runtime")`` is :func:`sjf_runtime`, the oracle.
    """
    return job.requested_time


@order("sjf-runtime", clairvoyant=True)
def sjf_runtime(job: Job, now: float) -> float:
    """Shortest job first, by the true runtime: an oracle, which no real scheduler has."""
    return job.runtime


@order("smallest")
def smallest(job: Job, now: float) -> float:
    """Smallest job first: the number of CPUs."""
    return float(job.cpus)


def _log_positive(log: Callable[[float], float], x: float) -> float:
    # log of 0 is -inf and would tie every job submitted at t = 0; read 0 as 0.1, as RLScheduler does
    return log(x if x > 0 else 0.1)


@order("f1")
def f1(job: Job, now: float) -> float:
    """F1 (Carastan-Santos & de Camargo 2017): ``log10(r) * n + 870 * log10(s)``.

    r is the requested time, n the CPUs and s the submit time; non-positive
    values are read as 0.1 so that a job submitted at time 0 keeps a finite score.
    """
    return _log_positive(math.log10, job.requested_time) * job.cpus + 870.0 * _log_positive(math.log10, job.submit)


@order("f2")
def f2(job: Job, now: float) -> float:
    """F2 (Carastan-Santos & de Camargo 2017): ``sqrt(r) * n + 25600 * log10(s)``.

    r, n and s as in :func:`f1`; a non-positive submit time is read as 0.1.
    """
    return math.sqrt(job.requested_time) * job.cpus + 25600.0 * _log_positive(math.log10, job.submit)


@order("f3")
def f3(job: Job, now: float) -> float:
    """F3 (Carastan-Santos & de Camargo 2017): ``r * n + 6860000 * log10(s)``."""
    return job.requested_time * job.cpus + 6_860_000.0 * _log_positive(math.log10, job.submit)


@order("f4")
def f4(job: Job, now: float) -> float:
    """F4 (Carastan-Santos & de Camargo 2017): ``r * sqrt(n) + 530000 * log10(s)``."""
    return job.requested_time * math.sqrt(job.cpus) + 530_000.0 * _log_positive(math.log10, job.submit)


@order("saf")
def saf(job: Job, now: float) -> float:
    """Smallest area first: the requested time times the CPUs, ``r * n``."""
    return job.requested_time * job.cpus


def wfp3(job: Job, now: float) -> float:
    """WFP3: ``-(wait / r)^3 * n``: long waits relative to the request, weighted by width, first."""
    return -(((now - job.submit) / job.requested_time) ** 3) * job.cpus


def unicep(job: Job, now: float) -> float:
    """UNICEP: ``-wait / (log2(n) * r)``.

    log2(1) is 0; as in RLScheduler's and other public implementations a 1-CPU
    job is scored with ``log2(1 + 1e-6)``, making it the most urgent once it has waited.
    """
    return -(now - job.submit) / (math.log2(job.cpus + 1e-6) * job.requested_time)


# RLScheduler's WFP3 and UNICEP (HPCSimPickJobs.py, wfp_score and uni_score) take the wait as
# scheduled_time - submit_time, and a queued job's scheduled_time is still -1: the "wait" is
# -(submit + 1), fixed per job, not the time waited. Its published heuristic columns measured
# these scores; they are kept apart from the textbook ones, for --compat rlscheduler only.
_RLS_WAIT_OFFSET = -1.0


def wfp3_rlscheduler(job: Job, now: float) -> float:
    """RLScheduler's WFP3: :func:`wfp3` with the wait read as ``-1 - submit`` (its unset scheduled time).

    That makes ``((1 + s) / r)^3 * n``: early, long, narrow jobs first, whatever the clock.
    """
    wait = _RLS_WAIT_OFFSET - job.submit
    return -((wait / job.requested_time) ** 3) * job.cpus


def unicep_rlscheduler(job: Job, now: float) -> float:
    """RLScheduler's UNICEP: ``-(w + 1e-15) / (log2(n + 1e-15) * r)`` with ``w = -1 - submit``.

    Fixed per job (see :func:`wfp3_rlscheduler`); a 1-CPU job divides by about
    1.4e-15 and so comes last.
    """
    wait = _RLS_WAIT_OFFSET - job.submit
    return -(wait + 1e-15) / (math.log2(job.cpus + 1e-15) * job.requested_time)


order("wfp3", rlscheduler=wfp3_rlscheduler)(wfp3)
order("unicep", rlscheduler=unicep_rlscheduler)(unicep)


def scores_of(reading: str) -> dict[str, Score]:
    """The score table of a reading: ``"textbook"`` (:data:`SCORES`) or ``"rlscheduler"``."""
    if reading == "textbook":
        return SCORES
    if reading == "rlscheduler":
        return RLSCHEDULER_SCORES
    raise ValueError(f"unknown score reading {reading!r}; choose from textbook, rlscheduler")


@dataclass(frozen=True)
class Priority:
    """Start waiting jobs in order of ``score`` (lowest first), strictly.

    At each decision the queue is re-scored; jobs start in score order while they fit,
    and the first that does not fit blocks the rest (wrap in
    :class:`~schedlab.policies.backfilling.EASY` to let later jobs through). Ties keep
    arrival order.

    It is an :class:`~schedlab.model.contracts.machine.Order` too (:meth:`rank`), so a
    backfilling rule can run over it.

    Parameters
    ----------
    score
        A name in :data:`SCORES`, or a score: any callable ``(job, now) -> float``
        (a function defined at module level pickles into process pools; a lambda
        does not).
    """

    score: str | Score = "fcfs"

    def __post_init__(self) -> None:
        if isinstance(self.score, str):
            if self.score not in SCORES:
                raise ValueError(f"unknown score {self.score!r}; choose from {', '.join(SCORES)}")
        elif not callable(self.score):
            raise TypeError(f"a score is a name in SCORES or a callable (job, now) -> float, got {self.score!r}")

    def rank(self, waiting: Sequence[Job], now: float) -> Sequence[Job]:
        """The waiting jobs in the order this policy would start them (:func:`rank_by`)."""
        return rank_by(SCORES[self.score] if isinstance(self.score, str) else self.score, waiting, now)

    def __call__(self, view: MachineView) -> Iterator[Start] | None:
        if not view.waiting:
            return None
        return self._starts(view)

    def _starts(self, view: MachineView) -> Iterator[Start]:
        # A generator: the machine applies each Start before the next is made, so
        # view.fits always sees the jobs started so far, and the queue is scored once.
        for job in list(self.rank(view.waiting, view.now)):
            if not view.fits(job):
                return
            yield Start(job)

    def __str__(self) -> str:
        if isinstance(self.score, str):
            return self.score
        return getattr(self.score, "__name__", repr(self.score))


def as_order(order: Order | Score | str) -> Order:
    """``order`` as an :class:`~schedlab.model.contracts.machine.Order`: what every backfilling rule ranks by.

    An object with ``rank(waiting, now)`` is used as it is (:class:`Priority`,
    :class:`~schedlab.policies.ordering.FCFS`, :class:`~schedlab.policies.ordering.SJF`,
    :class:`~schedlab.policies.queues.StrictPriority`, your own); a name in
    :data:`SCORES` or a score callable ``(job, now) -> float`` becomes a
    :class:`Priority` over it. A policy ``(view) -> action`` is not an order: passed
    here, it is taken for a score and fails at the first decision.
    """
    if isinstance(order, Order):
        return order
    if isinstance(order, str) or callable(order):
        return Priority(order)
    raise TypeError(
        f"an order has rank(waiting, now), or is a score (job, now) -> float or a name in SCORES; got {order!r}"
    )

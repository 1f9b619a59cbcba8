"""Queue-ordering policies for a machine with a waiting queue: FCFS, SJF, best-fit.

Each is a callable ``policy(view) -> Start | None`` (see
:mod:`schedlab.model.contracts.machine`). The machine calls it until it returns ``None``, so a
policy only ever names the next job to start. They are small frozen dataclasses so
they pickle into process pools and print in results.

:class:`FCFS` and :class:`SJF` are also orders (:class:`~schedlab.model.contracts.machine.Order`:
they have ``rank``), so a backfilling rule runs over them: ``EASY(SJF(by="runtime"))``.
Their ranks are the registered orders ``"fcfs"``, ``"sjf"`` and ``"sjf-runtime"``
(:mod:`schedlab.policies.scoring`), so ``SJF()``, ``Priority("sjf")`` and ``EASY("sjf")``
rank alike; the classes add a start rule that looks at the queue's head only, which a
machine calls at every decision. :class:`BestFit` is not an order: which job it picks
depends on what fits now, not on a ranking.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from schedlab.model.contracts.machine import MachineView, Start
from schedlab.model.core.job import Job
from schedlab.policies.scoring import fcfs, rank_by, sjf, sjf_runtime

__all__ = ["FCFS", "SJF", "BestFit", "expected_utility"]


@dataclass(frozen=True)
class FCFS:
    """First come, first served: start the head of the queue when it fits.

    Strict: a head job that does not fit blocks the jobs behind it (no backfilling;
    see EASY backfilling for the variant that lets later jobs through).
    """

    def rank(self, waiting: Sequence[Job], now: float) -> Sequence[Job]:
        """The queue as it is: jobs in the order they reached the machine (the order ``"fcfs"``)."""
        return rank_by(fcfs, waiting, now)

    def __call__(self, view: MachineView) -> Start | None:
        waiting = view.waiting
        if waiting and view.fits(head := waiting[0]):
            return Start(head)
        return None

    def __str__(self) -> str:
        return "fcfs"


@dataclass(frozen=True)
class SJF:
    """Shortest job first, by the user's ``estimate`` (the default) or by the true ``runtime``.

    ``by="estimate"`` sorts by the requested time, what a real scheduler knows: the
    same order as the score ``"sjf"`` (``Priority("sjf")``, ``make_policy("sjf")``,
    ``schedlab replay --policy sjf``). ``by="runtime"`` is an oracle: it reads how long
    each job will really run, which no scheduler knows beforehand. Ties go to the
    earlier arrival. Strict like :class:`FCFS`: the shortest job waits for room rather
    than being overtaken.
    """

    by: Literal["estimate", "runtime"] = "estimate"

    def __post_init__(self) -> None:
        if self.by not in ("estimate", "runtime"):
            raise ValueError(f"SJF: by must be 'estimate' or 'runtime', got {self.by!r}")

    def rank(self, waiting: Sequence[Job], now: float) -> Sequence[Job]:
        """The waiting jobs, shortest first by :attr:`by`: the order ``"sjf"`` or ``"sjf-runtime"``."""
        return rank_by(sjf if self.by == "estimate" else sjf_runtime, waiting, now)

    def __call__(self, view: MachineView) -> Start | None:
        waiting = view.waiting
        if not waiting:
            return None
        job = min(waiting, key=_estimate) if self.by == "estimate" else min(waiting, key=_runtime)
        return Start(job) if view.fits(job) else None

    def __str__(self) -> str:
        return "sjf" if self.by == "estimate" else "sjf-runtime"


def _runtime(job: Job) -> float:
    return job.runtime


def _estimate(job: Job) -> float:
    return job.requested_time


def expected_utility(job: Job, now: float) -> float:
    """Final utility ``job`` would earn if started now on all its CPUs (0 without a TUF)."""
    if job.utility is None:
        return 0.0
    return job.utility.unit(now - job.submit + job.runtime) * job.cpus * job.runtime


@dataclass(frozen=True)
class BestFit:
    """Tightest fit: the waiting job that leaves the fewest CPUs free (seed 000, section 3.1).

    Among jobs that fit now, pick the one with the most CPUs; ties go to the highest
    expected final utility on completion, then to the earlier arrival. Jobs that do
    not fit are passed over, so it never blocks while some job fits.
    """

    def __call__(self, view: MachineView) -> Start | None:
        best: Job | None = None
        best_key = (-1, -math.inf)
        now = view.now
        for job in view.waiting:
            if not view.fits(job):
                continue
            key = (job.cpus, expected_utility(job, now))
            if key > best_key:
                best, best_key = job, key
        return Start(best) if best is not None else None

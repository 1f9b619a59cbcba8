"""Queue-ordering policies for a machine with a waiting queue: FCFS, SJF, best-fit.

Each is a callable ``policy(view) -> Start | None`` (see
:mod:`schedlab.model.contracts.machine`). The machine calls it until it returns ``None``, so a
policy only ever names the next job to start. They are small frozen dataclasses so
they pickle into process pools and print in results.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from schedlab.model.contracts.machine import MachineView, Start
from schedlab.model.core.job import Job

__all__ = ["FCFS", "SJF", "BestFit", "expected_utility"]


@dataclass(frozen=True)
class FCFS:
    """First come, first served: start the head of the queue when it fits.

    Strict: a head job that does not fit blocks the jobs behind it (no backfilling;
    see EASY backfilling for the variant that lets later jobs through).
    """

    def __call__(self, view: MachineView) -> Start | None:
        waiting = view.waiting
        if waiting and view.fits(head := waiting[0]):
            return Start(head)
        return None


@dataclass(frozen=True)
class SJF:
    """Shortest job first, by ``runtime`` (an oracle) or by the user's ``estimate``.

    Ties go to the earlier arrival. Strict like :class:`FCFS`: the shortest job waits
    for room rather than being overtaken.
    """

    by: Literal["runtime", "estimate"] = "runtime"

    def __post_init__(self) -> None:
        if self.by not in ("runtime", "estimate"):
            raise ValueError(f"SJF: by must be 'runtime' or 'estimate', got {self.by!r}")

    def __call__(self, view: MachineView) -> Start | None:
        waiting = view.waiting
        if not waiting:
            return None
        job = min(waiting, key=_runtime) if self.by == "runtime" else min(waiting, key=_estimate)
        return Start(job) if view.fits(job) else None


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

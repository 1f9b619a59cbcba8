"""An EGEE site's PBS log as seed 001 used one: monitoring jobs out, a busy multi-week segment.

Seed 001 (section 4.2) removed "the monitoring jobs which are executed concurrently
with the user jobs and consume virtually no resources". EGEE sites ran their site
functional tests (SFT) through a dedicated PBS queue named ``test``; in the Parallel
Workloads Archive's LPC-EGEE log that queue is SWF queue 1 (the header's ``Queue: 1
test``), and its group ids are anonymised, so the monitoring VO (dteam/ops) cannot be
named. The rule here is therefore:

    a job is a monitoring job if it ran in the ``test`` queue for at most 5 minutes.

The 5-minute bound keeps the few long jobs of that queue, which are real work. Jobs
read from SWF carry their queue number as ``job_class`` (``schedlab.model.formats.swf``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from schedlab.model.core.job import Job

__all__ = [
    "MONITORING_MAX_RUNTIME",
    "MONITORING_QUEUE",
    "Segment",
    "busiest_segment",
    "is_monitoring",
    "without_monitoring",
]

#: SWF queue number of the PBS ``test`` queue in the LPC-EGEE log
MONITORING_QUEUE = "1"
#: the longest run time (seconds) of a monitoring job
MONITORING_MAX_RUNTIME = 300.0

WEEK = 7 * 86400.0


def is_monitoring(job: Job, queue: str = MONITORING_QUEUE, max_runtime: float = MONITORING_MAX_RUNTIME) -> bool:
    """Is ``job`` (read from SWF: ``job_class`` is its queue number) a monitoring job?

    Examples
    --------
    >>> is_monitoring(Job(id=1, submit=0.0, runtime=12.0, job_class="1"))
    True
    >>> is_monitoring(Job(id=2, submit=0.0, runtime=12.0, job_class="2"))  # a short user job
    False
    """
    return job.job_class == queue and job.runtime <= max_runtime


def without_monitoring(
    jobs: Sequence[Job],
    waits: Sequence[float],
    queue: str = MONITORING_QUEUE,
    max_runtime: float = MONITORING_MAX_RUNTIME,
) -> tuple[list[Job], list[float], int]:
    """The user jobs, their recorded waits, and how many monitoring jobs were removed."""
    if len(jobs) != len(waits):
        raise ValueError(f"without_monitoring: {len(jobs)} jobs but {len(waits)} waits")
    keep = [i for i, j in enumerate(jobs) if not is_monitoring(j, queue, max_runtime)]
    return [jobs[i] for i in keep], [float(waits[i]) for i in keep], len(jobs) - len(keep)


@dataclass(frozen=True)
class Segment:
    """A run of whole weeks of a log: jobs ``[first, last)`` (indices), submitted in ``[start, end)``."""

    first: int
    last: int
    start: float
    end: float
    load: float  # the segment's work over cores x its length


def busiest_segment(jobs: Sequence[Job], cores: int, weeks: int = 7, week: int | None = None) -> Segment:
    """The ``weeks``-week segment (whole weeks counted from the first submission) with the most work.

    Seed 001 picked its 7 weeks for load, mix and a stable pool; the load is the one of
    those a log can rank on its own. ``week`` forces the first week instead.
    """
    if not jobs:
        raise ValueError("busiest_segment: no jobs")
    if weeks < 1 or cores < 1:
        raise ValueError(f"busiest_segment: weeks and cores must be >= 1, got {weeks}, {cores}")
    submit = np.array([j.submit for j in jobs])
    work = np.array([j.runtime * j.cpus for j in jobs])
    t0 = submit[0]
    index = ((submit - t0) // WEEK).astype(int)
    per_week = np.bincount(index, weights=work)
    if len(per_week) < weeks:
        raise ValueError(f"busiest_segment: the log spans {len(per_week)} weeks, fewer than {weeks}")
    sums = np.convolve(per_week, np.ones(weeks), mode="valid")
    if week is None:
        week = int(np.argmax(sums))
    elif not 0 <= week < len(sums):
        raise ValueError(f"busiest_segment: week must be in 0..{len(sums) - 1}, got {week}")
    start, end = t0 + week * WEEK, t0 + (week + weeks) * WEEK
    first, last = int(np.searchsorted(submit, start)), int(np.searchsorted(submit, end))
    return Segment(first, last, start, end, float(sums[week] / (cores * weeks * WEEK)))

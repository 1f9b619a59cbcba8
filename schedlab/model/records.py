"""One immutable record per job, and the table they make.

A run gives back a :class:`JobRecord` for every job it saw: completed, rejected, or
still waiting/running when the run stopped. Metrics (:mod:`schedlab.model.metrics`)
are functions of these records; :func:`records_frame` turns them into a DataFrame.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from enum import StrEnum
from operator import attrgetter
from typing import TYPE_CHECKING

from schedlab.model.job import Job
from schedlab.model.utility import final_utility

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["COLUMNS", "JobRecord", "Status", "job_record", "records_frame"]


class Status(StrEnum):
    """Where a job ended up."""

    COMPLETED = "completed"
    #: refused at submission (e.g. it asks for more CPUs than the machine has)
    REJECTED = "rejected"
    #: still queued when the run stopped
    WAITING = "waiting"
    #: still executing when the run stopped
    RUNNING = "running"


@dataclass(frozen=True, slots=True)
class JobRecord:
    """What happened to one job.

    Times are simulated time. ``start`` is the first time the job got CPUs, ``end``
    its completion time; both are ``nan`` where they did not happen. ``wait`` is
    ``start - submit``; ``service`` is ``end - start`` (including any time spent
    suspended after a preemption); ``runtime`` is the ideal execution time the job
    asked for; ``cpus`` the CPUs it asked for; ``cpu_time`` the CPU-time it was
    allocated (the integral of its allocation over time: ``cpus * runtime`` once
    completed, since a job squeezed onto fewer CPUs runs proportionally longer);
    ``weight`` its importance. ``utility`` is the final utility
    (unit utility times cpus * runtime; 0 for jobs without a time-utility function).
    """

    id: int
    job_class: str
    group: str
    origin: int | None
    machine: str
    submit: float
    start: float
    end: float
    wait: float
    service: float
    runtime: float
    estimate: float
    cpus: int
    cpu_time: float
    weight: float
    preemptions: int
    resizes: int
    utility: float
    status: Status

    @property
    def response(self) -> float:
        """Response (turnaround) time: ``end - submit``."""
        return self.end - self.submit

    @property
    def completed(self) -> bool:
        return self.status is Status.COMPLETED


#: the record's fields, in column order
COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(JobRecord))
_ROW = attrgetter(*COLUMNS)


def records_frame(records: Iterable[JobRecord], **tags: object) -> pd.DataFrame:
    """The records as a DataFrame, one row per job, with constant ``tags`` columns first.

    A tag named like a record field (a sweep over ``cpus``, say) becomes ``cell_<name>``.
    """
    import pandas as pd

    rows: Sequence[JobRecord] = list(records)
    frame = pd.DataFrame([_ROW(r) for r in rows], columns=COLUMNS)
    frame["status"] = frame["status"].astype(str)
    for i, (name, value) in enumerate(tags.items()):
        frame.insert(i, f"cell_{name}" if name in COLUMNS else name, value)
    return frame


def job_record(
    job: Job,
    where: str,
    status: Status,
    *,
    start: float = math.nan,
    end: float = math.nan,
    cpu_time: float = 0.0,
    preemptions: int = 0,
    resizes: int = 0,
) -> JobRecord:
    """The record of ``job`` at ``where``: derives wait, service and final utility.

    ``start`` and ``end`` are ``nan`` where they did not happen; only a completed job
    earns utility (its time-utility function at its response time, times cpus * runtime).
    """
    utility = 0.0
    if status is Status.COMPLETED:
        utility = final_utility(job.utility, end - job.submit, job.cpus, job.runtime)
    return JobRecord(
        id=job.id, job_class=job.job_class, group=job.group, origin=job.origin, machine=where,
        submit=job.submit, start=start, end=end, wait=start - job.submit, service=end - start,
        runtime=job.runtime, estimate=job.requested_time, cpus=job.cpus, cpu_time=cpu_time,
        weight=job.weight, preemptions=preemptions, resizes=resizes, utility=utility, status=status,
    )

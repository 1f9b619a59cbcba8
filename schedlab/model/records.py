"""One immutable record per job, and the table they make.

A run gives back a :class:`JobRecord` for every job it saw: completed, rejected, or
still waiting/running when the run stopped. Metrics (:mod:`schedlab.model.metrics`)
are functions of these records; :func:`records_frame` turns them into a DataFrame.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, NamedTuple

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


class JobRecord(NamedTuple):
    """What happened to one job: an immutable named tuple, as Ciw's records are.

    A tuple is made in C: a run makes one record per job, and a frozen dataclass
    would cost several times more. Records compare by value, field by field.

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
COLUMNS: tuple[str, ...] = JobRecord._fields


def records_frame(records: Iterable[JobRecord], **tags: object) -> pd.DataFrame:
    """The records as a DataFrame, one row per job, with constant ``tags`` columns first.

    A tag named like a record field (a sweep over ``cpus``, say) becomes ``cell_<name>``.
    """
    import pandas as pd

    rows: Sequence[JobRecord] = list(records)
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
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
    # Made once per job: read each field of the job once, and skip the utility call
    # for the jobs that have no time-utility function (final_utility gives them 0).
    submit, runtime, tuf = job.submit, job.runtime, job.utility
    utility = 0.0
    if tuf is not None and status is Status.COMPLETED:
        utility = final_utility(tuf, end - submit, job.cpus, runtime)
    # Positional, in COLUMNS order: 19 keywords would cost twice the record itself.
    return JobRecord(
        job.id, job.job_class, job.group, job.origin, where,
        submit, start, end, start - submit, end - start,  # submit, start, end, wait, service
        runtime, job.requested_time, job.cpus, cpu_time, job.weight,  # runtime, estimate, ...
        preemptions, resizes, utility, status,
    )

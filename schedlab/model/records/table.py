"""One immutable record per job, and the table they make.

A run gives back a :class:`JobRecord` for every job it saw: completed, rejected, or
still waiting/running when the run stopped. Metrics (:mod:`schedlab.model.analysis.metrics`)
are functions of these records; :func:`records_frame` turns them into a DataFrame.
Machines and servers keep theirs in a :class:`RecordLog` (by columns, read back as
records; :mod:`schedlab.model.records.log`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING

from schedlab.model.core.job import Job
from schedlab.model.core.utility import final_utility
from schedlab.model.records.job_record import COLUMNS, ZERO, JobRecord, Status, frame_of_records
from schedlab.model.records.log import RecordLog

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["job_record", "records_frame"]


def records_frame(records: Iterable[JobRecord], **tags: object) -> pd.DataFrame:
    """The records as a DataFrame, one row per job, with constant ``tags`` columns first.

    A tag named like a record field (a sweep over ``cpus``, say) becomes ``cell_<name>``.
    A :class:`RecordLog` builds it from its arrays (:meth:`RecordLog.frame`): the same
    columns, dtypes and values, with no record made.
    """
    frame = records.frame() if isinstance(records, RecordLog) else frame_of_records(records)
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
    utility = ZERO
    if tuf is not None and status is Status.COMPLETED:
        utility = final_utility(tuf, end - submit, job.cpus, runtime)
    # Positional, in COLUMNS order: 19 keywords would cost twice the record itself.
    return JobRecord(
        job.id,
        job.job_class,
        job.group,
        job.origin,
        where,
        submit,
        start,
        end,
        start - submit,
        end - start,  # submit, start, end, wait, service
        runtime,
        job.requested_time,
        job.cpus,
        cpu_time,
        job.weight,  # runtime, estimate, ...
        preemptions,
        resizes,
        utility,
        status,
    )

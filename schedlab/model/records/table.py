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
from pathlib import Path
from typing import TYPE_CHECKING, Any

from schedlab.model.core.job import Job
from schedlab.model.core.utility import final_utility
from schedlab.model.records.job_record import COLUMNS, NO_IDS, ZERO, JobRecord, Status, frame_of_records
from schedlab.model.records.log import RecordLog

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["job_record", "read_records", "records_frame", "records_of_frame"]

#: the fields a results folder saved before records carried them, and the value they had then
_ADDED_LATER: dict[str, Any] = {"restarts": 0, "allocation": NO_IDS}


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


def read_records(folder: str | Path) -> pd.DataFrame | None:
    """The records a results folder saved (``records.parquet``, else ``records.csv``), or ``None`` if none.

    The CSV's ``allocation`` column is read as text, so ``"5"`` stays an interval set and an
    empty one stays ``""`` (pandas would make them 5 and nan).
    """
    import pandas as pd

    folder = Path(folder)
    for name in ("records.parquet", "records.csv"):
        path = folder / name
        if not path.is_file():
            continue
        try:
            if name.endswith(".csv"):
                frame = pd.read_csv(path, dtype={"allocation": str})
                if "allocation" in frame:
                    frame["allocation"] = frame["allocation"].fillna(NO_IDS)
                return frame
            return pd.read_parquet(path)
        except ImportError:  # Parquet without pyarrow: try the CSV, if any
            continue
    return None


def records_of_frame(frame: pd.DataFrame) -> list[JobRecord]:
    """The records of a saved run's rows (what :func:`records_frame` wrote, read back).

    Rows saved before records carried ``restarts`` and ``allocation`` get 0 and ``""``.
    """
    columns = [c for c in COLUMNS if c in frame.columns]
    out = []
    for row in frame[columns].to_dict("records"):
        for name, value in _ADDED_LATER.items():
            row.setdefault(name, value)
        row["status"] = Status(row["status"])
        row["restarts"] = int(row["restarts"])
        if not isinstance(row["allocation"], str):
            row["allocation"] = NO_IDS  # a missing value read back
        out.append(JobRecord(**row))
    return out


def job_record(
    job: Job,
    machine: str,
    status: Status,
    *,
    start: float = math.nan,
    end: float = math.nan,
    cpu_time: float = 0.0,
    preemptions: int = 0,
    resizes: int = 0,
    restarts: int = 0,
    allocation: str = NO_IDS,
) -> JobRecord:
    """The record of ``job`` at ``machine``: derives wait, service and final utility.

    ``start`` and ``end`` are ``nan`` where they did not happen; only a completed job
    earns utility (its time-utility function at its response time, times cpus * runtime).
    ``restarts`` and ``allocation`` are the record's (node-failure restarts; the ids held,
    ``"0-3 7"``): 0 and ``""`` where the machine has no failures or gives no ids.
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
        machine,
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
        restarts,
        allocation,
    )

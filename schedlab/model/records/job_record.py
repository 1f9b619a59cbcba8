"""One job's record: :class:`JobRecord`, its :class:`Status`, and its columns.

The types every record keeper shares (import them from here):
:mod:`schedlab.model.records.table` makes records, :mod:`schedlab.model.records.log` keeps
them by columns. They live apart so that those two modules need not import each other.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["COLUMNS", "ZERO", "JobRecord", "Status", "frame_of_records", "job_record_from"]

#: the utility of a job that earns none: the very object job_record and RecordLog.add pass, so that
#: RecordLog tells "the usual 0" by identity, one test per record (a -0.0 is not this object)
ZERO = 0.0


class Status(StrEnum):
    """Where a job ended up."""

    COMPLETED = "completed"
    #: refused at submission (e.g. it asks for more CPUs than the machine has)
    REJECTED = "rejected"
    #: still queued when the run stopped
    WAITING = "waiting"
    #: still executing when the run stopped
    RUNNING = "running"
    #: killed when it reached its time limit (walltime), as Slurm's TIMEOUT state
    TIMEOUT = "timeout"
    #: killed by the failure of a node it ran on, and not requeued (Slurm's NODE_FAIL state);
    #: a requeued job has no record of the kill: the machine's ``node_kills`` list it
    NODE_FAIL = "node_fail"


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
        """Whether the job ran to its end (not rejected, killed at its time limit, waiting or running)."""
        return self.status is Status.COMPLETED


#: the record's fields, in column order
COLUMNS: tuple[str, ...] = JobRecord._fields


def frame_of_records(records: Iterable[JobRecord]) -> pd.DataFrame:
    """The records as a DataFrame, row by row (pandas infers each column's dtype), status as text."""
    import pandas as pd

    frame = pd.DataFrame(list(records), columns=list(COLUMNS))
    frame["status"] = frame["status"].astype(str)
    return frame


def job_record_from(
    id: int,
    job_class: str,
    group: str,
    origin: int | None,
    where: str,
    submit: float,
    start: float,
    end: float,
    runtime: float,
    estimate: float,
    cpus: int,
    cpu_time: float,
    weight: float,
    preemptions: int,
    resizes: int,
    utility: float,
    status: Status,
) -> JobRecord:
    """The record with these fields, wait and service derived as :func:`job_record` derives them."""
    return JobRecord(
        id,
        job_class,
        group,
        origin,
        where,
        submit,
        start,
        end,
        start - submit,
        end - start,
        runtime,
        estimate,
        cpus,
        cpu_time,
        weight,
        preemptions,
        resizes,
        utility,
        status,
    )

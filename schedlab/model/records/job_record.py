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

__all__ = ["COLUMNS", "NO_IDS", "ZERO", "JobRecord", "Status", "frame_of_records", "job_record_from"]

#: the utility of a job that earns none: the very object job_record and RecordLog.add pass, so that
#: RecordLog tells "the usual 0" by identity, one test per record (a -0.0 is not this object)
ZERO = 0.0
#: the allocation of a job that held no CPU ids (a machine that counts CPUs only, or a job
#: that never started): the one object every record maker passes, so a plain record formats nothing
NO_IDS = ""


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
    #: a requeued job has no record of the kill, only a count (``restarts``): the machine's
    #: ``node_kills`` list each kill
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

    ``restarts`` is how many times a node failure killed the job and requeued it (0
    without failures; a job dropped at a kill counts only the requeued kills before it).
    ``allocation`` is the CPUs the job held in the run that produced the record, as
    an interval set in Batsim's syntax (``"0-3 7"``): a machine's CPU ids
    (``Machine(allocation=...)``), or a cluster's core ids in the platform's numbering
    (node by node, as the Gantt chart and Batsim's ``jobs.csv`` number them). The run
    that produced the record is the job's last stretch on the machine: from its last
    start, resume after a preemption, or restart after a node failure, to its end (or
    to now, for a ``running`` record). A job resized within that run records the
    *union* of the ids it held in it: a squeeze keeps its lowest ids and a growth adds
    new ones, so the union is every CPU the run occupied, the set a Gantt
    rectangle or ``allocated_resources`` must cover (what it held stretch by stretch is
    the machine's ``allocation_rows``). ``""`` (:data:`NO_IDS`) where the machine gives
    no ids, and for a job that holds none (rejected, waiting, never started).
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
    restarts: int
    allocation: str

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
    machine: str,
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
    restarts: int,
    allocation: str,
) -> JobRecord:
    """The record with these fields, wait and service derived as :func:`job_record` derives them."""
    return JobRecord(
        id,
        job_class,
        group,
        origin,
        machine,
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
        restarts,
        allocation,
    )

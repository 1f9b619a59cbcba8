"""One immutable record per job, and the table they make.

A run gives back a :class:`JobRecord` for every job it saw: completed, rejected, or
still waiting/running when the run stopped. Metrics (:mod:`schedlab.model.metrics`)
are functions of these records; :func:`records_frame` turns them into a DataFrame.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Iterator, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, NamedTuple, overload

from schedlab.model.job import Job
from schedlab.model.utility import final_utility

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["COLUMNS", "JobRecord", "RecordLog", "Status", "job_record", "records_frame"]


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


#: an origin of ``None`` in :class:`RecordLog`'s origin column (an origin this small is stored whole)
_NO_ORIGIN = -(2**63)
#: the columns of whole numbers are signed 64-bit
_BIG = 2**63
#: numbers per record in RecordLog's two arrays, and a placeholder row of each
_FLOATS, _INTS = 8, 6
_NO_FLOATS, _NO_INTS = (0.0,) * _FLOATS, (0,) * _INTS


class RecordLog(Sequence[JobRecord]):
    """The records of a machine or server, stored by columns; read as a sequence of :class:`JobRecord`.

    A run of a million jobs kept a million record tuples alive: about 350 bytes each,
    and every one of them tracked by the garbage collector (a record holds a
    :class:`Status`, an object), so each full collection walked them all. The log keeps
    its fields in two arrays of machine numbers instead (the texts as one small
    code per distinct ``(job_class, group, machine, status)``): 112 bytes a job and
    nothing for the collector to walk. Reading it (indexing, iterating, ``==``) builds
    each ``JobRecord`` on the fly, equal field for field, type for type, to the one
    :func:`job_record` makes; a record whose fields do not fit the columns (an ``int``
    time, a numpy number, a huge id) is kept whole, beside them. Measured on M/M/50 with
    1,000,000 customers: peak RSS and GC time fall to a fraction; see benchmarks/README.md.
    """

    __slots__ = ("_floats", "_ints", "_label_of", "_labels", "_n", "_whole")

    def __init__(self, records: Iterable[JobRecord] = ()) -> None:
        # Row by row, 8 floats (_FLOATS) and 6 whole numbers (_INTS) per record: one
        # fromlist() of each per record (177 ns for 8 floats against 290 for extend() of a
        # tuple or 8 appends), cheaper than a column each.
        self._floats = array("d")
        self._ints = array("q")
        self._labels: list[tuple[str, str, str, Status]] = []
        self._label_of: dict[tuple[str, str, str, Status], int] = {}
        self._whole: dict[int, JobRecord] = {}
        self._n = 0
        for record in records:
            self.append(record)

    def add(
        self, job: Job, where: str, status: Status, start: float, end: float, cpu_time: float,
        preemptions: int = 0, resizes: int = 0,
    ) -> None:
        """Log ``job_record(job, where, status, ...)`` without making the record."""
        submit, runtime, estimate, tuf = job.submit, job.runtime, job.estimate, job.utility
        if estimate is None:
            estimate = runtime
        utility = 0.0
        if tuf is not None and status is Status.COMPLETED:
            utility = final_utility(tuf, end - submit, job.cpus, runtime)
        id, cpus, origin, weight = job.id, job.cpus, job.origin, job.weight
        self._log(id, job.job_class, job.group, origin, where, submit, start, end, runtime, estimate,
                  cpus, cpu_time, weight, preemptions, resizes, utility, status)

    def append(self, record: JobRecord) -> None:
        """Log a record already made."""
        r = record
        if not (_same(r.wait, r.start - r.submit) and _same(r.service, r.end - r.start)):
            self._keep(r)  # a wait or service not derived as job_record derives them: keep it whole
            return
        self._log(r.id, r.job_class, r.group, r.origin, r.machine, r.submit, r.start, r.end, r.runtime,
                  r.estimate, r.cpus, r.cpu_time, r.weight, r.preemptions, r.resizes, r.utility, r.status)

    def _log(self, id, job_class, group, origin, where, submit, start, end, runtime,  # type: ignore[no-untyped-def]
             estimate, cpus, cpu_time, weight, preemptions, resizes, utility, status) -> None:
        if not (type(submit) is type(start) is type(end) is type(runtime) is type(estimate) is type(cpu_time)
                is type(weight) is type(utility) is float
                and type(id) is type(cpus) is type(preemptions) is type(resizes) is int
                and -_BIG <= id < _BIG and cpus < _BIG and preemptions < _BIG and resizes < _BIG
                and (origin is None or (type(origin) is int and _NO_ORIGIN < origin < _BIG))):
            # not what the columns hold exactly (an int time, a numpy number, a huge id): keep it whole
            self._keep(job_record_from(id, job_class, group, origin, where, submit, start, end, runtime, estimate,
                                       cpus, cpu_time, weight, preemptions, resizes, utility, status))
            return
        label = (job_class, group, where, status)
        code = self._label_of.get(label)
        if code is None:
            code = self._label_of[label] = len(self._labels)
            self._labels.append(label)
        self._floats.fromlist([submit, start, end, runtime, estimate, cpu_time, weight, utility])
        self._ints.fromlist([id, _NO_ORIGIN if origin is None else origin, cpus, preemptions, resizes, code])
        self._n += 1

    def _keep(self, record: JobRecord) -> None:
        self._whole[self._n] = record
        self._floats.extend(_NO_FLOATS)  # a placeholder row: row numbers stay the records' order
        self._ints.extend(_NO_INTS)
        self._n += 1

    def _make(self, floats: Sequence[float], ints: Sequence[int]) -> JobRecord:
        submit, start, end, runtime, estimate, cpu_time, weight, utility = floats
        id, origin, cpus, preemptions, resizes, code = ints
        job_class, group, where, status = self._labels[code]
        return JobRecord(id, job_class, group, None if origin == _NO_ORIGIN else origin, where,
                         submit, start, end, start - submit, end - start, runtime, estimate, cpus, cpu_time,
                         weight, preemptions, resizes, utility, status)

    def _row(self, i: int) -> JobRecord:
        whole = self._whole.get(i)
        if whole is not None:
            return whole
        return self._make(self._floats[_FLOATS * i:_FLOATS * (i + 1)], self._ints[_INTS * i:_INTS * (i + 1)])

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> JobRecord: ...
    @overload
    def __getitem__(self, i: slice) -> list[JobRecord]: ...
    def __getitem__(self, i: int | slice) -> JobRecord | list[JobRecord]:
        if isinstance(i, slice):
            return [self._row(k) for k in range(*i.indices(self._n))]
        n = self._n
        if not -n <= i < n:
            raise IndexError("record index out of range")
        return self._row(i + n if i < 0 else i)

    def __iter__(self) -> Iterator[JobRecord]:
        if self._whole:
            return (self._row(i) for i in range(self._n))
        rows = zip(zip(*[iter(self._floats)] * _FLOATS, strict=True), zip(*[iter(self._ints)] * _INTS, strict=True),
                   strict=True)
        return (self._make(floats, ints) for floats, ints in rows)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RecordLog | list | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, other: Iterable[JobRecord]) -> list[JobRecord]:
        return [*self, *other]

    def __repr__(self) -> str:
        return f"RecordLog({self._n} records)"


def _same(a: float, b: float) -> bool:
    return a == b or (a != a and b != b)  # nan is nan


def job_record_from(
    id: int, job_class: str, group: str, origin: int | None, where: str, submit: float, start: float, end: float,
    runtime: float, estimate: float, cpus: int, cpu_time: float, weight: float, preemptions: int, resizes: int,
    utility: float, status: Status,
) -> JobRecord:
    """The record with these fields, wait and service derived as :func:`job_record` derives them."""
    return JobRecord(id, job_class, group, origin, where, submit, start, end, start - submit, end - start,
                     runtime, estimate, cpus, cpu_time, weight, preemptions, resizes, utility, status)

"""A machine's or server's job records, kept by columns: a few numbers a job, nothing for the GC.

A run of a million jobs kept a million :class:`~schedlab.model.records.job_record.JobRecord`
tuples alive: about 350 bytes each, every one tracked by the garbage collector. A
:class:`RecordLog` keeps only what cannot be derived, in typed arrays:

- always, per job: ``submit``, ``start``, ``end``, ``runtime`` (floats) and ``id`` (a
  32-bit int, 64-bit once an id needs it): 36 bytes;
- ``wait`` and ``service`` never: they are ``start - submit`` and ``end - start``,
  exactly as :func:`~schedlab.model.records.table.job_record` derives them;
- the other fields only once some job's value differs from the *usual* one, and from
  then on as one more array (filled in for the jobs before it). Usual means:
  ``estimate`` is ``runtime``; ``cpu_time`` is ``(end - start) * cpus`` (0 where that
  is nan: a job that never ran); ``utility``, ``preemptions``, ``resizes`` and
  ``restarts`` are 0; ``allocation`` is ``""`` (a machine that gives no ids; else one
  code per distinct interval set); ``origin`` is ``None``; ``weight``, ``cpus`` and the
  texts (``job_class``, ``group``, ``machine``, ``status``: one code per distinct
  combination) are the first job's.

Every test for "usual" is exact (same bits, same type), so reading a log back
(indexing, iterating, ``==``) gives each record equal field for field and type for type
to the one ``job_record`` made. A record the columns cannot hold exactly (an ``int``
time, a numpy number, an id past 64 bits) is kept whole beside them.
:meth:`RecordLog.frame` builds the records' DataFrame from the arrays, with no record
tuple made, and :meth:`RecordLog.column` one field of every record (the reading side
is in :mod:`schedlab.model.records.columns`). The log takes 36 bytes a job (4 floats
and a 32-bit id), where a row-by-row log of 14 numbers took 112.

The class is cut by concern: this module logs records (``add``, ``append``, ``extend``)
and makes the log a sequence; :mod:`schedlab.model.records.log_store` stores the
optional fields, :mod:`schedlab.model.records.log_rows` reads records back, and
:mod:`schedlab.model.records.columns` reads columns.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, overload

from schedlab.model.core.utility import final_utility
from schedlab.model.records.columns import _NO_ORIGIN, RecordColumns
from schedlab.model.records.job_record import NO_IDS, ZERO, JobRecord, Status, job_record_from
from schedlab.model.records.log_rows import RecordRows
from schedlab.model.records.log_store import OptionalColumns, _same_float

__all__ = ["RecordLog"]

#: the columns of whole numbers are signed 64-bit
_BIG = 2**63
#: the restarts of a job no node failure requeued: the cached int 0 every maker passes, told by identity
_NO_RESTARTS = 0


class RecordLog(OptionalColumns, RecordRows, RecordColumns, Sequence[JobRecord]):
    """The records of a machine or server, stored by columns; read as a sequence of :class:`JobRecord`.

    See the module's docstring for what is stored and why. ``add`` logs a job's
    fields without making its record (what a machine does when nobody listens to its
    completions), ``append`` logs a record, ``extend`` another log or records.
    """

    __slots__ = (
        "_alloc_of",
        "_allocs",
        "_code",
        "_cpus",
        "_extra",
        "_ids",
        "_label_of",
        "_labels",
        "_n",
        "_times",
        "_weight",
        "_whole",
    )

    def __init__(self, records: Iterable[JobRecord] = ()) -> None:
        # Row by row, 4 floats (submit, start, end, runtime): one fromlist() per record is
        # cheaper than an append to each of 4 arrays.
        self._times = array("d")
        # 32-bit ids until one does not fit (then 64-bit, once): 4 bytes a job less, which
        # the 1M-customer benchmark's peak-RSS target needed (measured: benchmarks/README.md)
        self._ids = array("i")
        #: the optional fields stored so far (one value per record), by name
        self._extra: dict[str, array[Any]] = {}
        # the usual weight, cpus and label code: the first record's (None before it)
        self._weight: float | None = None
        self._cpus: int | None = None
        self._code: int | None = None
        self._labels: list[tuple[str, str, str, Status]] = []
        self._label_of: dict[tuple[str, str, str, Status], int] = {}
        # the distinct interval sets of the allocation column: code 0 is "", a job that held no ids
        self._allocs: list[str] = [NO_IDS]
        self._alloc_of: dict[str, int] = {NO_IDS: 0}
        self._whole: dict[int, JobRecord] = {}
        self._n = 0
        self.extend(records)

    # -- logging ---------------------------------------------------------------------------

    def add(
        self,
        job: Any,
        machine: str,
        status: Status,
        start: float,
        end: float,
        cpu_time: float,
        preemptions: int = 0,
        resizes: int = 0,
        restarts: int = 0,
        allocation: str = NO_IDS,
    ) -> None:
        """Log ``job_record(job, machine, status, ...)`` without making the record."""
        submit, runtime, estimate, tuf = job.submit, job.runtime, job.estimate, job.utility
        code = self._code
        # The usual job again (what _log tests, in the order that settles it soonest): its row
        # alone, with no 17-argument call and no label tuple to hash (Status hashes in Python),
        # the texts compared by identity with the usual label's: add() is paid once per job
        # (measured: benchmarks/README.md).
        if (
            code is not None
            and estimate is None
            and tuf is None
            and not self._extra
            and job.origin is None
            and type(submit) is type(start) is type(end) is type(runtime) is type(cpu_time) is float
            and type(cpus := job.cpus) is int
            and cpus == self._cpus
            and type(weight := job.weight) is float
            and weight == self._weight
            and allocation is NO_IDS
            and restarts is _NO_RESTARTS  # CPython's one int 0 (a False is not it): one test for type and value
            and type(preemptions) is type(resizes) is int
            and not preemptions
            and not resizes
            and cpu_time
            and cpu_time == (end - start) * cpus
        ):
            usual = self._labels[code]
            id = job.id
            if (
                usual[0] is job.job_class
                and usual[1] is job.group
                and usual[2] is machine
                and usual[3] is status
                and type(id) is int
                and -_BIG <= id < _BIG
            ):
                self._times.fromlist([submit, start, end, runtime])
                self._append_id(id)
                self._n += 1
                return
        if estimate is None:
            estimate = runtime
        utility = ZERO
        if tuf is not None and status is Status.COMPLETED:
            utility = final_utility(tuf, end - submit, job.cpus, runtime)
        self._log(
            job.id,
            job.job_class,
            job.group,
            job.origin,
            machine,
            submit,
            start,
            end,
            runtime,
            estimate,
            job.cpus,
            cpu_time,
            job.weight,
            preemptions,
            resizes,
            utility,
            status,
            restarts,
            allocation,
        )

    def append(self, record: JobRecord) -> None:
        """Log a record already made."""
        r = record
        # Times that are not floats (an int start) make _log keep a record it re-derives: then
        # an int end - start would stand for a float service 0.0 (Hypothesis found it), so keep r.
        if not (
            type(r.wait) is type(r.service) is type(r.submit) is type(r.start) is type(r.end) is float
            and _same_float(r.wait, r.start - r.submit)
            and _same_float(r.service, r.end - r.start)
        ):
            self._keep(r)  # a wait or service not derived as job_record derives them: keep it whole
            return
        self._log(
            r.id,
            r.job_class,
            r.group,
            r.origin,
            r.machine,
            r.submit,
            r.start,
            r.end,
            r.runtime,
            r.estimate,
            r.cpus,
            r.cpu_time,
            r.weight,
            r.preemptions,
            r.resizes,
            r.utility,
            r.status,
            r.restarts,
            r.allocation,
        )

    def extend(self, records: Iterable[JobRecord]) -> None:
        """Log every record of ``records`` (another log's arrays are copied, not read as records)."""
        if isinstance(records, RecordLog):
            self._extend_log(records.copy() if records is self else records)
            return
        for record in records:
            self.append(record)

    def _log(
        self,
        id,
        job_class,
        group,
        origin,
        machine,
        submit,
        start,
        end,
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
    ) -> None:
        if not (
            type(submit)
            is type(start)
            is type(end)
            is type(runtime)
            is type(estimate)
            is type(cpu_time)
            is type(weight)
            is type(utility)
            is float
            and type(id) is type(cpus) is type(preemptions) is type(resizes) is type(restarts) is int
            and -_BIG <= id < _BIG
            and -_BIG <= cpus < _BIG
            and -_BIG <= preemptions < _BIG
            and -_BIG <= resizes < _BIG
            and -_BIG <= restarts < _BIG
            and type(allocation) is str
            and (origin is None or (type(origin) is int and _NO_ORIGIN < origin < _BIG))
        ):
            # not what the columns hold exactly (an int time, a numpy number, a huge id): keep it whole
            self._keep(
                job_record_from(
                    id,
                    job_class,
                    group,
                    origin,
                    machine,
                    submit,
                    start,
                    end,
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
            )
            return
        label = (job_class, group, machine, status)
        code = self._label_of.get(label)
        if code is None:
            code = self._label_of[label] = len(self._labels)
            self._labels.append(label)
        self._times.fromlist([submit, start, end, runtime])
        self._append_id(id)
        # The usual job: identity tests where add() and job_record() pass the very object
        # (estimate is runtime, utility is ZERO), exact ones elsewhere (a nonzero weight's
        # == is its bits; cpu_time 0.0 goes the long way, which tells -0.0 apart). With the
        # 4-float row, logging a job costs what the 14-number row did (benchmarks/records.py).
        if (
            not self._extra
            and estimate is runtime
            and utility is ZERO
            and origin is None
            and not preemptions
            and not resizes
            and not restarts
            and not allocation
            and cpus == self._cpus
            and code == self._code
            and weight == self._weight
            and cpu_time
            and cpu_time == (end - start) * cpus
        ):
            self._n += 1
            return
        self._log_optional(
            start,
            end,
            runtime,
            estimate,
            cpu_time,
            weight,
            utility,
            origin,
            cpus,
            preemptions,
            resizes,
            restarts,
            allocation,
            code,
        )
        self._n += 1

    def _append_id(self, id: int) -> None:
        try:
            self._ids.append(id)
        except OverflowError:  # 32-bit ids until one does not fit
            self._ids = array("q", self._ids)
            self._ids.append(id)

    def copy(self) -> RecordLog:
        """A new log of the same records (the arrays copied)."""
        new = RecordLog()
        new._times, new._ids = array("d", self._times), array(self._ids.typecode, self._ids)
        new._extra = {name: array(column.typecode, column) for name, column in self._extra.items()}
        new._weight, new._cpus, new._code = self._weight, self._cpus, self._code
        new._labels, new._label_of = list(self._labels), dict(self._label_of)
        new._allocs, new._alloc_of = list(self._allocs), dict(self._alloc_of)
        new._whole, new._n = dict(self._whole), self._n
        return new

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
        return self._rows()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RecordLog | list | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # unhashable, as a list: it compares by content

    def __add__(self, other: Iterable[JobRecord]) -> list[JobRecord]:
        return [*self, *other]

    def __repr__(self) -> str:
        return f"RecordLog({self._n} records)"

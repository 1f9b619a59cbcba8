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
time, a numpy number, an id past 64 bits) is kept whole beside them. A row-by-row log of
14 numbers took 112 bytes a job.

One class, no mix-in. :class:`RecordLog` holds the arrays and is the only code that
writes them: ``add``, ``append``, ``extend`` and all they call are here, so what a record
costs and where each of its fields goes reads in one place. Its reads are plain
functions of the log, bound as class attributes so that the class shows what runs
(``column = columns.column``): :mod:`schedlab.model.records.log_rows` makes records
(``__iter__``, ``__getitem__``); :mod:`schedlab.model.records.columns` reads columns, the
DataFrame and the Arrow table, and says what each optional column holds. The storing
is not a part the log would hold: ``add``, once per job, reads the usual values and the
arrays straight off the log, and the log's arrays are what it pickles (a run's journal).
The storing is the long part of the class because the usual-job tests and the optional
fields are written out one by one, as measured (benchmarks/README.md).
"""

from __future__ import annotations

import struct
from array import array
from collections.abc import Iterable, Sequence
from typing import Any

from schedlab.model.core.utility import final_utility
from schedlab.model.records import columns, log_rows
from schedlab.model.records.columns import NO_ORIGIN, OPTIONAL, derived_cpu_time, optional_column
from schedlab.model.records.job_record import NO_IDS, ZERO, JobRecord, Status, job_record_from

__all__ = ["RecordLog"]

#: the columns of whole numbers are signed 64-bit
_BIG = 2**63
#: the restarts of a job no node failure requeued: the cached int 0 every maker passes, told by identity
_NO_RESTARTS = 0
_PACK = struct.Struct("d").pack


def _same_float(a: float, b: float) -> bool:
    """The same bits: ``-0.0`` is not ``0.0``, a nan is its own payload."""
    # Equal nonzero floats have the same bits: only zeros and nans need packing (half the cost).
    return (a == b and a != 0.0) or _PACK(a) == _PACK(b)


def _code_of(value: Any, values: list[Any], codes: dict[Any, int]) -> int:
    """The code of ``value`` in a table of distinct ``values`` (a new one for a value not seen before)."""
    code = codes.get(value)
    if code is None:
        code = codes[value] = len(values)
        values.append(value)
    return code


class RecordLog(Sequence[JobRecord]):
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
        #: the records logged (whole ones included): each array has a row for each
        self._n = 0
        # Row by row, 4 floats (submit, start, end, runtime): one fromlist() per record is
        # cheaper than an append to each of 4 arrays.
        self._times = array("d")
        # 32-bit ids until one does not fit (then 64-bit, once): 4 bytes a job less, which
        # the 1M-customer benchmark's peak-RSS target needed (measured: benchmarks/README.md)
        self._ids = array("i")
        #: the optional fields stored so far (one value per record), by name (see columns.OPTIONAL)
        self._extra: dict[str, array[Any]] = {}
        # the usual weight, cpus and label code: the first record's (None before it)
        self._weight: float | None = None
        self._cpus: int | None = None
        self._code: int | None = None
        # the distinct (job_class, group, machine, status) labels, the "code" column's values
        self._labels: list[tuple[str, str, str, Status]] = []
        self._label_of: dict[tuple[str, str, str, Status], int] = {}
        # the distinct interval sets of the allocation column: code 0 is "", a job that held no ids
        self._allocs: list[str] = [NO_IDS]
        self._alloc_of: dict[str, int] = {NO_IDS: 0}
        #: the records the arrays cannot hold exactly, by row (their rows are placeholders)
        self._whole: dict[int, JobRecord] = {}
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
        # alone, with no 19-argument call and no label tuple to hash (Status hashes in Python),
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
        self._log(*(r[:8] + r[10:]))  # its fields but wait and service (r[8] and r[9])

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
        """Store a record's fields: a :class:`JobRecord`'s in its order, but wait and service (derived)."""
        if not (
            type(submit) is type(start) is type(end) is type(runtime) is float
            and type(estimate) is type(cpu_time) is type(weight) is type(utility) is float
            and type(id) is type(cpus) is type(preemptions) is type(resizes) is type(restarts) is int
            and -_BIG <= id < _BIG
            and -_BIG <= cpus < _BIG
            and -_BIG <= preemptions < _BIG
            and -_BIG <= resizes < _BIG
            and -_BIG <= restarts < _BIG
            and type(allocation) is str
            and (origin is None or (type(origin) is int and NO_ORIGIN < origin < _BIG))
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
        if code is None:  # _code_of, written out: paid per record
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
        # Some optional field is not the usual one. A field whose array exists is appended to
        # with no test; any other is tested against its usual value (exactly: bits for floats)
        # and gets its array the first time it differs. Written out field by field, with no
        # dict of values or of usual values per call: a replay where every job stores some
        # fields pays this per job (measured: benchmarks/README.md).
        if self._code is None:  # the first record the arrays hold sets the usual values
            self._cpus, self._code = cpus, code
            self._weight = weight if weight != 0.0 and weight == weight else None  # 0.0 and nan go by bits
        # The order is OPTIONAL's: the cpu_time array, when made, reads the cpus one.
        x = self._extra
        if "estimate" in x:
            x["estimate"].append(estimate)
        elif estimate is not runtime and not _same_float(estimate, runtime):
            self._stored("estimate").append(estimate)
        if "cpu_time" in x:
            x["cpu_time"].append(cpu_time)
        elif not (cpu_time and cpu_time == (end - start) * cpus) and not _same_float(
            cpu_time, derived_cpu_time(start, end, cpus)
        ):  # a nonzero equal float has the same bits
            self._stored("cpu_time").append(cpu_time)
        if "weight" in x:
            x["weight"].append(weight)
        elif not (weight == self._weight and weight) and (  # the usual nonzero weight: the same bits
            self._weight is None or not _same_float(weight, self._weight)
        ):  # None: no usual weight
            self._stored("weight").append(weight)
        if "utility" in x:
            x["utility"].append(utility)
        elif utility is not ZERO and not _same_float(utility, 0.0):
            self._stored("utility").append(utility)
        if "origin" in x:
            x["origin"].append(NO_ORIGIN if origin is None else origin)
        elif origin is not None:
            self._stored("origin").append(origin)
        # whole numbers: != is exact
        if "cpus" in x:
            x["cpus"].append(cpus)
        elif cpus != self._cpus:
            self._stored("cpus").append(cpus)
        if "preemptions" in x:
            x["preemptions"].append(preemptions)
        elif preemptions:
            self._stored("preemptions").append(preemptions)
        if "resizes" in x:
            x["resizes"].append(resizes)
        elif resizes:
            self._stored("resizes").append(resizes)
        if "restarts" in x:
            x["restarts"].append(restarts)
        elif restarts:
            self._stored("restarts").append(restarts)
        if "allocation" in x:
            x["allocation"].append(_code_of(allocation, self._allocs, self._alloc_of))
        elif allocation:  # a str (checked above): "" is code 0, the usual
            self._stored("allocation").append(_code_of(allocation, self._allocs, self._alloc_of))
        if "code" in x:
            x["code"].append(code)
        elif code != self._code:
            self._stored("code").append(code)
        self._n += 1

    def _append_id(self, id: int) -> None:
        try:
            self._ids.append(id)
        except OverflowError:  # 32-bit ids until one does not fit
            self._ids = array("q", self._ids)
            self._ids.append(id)

    def _stored(self, name: str) -> array[Any]:
        """Optional field ``name``'s array, made now (the usual value for the records before) if it was not."""
        column = self._extra.get(name)
        if column is None:
            column = self._extra[name] = optional_column(self, name)
        return column

    def _keep(self, record: JobRecord) -> None:
        """Log ``record`` whole, with a placeholder row in every array: row numbers stay the records' order."""
        self._whole[self._n] = record
        self._times.fromlist([0.0, 0.0, 0.0, 0.0])
        self._ids.append(0)
        for column in self._extra.values():
            column.append(0)
        self._n += 1

    def _extend_log(self, other: RecordLog) -> None:
        """Log ``other``'s records after these, array by array, its codes turned into this log's."""
        if self._n == 0 and not self._extra and not self._labels:  # nothing logged: take its usual values
            self._weight, self._cpus, self._code = other._weight, other._cpus, other._code
        for name in OPTIONAL:  # in order: the cpu_time array, when made, reads the cpus one
            if name in ("code", "allocation"):
                continue
            # a usual weight is None or a nonzero float that is not nan: == is exact
            usual_differs = (name == "cpus" and other._cpus != self._cpus) or (
                name == "weight" and other._weight != self._weight
            )
            if name in self._extra or name in other._extra or (other._n and usual_differs):
                self._stored(name).extend(optional_column(other, name))
        if "allocation" in self._extra or "allocation" in other._extra:  # "" is code 0 in both logs
            codes = [_code_of(a, self._allocs, self._alloc_of) for a in other._allocs]
            self._stored("allocation").extend(array("q", [codes[c] for c in optional_column(other, "allocation")]))
        codes = [_code_of(label, self._labels, self._label_of) for label in other._labels]
        if (
            "code" in self._extra
            or "code" in other._extra
            or (other._n and (other._code is not None and codes[other._code] != self._code))
        ):
            theirs = optional_column(other, "code")
            self._stored("code").extend(array("q", [codes[c] if 0 <= c < len(codes) else 0 for c in theirs]))
        for row, record in other._whole.items():
            self._whole[self._n + row] = record
        self._times.extend(other._times)
        ids = other._ids
        if ids.typecode != self._ids.typecode:  # one log's ids are 64-bit: both are from now on
            self._ids, ids = array("q", self._ids), array("q", ids)
        self._ids.extend(ids)
        self._n += other._n

    def copy(self) -> RecordLog:
        """A new log of the same records (the arrays copied, the codes kept: no recoding as ``extend`` does)."""
        new = RecordLog()
        new._n, new._times, new._ids = self._n, array("d", self._times), array(self._ids.typecode, self._ids)
        new._extra = {name: array(column.typecode, column) for name, column in self._extra.items()}
        new._weight, new._cpus, new._code = self._weight, self._cpus, self._code
        new._labels, new._label_of = list(self._labels), dict(self._label_of)
        new._allocs, new._alloc_of = list(self._allocs), dict(self._alloc_of)
        new._whole = dict(self._whole)
        return new

    # -- reading: a sequence of records (log_rows) -----------------------------------------

    def __len__(self) -> int:
        return self._n

    __getitem__ = log_rows.item
    __iter__ = log_rows.rows

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RecordLog | list | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # unhashable, as a list: it compares by content

    def __add__(self, other: Iterable[JobRecord]) -> list[JobRecord]:
        return [*self, *other]

    def __repr__(self) -> str:
        return f"RecordLog({self._n} records)"

    # -- reading: columns (columns) --------------------------------------------------------

    @property
    def columnar(self) -> bool:
        """Whether every record is in the arrays (none kept whole): then each column is the records' fields exactly."""
        return not self._whole

    column = columns.column
    has_status = columns.has_status
    frame = columns.frame
    arrow_table = columns.arrow_table

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
  is nan: a job that never ran); ``utility``, ``preemptions`` and ``resizes`` are 0;
  ``origin`` is ``None``; ``weight``, ``cpus`` and the texts (``job_class``, ``group``,
  ``machine``, ``status``: one code per distinct combination) are the first job's.

Every test for "usual" is exact (same bits, same type), so reading a log back
(indexing, iterating, ``==``) gives each record equal field for field and type for type
to the one ``job_record`` made. A record the columns cannot hold exactly (an ``int``
time, a numpy number, an id past 64 bits) is kept whole beside them.
:meth:`RecordLog.frame` builds the records' DataFrame from the arrays, with no record
tuple made, and :meth:`RecordLog.column` one field of every record (the reading side
is in :mod:`schedlab.model.records.columns`). The log takes 36 bytes a job (4 floats
and a 32-bit id), where a row-by-row log of 14 numbers took 112.
"""

from __future__ import annotations

import struct
from array import array
from collections.abc import Iterable, Iterator, Sequence
from itertools import repeat
from typing import Any, overload

from schedlab.model.core.utility import final_utility
from schedlab.model.records.columns import _NO_ORIGIN, _OPTIONAL, RecordColumns
from schedlab.model.records.job_record import ZERO, JobRecord, Status, job_record_from

__all__ = ["RecordLog"]

#: the columns of whole numbers are signed 64-bit
_BIG = 2**63
_PACK = struct.Struct("d").pack


def _same_float(a: float, b: float) -> bool:
    """The same bits: ``-0.0`` is not ``0.0``, a nan is its own payload."""
    # Equal nonzero floats have the same bits: only zeros and nans need packing (half the cost).
    return (a == b and a != 0.0) or _PACK(a) == _PACK(b)


def _derived_cpu_time(start: float, end: float, cpus: int) -> float:
    cpu_time = (end - start) * cpus
    return 0.0 if cpu_time != cpu_time else cpu_time  # never ran: nan -> 0


class RecordLog(RecordColumns, Sequence[JobRecord]):
    """The records of a machine or server, stored by columns; read as a sequence of :class:`JobRecord`.

    See the module's docstring for what is stored and why. ``add`` logs a job's
    fields without making its record (what a machine does when nobody listens to its
    completions), ``append`` logs a record, ``extend`` another log or records.
    """

    __slots__ = ("_code", "_cpus", "_extra", "_ids", "_label_of", "_labels", "_n", "_times", "_weight", "_whole")

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
        self._whole: dict[int, JobRecord] = {}
        self._n = 0
        self.extend(records)

    # -- logging ---------------------------------------------------------------------------

    def add(
        self,
        job: Any,
        where: str,
        status: Status,
        start: float,
        end: float,
        cpu_time: float,
        preemptions: int = 0,
        resizes: int = 0,
    ) -> None:
        """Log ``job_record(job, where, status, ...)`` without making the record."""
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
                and usual[2] is where
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
            where,
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
        )

    def extend(self, records: Iterable[JobRecord]) -> None:
        """Log every record of ``records`` (another log's arrays are copied, not read as records)."""
        if isinstance(records, RecordLog):
            self._extend_log(records)
            return
        for record in records:
            self.append(record)

    def _log(
        self,
        id,
        job_class,
        group,
        origin,
        where,
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
            and type(id) is type(cpus) is type(preemptions) is type(resizes) is int
            and -_BIG <= id < _BIG
            and -_BIG <= cpus < _BIG
            and -_BIG <= preemptions < _BIG
            and -_BIG <= resizes < _BIG
            and (origin is None or (type(origin) is int and _NO_ORIGIN < origin < _BIG))
        ):
            # not what the columns hold exactly (an int time, a numpy number, a huge id): keep it whole
            self._keep(
                job_record_from(
                    id,
                    job_class,
                    group,
                    origin,
                    where,
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
                )
            )
            return
        label = (job_class, group, where, status)
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
            and cpus == self._cpus
            and code == self._code
            and weight == self._weight
            and cpu_time
            and cpu_time == (end - start) * cpus
        ):
            self._n += 1
            return
        self._log_optional(
            start, end, runtime, estimate, cpu_time, weight, utility, origin, cpus, preemptions, resizes, code
        )
        self._n += 1

    def _append_id(self, id: int) -> None:
        try:
            self._ids.append(id)
        except OverflowError:  # 32-bit ids until one does not fit
            self._ids = array("q", self._ids)
            self._ids.append(id)

    def _log_optional(
        self, start, end, runtime, estimate, cpu_time, weight, utility, origin, cpus, preemptions, resizes, code
    ) -> None:
        """Store each optional field of the record being logged (row ``self._n``) that is not the usual one.

        A field whose array exists is appended to with no test; any other is tested
        against its usual value (exactly: bits for floats) and gets its array the first
        time it differs. Written out field by field, with no dict of values or of usual
        values per call: a replay where every job stores some fields pays this per job
        (measured: benchmarks/README.md).
        """
        if self._code is None:  # the first record the arrays hold sets the usual values
            self._cpus, self._code = cpus, code
            self._weight = weight if weight != 0.0 and weight == weight else None  # 0.0 and nan go by bits
        # The order is the fields' order in _OPTIONAL: the cpu_time array, when made, reads the cpus one.
        x = self._extra
        if "estimate" in x:
            x["estimate"].append(estimate)
        elif estimate is not runtime and not _same_float(estimate, runtime):
            self._stored("estimate").append(estimate)
        if "cpu_time" in x:
            x["cpu_time"].append(cpu_time)
        elif not (cpu_time and cpu_time == (end - start) * cpus) and not _same_float(
            cpu_time, _derived_cpu_time(start, end, cpus)
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
            x["origin"].append(_NO_ORIGIN if origin is None else origin)
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
        if "code" in x:
            x["code"].append(code)
        elif code != self._code:
            self._stored("code").append(code)

    def _stored(self, name: str) -> array[Any]:
        """Field ``name`` as an array of the records logged so far, kept from now on."""
        column = self._extra.get(name)
        if column is None:
            column = self._extra[name] = self._column(name)
        return column

    def _column(self, name: str) -> array[Any]:
        """Field ``name`` of the ``len(self)`` records logged, as a new array (placeholders for whole records).

        Called while a record is being logged too: its times are in ``_times`` already, not counted yet.
        """
        stored = self._extra.get(name)
        if stored is not None:
            return array(stored.typecode, stored)
        end = 4 * self._n
        if name == "estimate":
            return array("d", self._times[3:end:4])
        if name == "cpu_time":
            cpus = self._column("cpus")
            return array("d", map(_derived_cpu_time, self._times[1:end:4], self._times[2:end:4], cpus))
        usual = {
            "weight": self._weight,
            "utility": 0.0,
            "origin": _NO_ORIGIN,
            "cpus": self._cpus,
            "preemptions": 0,
            "resizes": 0,
            "code": self._code,
        }[name]
        if usual is None:  # no usual value yet: an empty log, or a first weight of 0 or nan
            usual = 0.0 if _OPTIONAL[name] == "d" else 0
        return array(_OPTIONAL[name], [usual]) * self._n

    def _keep(self, record: JobRecord) -> None:
        self._whole[self._n] = record
        # a placeholder row in every array: row numbers stay the records' order
        self._times.fromlist([0.0, 0.0, 0.0, 0.0])
        self._ids.append(0)
        for column in self._extra.values():
            column.append(0)
        self._n += 1

    def _extend_log(self, other: RecordLog) -> None:
        """Log ``other``'s records after these, array by array."""
        if other is self:
            other = other.copy()
        if self._n == 0 and not self._extra and not self._labels:
            self._weight, self._cpus, self._code = other._weight, other._cpus, other._code
        base = self._n
        for name in _OPTIONAL:
            if name == "code":
                continue
            same_usual = (
                name in ("estimate", "cpu_time", "utility", "origin", "preemptions", "resizes")
                or (name == "cpus" and other._cpus == self._cpus)
                or (
                    name == "weight"
                    and (other._weight is None) is (self._weight is None)
                    and (other._weight is None or _same_float(other._weight, self._weight))  # type: ignore[arg-type]  # both None or neither, tested just before
                )
            )
            if name not in self._extra and name not in other._extra and (same_usual or other._n == 0):
                continue
            self._stored(name).extend(other._column(name))
        codes = [self._label_code(label) for label in other._labels]
        if (
            "code" in self._extra
            or "code" in other._extra
            or (other._n and (other._code is not None and codes[other._code] != self._code))
        ):
            theirs = other._column("code")
            self._stored("code").extend(array("q", [codes[c] if 0 <= c < len(codes) else 0 for c in theirs]))
        self._times.extend(other._times)
        if self._ids.typecode != other._ids.typecode:
            self._ids = array("q", self._ids)
        self._ids.extend(other._ids if self._ids.typecode == other._ids.typecode else array("q", other._ids))
        for row, record in other._whole.items():
            self._whole[base + row] = record
        self._n += other._n

    def _label_code(self, label: tuple[str, str, str, Status]) -> int:
        code = self._label_of.get(label)
        if code is None:
            code = self._label_of[label] = len(self._labels)
            self._labels.append(label)
        return code

    def copy(self) -> RecordLog:
        """A new log of the same records (the arrays copied)."""
        new = RecordLog()
        new._times, new._ids = array("d", self._times), array(self._ids.typecode, self._ids)
        new._extra = {name: array(column.typecode, column) for name, column in self._extra.items()}
        new._weight, new._cpus, new._code = self._weight, self._cpus, self._code
        new._labels, new._label_of = list(self._labels), dict(self._label_of)
        new._whole, new._n = dict(self._whole), self._n
        return new

    # -- reading ---------------------------------------------------------------------------

    def _rows(self) -> Iterator[JobRecord]:
        """Every record in order: made from the arrays, or the one kept whole.

        One pass over each array (no copy, no skipping from the start), so reading a log
        is linear in its length even with whole records in it.
        """
        extra, whole = self._extra, self._whole
        times = zip(*[iter(self._times)] * 4, strict=True)
        ids = iter(self._ids)
        # tuple.__new__ is JobRecord(...) without its Python-level __new__, with the usual
        # fields written out below: a read is paid per record, twice by mmc's measure
        # (measured: benchmarks/README.md).
        new = tuple.__new__
        if not self._n:
            return
        if not extra and not whole:  # every optional field the usual one: the common case, written out
            job_class, group, where, status = self._labels[self._code]  # type: ignore[index]  # a log with records has a code
            cpus, weight = self._cpus, self._weight
            for (submit, start, end, runtime), id in zip(times, ids, strict=True):
                cpu_time = (end - start) * cpus
                yield new(
                    JobRecord,
                    (
                        id,
                        job_class,
                        group,
                        None,
                        where,
                        submit,
                        start,
                        end,
                        start - submit,
                        end - start,
                        runtime,
                        runtime,
                        cpus,
                        0.0 if cpu_time != cpu_time else cpu_time,
                        weight,
                        0,
                        0,
                        0.0,
                        status,
                    ),
                )
            return
        derived = object()

        def column(name: str, usual: Any) -> Iterator[Any]:
            stored = extra.get(name)
            return repeat(usual) if stored is None else iter(stored)

        labels = self._labels
        optional = zip(
            column("estimate", derived),
            column("cpu_time", derived),
            column("weight", self._weight),
            column("utility", 0.0),
            column("origin", _NO_ORIGIN),
            column("cpus", self._cpus),
            column("preemptions", 0),
            column("resizes", 0),
            column("code", self._code),
            strict=False,
        )
        # strict=False: a usual field's column is an endless repeat(); the times and ids end the rows
        rows = zip(zip(times, ids, strict=True), optional, strict=False)
        for i, (
            ((submit, start, end, runtime), id),
            (estimate, cpu_time, weight, utility, origin, cpus, pre, res, code),
        ) in enumerate(rows):
            if whole and i in whole:
                yield whole[i]  # its row in the arrays is a placeholder
                continue
            job_class, group, where, status = labels[code]
            yield new(
                JobRecord,
                (
                    id,
                    job_class,
                    group,
                    None if origin == _NO_ORIGIN else origin,
                    where,
                    submit,
                    start,
                    end,
                    start - submit,
                    end - start,
                    runtime,
                    runtime if estimate is derived else estimate,
                    cpus,
                    _derived_cpu_time(start, end, cpus) if cpu_time is derived else cpu_time,
                    weight,
                    pre,
                    res,
                    utility,
                    status,
                ),
            )

    def _row(self, i: int) -> JobRecord:
        """Record ``i`` (0 <= i < len), from the arrays' row ``i``."""
        whole = self._whole.get(i)
        if whole is not None:
            return whole
        submit, start, end, runtime = self._times[4 * i : 4 * i + 4]
        x = self._extra

        def field(name: str, usual: Any) -> Any:
            stored = x.get(name)
            return usual if stored is None else stored[i]

        origin, cpus = field("origin", _NO_ORIGIN), field("cpus", self._cpus)
        job_class, group, where, status = self._labels[field("code", self._code)]
        return JobRecord(
            self._ids[i],
            job_class,
            group,
            None if origin == _NO_ORIGIN else origin,
            where,
            submit,
            start,
            end,
            start - submit,
            end - start,
            runtime,
            field("estimate", runtime),
            cpus,
            field("cpu_time", None) if "cpu_time" in x else _derived_cpu_time(start, end, cpus),
            field("weight", self._weight),
            field("preemptions", 0),
            field("resizes", 0),
            field("utility", 0.0),
            status,
        )

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

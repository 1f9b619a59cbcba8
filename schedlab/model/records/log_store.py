"""How a :class:`~schedlab.model.records.log.RecordLog` stores the fields that are not the usual ones.

:class:`OptionalColumns` is the storing side of ``RecordLog`` (a mix-in, as
:class:`~schedlab.model.records.columns.RecordColumns` is its reading side): an optional
field gets its array the first time a record's value differs from the usual one, filled
in for the records before it; a record the arrays cannot hold exactly is kept whole; and
another log's arrays are appended array by array. The texts are codes: ``code`` into
the distinct ``(job_class, group, machine, status)`` labels, ``allocation`` into the
distinct interval sets (code 0 is ``""``, a job that held no ids).
"""

from __future__ import annotations

import struct
from array import array
from typing import Any

from schedlab.model.records.columns import _NO_ORIGIN, _OPTIONAL
from schedlab.model.records.job_record import ZERO, JobRecord, Status

__all__ = ["OptionalColumns"]

_PACK = struct.Struct("d").pack


def _same_float(a: float, b: float) -> bool:
    """The same bits: ``-0.0`` is not ``0.0``, a nan is its own payload."""
    # Equal nonzero floats have the same bits: only zeros and nans need packing (half the cost).
    return (a == b and a != 0.0) or _PACK(a) == _PACK(b)


def _derived_cpu_time(start: float, end: float, cpus: int) -> float:
    cpu_time = (end - start) * cpus
    return 0.0 if cpu_time != cpu_time else cpu_time  # never ran: nan -> 0


class OptionalColumns:
    """The storing side of a :class:`~schedlab.model.records.log.RecordLog` (a mix-in: ``RecordLog`` has the arrays)."""

    _n: int
    _times: array[float]
    _ids: array[int]
    _extra: dict[str, array[Any]]
    _weight: float | None
    _cpus: int | None
    _code: int | None
    _labels: list[tuple[str, str, str, Status]]
    _label_of: dict[tuple[str, str, str, Status], int]
    _allocs: list[str]
    _alloc_of: dict[str, int]
    _whole: dict[int, JobRecord]

    def _log_optional(
        self,
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
        if "restarts" in x:
            x["restarts"].append(restarts)
        elif restarts:
            self._stored("restarts").append(restarts)
        if "allocation" in x:
            x["allocation"].append(self._alloc_code(allocation))
        elif allocation:  # a str (checked by the caller): "" is code 0, the usual
            self._stored("allocation").append(self._alloc_code(allocation))
        if "code" in x:
            x["code"].append(code)
        elif code != self._code:
            self._stored("code").append(code)

    def _alloc_code(self, allocation: str) -> int:
        """The code of interval set ``allocation`` (a new one for a set not seen before)."""
        code = self._alloc_of.get(allocation)
        if code is None:
            code = self._alloc_of[allocation] = len(self._allocs)
            self._allocs.append(allocation)
        return code

    def _label_code(self, label: tuple[str, str, str, Status]) -> int:
        code = self._label_of.get(label)
        if code is None:
            code = self._label_of[label] = len(self._labels)
            self._labels.append(label)
        return code

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
            "restarts": 0,
            "allocation": 0,  # the code of ""
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

    def _extend_log(self, other: OptionalColumns) -> None:
        """Log ``other``'s records after these, array by array."""
        if self._n == 0 and not self._extra and not self._labels:
            self._weight, self._cpus, self._code = other._weight, other._cpus, other._code
        base = self._n
        for name in _OPTIONAL:
            if name in ("code", "allocation"):
                continue
            same_usual = (
                name in ("estimate", "cpu_time", "utility", "origin", "preemptions", "resizes", "restarts")
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
        if "allocation" in self._extra or "allocation" in other._extra:  # "" is code 0 in both logs
            codes = [self._alloc_code(a) for a in other._allocs]
            self._stored("allocation").extend(array("q", [codes[c] for c in other._column("allocation")]))
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

"""Reading a :class:`~schedlab.model.records.log.RecordLog` back as records: every one in order, or one.

:class:`RecordRows` makes each :class:`~schedlab.model.records.job_record.JobRecord` from
the log's arrays (or gives the record kept whole), field for field and type for type
the record ``job_record`` made. A mix-in, as :class:`~schedlab.model.records.columns.RecordColumns`:
``RecordLog`` has the arrays.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from itertools import repeat
from typing import Any

from schedlab.model.records.columns import _NO_ORIGIN
from schedlab.model.records.job_record import NO_IDS, JobRecord, Status
from schedlab.model.records.log_store import _derived_cpu_time

__all__ = ["RecordRows"]


class RecordRows:
    """Records made from a :class:`~schedlab.model.records.log.RecordLog`'s arrays (a mix-in)."""

    _n: int
    _times: array[float]
    _ids: array[int]
    _extra: dict[str, array[Any]]
    _weight: float | None
    _cpus: int | None
    _code: int | None
    _labels: list[tuple[str, str, str, Status]]
    _allocs: list[str]
    _whole: dict[int, JobRecord]

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
            job_class, group, machine, status = self._labels[self._code]  # type: ignore[index]  # a log with records has a code
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
                        machine,
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
                        0,
                        NO_IDS,
                    ),
                )
            return
        derived = object()

        def column(name: str, usual: Any) -> Iterator[Any]:
            stored = extra.get(name)
            return repeat(usual) if stored is None else iter(stored)

        labels, allocs = self._labels, self._allocs
        optional = zip(
            column("estimate", derived),
            column("cpu_time", derived),
            column("weight", self._weight),
            column("utility", 0.0),
            column("origin", _NO_ORIGIN),
            column("cpus", self._cpus),
            column("preemptions", 0),
            column("resizes", 0),
            column("restarts", 0),
            column("allocation", 0),
            column("code", self._code),
            strict=False,
        )
        # strict=False: a usual field's column is an endless repeat(); the times and ids end the rows
        rows = zip(zip(times, ids, strict=True), optional, strict=False)
        for i, (
            ((submit, start, end, runtime), id),
            (estimate, cpu_time, weight, utility, origin, cpus, pre, res, restarts, alloc, code),
        ) in enumerate(rows):
            if whole and i in whole:
                yield whole[i]  # its row in the arrays is a placeholder
                continue
            job_class, group, machine, status = labels[code]
            yield new(
                JobRecord,
                (
                    id,
                    job_class,
                    group,
                    None if origin == _NO_ORIGIN else origin,
                    machine,
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
                    restarts,
                    allocs[alloc],
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
        job_class, group, machine, status = self._labels[field("code", self._code)]
        return JobRecord(
            self._ids[i],
            job_class,
            group,
            None if origin == _NO_ORIGIN else origin,
            machine,
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
            field("restarts", 0),
            self._allocs[field("allocation", 0)],
        )

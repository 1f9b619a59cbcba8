"""Reading a :class:`~schedlab.model.records.log.RecordLog` back as records: every one in order, or some.

:func:`rows` (the log's ``__iter__``) and :func:`item` (its ``__getitem__``) make each
:class:`~schedlab.model.records.job_record.JobRecord` from the log's arrays (or give the
record kept whole), field for field and type for type the record ``job_record`` made.
They are plain functions of the log's arrays (:class:`~schedlab.model.records.columns.LogArrays`),
as :mod:`schedlab.model.records.columns` reads them by columns: the log stores, these read,
and none is a mix-in of the other.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import repeat
from typing import Any, overload

from schedlab.model.records.columns import NO_ORIGIN, LogArrays, derived_cpu_time
from schedlab.model.records.job_record import NO_IDS, JobRecord

__all__ = ["item", "rows"]


def rows(log: LogArrays) -> Iterator[JobRecord]:
    """Every record in order: made from the arrays, or the one kept whole.

    One pass over each array (no copy, no skipping from the start), so reading a log
    is linear in its length even with whole records in it.
    """
    extra, whole = log._extra, log._whole
    times = zip(*[iter(log._times)] * 4, strict=True)
    ids = iter(log._ids)
    # tuple.__new__ is JobRecord(...) without its Python-level __new__, with the usual
    # fields written out below: a read is paid per record, twice by mmc's measure
    # (measured: benchmarks/README.md).
    new = tuple.__new__
    if not log._n:
        return
    if not extra and not whole:  # every optional field the usual one: the common case, written out
        job_class, group, machine, status = log._labels[log._code]  # type: ignore[index]  # a log with records has a code
        cpus, weight = log._cpus, log._weight
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

    labels, allocs = log._labels, log._allocs
    optional = zip(
        column("estimate", derived),
        column("cpu_time", derived),
        column("weight", log._weight),
        column("utility", 0.0),
        column("origin", NO_ORIGIN),
        column("cpus", log._cpus),
        column("preemptions", 0),
        column("resizes", 0),
        column("restarts", 0),
        column("allocation", 0),
        column("code", log._code),
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
                None if origin == NO_ORIGIN else origin,
                machine,
                submit,
                start,
                end,
                start - submit,
                end - start,
                runtime,
                runtime if estimate is derived else estimate,
                cpus,
                derived_cpu_time(start, end, cpus) if cpu_time is derived else cpu_time,
                weight,
                pre,
                res,
                utility,
                status,
                restarts,
                allocs[alloc],
            ),
        )


@overload
def item(log: LogArrays, i: int) -> JobRecord: ...
@overload
def item(log: LogArrays, i: slice) -> list[JobRecord]: ...
def item(log: LogArrays, i: int | slice) -> JobRecord | list[JobRecord]:
    """``log[i]``: record ``i`` (counted from the end if negative), or the records of slice ``i`` as a list."""
    if isinstance(i, slice):
        return [row(log, k) for k in range(*i.indices(log._n))]
    n = log._n
    if not -n <= i < n:
        raise IndexError("record index out of range")
    return row(log, i + n if i < 0 else i)


def row(log: LogArrays, i: int) -> JobRecord:
    """Record ``i`` (0 <= i < len), from the arrays' row ``i``."""
    whole = log._whole.get(i)
    if whole is not None:
        return whole
    submit, start, end, runtime = log._times[4 * i : 4 * i + 4]
    x = log._extra

    def field(name: str, usual: Any) -> Any:
        stored = x.get(name)
        return usual if stored is None else stored[i]

    origin, cpus = field("origin", NO_ORIGIN), field("cpus", log._cpus)
    job_class, group, machine, status = log._labels[field("code", log._code)]
    return JobRecord(
        log._ids[i],
        job_class,
        group,
        None if origin == NO_ORIGIN else origin,
        machine,
        submit,
        start,
        end,
        start - submit,
        end - start,
        runtime,
        field("estimate", runtime),
        cpus,
        field("cpu_time", None) if "cpu_time" in x else derived_cpu_time(start, end, cpus),
        field("weight", log._weight),
        field("preemptions", 0),
        field("resizes", 0),
        field("utility", 0.0),
        status,
        field("restarts", 0),
        log._allocs[field("allocation", 0)],
    )

"""A :class:`~schedlab.model.records.log.RecordLog`'s columns: what each holds, and reading them.

The log stores (``log.py``); this module says what its optional columns are
(:data:`OPTIONAL`, with :data:`NO_ORIGIN` and :func:`derived_cpu_time`, the values a
record that stores nothing reads as) and reads the columns back: one field of every
record (:func:`column`, :func:`has_status`), the pandas DataFrame (:func:`frame`) and
the pyarrow Table (:func:`arrow_table`), without making a record per job.

They are plain functions of the log's arrays (:class:`LogArrays`, which names every
array they read), bound as ``RecordLog`` methods (``column = columns.column``), not a
mix-in: the log is then one class a reader sees whole, and each function here is read
on its own. Reading never changes the log.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Protocol

from schedlab.model.records import arrow_arrays
from schedlab.model.records.job_record import COLUMNS, JobRecord, Status, frame_of_records

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    import pyarrow as pa

__all__ = [
    "NO_ORIGIN",
    "OPTIONAL",
    "arrow_table",
    "column",
    "derived_cpu_time",
    "frame",
    "has_status",
    "optional_column",
]

#: an origin of ``None`` in the origin column (an origin this small is kept whole)
NO_ORIGIN = -(2**63)
#: the fields kept only once they differ from the usual value, and each one's array type
OPTIONAL: dict[str, str] = {
    "estimate": "d",
    "cpu_time": "d",
    "weight": "d",
    "utility": "d",
    "origin": "q",
    "cpus": "q",
    "preemptions": "q",
    "resizes": "q",
    "restarts": "q",
    #: a code into the log's distinct interval sets (0: ``""``)
    "allocation": "q",
    "code": "q",
}


class LogArrays(Protocol):
    """A :class:`~schedlab.model.records.log.RecordLog` as its readers see it: its arrays, read only.

    The readers here and in :mod:`schedlab.model.records.log_rows` are typed against this,
    not ``RecordLog``: ``log.py`` imports them, so importing ``RecordLog`` back, even for its
    type, would make the modules a cycle (tests/test_architecture.py). mypy checks that a
    ``RecordLog`` is one wherever it calls a reader, so the list cannot drift from the class.
    """

    #: the records logged, whole ones included (each array has a row for each)
    _n: int
    #: row by row: submit, start, end, runtime
    _times: array[float]
    _ids: array[int]
    #: the optional fields stored, by name (:data:`OPTIONAL`)
    _extra: dict[str, array[Any]]
    #: the usual weight, cpus and label code (None before the first record the arrays hold)
    _weight: float | None
    _cpus: int | None
    _code: int | None
    #: the distinct labels (job_class, group, machine, status) and interval sets, by code
    _labels: list[tuple[str, str, str, Status]]
    _allocs: list[str]
    #: the records kept whole, by row (their rows in the arrays are placeholders)
    _whole: dict[int, JobRecord]

    def __iter__(self) -> Iterator[JobRecord]: ...


def derived_cpu_time(start: float, end: float, cpus: int) -> float:
    """The usual CPU time: ``(end - start) * cpus``, 0 for a job that never ran (nan)."""
    cpu_time = (end - start) * cpus
    return 0.0 if cpu_time != cpu_time else cpu_time


def optional_column(log: LogArrays, name: str) -> array[Any]:
    """Optional field ``name`` of the ``len(log)`` records logged, as a new array (placeholders for whole records).

    The stored array copied, or else the usual value of every record. Called while a
    record is being logged too (to store a field the first time it differs): its times
    are in ``_times`` already, not counted yet.
    """
    stored = log._extra.get(name)
    if stored is not None:
        return array(stored.typecode, stored)
    n, times = log._n, log._times
    if name == "estimate":
        return array("d", times[3 : 4 * n : 4])
    if name == "cpu_time":
        cpus = optional_column(log, "cpus")
        return array("d", map(derived_cpu_time, times[1 : 4 * n : 4], times[2 : 4 * n : 4], cpus))
    usual = {"weight": log._weight, "cpus": log._cpus, "code": log._code}.get(
        name, NO_ORIGIN if name == "origin" else 0
    )
    if usual is None:  # no usual value yet: an empty log, or a first weight of 0 or nan
        usual = 0
    return array(OPTIONAL[name], [usual]) * n


# -- one field of every record ---------------------------------------------------------------


def column(log: LogArrays, name: str) -> np.ndarray:
    """Field ``name`` of every record, in order, as a new array, computed from the arrays: no record is made.

    Times and other float fields come as float64, ``id``, ``cpus``, ``preemptions``,
    ``resizes`` and ``restarts`` as int64, ``origin`` as :func:`frame` gives it, the texts,
    ``allocation`` and ``status`` as object arrays. Each value equals the record's field (``wait`` is ``start -
    submit``, ``service`` ``end - start``, as :func:`~schedlab.model.records.table.job_record`
    derives them); a record kept whole (see ``RecordLog.columnar``) has its field converted
    to the column's dtype. A column is read from the arrays, far cheaper than making
    every record to pick one field (measured: benchmarks/README.md).
    """
    import numpy as np

    if name not in COLUMNS:
        raise KeyError(f"RecordLog.column: no field {name!r}; the fields are {', '.join(COLUMNS)}")
    times = np.frombuffer(log._times, dtype=np.float64)
    n4 = 4 * log._n
    if name in _TIME_OFFSET:
        values = times[_TIME_OFFSET[name] : n4 : 4].copy()
    elif name == "wait":
        values = times[1:n4:4] - times[0:n4:4]
    elif name == "service":
        values = times[2:n4:4] - times[1:n4:4]
    elif name == "cpu_time" and "cpu_time" not in log._extra:
        values = (times[2:n4:4] - times[1:n4:4]) * _array(log, "cpus")  # as derived_cpu_time does
        values[np.isnan(values)] = 0.0
    elif name == "id":
        values = np.array(log._ids, dtype=np.int64)
    elif name == "origin":
        values = _origin_column(log)
    elif name in _LABEL_INDEX:
        labels = np.empty(max(len(log._labels), 1), dtype=object)  # [None]: only whole records
        labels[: len(log._labels)] = [label[_LABEL_INDEX[name]] for label in log._labels]
        values = labels[_array(log, "code")] if log._labels else np.full(log._n, None, dtype=object)
    elif name == "allocation":
        allocs = np.empty(len(log._allocs), dtype=object)
        allocs[:] = log._allocs
        values = allocs[_array(log, "allocation")]
    else:
        values = _array(log, name)  # a new array
    for row, record in log._whole.items():  # their rows in the arrays are placeholders
        value = getattr(record, name)
        try:
            values[row] = value
        except (TypeError, ValueError, OverflowError):  # e.g. an origin of None among ints
            values = values.astype(object)
            values[row] = value
    return values


def has_status(log: LogArrays, status: Status) -> np.ndarray:
    """A boolean mask of the records whose ``status is status`` (one test per distinct label, then a take)."""
    import numpy as np

    if not log._n:
        return np.zeros(0, dtype=bool)
    of_label = np.array([label[3] is status for label in log._labels] or [False], dtype=bool)
    mask = of_label[_array(log, "code")]
    for row, record in log._whole.items():
        mask[row] = record.status is status
    return mask


# -- every field: the DataFrame and the Arrow table ------------------------------------------


def frame(log: LogArrays) -> pd.DataFrame:
    """The records as a DataFrame, one row per job, in :data:`COLUMNS` order.

    The same columns, dtypes and values as ``pandas.DataFrame(list(log))`` with the
    status as text (what :func:`~schedlab.model.records.table.records_frame` gives), built
    from the arrays: no record is made, and each column is made once. A log holding
    whole records, or none, goes through the records.
    """
    import pandas as pd

    if not _by_arrays(log):
        return frame_of_records(log)
    # The float columns as one 2-D block: pandas keeps it as its one float block
    # instead of stacking ten columns into a copy (a second frame's worth).
    block = _float_block(log)
    frame = pd.DataFrame(block.T, columns=_FLOAT_NAMES, copy=False)
    del block
    codes = _array(log, "code")
    labels = pd.DataFrame(log._labels, columns=list(_LABEL_INDEX))
    labels["status"] = labels["status"].astype(str)
    others = _other_columns(log)
    for name in _LABEL_INDEX:
        others[name] = labels[name].take(codes).reset_index(drop=True)
    # the interval sets as pandas infers texts (a Series of str, as frame_of_records' column)
    others["allocation"] = pd.Series(log._allocs).take(_array(log, "allocation")).reset_index(drop=True)
    for k, name in enumerate(COLUMNS):
        if name in others:
            frame.insert(k, name, others.pop(name))
    return frame


def arrow_table(log: LogArrays) -> pa.Table | None:
    """The records as a pyarrow Table: what ``pyarrow.Table.from_pandas(frame(log))`` gives under pandas 3.

    The same columns, types and values (texts as ``large_string``, a float column's
    nan as null), made from the arrays without pandas, whose import is a large part
    of a short run (measured: benchmarks/README.md). ``None`` where :func:`frame` goes through the records
    (whole records, no records, texts that are not all ``str``): use the frame then.
    """
    import pyarrow as pa

    if not _by_arrays(log):
        return None
    block = _float_block(log)
    columns = {name: arrow_arrays.floats(block[k]) for k, name in enumerate(_FLOAT_NAMES)}
    for name, values in _other_columns(log).items():
        if values.dtype == object:  # an origin of all None
            columns[name] = pa.nulls(log._n)
        elif values.dtype.kind == "f":  # an origin with some None
            columns[name] = arrow_arrays.floats(values)
        else:
            columns[name] = arrow_arrays.ints(values)
    codes = _array(log, "code")
    for name, k in _LABEL_INDEX.items():
        columns[name] = arrow_arrays.texts_at([str(label[k]) for label in log._labels], codes)
    columns["allocation"] = arrow_arrays.texts_at(log._allocs, _array(log, "allocation"))
    return pa.table({name: columns[name] for name in COLUMNS})


def _by_arrays(log: LogArrays) -> bool:
    """Whether :func:`frame` and :func:`arrow_table` can be made from the arrays (else: from the records).

    Not with whole records or none; and only where the arrays give pandas' own
    inference: every text a str, no origin past a float's 53 bits.
    """
    if log._whole or not log._n or not all(type(x) is str for label in log._labels for x in label[:3]):
        return False
    origin = log._extra.get("origin")
    return origin is None or all(o == NO_ORIGIN or -(2**53) <= o <= 2**53 for o in origin)


def _float_block(log: LogArrays) -> np.ndarray:
    """The float columns (:data:`_FLOAT_NAMES`, in order) as the rows of one new 2-D array, each filled in place."""
    import numpy as np

    n = log._n
    times = np.frombuffer(log._times, dtype=np.float64).reshape(n, 4)
    submit, start, end, runtime = (times[:, k] for k in range(4))
    given = {"submit": submit, "start": start, "end": end, "runtime": runtime}
    block = np.empty((len(_FLOAT_NAMES), n))
    for k, name in enumerate(_FLOAT_NAMES):
        if name == "wait":
            np.subtract(start, submit, out=block[k])
        elif name == "service":
            np.subtract(end, start, out=block[k])
        elif name == "cpu_time" and "cpu_time" not in log._extra:
            np.subtract(end, start, out=block[k])
            np.multiply(block[k], _array(log, "cpus"), out=block[k])
            block[k][np.isnan(block[k])] = 0.0
        elif name in given:
            block[k] = given[name]
        else:
            block[k] = _array(log, name)
    return block


def _other_columns(log: LogArrays) -> dict[str, np.ndarray]:
    """The columns neither floats nor texts: ids and counts as int64, the origin as frame() infers it."""
    import numpy as np

    return {
        "id": np.array(log._ids, dtype=np.int64),
        "origin": _origin_column(log),
        "cpus": _array(log, "cpus"),
        "preemptions": _array(log, "preemptions"),
        "resizes": _array(log, "resizes"),
        "restarts": _array(log, "restarts"),
    }


def _array(log: LogArrays, name: str) -> np.ndarray:
    """Optional field ``name`` of every record as a new numpy array (float64 or int64)."""
    import numpy as np

    values = optional_column(log, name)
    return np.frombuffer(values, dtype=np.float64 if values.typecode == "d" else np.int64)


def _origin_column(log: LogArrays) -> np.ndarray:
    """As pandas infers it from the records: int64, all ``None`` (object), or float64 with nan for ``None``."""
    import numpy as np

    if "origin" not in log._extra:
        return np.full(log._n, None, dtype=object)
    origin = _array(log, "origin")
    missing = origin == NO_ORIGIN
    if not missing.any():
        return origin
    if missing.all():
        return np.full(log._n, None, dtype=object)
    values = origin.astype(np.float64)
    values[missing] = np.nan
    return values


_FLOAT_COLUMNS = frozenset(
    ("submit", "start", "end", "wait", "service", "runtime", "estimate", "cpu_time", "weight", "utility")
)
#: the float columns in :data:`COLUMNS` order (the rows of ``_float_block``)
_FLOAT_NAMES = [c for c in COLUMNS if c in _FLOAT_COLUMNS]
#: where each time is in a row of ``_times``
_TIME_OFFSET = {"submit": 0, "start": 1, "end": 2, "runtime": 3}
#: where each text is in a label (``job_class``, ``group``, ``machine``, ``status``)
_LABEL_INDEX = {"job_class": 0, "group": 1, "machine": 2, "status": 3}

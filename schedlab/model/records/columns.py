"""Reading a :class:`~schedlab.model.records.log.RecordLog` by columns: one field of every record, or the DataFrame.

:class:`RecordColumns` is the reading side of ``RecordLog``, split from the writing
side (``log.py``) to keep each module one concept: it turns the log's typed
arrays into numpy columns, a pandas DataFrame or a pyarrow Table without making a record per job. It
reads the log's private arrays (``_times``, ``_ids``, ``_labels``, ``_extra``,
``_whole``, ``_column``), which ``RecordLog`` defines; it is not used on its own.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from schedlab.model.records import arrow_arrays
from schedlab.model.records.job_record import COLUMNS, JobRecord, Status, frame_of_records

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    import pyarrow as pa

__all__ = ["RecordColumns"]

#: an origin of ``None`` in the origin column (an origin this small is kept whole)
_NO_ORIGIN = -(2**63)
#: the fields kept only once they differ from the usual value, and each one's array type
_OPTIONAL: dict[str, str] = {
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


class RecordColumns:
    """The column reads of a :class:`~schedlab.model.records.log.RecordLog` (a mix-in: ``RecordLog`` has the arrays)."""

    _n: int
    _times: array[float]
    _ids: array[int]
    _labels: list[tuple[str, str, str, Status]]
    _allocs: list[str]
    _extra: dict[str, array[Any]]
    _whole: dict[int, JobRecord]

    def _column(self, name: str) -> array[Any]:
        raise NotImplementedError

    if TYPE_CHECKING:  # RecordLog, a Sequence of records, has it

        def __iter__(self) -> Iterator[JobRecord]: ...

    # -- columns ---------------------------------------------------------------------------

    @property
    def columnar(self) -> bool:
        """Whether every record is in the arrays (none kept whole): then each column is the records' fields exactly."""
        return not self._whole

    def column(self, name: str) -> np.ndarray:
        """Field ``name`` of every record, in order, as a new array, computed from the arrays: no record is made.

        Times and other float fields come as float64, ``id``, ``cpus``, ``preemptions``,
        ``resizes`` and ``restarts`` as int64, ``origin`` as :meth:`frame` gives it, the texts,
        ``allocation`` and ``status`` as object arrays. Each value equals the record's field (``wait`` is ``start -
        submit``, ``service`` ``end - start``, as :func:`~schedlab.model.records.table.job_record`
        derives them); a record kept whole (see :attr:`columnar`) has its field converted
        to the column's dtype. A column is read from the arrays, far cheaper than making
        every record to pick one field (measured: benchmarks/README.md).
        """
        import numpy as np

        if name not in COLUMNS:
            raise KeyError(f"RecordLog.column: no field {name!r}; the fields are {', '.join(COLUMNS)}")
        times = np.frombuffer(self._times, dtype=np.float64)
        n4 = 4 * self._n
        if name in _TIME_OFFSET:
            values = times[_TIME_OFFSET[name] : n4 : 4].copy()
        elif name == "wait":
            values = times[1:n4:4] - times[0:n4:4]
        elif name == "service":
            values = times[2:n4:4] - times[1:n4:4]
        elif name == "cpu_time" and "cpu_time" not in self._extra:
            values = (times[2:n4:4] - times[1:n4:4]) * self._array("cpus")  # as _derived_cpu_time does
            values[np.isnan(values)] = 0.0
        elif name == "id":
            values = np.array(self._ids, dtype=np.int64)
        elif name == "origin":
            values = self._origin_column()
        elif name in _LABEL_INDEX:
            labels = np.empty(max(len(self._labels), 1), dtype=object)  # [None]: only whole records
            labels[: len(self._labels)] = [label[_LABEL_INDEX[name]] for label in self._labels]
            values = labels[self._array("code")] if self._labels else np.full(self._n, None, dtype=object)
        elif name == "allocation":
            allocs = np.empty(len(self._allocs), dtype=object)
            allocs[:] = self._allocs
            values = allocs[self._array("allocation")]
        else:
            values = self._array(name)  # a new array
        for row, record in self._whole.items():  # their rows in the arrays are placeholders
            value = getattr(record, name)
            try:
                values[row] = value
            except (TypeError, ValueError, OverflowError):  # e.g. an origin of None among ints
                values = values.astype(object)
                values[row] = value
        return values

    def has_status(self, status: Status) -> np.ndarray:
        """A boolean mask of the records whose ``status is status`` (one test per distinct label, then a take)."""
        import numpy as np

        if not self._n:
            return np.zeros(0, dtype=bool)
        of_label = np.array([label[3] is status for label in self._labels] or [False], dtype=bool)
        mask = of_label[self._array("code")]
        for row, record in self._whole.items():
            mask[row] = record.status is status
        return mask

    # -- the DataFrame ---------------------------------------------------------------------

    def frame(self) -> pd.DataFrame:
        """The records as a DataFrame, one row per job, in :data:`COLUMNS` order.

        The same columns, dtypes and values as ``pandas.DataFrame(list(log))`` with the
        status as text (what :func:`~schedlab.model.records.table.records_frame` gives), built
        from the arrays: no record is made, and each column is made once. A log holding
        whole records, or none, goes through the records.
        """
        import pandas as pd

        if not self._by_arrays():
            return frame_of_records(self)
        # The float columns as one 2-D block: pandas keeps it as its one float block
        # instead of stacking ten columns into a copy (a second frame's worth).
        block = self._float_block()
        frame = pd.DataFrame(block.T, columns=_FLOAT_NAMES, copy=False)
        del block
        codes = self._array("code")
        labels = pd.DataFrame(self._labels, columns=list(_LABEL_INDEX))
        labels["status"] = labels["status"].astype(str)
        others = self._other_columns()
        for name in _LABEL_INDEX:
            others[name] = labels[name].take(codes).reset_index(drop=True)
        # the interval sets as pandas infers texts (a Series of str, as frame_of_records' column)
        others["allocation"] = pd.Series(self._allocs).take(self._array("allocation")).reset_index(drop=True)
        for k, name in enumerate(COLUMNS):
            if name in others:
                frame.insert(k, name, others.pop(name))
        return frame

    def arrow_table(self) -> pa.Table | None:
        """The records as a pyarrow Table: what ``pyarrow.Table.from_pandas(self.frame())`` gives under pandas 3.

        The same columns, types and values (texts as ``large_string``, a float column's
        nan as null), made from the arrays without pandas, whose import is a large part
        of a short run (measured: benchmarks/README.md). ``None`` where :meth:`frame` goes through the records
        (whole records, no records, texts that are not all ``str``): use the frame then.
        """
        import pyarrow as pa

        if not self._by_arrays():
            return None
        block = self._float_block()
        columns = {name: arrow_arrays.floats(block[k]) for k, name in enumerate(_FLOAT_NAMES)}
        for name, values in self._other_columns().items():
            if values.dtype == object:  # an origin of all None
                columns[name] = pa.nulls(self._n)
            elif values.dtype.kind == "f":  # an origin with some None
                columns[name] = arrow_arrays.floats(values)
            else:
                columns[name] = arrow_arrays.ints(values)
        codes = self._array("code")
        for name, k in _LABEL_INDEX.items():
            columns[name] = arrow_arrays.texts_at([str(label[k]) for label in self._labels], codes)
        columns["allocation"] = arrow_arrays.texts_at(self._allocs, self._array("allocation"))
        return pa.table({name: columns[name] for name in COLUMNS})

    def _by_arrays(self) -> bool:
        """Whether :meth:`frame` and :meth:`arrow_table` can be made from the arrays (else: from the records)."""
        return not self._whole and self._n > 0 and self._frame_safe()

    def _float_block(self) -> np.ndarray:
        """The float columns (:data:`_FLOAT_NAMES`, in order) as the rows of one new 2-D array, each filled in place."""
        import numpy as np

        n = self._n
        times = np.frombuffer(self._times, dtype=np.float64).reshape(n, 4)
        submit, start, end, runtime = (times[:, k] for k in range(4))
        given = {"submit": submit, "start": start, "end": end, "runtime": runtime}
        block = np.empty((len(_FLOAT_NAMES), n))
        for k, name in enumerate(_FLOAT_NAMES):
            if name == "wait":
                np.subtract(start, submit, out=block[k])
            elif name == "service":
                np.subtract(end, start, out=block[k])
            elif name == "cpu_time" and "cpu_time" not in self._extra:
                np.subtract(end, start, out=block[k])
                np.multiply(block[k], self._array("cpus"), out=block[k])
                block[k][np.isnan(block[k])] = 0.0
            elif name in given:
                block[k] = given[name]
            else:
                block[k] = self._array(name)
        return block

    def _other_columns(self) -> dict[str, np.ndarray]:
        """The columns neither floats nor texts: ids and counts as int64, the origin as frame() infers it."""
        import numpy as np

        return {
            "id": np.array(self._ids, dtype=np.int64),
            "origin": self._origin_column(),
            "cpus": self._array("cpus"),
            "preemptions": self._array("preemptions"),
            "resizes": self._array("resizes"),
            "restarts": self._array("restarts"),
        }

    def _frame_safe(self) -> bool:
        """Whether the arrays give pandas' own inference: every text a str, no origin past a float's 53 bits."""
        if not all(type(x) is str for label in self._labels for x in label[:3]):
            return False
        origin = self._extra.get("origin")
        return origin is None or all(o == _NO_ORIGIN or -(2**53) <= o <= 2**53 for o in origin)

    def _array(self, name: str) -> np.ndarray:
        import numpy as np

        stored = self._extra.get(name)
        if stored is not None:
            return np.frombuffer(stored, dtype=np.float64 if stored.typecode == "d" else np.int64).copy()
        if name == "estimate":
            return np.frombuffer(self._times, dtype=np.float64)[3::4].copy()
        return np.frombuffer(self._column(name), dtype=np.float64 if _OPTIONAL[name] == "d" else np.int64)

    def _origin_column(self) -> np.ndarray:
        """As pandas infers it from the records: int64, all ``None`` (object), or float64 with nan for ``None``."""
        import numpy as np

        if "origin" not in self._extra:
            return np.full(self._n, None, dtype=object)
        origin = self._array("origin")
        missing = origin == _NO_ORIGIN
        if not missing.any():
            return origin
        if missing.all():
            return np.full(self._n, None, dtype=object)
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

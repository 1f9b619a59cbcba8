"""A run's job records as its tasks sent them back, read as one DataFrame or saved as one file.

Each task of a run that keeps records sends back its stations' records: a
:class:`~schedlab.model.records.log.RecordLog` (machines and servers keep one) or a
DataFrame (stations that keep lists). :class:`RunRecords` holds them with each task's
cell and replication. :attr:`~schedlab.experiment.results.Results.records` reads them
as one DataFrame, made on first use.

Saving writes ``records.parquet``. Where every part is a log whose columns are plain
(see :meth:`RecordLog.arrow_table`), the table is made from the logs' arrays with
pyarrow alone: the table, schema metadata and all, that pyarrow makes of the records'
DataFrame, without importing pandas, an import that is a sizeable part of a run start
to finish (measured: benchmarks/README.md). Either
way the file is written with a dictionary only for the columns whose values repeat
(:func:`_repeating`), so the two ways give the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from schedlab.model.records import arrow_arrays
from schedlab.model.records.job_record import COLUMNS
from schedlab.model.records.log import RecordLog
from schedlab.model.records.table import records_frame

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

__all__ = ["RunRecords"]


class RunRecords:
    """The job records of a run's tasks: each task's records with its cell and replication.

    Parameters
    ----------
    parts
        ``(records, cell, rep)`` per task, in task order: a ``RecordLog`` (tagged here
        with the cell's factors and ``rep``), or a DataFrame already tagged by the task.
    """

    def __init__(self, parts: Sequence[tuple[Any, Mapping[str, Any], int]]) -> None:
        self.parts = list(parts)
        self._frame: pd.DataFrame | None = None

    def frame(self) -> pd.DataFrame:
        """All the records as one DataFrame, tagged with cell and replication (made once)."""
        if self._frame is None:
            import pandas as pd

            frames = [
                records_frame(records, **cell, rep=rep) if isinstance(records, RecordLog) else records
                for records, cell, rep in self.parts
            ]
            # one frame is taken as it is: a concat of it would only copy it
            self._frame = (
                frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
            )
        return self._frame

    def save(self, folder: Path) -> str:
        """Write the records into ``folder``: ``records.parquet``, or ``records.csv`` without pyarrow; the name."""
        try:
            import pyarrow.parquet as pq
        except ImportError:
            self.frame().to_csv(folder / "records.csv", index=False)
            return "records.csv"
        import pyarrow as pa

        table = self._arrow_table() if self._frame is None else None
        if table is None:
            table = pa.Table.from_pandas(self.frame(), preserve_index=False)  # as DataFrame.to_parquet does
        pq.write_table(table, folder / "records.parquet", use_dictionary=_repeating(table.schema))
        return "records.parquet"

    def _arrow_table(self) -> pa.Table | None:
        """``pyarrow.Table.from_pandas(self.frame())``, schema metadata and all; ``None`` where only pandas can say.

        Made only under pandas 3 (whose conversions it repeats: texts as ``large_string``)
        and only where every part is a log of plain columns tagged with ints, floats or
        texts, the parts alike in their columns' types.
        """
        import pyarrow as pa

        pandas_version = _installed("pandas")
        if not self.parts or pandas_version is None or int(pandas_version.split(".")[0]) < 3:
            return None
        tables = []
        for records, cell, rep in self.parts:
            if not isinstance(records, RecordLog) or "rep" in cell:
                return None
            table = records.arrow_table()
            if table is None:
                return None
            tags = {f"cell_{name}" if name in COLUMNS else name: value for name, value in {**cell, "rep": rep}.items()}
            if len(tags) != len(cell) + 1:
                return None  # two tags of one name ("id" and "cell_id"): pandas refuses the second
            for i, (name, value) in enumerate(tags.items()):
                tag = _tag_column(value, len(table))
                if tag is None:
                    return None
                table = table.add_column(i, name, tag)
            tables.append(table)
        if any(not t.schema.equals(tables[0].schema) for t in tables):
            return None  # pandas' concat would find a common dtype (an int and a float tag: float64)
        # one chunk per column, as a DataFrame's column gives: the file's pages are the same then
        table = tables[0] if len(tables) == 1 else pa.concat_tables(tables).combine_chunks()
        return table.replace_schema_metadata({"pandas": _pandas_metadata(table.schema, pandas_version)})


def _repeating(schema: pa.Schema) -> list[str]:
    """The columns worth a Parquet dictionary: texts, counts, tags; not the floats nor the ids.

    A time column has as many distinct values as rows: for it the writer fills a
    dictionary up to its page limit (1 MiB), then drops it and writes the values plain,
    so a dictionary for every column (pyarrow's default) writes slower and a larger
    file (measured: benchmarks/README.md). The values read back are the same.
    """
    import pyarrow as pa

    return [f.name for f in schema if not pa.types.is_floating(f.type) and f.name != "id"]


def _installed(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def _tag_column(value: Any, n: int) -> pa.Array | None:
    """A constant tag column as pandas 3 and pyarrow make it (``frame.insert``); ``None`` if not plain."""
    import numpy as np

    if type(value) is int and -(2**63) <= value < 2**63:
        return arrow_arrays.ints(np.full(n, value, dtype=np.int64))
    if type(value) is float:
        return arrow_arrays.floats(np.full(n, value))
    if type(value) is str:
        return arrow_arrays.texts_at([value], np.zeros(n, dtype=np.int64))
    return None


#: the pandas dtype and pyarrow's "pandas_type" for each Arrow type a records table holds (pandas 3)
_PANDAS_TYPES = {
    "int64": ("int64", "int64"),
    "double": ("float64", "float64"),
    "large_string": ("str", "object"),
    "null": ("object", "empty"),
}


def _pandas_metadata(schema: pa.Schema, pandas_version: str) -> str:
    """The ``pandas`` schema metadata pyarrow writes for a DataFrame of these columns (no index kept)."""
    import pyarrow as pa

    columns = []
    for field in schema:
        numpy_type, pandas_type = _PANDAS_TYPES[str(field.type)]
        columns.append(
            {
                "name": field.name,
                "field_name": field.name,
                "pandas_type": pandas_type,
                "numpy_type": numpy_type,
                "metadata": None,
            }
        )
    return json.dumps(
        {
            "index_columns": [],
            "column_indexes": [],
            "columns": columns,
            "attributes": {},
            "creator": {"library": "pyarrow", "version": pa.__version__},
            "pandas_version": pandas_version,
        }
    )

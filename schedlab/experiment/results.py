"""Results of a run: one tidy row per cell, the replications, the job records; saved with a manifest.

The summary contract (stable across versions; how results are checked and compared)::

    summary.json = {"scenario": str, "seed": int, "reps": int, "quick": bool,
                    "config": {...},
                    "rows": [{<factor columns>, <metric>: mean, <metric>_ci95: half-width, ...}]}

``summary.csv`` holds the same rows. ``replications.csv`` has one row per (cell,
replication); ``records.parquet`` (``records.csv`` without pyarrow) one row per job;
``manifest.json`` the config, seeds, package versions and how the run was executed.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import platform
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from schedlab.experiment.run_records import RunRecords

__all__ = ["Results", "aggregate", "ci95_halfwidth"]


def ci95_halfwidth(values: Sequence[float]) -> float:
    """Half-width of the 95% Student-t confidence interval of the mean (``nan`` for n < 2)."""
    x = np.asarray(values, dtype=float)
    n = x.size
    if n < 2:
        return math.nan
    # scipy.special's stdtrit is what scipy.stats.t.ppf calls (the same quantile, bit for
    # bit); importing it spares a run the import of all of scipy.stats (measured: benchmarks/README.md)
    from scipy.special import stdtrit

    return float(stdtrit(n - 1, 0.975) * x.std(ddof=1) / math.sqrt(n))


def aggregate(cells: Sequence[Mapping[str, Any]], per_cell: Sequence[Sequence[Mapping[str, float]]]) -> list[dict]:
    """One row per cell: its factors, then each metric's mean and ``<metric>_ci95``."""
    rows = []
    for cell, reps in zip(cells, per_cell, strict=True):
        row: dict[str, Any] = dict(cell)
        names: list[str] = []
        for rep in reps:
            names.extend(k for k in rep if k not in names)
        for name in names:
            values = [rep.get(name, math.nan) for rep in reps]
            row[name] = float(np.mean(values)) if values else math.nan
            row[f"{name}_ci95"] = ci95_halfwidth(values)
        rows.append(row)
    return rows


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None  # JSON has no NaN/inf; null reads as "not available"
    if isinstance(value, np.generic):
        return _jsonable(value.item())
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


def package_versions() -> dict[str, str]:
    """Versions of schedlab and what it runs on, read from installed metadata (imports nothing)."""
    out = {"python": sys.version.split()[0], "platform": platform.platform()}
    for name in ("schedlab", "simpy", "numpy", "scipy", "pandas", "networkx", "torch", "pyarrow", "dask"):
        with contextlib.suppress(metadata.PackageNotFoundError):  # optional packages may be absent
            out[name] = metadata.version(name)
    return out


@dataclass
class Results:
    """What :func:`schedlab.experiment.run` gives back."""

    scenario: str
    seed: int
    reps: int
    quick: bool
    config: dict[str, Any]
    rows: list[dict[str, Any]]
    replications: list[dict[str, Any]] = field(default_factory=list)
    #: the job records as the tasks sent them back (read them as :attr:`records`), or None when not kept
    job_records: RunRecords | None = None
    run_info: dict[str, Any] = field(default_factory=dict)
    #: file name (relative to the results folder) -> bytes: what measures returned beside their metrics
    extra_files: dict[str, bytes] = field(default_factory=dict)

    @property
    def records(self) -> Any:
        """The job records as one pandas DataFrame (made on first read), or None when the run kept none."""
        return None if self.job_records is None else self.job_records.frame()

    def summary(self) -> dict[str, Any]:
        """The summary contract as a JSON-ready dict."""
        return _jsonable(
            {
                "scenario": self.scenario,
                "seed": self.seed,
                "reps": self.reps,
                "quick": self.quick,
                "config": self.config,
                "rows": self.rows,
            }
        )

    def frame(self) -> Any:
        """The rows as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame(self.rows)

    def table(self, digits: int = 4) -> str:
        """The rows as a plain-text table: each metric as ``mean ± ci95``."""
        if not self.rows:
            return "(no rows)"
        columns: list[str] = []
        for row in self.rows:
            columns.extend(k for k in row if k not in columns and not k.endswith("_ci95"))
        header = list(columns)
        lines = []
        for row in self.rows:
            cells = []
            for col in columns:
                value = row.get(col)
                ci = row.get(f"{col}_ci95")
                text = _fmt(value, digits)
                if ci is not None and isinstance(ci, float) and math.isfinite(ci) and ci > 0:
                    text += f" ± {ci:.2g}"
                cells.append(text)
            lines.append(cells)
        widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(header)]
        out = ["  ".join(h.rjust(w) for h, w in zip(header, widths, strict=True))]
        out += ["  ".join(c.rjust(w) for c, w in zip(line, widths, strict=True)) for line in lines]
        return "\n".join(out)

    def save(self, out_dir: str | Path, *, lock: Any = None, also: Callable[[Path], Any] | None = None) -> Path:
        """Write summary.json/csv, replications.csv, records (Parquet or CSV) and manifest.json, atomically.

        The files are written into a fresh folder that then replaces ``out_dir`` whole
        (see :mod:`schedlab.experiment.store`): nothing of an earlier run stays beside
        them, and a symlink inside ``out_dir`` is never followed. A folder holding
        files schedlab did not write is refused. ``lock`` is the run's hold on
        ``out_dir`` (an :class:`~schedlab.experiment.out_lock.OutLock`): it is carried to
        the new folder before the swap. ``also`` writes more files into the new folder
        after these (``--batsim-jobs``): they are saved with the results, whole or not at
        all, while the run still holds ``out_dir``.
        """
        from schedlab.experiment.store import OutError, _owned, replace_dir

        out = Path(out_dir)
        if out.is_symlink():
            raise OutError(f"{out} is a symlink; give the folder it points to")
        if out.is_dir() and any(out.iterdir()) and not _owned(out):
            raise OutError(f"{out} holds files that schedlab did not write; choose an empty or new folder")

        def write(folder: Path) -> None:
            self._write(folder)
            if also is not None:
                also(folder)

        replace_dir(out, write, lock)
        return out

    def _write(self, out: Path) -> None:
        summary = self.summary()
        (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
        _write_csv(self.rows, out / "summary.csv")
        _write_csv(self.replications, out / "replications.csv")
        records_file = None if self.job_records is None else self.job_records.save(out)
        files = ["summary.json", "summary.csv", "replications.csv", *([records_file] if records_file else [])]
        for name, data in self.extra_files.items():  # a measure's curves, returned as data
            (out / name).parent.mkdir(parents=True, exist_ok=True)
            (out / name).write_bytes(data)
            files.append(name)
        manifest = {
            "scenario": self.scenario,
            "seed": self.seed,
            "reps": self.reps,
            "quick": self.quick,
            "config": self.config,
            "run": self.run_info,
            "files": files,
            "versions": package_versions(),
            "command": sys.argv,
            "written": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        (out / "manifest.json").write_text(json.dumps(_jsonable(manifest), indent=2) + "\n")


def _write_csv(rows: Sequence[Mapping[str, Any]], path: Path) -> None:
    """``pandas.DataFrame(rows).to_csv(path, index=False)``, with the csv module where the table is plain.

    A short run would otherwise import pandas for two small tables (measured: benchmarks/README.md).
    """
    text = _plain_csv(rows)
    if text is None:
        import pandas as pd

        pd.DataFrame(rows).to_csv(path, index=False)
    else:
        path.write_text(text, encoding="utf-8")


def _plain_csv(rows: Sequence[Mapping[str, Any]]) -> str | None:
    """The CSV pandas writes for ``rows``, or ``None`` unless every row has the same keys, in the same order,
    and each column holds one type of value: floats, ints (64-bit), texts or booleans.

    pandas writes a float column's values as numpy's shortest repr (which is Python's) and
    nan as an empty field, through the csv module; other columns would need its dtype
    inference (an int column with a gap becomes floats), so they go through pandas.
    """
    if not rows:
        return None
    names = list(rows[0])
    columns: list[list[str]] = []
    for name in names:
        values: list[Any] = [row.get(name) for row in rows]  # one type, the first's, or none of this
        kind = type(values[0])
        if kind not in (float, int, str, bool) or any(type(v) is not kind for v in values):
            return None
        if kind is float:
            columns.append(["" if math.isnan(v) else repr(v) for v in values])
        elif kind is int and not all(-(2**63) <= v < 2**63 for v in values):
            return None
        else:
            columns.append([str(v) for v in values])
    if any(list(row) != names for row in rows):
        return None
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(names)
    writer.writerows(zip(*columns, strict=True))
    return buffer.getvalue()


def _fmt(value: Any, digits: int) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if value != 0 and (abs(value) >= 1e6 or abs(value) < 1e-3):
            return f"{value:.{digits - 1}e}"
        return f"{value:.{digits}g}" if abs(value) >= 1 else f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return str(value)

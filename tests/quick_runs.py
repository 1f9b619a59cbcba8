"""Every scenario's ``--quick`` run, reduced to values that can be compared with a stated tolerance.

``tests/test_quick_runs.py`` runs each scenario as ``schedlab run scenarios/<name>.py
--quick --executor serial`` does and compares what it saved with the values stored in
``tests/data/quick_runs/<name>.json``:

- ``rows``: every row of ``summary.json`` (the result table), every column;
- ``replications``: every row of ``replications.csv``;
- ``records``: the job records (``records.parquet``), reduced because a quick run keeps
  up to 316,421 of them (22 MB for ``utility_scheduling``): per (cell, replication)
  group, its row count and, per column, the sum (``math.fsum``, exact, so not itself a
  source of drift), the sum of absolute values and the number of NaNs of a float
  column, the sum of an integer column and the value counts of a text column; plus
  every k-th record in full (k = ceil(n / 200), the same rows every time).

``tests/quick_compare.py`` compares them: integers, text, ids and statuses exactly,
floats within a tolerance written there with its reason (rel 1e-9 where only the order
of a float sum can differ; the stored run's own 95% half-width for the cells whose
decisions a float32 learner makes, which differ between AVX2 and AVX-512 machines).

Regenerate the stored values (after a change that *means* to change results, saying
why in the commit message) with one command, from the repository root::

    python tests/quick_runs.py --regenerate            # every scenario
    python tests/quick_runs.py --regenerate deeprm mmc # some

For "bit for bit the same" before and after a refactoring, in one environment, use
``python tools/digests.py --save FILE`` and ``--check FILE`` (not part of the suite:
its SHA-256 digests pin one day's wheels).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import math
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from quick_compare import compare, report

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "quick_runs"
SCENARIOS = (
    "collectives", "collectives_sensitivity", "deeprm", "energy_failures", "first_look", "machine_rl", "mmc",
    "osl_grid", "osl_topologies", "responsive_grid", "log_replay", "utility_scheduling",
)  # fmt: skip
SAMPLE_ROWS = 200  # records kept in full per scenario, at most
MAX_COUNTS = 30  # a text column with more distinct values than this keeps only their number
REGENERATE = "python tests/quick_runs.py --regenerate"


# ---- running and reducing a quick run


def run_quick(name: str, out: Path) -> None:
    """``schedlab run scenarios/<name>.py --quick --executor serial --out out``, in this process."""
    from schedlab.experiment.cli import main

    script = ROOT / "scenarios" / f"{name}.py"
    with contextlib.chdir(ROOT):  # scenarios read ../shared/traces relative to the repository root
        status = main(["run", str(script), "--quick", "--executor", "serial", "--out", str(out)])
    if status != 0:
        raise RuntimeError(f"{name}: schedlab run exited {status}")


def _cell(text: str) -> Any:
    """A CSV cell as the value it was written from: int, float, None (empty) or text."""
    if text == "":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _plain(value: Any) -> Any:
    """A pandas/numpy scalar as a JSON value (NaN and missing as None)."""
    if value is None:
        return None
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _records(path: Path) -> dict[str, Any]:
    import pandas as pd

    frame = pd.read_parquet(path)
    columns = list(frame.columns)
    keys = columns[: columns.index("rep") + 1] if "rep" in columns else []
    groups = []
    if len(frame):
        grouped = frame.groupby(keys, sort=False, dropna=False) if keys else [((), frame)]
        for key, part in grouped:
            key = key if isinstance(key, tuple) else (key,)
            groups.append({
                "key": {k: _plain(v) for k, v in zip(keys, key, strict=True)},
                "n": len(part),
                "columns": {c: _column(part[c]) for c in columns if c not in keys},
            })  # fmt: skip
    every = max(1, math.ceil(len(frame) / SAMPLE_ROWS))
    sample = [
        {"row": int(i), **{c: _plain(v) for c, v in row.items()}}
        for i, row in zip(range(0, len(frame), every), frame.iloc[::every].to_dict("records"), strict=True)
    ]
    return {"columns": columns, "n": len(frame), "sample_every": every, "groups": groups, "sample": sample}


def _column(values: Any) -> dict[str, Any]:
    """One column of one group: float sums, integer sum, or text counts."""
    kind = values.dtype.kind
    if kind == "f":
        finite = [float(x) for x in values if not math.isnan(x)]
        return {"sum": math.fsum(finite), "abs": math.fsum(abs(x) for x in finite), "nan": len(values) - len(finite)}
    if kind in "iub":
        return {"sum": int(values.astype("int64").sum())}
    counts = values.map(lambda v: None if v is None else str(v)).value_counts(dropna=False)
    if len(counts) > MAX_COUNTS:
        return {"distinct": len(counts)}
    return {"counts": sorted(([_plain(v), int(n)] for v, n in counts.items()), key=lambda p: str(p[0]))}


def reduce_run(out: Path) -> dict[str, Any]:
    """The values stored for a folder written by ``schedlab run``."""
    summary = json.loads((out / "summary.json").read_text())
    reduced: dict[str, Any] = {"rows": summary["rows"]}
    replications = out / "replications.csv"
    if replications.exists():
        with replications.open(newline="") as f:
            reduced["replications"] = [{k: _cell(v) for k, v in row.items()} for row in csv.DictReader(f)]
    records = out / "records.parquet"
    if records.exists():
        reduced["records"] = _records(records)
    return reduced


def stored_path(name: str) -> Path:
    return DATA / f"{name}.json"


def load(name: str) -> dict[str, Any]:
    return json.loads(stored_path(name).read_text())


def _lines(value: Any, indent: str = "") -> str:
    """JSON with one row, group or record per line: small, and a regeneration's git diff names what moved."""
    if isinstance(value, Mapping) and any(isinstance(v, list | Mapping) for v in value.values()):
        inner = indent + " "
        items = [f"{inner}{json.dumps(k)}: {_lines(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"
    if isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
        inner = indent + " "
        return "[\n" + ",\n".join(inner + json.dumps(v, allow_nan=False) for v in value) + f"\n{indent}]"
    return json.dumps(value, allow_nan=False)


def save(name: str, reduced: Mapping[str, Any]) -> Path:
    path = stored_path(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_lines(reduced) + "\n")
    return path


def check(name: str, reduced: Mapping[str, Any]) -> str | None:
    """The readable diff of ``reduced`` against the stored values of ``name``, or None where they agree."""
    diffs = compare(name, load(name), reduced)
    return report(name, diffs, str(stored_path(name).relative_to(ROOT)), REGENERATE) if diffs else None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--regenerate", action="store_true", help="run the quick runs and store their values")
    parser.add_argument("--check", action="store_true", help="run the quick runs and print what differs")
    parser.add_argument("names", nargs="*", help=f"scenarios (default: all of {', '.join(SCENARIOS)})")
    args = parser.parse_args(argv)
    if args.regenerate == args.check:
        parser.error("give one of --regenerate and --check")
    unknown = sorted(set(args.names) - set(SCENARIOS))
    if unknown:
        parser.error(f"unknown scenario(s) {', '.join(unknown)}; known: {', '.join(SCENARIOS)}")
    import io
    import tempfile

    failed = 0
    for name in args.names or SCENARIOS:
        with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()):
            run_quick(name, Path(tmp) / name)
            reduced = reduce_run(Path(tmp) / name)
        if args.regenerate:
            print(f"{name}: wrote {save(name, reduced).relative_to(ROOT)}")
        else:
            diff = check(name, reduced)
            failed += diff is not None
            print(diff or f"{name}: the same within tolerance")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""Exact digests of every scenario's quick run: "bit for bit the same" across a refactoring, in ONE environment.

A run's result table (``summary.json``'s rows), its per-replication table and its job
records are each reduced to a SHA-256 of a canonical text: JSON with sorted keys, the
CSV as written, the records as CSV (floats as Python's shortest round-trip repr). A
change in any bit of any number changes the digest.

That is what a refactoring or a speed-up that claims "no result changes" is checked
against, before and after, in the same virtual environment on the same machine::

    python tools/digests.py --save /tmp/before.json          # on the old code (all scenarios)
    python tools/digests.py --check /tmp/before.json         # on the new code: exit 1 if any differs
    python tools/digests.py --save /tmp/b.json deeprm mmc    # some scenarios
    python tools/digests.py results/mmc results/deeprm       # the digests of folders already written

It is not a test of the suite: a digest pins one day's wheels and one CPU's SIMD level
(numpy's block sums and torch's kernels differ in their last bits between versions and
between AVX2 and AVX-512 machines). ``tests/test_quick_runs.py`` checks the same runs
against stored values with stated tolerances.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import sys
import tempfile
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from quick_runs import SCENARIOS, run_quick  # noqa: E402 (tests/ is not a package)


def _sha(text: str | bytes) -> str:
    data = text.encode() if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()[:16]


def digest(out: Path) -> dict[str, str]:
    """``{"rows": ..., "replications": ..., "records": ...}`` of a folder written by ``schedlab run``."""
    summary = json.loads((out / "summary.json").read_text())
    d = {"rows": _sha(json.dumps(summary["rows"], sort_keys=True))}
    replications = out / "replications.csv"
    if replications.exists():
        d["replications"] = _sha(replications.read_bytes())
    records = out / "records.parquet"
    if records.exists():
        d["records"] = _sha(pd.read_parquet(records).to_csv(index=False))
    return d


def quick_digests(names: list[str]) -> dict[str, dict[str, str]]:
    """Run each scenario's quick run (serial, in this process) and digest what it saved."""
    digests = {}
    for name in names:
        with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()):
            run_quick(name, Path(tmp) / name)
            digests[name] = digest(Path(tmp) / name)
        print(f"{name}: {digests[name]}", file=sys.stderr)
    return digests


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--save", type=Path, metavar="FILE", help="run the quick runs, write their digests to FILE")
    mode.add_argument("--check", type=Path, metavar="FILE", help="run the quick runs, compare with FILE's digests")
    parser.add_argument("names", nargs="*", help="scenarios (with --save/--check; default all), else result folders")
    args = parser.parse_args(argv)
    if args.save is None and args.check is None:
        if not args.names:
            parser.error("give --save FILE, --check FILE, or result folders")
        print(json.dumps({Path(p).name: digest(Path(p)) for p in args.names}, indent=4))
        return 0
    names = args.names or list(SCENARIOS)
    unknown = sorted(set(names) - set(SCENARIOS))
    if unknown:
        parser.error(f"unknown scenario(s) {', '.join(unknown)}; known: {', '.join(SCENARIOS)}")
    if args.save is not None:
        args.save.write_text(json.dumps(quick_digests(names), indent=4) + "\n")
        print(f"wrote {args.save}")
        return 0
    before = json.loads(args.check.read_text())
    missing = sorted(set(names) - set(before))
    if missing:
        parser.error(f"{args.check} has no digest of {', '.join(missing)}")
    after = quick_digests(names)
    changed = {n: [t for t in after[n] if after[n][t] != before[n].get(t)] for n in names}
    for name, tables in changed.items():
        print(f"{name}: {'differs in ' + ', '.join(tables) if tables else 'identical'}")
    return 1 if any(changed.values()) else 0


if __name__ == "__main__":
    sys.exit(main())

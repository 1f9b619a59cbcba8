"""Digests of a results folder: what "the same results, bit for bit" means in the tests.

A run's result table (``summary.json``'s rows), its per-replication table and its job
records are each reduced to a SHA-256 of a canonical text: JSON with sorted keys, the
CSV as written, the records as CSV (floats as Python's shortest round-trip repr). A
change in any number of any row or record changes the digest.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd


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


if __name__ == "__main__":  # python tests/digests.py results/mmc ...: print the digests to store
    import sys

    print(json.dumps({Path(p).name: digest(Path(p)) for p in sys.argv[1:]}, indent=4))

"""The files a results folder keeps of one run, read back for its figures.

A scenario's ``measure`` hands the runner small tables of a run (the runner saves them
as ``series/cell<i>-rep<r>-<name>``): its facts (``run.json``: CPUs, time unit, each
metric's unit), which CPUs or nodes each job held, the nodes' power states and
pstates, and the node outages of a run with failures. A figure of that run reads them
here, so that it draws what happened (a failed node as down, not idle) and names its
units; a run that saved a table gets it, one that did not gets None.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any

__all__ = [
    "allocations_of",
    "cell_index",
    "down_nodes",
    "down_procs",
    "run_facts_of",
    "series_path",
    "series_rows",
]


def cell_index(folder: Path, cell: dict) -> int | None:
    """Which row of ``summary.csv`` (the cells, in the runner's order) has the factor values ``cell``."""
    import pandas as pd

    summary = pd.read_csv(folder / "summary.csv")
    for i, row in enumerate(summary.to_dict("records")):
        if all(k in row and str(row[k]) == str(v) for k, v in cell.items()):
            return i
    return None


def series_path(folder: Path, index: int, rep: int, name: str) -> Path:
    """Where the runner saved the table ``name`` of cell ``index``'s replication ``rep``."""
    return folder / "series" / f"cell{index}-rep{rep}-{name}"


def series_rows(folder: Path, index: int, rep: int, name: str) -> list[dict[str, str]] | None:
    """The rows of the run's ``name`` table (None: the run wrote none)."""
    path = series_path(folder, index, rep, name)
    if not path.is_file():
        return None
    with path.open() as stream:
        return list(csv.DictReader(stream))


def run_facts_of(folder: Path, index: int, rep: int) -> dict | None:
    """The facts (:mod:`schedlab.model.records.run_facts`) the run's measure saved, or None if it saved none."""
    from schedlab.model.records.run_facts import RUN_FILE, read_run_facts

    path = series_path(folder, index, rep, RUN_FILE)
    if not path.is_file():
        return None
    return read_run_facts(path.read_text(), str(path))


def allocations_of(folder: Path, index: int, rep: int) -> list[tuple[str, str, float, float]] | None:
    """The CPU ids the run's jobs held (its ``allocations.csv``), or None if none was saved."""
    rows = series_rows(folder, index, rep, "allocations.csv")
    if rows is None:
        return None
    try:
        return [(row["job"], row["procs"], float(row["start"]), float(row["end"])) for row in rows]
    except (KeyError, ValueError) as exc:
        path = series_path(folder, index, rep, "allocations.csv")
        raise ValueError(f"{path}: not an allocation table (job,procs,start,end): {exc}") from None


def _outages(folder: Path, index: int, rep: int, until: float) -> list[dict[str, Any]]:
    """The run's ``node_outages.csv`` rows (a :class:`~schedlab.model.records.node_fail.NodeOutage`
    each), an outage not repaired by the run's end closed at ``until``."""
    rows = series_rows(folder, index, rep, "node_outages.csv") or []
    out = []
    for row in rows:
        start, end = float(row["start"]), float(row["end"])
        out.append(
            {"node": int(row["node"]), "procs": row["procs"], "start": start, "end": until if math.isnan(end) else end}
        )
    return out


def down_procs(folder: Path, index: int, rep: int, until: float) -> list[tuple[str, float, float]]:
    """``(procset, start, end)``: the CPUs each node failure of the run took down, and for how long."""
    return [(o["procs"], o["start"], o["end"]) for o in _outages(folder, index, rep, until)]


def down_nodes(folder: Path, index: int, rep: int, names: list[str], until: float) -> list[tuple[str, float, float]]:
    """``(node, start, end)``: each node failure of the run, the node named (``names``: the
    cluster's nodes in its order, as a failure counts them)."""
    out = []
    for o in _outages(folder, index, rep, until):
        if not 0 <= o["node"] < len(names):
            path = series_path(folder, index, rep, "node_outages.csv")
            raise ValueError(f"{path}: node {o['node']} is not one of the run's {len(names)} nodes")
        out.append((names[o["node"]], o["start"], o["end"]))
    return out

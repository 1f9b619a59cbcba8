"""``--batsim-jobs``: each saved run of a results folder written as Batsim's ``jobs.csv``.

Reads what ``schedlab run`` and ``schedlab replay`` saved (the records, each with the
processor ids of its last run, from a machine built with ``allocation=`` or a cluster; a
folder saved before records carried them gets them from ``series/cell<i>-rep<r>-allocations.csv``)
and writes ``batsim/cell<i>-rep<r>-jobs.csv`` per run, with
:func:`schedlab.model.formats.batsim.jobs_csv`: Batsim's columns and final states, which
evalys reads (``JobSet.from_csv``) to draw its Gantt chart.
"""

from __future__ import annotations

import csv
from pathlib import Path

from schedlab.experiment.store import write_file_atomic
from schedlab.model.formats.batsim import jobs_csv
from schedlab.model.records.job_record import COLUMNS, JobRecord
from schedlab.model.records.table import read_records, records_of_frame

__all__ = ["write_batsim_jobs"]


def _allocated(path: Path) -> dict[str, str]:
    """Per job id, every processor id of its segments in ``allocations.csv``, as one interval set."""
    from schedlab.model.formats.procset import format_procset, parse_procset

    ids: dict[str, set[int]] = {}
    with path.open() as stream:
        for line, row in enumerate(csv.DictReader(stream), start=2):
            ids.setdefault(row["job"], set()).update(parse_procset(row["procs"], where=f"{path} line {line}"))
    return {job: format_procset(s) for job, s in ids.items()}


def _with_allocations(records: list[JobRecord], allocated: dict[str, str]) -> list[JobRecord]:
    """``records`` with the allocation that ``allocations.csv`` gives each (a folder saved before records had one)."""
    return [r._replace(allocation=allocated.get(str(r.id), "")) for r in records]


def _energy(path: Path) -> dict[str, float]:
    """Per job id, the joules of ``energy.csv`` (a platform whose nodes give their power)."""
    with path.open() as stream:
        return {row["job"]: float(row["joules"]) for row in csv.DictReader(stream)}


def write_batsim_jobs(folder: str | Path) -> tuple[list[Path], int]:
    """Write ``folder/batsim/cell<i>-rep<r>-jobs.csv`` for every run whose records were saved.

    Returns the files written and the jobs left out (still waiting or running at the end).
    Raises ValueError when the folder holds no records (``--no-records``).
    """
    import pandas as pd

    folder = Path(folder)
    records = read_records(folder)
    if records is None:
        raise ValueError(f"{folder}: no records saved, so no jobs.csv can be written (drop --no-records)")
    summary = pd.read_csv(folder / "summary.csv")
    factors = [c for c in records.columns if c not in COLUMNS and c != "rep"]
    target = folder / "batsim"
    target.mkdir(exist_ok=True)
    written, left_out = [], 0
    for i, cell in enumerate(summary.to_dict("records")):
        mine = records
        for f in factors:
            mine = mine[mine[f].astype(str) == str(cell.get(f))]
        reps = sorted(mine["rep"].unique()) if "rep" in mine else [0]
        for rep in reps:
            run = mine[mine["rep"] == rep] if "rep" in mine else mine
            if run.empty:
                continue
            rows = records_of_frame(run)
            allocations = folder / "series" / f"cell{i}-rep{rep}-allocations.csv"
            joules = folder / "series" / f"cell{i}-rep{rep}-energy.csv"
            if "allocation" not in run and allocations.is_file():  # saved before records carried their ids
                rows = _with_allocations(rows, _allocated(allocations))
            text, missing = jobs_csv(rows, energy=_energy(joules) if joules.is_file() else None)
            path = target / f"cell{i}-rep{rep}-jobs.csv"
            write_file_atomic(path, text)  # a full disk leaves no truncated file, and names this one
            written.append(path)
            left_out += missing
    return written, left_out

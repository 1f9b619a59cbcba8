"""The one run ``schedlab plot`` draws: a cell's replication, its records and what its figures need.

A results folder holds many runs (cells x replications); a Gantt chart or a machine-state
chart shows one, as it happened. By default it is the first cell's first replication;
``--cell`` and ``--rep`` choose another (``scenarios/energy_failures.py``'s first cell has no
failures: ``--cell 1`` draws one with them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from schedlab.model.records.job_record import JobRecord
from schedlab.plots.run_files import allocations_of, down_procs, run_facts_of

__all__ = ["DrawnRun", "drawn_run"]


@dataclass(frozen=True)
class DrawnRun:
    """The run ``schedlab plot`` draws, with what its figures need."""

    records: list[JobRecord]
    #: CPUs of the machine it ran on (see :func:`~schedlab.plots.results.plot_results`'s ``capacity``)
    capacity: float
    #: "s" (a log: seconds) or "" (unitless), from the run's facts
    time_unit: str
    #: the cell's factors and replication, as ``key=value, ...``
    label: str
    #: ``(job, procset, start, end)`` segments, where the run's machine gave CPU ids
    allocations: list[tuple[str, str, float, float]] | None = None
    #: the cell's row in ``summary.csv`` and the replication: where its ``series/`` files are
    index: int = 0
    rep: int = 0
    #: ``(procset, start, end)``: CPUs down (node failures), up to the run's last end
    down: list[tuple[str, float, float]] = field(default_factory=list)


def _cell_of(folder: Path, cell: int) -> dict:
    """The factor values of ``summary.csv``'s row ``cell``."""
    import pandas as pd

    from schedlab.plots.factors import split_columns

    summary = pd.read_csv(folder / "summary.csv")
    if not 0 <= cell < len(summary):
        raise ValueError(f"--cell {cell}: {folder / 'summary.csv'} has cells 0..{len(summary) - 1}")
    factors, _ = split_columns(summary)
    return {f: summary[f].iloc[cell] for f in factors}


def drawn_run(
    folder: str | Path, capacity: float | None = None, *, cell: int = 0, rep: int | None = None
) -> DrawnRun | None:
    """Cell ``cell``'s replication ``rep`` (default: its first) of a results folder, or None when
    no records were kept of it.

    ``capacity`` as in :func:`~schedlab.plots.results.plot_results`.
    """
    from schedlab.model.records.job_record import COLUMNS
    from schedlab.model.records.table import read_records, records_of_frame
    from schedlab.plots.timeseries import occupancy

    folder = Path(folder)
    frame = read_records(folder)
    if frame is None or not len(frame):
        return None
    factors = [c for c in frame.columns if c not in COLUMNS]  # cell factors and rep
    chosen = frame
    for name, value in _cell_of(folder, cell).items():
        if name in chosen:  # as text: a factor read back from CSV may have another dtype
            chosen = chosen[chosen[name].astype(str) == str(value)]
    if "rep" in chosen and len(chosen):
        kept = int(chosen["rep"].iloc[0]) if rep is None else rep
        if kept not in set(chosen["rep"]):
            reps = sorted(set(chosen["rep"]))
            raise ValueError(f"--rep {rep}: cell {cell} has the replications {reps[0]}..{reps[-1]}")
        chosen = chosen[chosen["rep"] == kept]
    if not len(chosen):
        return None  # the cell kept no records (a queue too long to keep), or no such replication
    records = records_of_frame(chosen)
    rep = int(chosen["rep"].iloc[0]) if "rep" in chosen else 0
    facts = run_facts_of(folder, cell, rep) or {}
    if capacity is None:
        capacity = facts.get("capacity")
    if capacity is None and (folder / "summary.json").is_file():
        config = json.loads((folder / "summary.json").read_text()).get("config", {})
        capacity = next((config[k] for k in ("cpus", "capacity") if isinstance(config.get(k), int | float)), None)
    if capacity is None:
        capacity = max(float(occupancy(records)["busy"][1].max()), 1.0)
    label = ", ".join(f"{f}={chosen[f].iloc[0]}" for f in factors)
    until = max([r.end for r in records if r.end == r.end] + [r.submit for r in records])
    return DrawnRun(
        records,
        float(capacity),
        facts.get("time_unit", ""),
        label,
        allocations_of(folder, cell, rep),
        cell,
        rep,
        # the charts span the jobs: a failure after the last job ended changed nothing they show
        [(procs, a, min(b, until)) for procs, a, b in down_procs(folder, cell, rep, until) if a < until],
    )

"""``--batsim-jobs``: each saved run of a results folder written as Batsim's output files.

Reads what ``schedlab run`` and ``schedlab replay`` saved (the records, each with the
CPU ids of its last run, from a machine built with ``allocation=`` or a cluster; a
folder saved before records carried them gets them from ``series/cell<i>-rep<r>-allocations.csv``;
the run's node kills, power rows, placements and energy where it saved them) and
writes per run, in ``batsim/``:

- ``cell<i>-rep<r>-jobs.csv`` (:func:`schedlab.model.formats.batsim.jobs_csv`): a row per
  run of a job, in Batsim's columns and final states;
- ``cell<i>-rep<r>-machine_states.csv``
  (:mod:`schedlab.model.formats.batsim_machine_states`), where the run gives which
  nodes or CPUs each job held;
- ``cell<i>-rep<r>-schedule.csv`` (:mod:`schedlab.model.formats.batsim_schedule`).

evalys reads them (``JobSet.from_csv``, ``MachineStatesChanges``) to draw its Gantt and
machine-state charts.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from schedlab.experiment.store import write_file_atomic
from schedlab.model.formats.batsim import jobs_csv
from schedlab.model.formats.batsim_attempts import attempts
from schedlab.model.formats.batsim_machine_states import machine_states_csv, machine_timeline
from schedlab.model.formats.batsim_schedule import schedule_csv
from schedlab.model.records.job_record import COLUMNS, JobRecord
from schedlab.model.records.node_fail import NodeKill
from schedlab.model.records.table import read_records, records_of_frame

__all__ = ["write_batsim_jobs"]


def _allocated(path: Path) -> dict[str, str]:
    """Per job id, every CPU id of its segments in ``allocations.csv``, as one interval set."""
    from schedlab.model.core.procset import format_procset, parse_procset

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


def _rows(path: Path) -> list[dict[str, str]]:
    """A saved table's rows (none where the run did not save it)."""
    if not path.is_file():
        return []
    with path.open() as stream:
        return list(csv.DictReader(stream))


def _kills(path: Path) -> list[NodeKill]:
    """The node kills of ``node_kills.csv``."""
    return [
        NodeKill(
            float(k["time"]),
            int(k["node"]),
            k["job"],
            int(k["cpus"]),
            float(k["start"]),
            float(k["cpu_time"]),
            k["outcome"],
            int(k["attempt"]),
        )
        for k in _rows(path)
    ]


def _machines(folder: Path, series: Path, prefix: str) -> tuple[list[str], list[tuple[str, float, float]], bool]:
    """The run's machines (a platform's nodes, else the CPUs), when each computed, and whether known."""
    import json

    placements = _rows(series / f"{prefix}-placements.csv")
    if placements:
        names: list[str] = []
        try:
            from schedlab.model.formats.platform_file import cached_platform

            config = json.loads((folder / "manifest.json").read_text()).get("config", {})
            names = [n.name for n in cached_platform(config["platform"]).nodes]
        except (OSError, ValueError, KeyError):  # the platform moved: the nodes that ran a job
            names = sorted({p["node"] for p in placements})
        return names, [(p["node"], float(p["start"]), float(p["end"])) for p in placements], True
    from schedlab.model.core.procset import parse_procset

    allocations = _rows(series / f"{prefix}-allocations.csv")
    facts = series / f"{prefix}-run.json"
    capacity = int(json.loads(facts.read_text()).get("capacity", 0)) if facts.is_file() else 0
    busy = [(str(p), float(a["start"]), float(a["end"])) for a in allocations for p in parse_procset(a["procs"])]
    capacity = max([capacity] + [int(m) + 1 for m, _, _ in busy])
    return [str(k) for k in range(capacity)], busy, bool(allocations)


def _power(series: Path, prefix: str, machines: list[str], cluster: bool) -> list[tuple[str, str, float, float]]:
    """Power rows (off, switching, down) and failures' outages, per machine."""
    from schedlab.model.core.procset import parse_procset

    rows = [(p["node"], p["state"], float(p["start"]), float(p["end"])) for p in _rows(series / f"{prefix}-power.csv")]
    for o in _rows(series / f"{prefix}-node_outages.csv"):
        node = int(o["node"])
        if cluster:  # a node of the platform (none where its file moved and only its busy nodes are named)
            ids = [machines[node]] if node < len(machines) else []
        else:
            ids = [str(k) for k in parse_procset(o["procs"])]
        rows += [(m, "down", float(o["start"]), float(o["end"])) for m in ids]
    return rows


def _energy_j(folder: Path, factors: list[str], cell: dict[str, Any], rep: Any) -> float:
    """The run's platform joules (``energy_j`` of ``replications.csv``), 0 without an energy model."""
    import pandas as pd

    path = folder / "replications.csv"
    if not path.is_file():
        return 0.0
    table = pd.read_csv(path)
    if "energy_j" not in table:
        return 0.0
    for f in factors:
        if f in table:
            table = table[table[f].astype(str) == str(cell.get(f))]
    if "rep" in table:
        table = table[table["rep"] == rep]
    value = float(table["energy_j"].iloc[0]) if len(table) else 0.0
    return value if value == value else 0.0


def write_batsim_jobs(folder: str | Path) -> tuple[list[Path], int]:
    """Write ``folder/batsim/cell<i>-rep<r>-{jobs,machine_states,schedule}.csv`` for every run whose records were saved.

    Returns the files written and the jobs left out (still waiting or running at the end).
    Raises ValueError when the folder holds no records (``--no-records``).
    """
    import json

    import pandas as pd

    from schedlab import __version__

    folder = Path(folder)
    records = read_records(folder)
    if records is None:
        raise ValueError(f"{folder}: no records saved, so no jobs.csv can be written (drop --no-records)")
    summary = pd.read_csv(folder / "summary.csv")
    factors = [c for c in records.columns if c not in COLUMNS and c != "rep"]
    runs = []
    for i, cell in enumerate(summary.to_dict("records")):
        mine = records
        for f in factors:
            mine = mine[mine[f].astype(str) == str(cell.get(f))]
        reps = sorted(mine["rep"].unique()) if "rep" in mine else [0]
        for rep in reps:
            run = mine[mine["rep"] == rep] if "rep" in mine else mine
            if not run.empty:
                runs.append((i, cell, rep, run))
    manifest = folder / "manifest.json"
    wall = json.loads(manifest.read_text()).get("run", {}).get("seconds", 0.0) if manifest.is_file() else 0.0
    target = folder / "batsim"
    target.mkdir(exist_ok=True)
    written, left_out = [], 0
    for i, cell, rep, run in runs:
        series, prefix = folder / "series", f"cell{i}-rep{rep}"
        rows = records_of_frame(run)
        allocations = series / f"{prefix}-allocations.csv"
        joules = series / f"{prefix}-energy.csv"
        if "allocation" not in run and allocations.is_file():  # saved before records carried their ids
            rows = _with_allocations(rows, _allocated(allocations))
        kills = _kills(series / f"{prefix}-node_kills.csv")
        stretches = [(a["job"], a["procs"], float(a["start"]), float(a["end"])) for a in _rows(allocations)]
        energy = _energy(joules) if joules.is_file() else None
        try:
            text, missing = jobs_csv(rows, energy=energy, kills=kills, allocations=stretches)
        except ValueError as error:  # a record and its kills disagree: name the run
            raise ValueError(f"{folder}: {prefix}: {error}") from None
        written.append(target / f"{prefix}-jobs.csv")
        write_file_atomic(written[-1], text)  # a full disk leaves no truncated file, and names this one
        left_out += missing
        machines, busy, known = _machines(folder, series, prefix)
        runs_of_jobs = attempts(rows, kills, stretches, energy)
        start = min(r.submit for r in rows)
        power = _power(series, prefix, machines, (series / f"{prefix}-placements.csv").is_file())
        ends = [a.end for a in runs_of_jobs if a.end == a.end] + [e for *_, e in power if e == e]
        timeline = machine_timeline(machines, busy, power, start, max(ends, default=start))
        if known:
            written.append(target / f"{prefix}-machine_states.csv")
            write_file_atomic(written[-1], machine_states_csv(timeline))
        switches = [(m, s, a) for m, s, a, _ in power if s.startswith("switching")]
        written.append(target / f"{prefix}-schedule.csv")
        write_file_atomic(
            written[-1],
            schedule_csv(
                runs_of_jobs,
                machines=len(machines),
                state_seconds=timeline.seconds if known else {},
                joules=_energy_j(folder, factors, cell, rep),
                switches=switches,
                seconds=wall / len(runs),
                version=f"schedlab {__version__}",
            ),
        )
    return written, left_out

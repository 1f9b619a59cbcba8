"""``schedlab plot RESULTS_DIR``: every figure a results folder allows, written as PNG."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from schedlab.model.records.job_record import JobRecord
from schedlab.plots.factors import metric_vs_factor, split_columns

if TYPE_CHECKING:
    pass

__all__ = ["DrawnRun", "allocations_of", "drawn_run", "plot_results", "processor_states", "run_facts_of"]


def _cell_index(folder: Path, cell: dict) -> int | None:
    """Which row of ``summary.csv`` (the cells, in the runner's order) has the factor values ``cell``."""
    import pandas as pd

    summary = pd.read_csv(folder / "summary.csv")
    for i, row in enumerate(summary.to_dict("records")):
        if all(k in row and str(row[k]) == str(v) for k, v in cell.items()):
            return i
    return None


def run_facts_of(folder: Path, cell: dict, rep: int) -> dict | None:
    """The facts (:mod:`schedlab.model.records.run_facts`) the drawn run's measure saved, or None if it saved none."""
    from schedlab.model.records.run_facts import RUN_FILE, read_run_facts

    index = _cell_index(folder, cell)
    path = folder / "series" / f"cell{index}-rep{rep}-{RUN_FILE}"
    if index is None or not path.is_file():
        return None
    return read_run_facts(path.read_text(), str(path))


def allocations_of(folder: Path, cell: dict, rep: int) -> list[tuple[str, str, float, float]] | None:
    """The processor ids the drawn run's jobs held (its ``allocations.csv``), or None if none was saved."""
    import csv

    index = _cell_index(folder, cell)
    path = folder / "series" / f"cell{index}-rep{rep}-allocations.csv"
    if index is None or not path.is_file():
        return None
    with path.open() as stream:
        try:
            return [
                (row["job"], row["procs"], float(row["start"]), float(row["end"])) for row in csv.DictReader(stream)
            ]
        except (KeyError, ValueError) as exc:
            raise ValueError(f"{path}: not an allocation table (job,procs,start,end): {exc}") from None


def _node_gantt(folder: Path, target: Path, time_unit: str = "") -> list[Path]:
    """``gantt_nodes.png``: the Gantt chart per node of the first cell's first replication, where a
    cluster's placement table was saved (``schedlab replay --platform`` saves ``series/*-placements.csv``)."""
    import csv
    import json

    from schedlab.model.formats.platform_file import load_platform
    from schedlab.plots.gantt import node_gantt

    tables = sorted((folder / "series").glob("cell0-rep0-*placements.csv"))
    if not tables:
        return []
    with tables[0].open() as stream:
        rows = [
            (r["job"], r["queue"], r["node"], r["kind"], int(r["cores"]), float(r["start"]), float(r["end"]))
            for r in csv.DictReader(stream)
        ]
    config = (
        json.loads((folder / "summary.json").read_text()).get("config", {})
        if (folder / "summary.json").is_file()
        else {}
    )
    platform, label = None, ""
    if config.get("platform") and Path(config["platform"]).is_file():  # idle nodes show too
        platform = load_platform(config["platform"])
        label = f"platform {platform.name}, {config.get('placement', '')} placement, queues {config.get('queues')}"
    replications = folder / "replications.csv"
    if replications.is_file():
        import pandas as pd

        first = pd.read_csv(replications).iloc[0]
        trace = Path(str(first["trace"])).name if "trace" in first else ""
        cell = f"{trace}, {first.get('policy', '')}+{first.get('backfill', '')}, window {first.get('rep', 0)}"
        label = f"{label}\n{cell}" if label else cell
    title = f"Gantt chart per node: {label}" if label else "Gantt chart per node"
    fig = node_gantt(rows, platform=platform, title=title, time_unit=time_unit)
    path = target / "gantt_nodes.png"
    fig.savefig(path, dpi=100)
    from schedlab.plots.machine_states import machine_states

    nodes = [n.name for n in platform.nodes] if platform is not None else sorted({r[2] for r in rows})
    power = None  # a powered cluster's off and switching stretches (replay --idle-shutdown saves them)
    power_rows = _series_rows(folder, "power.csv")
    if power_rows is not None:
        power = [(r["node"], r["state"], float(r["start"]), float(r["end"])) for r in power_rows]
    slowed = _series_rows(folder, "pstates.csv") or []  # and its nodes' DVFS pstates (replay --dvfs)
    states = machine_states(
        [(r[2], r[5], r[6]) for r in rows],
        nodes,
        time_unit=time_unit,
        states=power,
        pstates=[(r["node"], int(r["pstate"]), float(r["start"]), float(r["end"])) for r in slowed],
        speeds={int(r["pstate"]): float(r["speed"]) for r in slowed},
        title=f"Machine states per node: {label}" if label else "Machine states per node",
    )
    states.savefig(target / "machine_states.png", dpi=100)
    return [path, target / "machine_states.png"]


def _series_rows(folder: Path, name: str) -> list[dict[str, str]] | None:
    """The rows of the first cell's first replication's ``series/...-<name>`` table (None: the run wrote none)."""
    import csv

    tables = sorted((folder / "series").glob(f"cell0-rep0-*{name}"))
    if not tables:
        return None
    with tables[0].open() as stream:
        return list(csv.DictReader(stream))


@dataclass(frozen=True)
class DrawnRun:
    """The run ``schedlab plot`` draws: the first cell's first replication, with what its figures need."""

    records: list[JobRecord]
    #: CPUs of the machine it ran on (see :func:`plot_results`'s ``capacity``)
    capacity: float
    #: "s" (a log: seconds) or "" (unitless), from the run's facts
    time_unit: str
    #: the cell's factors and replication, as ``key=value, ...``
    label: str
    #: ``(job, procset, start, end)`` segments, where the run's machine gave processor ids
    allocations: list[tuple[str, str, float, float]] | None = None


def drawn_run(folder: str | Path, capacity: float | None = None) -> DrawnRun | None:
    """The first cell's first replication of a results folder, or None when no records were kept.

    ``capacity`` as in :func:`plot_results`.
    """
    import json

    from schedlab.model.records.job_record import COLUMNS
    from schedlab.model.records.table import read_records, records_of_frame
    from schedlab.plots.timeseries import occupancy

    folder = Path(folder)
    frame = read_records(folder)
    if frame is None or not len(frame):
        return None
    factors = [c for c in frame.columns if c not in COLUMNS]  # cell factors and rep
    first = frame
    for f in factors:  # the first cell's first replication: one run, as it happened
        first = first[first[f] == first[f].iloc[0]]
    records = records_of_frame(first)
    cell = {f: first[f].iloc[0] for f in factors if f != "rep"}
    rep = int(first["rep"].iloc[0]) if "rep" in first else 0
    facts = run_facts_of(folder, cell, rep) or {}
    if capacity is None:
        capacity = facts.get("capacity")
    if capacity is None and (folder / "summary.json").is_file():
        config = json.loads((folder / "summary.json").read_text()).get("config", {})
        capacity = next((config[k] for k in ("cpus", "capacity") if isinstance(config.get(k), int | float)), None)
    if capacity is None:
        capacity = max(float(occupancy(records)["busy"][1].max()), 1.0)
    label = ", ".join(f"{f}={first[f].iloc[0]}" for f in factors)
    return DrawnRun(records, float(capacity), facts.get("time_unit", ""), label, allocations_of(folder, cell, rep))


def processor_states(run: DrawnRun) -> Any:
    """The machine-state chart of a run whose machine gave processor ids: each processor a machine,
    over the span from the first submission to the last end."""
    from schedlab.model.core.procset import parse_procset
    from schedlab.plots.machine_states import machine_states

    busy = [(str(p), start, end) for _, procs, start, end in run.allocations or [] for p in parse_procset(procs)]
    ends = [r.end for r in run.records if r.end == r.end]
    return machine_states(
        busy,
        [str(i) for i in range(int(run.capacity))],
        start=min(r.submit for r in run.records),
        end=max(ends, default=None),
        title=f"Machine states per processor ({run.label})",
        time_unit=run.time_unit,
        what="processors",
    )


def plot_results(folder: str | Path, out: str | Path | None = None, *, capacity: float | None = None) -> list[Path]:
    """Write ``metric_<name>.png`` per metric of ``summary.csv``, and a Gantt chart and
    utilization/queue plot of the first replication of the first cell when records were kept.

    The Gantt chart is drawn over processors (each job over the ids it held, coloured by
    its wait) where the run saved its ``allocations.csv`` (a machine built with
    ``allocation=``), else one row per job.

    Parameters
    ----------
    folder
        A results folder (``schedlab run`` writes ``results/<scenario>``).
    out
        Where to write the PNG files (default: ``folder/plots``).
    capacity
        CPUs of the machine, for utilization. Default: the CPUs of the run drawn, as
        its scenario's ``measure`` saved them (:func:`schedlab.model.records.run_facts.run_facts`,
        ``series/cell<i>-rep<r>-run.json``); else the config's ``cpus`` or
        ``capacity`` in ``summary.json``; else the most CPUs busy at once. The config's
        ``c`` is not read: ``scenarios/first_look.py``'s ``c`` sizes its M/M/c cell,
        not the log's machine that the first run drawn ran on.

    Returns
    -------
    list of Path
        The files written.

    Raises
    ------
    FileNotFoundError
        When ``folder`` is not a folder or holds no ``summary.csv``.
    """

    from schedlab.plots.gantt import gantt
    from schedlab.plots.processor_gantt import processor_gantt
    from schedlab.plots.timeseries import utilization_queue

    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such results folder")
    if not (folder / "summary.csv").is_file():
        raise FileNotFoundError(f"{folder}: no summary.csv here; write one with `schedlab run SCENARIO --out {folder}`")
    target = Path(out) if out is not None else folder / "plots"
    target.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    try:
        _, metrics = split_columns(folder / "summary.csv")
    except ValueError as exc:  # pandas' EmptyDataError and parse errors: name the file, not the parser
        raise ValueError(f"{folder / 'summary.csv'}: not a results table ({exc})") from exc
    for metric in metrics:
        fig = metric_vs_factor(folder / "summary.csv", metric)
        written.append(target / f"metric_{metric}.png")
        fig.savefig(written[-1], dpi=100)
    run = drawn_run(folder, capacity)
    if run is not None:
        if run.allocations:  # over the processors each job held
            chart = processor_gantt(
                run.allocations,
                int(run.capacity),
                records=run.records,
                title=f"Gantt chart over processors ({run.label})",
                time_unit=run.time_unit,
            )
        else:  # one row per job
            chart = gantt(run.records, title=f"Gantt chart ({run.label})", time_unit=run.time_unit)
        for name, fig in (
            ("gantt", chart),
            (
                "utilization_queue",
                utilization_queue(run.records, run.capacity, title=run.label, time_unit=run.time_unit),
            ),
        ):
            written.append(target / f"{name}.png")
            fig.savefig(written[-1], dpi=100)
    nodes = _node_gantt(folder, target, run.time_unit if run is not None else "")
    if run is not None and run.allocations and not nodes:  # each processor a machine
        written.append(target / "machine_states.png")
        processor_states(run).savefig(written[-1], dpi=100)
    written += nodes
    if not written:
        raise ValueError(
            f"{folder}: nothing to plot: summary.csv has no metric (a column with a _ci95 twin) "
            "and no records were saved"
        )
    return written

"""``schedlab plot RESULTS_DIR``: every figure a results folder allows, written as PNG."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from schedlab.plots.drawn_run import DrawnRun, drawn_run
from schedlab.plots.factors import metric_vs_factor, split_columns
from schedlab.plots.node_charts import node_charts
from schedlab.plots.run_files import allocations_of, run_facts_of

__all__ = [
    "DrawnRun",
    "allocations_of",
    "cpu_states",
    "drawn_run",
    "metric_units",
    "plot_results",
    "result_figures",
    "run_facts_of",
]


def metric_units(folder: Path, cells: int) -> dict[str, list[str | None]]:
    """Each metric's unit in each of the ``cells`` cells, as the cell's first run's facts say
    (:func:`~schedlab.model.records.run_facts.run_facts`'s ``units``); None where they do not."""
    facts = [run_facts_of(folder, i, 0) or {} for i in range(cells)]
    names = {m for f in facts for m in f.get("units", {})}
    return {m: [f.get("units", {}).get(m) for f in facts] for m in names}


def cpu_states(run: DrawnRun) -> Any:
    """The machine-state chart of a run whose machine gave CPU ids: each CPU a machine,
    over the span from the first submission to the last end, down where a node failure took it."""
    from schedlab.model.core.procset import parse_procset
    from schedlab.plots.machine_states import machine_states

    busy = [(str(p), start, end) for _, procs, start, end in run.allocations or [] for p in parse_procset(procs)]
    ends = [r.end for r in run.records if r.end == r.end]
    down = [(str(p), start, end) for procs, start, end in run.down for p in parse_procset(procs)]
    return machine_states(
        busy,
        [str(i) for i in range(int(run.capacity))],
        start=min(r.submit for r in run.records),
        end=max(ends, default=None),
        title=f"Machine states per CPU ({run.label})",
        time_unit=run.time_unit,
        what="CPUs",
        down=down,
        origin="the first submission",
    )


def plot_results(
    folder: str | Path,
    out: str | Path | None = None,
    *,
    capacity: float | None = None,
    cell: int = 0,
    rep: int | None = None,
) -> list[Path]:
    """Write ``metric_<name>.png`` per metric of ``summary.csv``, and a Gantt chart and
    utilization/queue plot of one run (cell ``cell``'s replication ``rep``, default the
    first cell's first) when records were kept.

    Each metric's intervals are bootstrap percentile intervals of its replications
    (``replications.csv``), which stay within the metric's bounds, and a metric measured in
    different units in different cells (the run facts' ``units``) gets a panel per unit.
    The Gantt chart is drawn over CPUs (each job over the ids it held, coloured by
    its wait) where the run saved its ``allocations.csv`` (a machine built with
    ``allocation=``), else one row per job; a cluster's run that saved its placements also
    gets ``gantt_nodes.png`` and ``machine_states.png`` (:func:`~schedlab.plots.node_charts.node_charts`).
    CPUs and nodes down (the run's ``node_outages.csv``, or a powered cluster's
    ``power.csv``) are drawn down in every chart of them.

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
    cell, rep
        The run drawn: the row of ``summary.csv`` and the replication (default its first).

    Returns
    -------
    list of Path
        The files written.

    Raises
    ------
    FileNotFoundError
        When ``folder`` is not a folder or holds no ``summary.csv``.
    """

    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such results folder")
    if not (folder / "summary.csv").is_file():
        raise FileNotFoundError(f"{folder}: no summary.csv here; write one with `schedlab run SCENARIO --out {folder}`")
    figures = result_figures(folder, capacity=capacity, cell=cell, rep=rep)
    if not figures:
        raise ValueError(
            f"{folder}: nothing to plot: summary.csv has no metric (a column with a _ci95 twin) "
            "and no records were saved"
        )
    target = Path(out) if out is not None else folder / "plots"
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name, fig in figures.items():
        written.append(target / f"{name}.png")
        fig.savefig(written[-1], dpi=100)
    return written


def result_figures(
    folder: str | Path, *, capacity: float | None = None, cell: int = 0, rep: int | None = None
) -> dict[str, Any]:
    """The figures :func:`plot_results` writes, by file name without ``.png``: what a test reads
    the drawn numbers back from. Parameters as there."""
    from schedlab.plots.cpu_gantt import cpu_gantt
    from schedlab.plots.gantt import gantt
    from schedlab.plots.timeseries import utilization_queue

    folder = Path(folder)
    figures: dict[str, Any] = {}
    try:
        _, metrics = split_columns(folder / "summary.csv")
    except ValueError as exc:  # pandas' EmptyDataError and parse errors: name the file, not the parser
        raise ValueError(f"{folder / 'summary.csv'}: not a results table ({exc})") from exc
    import pandas as pd

    summary = pd.read_csv(folder / "summary.csv")
    reps = folder / "replications.csv"
    replications = pd.read_csv(reps) if reps.is_file() else None
    units = metric_units(folder, len(summary))
    for metric in metrics:
        figures[f"metric_{metric}"] = metric_vs_factor(
            summary, metric, replications=replications, units=units.get(metric)
        )
    run = drawn_run(folder, capacity, cell=cell, rep=rep)
    if run is not None:
        if run.allocations:  # over the CPUs each job held
            figures["gantt"] = cpu_gantt(
                run.allocations,
                int(run.capacity),
                records=run.records,
                title=f"Gantt chart over CPUs ({run.label})",
                time_unit=run.time_unit,
                down=run.down,
            )
        else:  # one row per job
            figures["gantt"] = gantt(run.records, title=f"Gantt chart ({run.label})", time_unit=run.time_unit)
        from schedlab.model.core.procset import parse_procset

        figures["utilization_queue"] = utilization_queue(
            run.records,
            run.capacity,
            title=run.label,
            time_unit=run.time_unit,
            down=[(len(parse_procset(procs)), a, b) for procs, a, b in run.down],
            allocations=run.allocations,  # exact where saved: every attempt of a requeued job
        )
    nodes = node_charts(folder, run)
    if run is not None and run.allocations and not nodes:  # each CPU a machine
        figures["machine_states"] = cpu_states(run)
    return {**figures, **nodes}

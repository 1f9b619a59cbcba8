"""``schedlab plot RESULTS_DIR``: every figure a results folder allows, written as PNG."""

from __future__ import annotations

from pathlib import Path

from schedlab.plots.factors import metric_vs_factor, split_columns

__all__ = ["plot_results"]


def _records(folder: Path) -> object | None:
    import pandas as pd

    for name, read in (("records.parquet", pd.read_parquet), ("records.csv", pd.read_csv)):
        if (folder / name).is_file():
            try:
                return read(folder / name)
            except ImportError:  # Parquet without pyarrow: try the CSV, if any
                continue
    return None


def _node_gantt(folder: Path, target: Path) -> list[Path]:
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
        rows = [(r["job"], r["queue"], r["node"], r["kind"], int(r["cores"]), float(r["start"]), float(r["end"]))
                for r in csv.DictReader(stream)]
    config = json.loads((folder / "summary.json").read_text()).get("config", {}) \
        if (folder / "summary.json").is_file() else {}
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
    fig = node_gantt(rows, platform=platform, title=title)
    path = target / "gantt_nodes.png"
    fig.savefig(path, dpi=100)
    return [path]


def plot_results(folder: str | Path, out: str | Path | None = None, *, capacity: float | None = None) -> list[Path]:
    """Write ``metric_<name>.png`` per metric of ``summary.csv``, and a Gantt chart and
    utilization/queue plot of the first replication of the first cell when records were kept.

    Parameters
    ----------
    folder
        A results folder (``schedlab run`` writes ``results/<scenario>``).
    out
        Where to write the PNG files (default: ``folder/plots``).
    capacity
        CPUs of the machine, for utilization; default: the config's ``cpus`` or ``c``
        in ``summary.json``, else the most CPUs busy at once.

    Returns
    -------
    list of Path
        The files written.

    Raises
    ------
    FileNotFoundError
        When ``folder`` is not a folder or holds no ``summary.csv``.
    """
    import json

    from schedlab.model.records.job_record import COLUMNS, JobRecord, Status
    from schedlab.plots.gantt import gantt
    from schedlab.plots.timeseries import occupancy, utilization_queue

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
    frame = _records(folder)
    if frame is not None and len(frame):
        factors = [c for c in frame.columns if c not in COLUMNS]  # cell factors and rep
        first = frame
        for f in factors:  # the first cell's first replication: one run, as it happened
            first = first[first[f] == first[f].iloc[0]]
        records = [
            JobRecord(**{**row, "status": Status(row["status"])}) for row in first[list(COLUMNS)].to_dict("records")
        ]
        if capacity is None and (folder / "summary.json").is_file():
            config = json.loads((folder / "summary.json").read_text()).get("config", {})
            capacity = next(
                (config[k] for k in ("cpus", "c", "capacity") if isinstance(config.get(k), int | float)), None
            )
        if capacity is None:
            capacity = max(float(occupancy(records)["busy"][1].max()), 1.0)
        label = ", ".join(f"{f}={first[f].iloc[0]}" for f in factors)
        for name, fig in (
            ("gantt", gantt(records, title=f"Gantt chart ({label})")),
            ("utilization_queue", utilization_queue(records, capacity, title=label)),
        ):
            written.append(target / f"{name}.png")
            fig.savefig(written[-1], dpi=100)
    written += _node_gantt(folder, target)
    if not written:
        raise ValueError(
            f"{folder}: nothing to plot: summary.csv has no metric (a column with a _ci95 twin) "
            "and no records were saved"
        )
    return written

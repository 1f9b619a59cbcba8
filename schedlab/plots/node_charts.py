"""``gantt_nodes.png`` and ``machine_states.png`` of a cluster's run, from the tables its measure saved.

A cluster's run saves where each job ran (``placements.csv``), and may save its nodes
(``nodes.csv``), their power states (``power.csv``: off, switching and, on a powered
cluster, down) and pstates (``pstates.csv``), and its node outages (``node_outages.csv``).
Both charts draw every one of them: a node that failed is drawn down until its repair,
whether the cluster has power states or not.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from schedlab.plots.drawn_run import DrawnRun
from schedlab.plots.run_files import down_nodes, series_rows

__all__ = ["node_charts"]


def _platform(folder: Path) -> Any:
    """The platform file the run's config names, where there is one (``schedlab replay --platform``)."""
    from schedlab.model.formats.platform_file import load_platform

    summary = folder / "summary.json"
    config = json.loads(summary.read_text()).get("config", {}) if summary.is_file() else {}
    if config.get("platform") and Path(config["platform"]).is_file():
        return load_platform(config["platform"]), config
    return None, config


def node_charts(folder: Path, run: DrawnRun | None) -> dict[str, Any]:
    """The Gantt chart per node and the machine states of the drawn run (cell 0's first
    replication without records), where it saved a placement table: ``{"gantt_nodes": figure,
    "machine_states": figure}``, or ``{}``.

    Both span the jobs, to the last job's end: a node's state after it is left out.
    """
    from schedlab.plots.gantt import node_gantt
    from schedlab.plots.machine_states import machine_states

    index, rep = (run.index, run.rep) if run is not None else (0, 0)
    placed = series_rows(folder, index, rep, "placements.csv")
    if placed is None:
        return {}
    rows = [
        (r["job"], r["queue"], r["node"], r["kind"], int(r["cores"]), float(r["start"]), float(r["end"]))
        for r in placed
    ]
    platform, config = _platform(folder)
    listed = series_rows(folder, index, rep, "nodes.csv") or []
    nodes = [(r["node"], r["kind"], int(r["cores"])) for r in sorted(listed, key=lambda r: int(r["index"]))]
    names = [n.name for n in platform.nodes] if platform is not None else [n for n, _, _ in nodes]
    power_rows = series_rows(folder, index, rep, "power.csv")
    power = (
        None
        if power_rows is None
        else [(r["node"], r["state"], float(r["start"]), float(r["end"])) for r in power_rows]
    )
    # the charts span the jobs: a failure drawn after the last job ended (failures are drawn over
    # a horizon longer than the run) changed nothing, and would squeeze the run into a corner
    until = max((r[6] for r in rows), default=0.0)
    if power is not None:
        power = [(n, s, a, min(b, until)) for n, s, a, b in power if a < until]
    # a powered cluster's power rows say when a node was down; any other cluster's outages do
    failed = [] if any(s == "down" for _, s, _, _ in power or ()) else down_nodes(folder, index, rep, names, until)
    failed = [(n, a, min(b, until)) for n, a, b in failed if a < until]
    states = [*(power or ()), *((node, "down", a, b) for node, a, b in failed)]
    label = ""
    if platform is not None:
        label = f"platform {platform.name}, {config.get('placement', '')} placement, queues {config.get('queues')}"
    if run is not None:
        label = f"{label}\n{run.label}" if label else run.label
    unit = run.time_unit if run is not None else ""
    chart = node_gantt(
        rows,
        platform=platform,
        nodes=nodes,
        states=states,
        title=f"Gantt chart per node: {label}" if label else "Gantt chart per node",
        time_unit=unit,
    )
    slowed = series_rows(folder, index, rep, "pstates.csv") or []  # the nodes' DVFS pstates (replay --dvfs)
    everyone = names or sorted({r[2] for r in rows} | {s[0] for s in states})
    figure = machine_states(
        [(r[2], r[5], r[6]) for r in rows],
        everyone,
        time_unit=unit,
        states=power,
        down=failed,
        pstates=[(r["node"], int(r["pstate"]), float(r["start"]), float(r["end"])) for r in slowed],
        speeds={int(r["pstate"]): float(r["speed"]) for r in slowed},
        title=f"Machine states per node: {label}" if label else "Machine states per node",
    )
    return {"gantt_nodes": chart, "machine_states": figure}

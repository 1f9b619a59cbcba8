"""``schedlab plot`` draws what the run did: every figure of two quick runs, read back and checked.

The README's main job (``scenarios/first_look.py --quick``) and ``scenarios/energy_failures.py
--quick`` are run, saved and drawn as ``schedlab plot`` draws them
(:func:`~schedlab.plots.results.result_figures`). Each figure's artists are then read
back (points and error bars, rectangles, filled areas) and compared with the summary,
the replications and the run itself, rebuilt: the metric's mean and an interval within
its replications' values, one unit per axis, a time axis whose label names its true
origin, and, with failures, each node down where the run says it was down.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from schedlab.experiment import load_scenario, run
from schedlab.experiment.seeding import replication_seeds
from schedlab.model.core.streams import Streams
from schedlab.plots.factors import cell_values
from schedlab.plots.results import result_figures

ROOT = Path(__file__).resolve().parent.parent
#: seconds per unit of a time axis's label
SECONDS = {"days": 86_400.0, "hours": 3_600.0, "minutes": 60.0, "seconds": 1.0}


def _saved(name: str, folder: Path):
    here = os.getcwd()
    os.chdir(ROOT)  # the log is found in ../shared/traces, relative to the repository root
    try:
        results = run(ROOT / "scenarios" / f"{name}.py", quick=True, executor="serial", progress=False)
    finally:
        os.chdir(here)
    results.save(folder)
    return results


@pytest.fixture(scope="module")
def first_look(tmp_path_factory):
    """``schedlab run scenarios/first_look.py --quick``, saved, and the figures ``schedlab plot`` draws of it."""
    folder = tmp_path_factory.mktemp("plots") / "first_look"
    results = _saved("first_look", folder)
    return results, folder, result_figures(folder)


@pytest.fixture(scope="module")
def energy(tmp_path_factory):
    """``schedlab run scenarios/energy_failures.py --quick``, saved, and ``schedlab plot --cell 1``'s
    figures: window 0 under FCFS, always on, with failures."""
    folder = tmp_path_factory.mktemp("plots") / "energy_failures"
    results = _saved("energy_failures", folder)
    return results, folder, result_figures(folder, cell=1)


def _seconds(ax):
    """The time axis's label read back: a function from drawn x to the run's seconds (panels
    sharing the axis label it once, on the lowest)."""
    label = ax.get_xlabel() or next(a.get_xlabel() for a in ax.figure.axes if a.get_xlabel())
    m = re.fullmatch(r"(days|hours|minutes|seconds) since (.+) \(t = ([\d,]+) s\)", label)
    assert m is not None, label
    scale, origin = SECONDS[m.group(1)], float(m.group(3).replace(",", ""))
    return lambda x: np.asarray(x, float) * scale + origin


def _points(ax):
    """``(y, low, high)`` of each point an errorbar drew on ``ax``, in drawing order."""
    out = []
    for container in ax.containers:
        line, _, (bars,) = container.lines
        for y, segment in zip(line.get_ydata(), bars.get_segments(), strict=True):
            out.append((float(y), float(segment[:, 1].min()), float(segment[:, 1].max())))
    return out


def _area(collection) -> float:
    """The area a ``fill_between`` collection covers (the shoelace formula over its outline)."""
    total = 0.0
    for path in collection.get_paths():
        x, y = path.vertices[:, 0], path.vertices[:, 1]
        total += 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))
    return total


def _check_metrics(folder: Path, figures: dict, bounds: dict[str, tuple[float, float]]) -> None:
    """Every metric figure: the summary's means, intervals inside the replications' values (so
    inside the metric's ``bounds``), and each axis named with its one unit."""
    summary = pd.read_csv(folder / "summary.csv")
    replications = pd.read_csv(folder / "replications.csv")
    for metric in (c for c in summary.columns if f"{c}_ci95" in summary.columns):
        fig = figures[f"metric_{metric}"]
        values = cell_values(summary, replications, metric)
        drawn = [p for ax in fig.axes for p in _points(ax)]
        expected = [(m, v) for m, v in zip(summary[metric], values, strict=True) if m == m]
        assert len(drawn) == len(expected), metric
        low_bound, high_bound = bounds.get(metric, (-np.inf, np.inf))
        for (y, low, high), (mean, reps) in zip(drawn, expected, strict=True):
            assert y == pytest.approx(mean, rel=1e-12)
            assert min(reps) - 1e-9 <= low <= y + 1e-9 and y - 1e-9 <= high <= max(reps) + 1e-9
            assert low >= low_bound - 1e-9 and high <= high_bound + 1e-9
        for ax in fig.axes:
            assert ax.get_ylabel().startswith(metric) and ax.get_ylabel().endswith(")"), ax.get_ylabel()
        title = fig.texts[0].get_text() if fig.texts else fig.axes[0].get_title()
        assert "bootstrap percentile interval" in title


# ---- the main job: first_look


def test_first_look_metrics_one_unit_per_axis_and_bounded_intervals(first_look):
    _, folder, figures = first_look
    _check_metrics(folder, figures, {"wait": (0, np.inf), "bounded_slowdown": (1, np.inf)})
    log, queue = figures["metric_wait"].axes  # the log's hours and the queue's service times apart
    assert log.get_ylabel() == "wait\n(hours)" and log.get_title() == "workload=SDSC-SP2 log"
    assert queue.get_ylabel() == "wait\n(mean service times)"
    assert [t.get_text() for t in log.get_xticklabels()] == [
        "policy=fcfs",
        "policy=sjf",
        "policy=easy",
        "policy=sjf+easy",
    ]
    assert len(figures["metric_bounded_slowdown"].axes) == 1  # the queue has none: only the log's cells
    assert len(_points(figures["metric_bounded_slowdown"].axes[0])) == 4


def test_first_look_gantt_draws_each_job_where_and_when_it_ran(first_look):
    _, folder, figures = first_look
    ax = figures["gantt"].axes[0]
    to_seconds = _seconds(ax)
    records = pd.read_parquet(folder / "records.parquet")
    first = records[(records["policy"] == "fcfs") & (records["rep"] == 0) & (records["workload"] == "SDSC-SP2 log")]
    assert figures["gantt"].axes[1].get_xlabel().startswith("days since the first submission")
    assert float(to_seconds(0.0)) == pytest.approx(first["submit"].min(), abs=0.5)  # the origin the label names
    drawn = []
    for box in ax.collections:
        v = box.get_paths()[0].vertices
        drawn.append((*to_seconds([v[:, 0].min(), v[:, 0].max()]), v[:, 1].min(), v[:, 1].max()))
    # each job's rectangles: its start to its end (seconds), over as many CPUs as it held
    by_time = sorted(drawn)
    jobs = sorted(first.itertuples(), key=lambda r: r.start)
    area = sum((t1 - t0) * (hi - lo) for t0, t1, lo, hi in by_time)
    assert area == pytest.approx(float((first["cpus"] * (first["end"] - first["start"])).sum()), rel=1e-6)
    assert by_time[0][0] == pytest.approx(jobs[0].start, abs=1.0)
    assert max(t1 for _, t1, _, _ in drawn) == pytest.approx(first["end"].max(), abs=1.0)


def test_first_look_utilization_and_machine_states_are_the_runs(first_look):
    results, _, figures = first_look
    run0 = next(
        r for r in results.replications if (r["policy"], r["rep"]) == ("fcfs", 0) and r["workload"].endswith("log")
    )
    top, bottom = figures["utilization_queue"].axes
    to_seconds = _seconds(bottom)
    x, y = (np.asarray(a, float) for a in top.lines[0].get_data())
    t = to_seconds(x)
    span = t[-1] - float(to_seconds(0.0))
    average = float(np.sum(y[:-1] * np.diff(t)) / span)
    assert average == pytest.approx(run0["utilization"], rel=1e-6) and y.max() <= 1.0
    ax = figures["machine_states"].axes[0]
    scale = float(_seconds(ax)(1.0) - _seconds(ax)(0.0))
    computing = next(c for c in ax.collections if c.get_label() == "computing")
    assert ax.get_ylabel() == "CPUs (128)"
    assert _area(computing) * scale / (128 * span) == pytest.approx(run0["utilization"], rel=1e-6)


# ---- energy_failures: a run with node failures


def _rebuilt(results):
    """Cell 1's replication 0 (FCFS, always on, failures), run again: its cluster."""
    import simpy

    module = load_scenario(ROOT / "scenarios" / "energy_failures.py").module
    fields = module.Config.__dataclass_fields__
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        cfg = module.Config(**{k: v for k, v in results.config.items() if k in fields})
        cell = {"policy": "fcfs", "power": "always on", "failures": "weibull"}
        model = module.build(simpy.Environment(), cfg, cell, Streams(replication_seeds(results.seed, 1)[0], 0)).run()
    finally:
        os.chdir(here)
    return model


def test_energy_failures_metrics_one_unit_per_axis_and_bounded_intervals(energy):
    _, folder, figures = energy
    bounds = {"wait_h": (0, np.inf), "bounded_slowdown": (1, np.inf), "availability": (0, 1), "utilization": (0, 1)}
    _check_metrics(folder, figures, bounds)
    assert figures["metric_energy_mj"].axes[0].get_ylabel() == "energy_mj\n(MJ)"


def test_energy_failures_node_gantt_draws_each_node_down_where_it_was_down(energy):
    results, _, figures = energy
    cluster = _rebuilt(results)["cluster"]
    end = max(r[6] for r in cluster.placement_rows())
    expected = sorted(
        (cluster.nodes[o.node].name, o.start, min(o.end, end)) for o in cluster.node_outages if o.start < end
    )
    assert expected, "seed 0's quick window 0 has node failures while jobs run"
    ax = figures["gantt_nodes"].axes[0]
    to_seconds = _seconds(ax)
    names = {
        round(tick, 6): label.get_text().split("\n")[0]
        for tick, label in zip(ax.get_yticks(), ax.get_yticklabels(), strict=True)
    }
    drawn = []
    for box in (c for c in ax.collections if c.get_gid() == "down"):
        v = box.get_paths()[0].vertices
        node = names[round((v[:, 1].min() + v[:, 1].max()) / 2, 6)]  # the band's middle is its node's tick
        drawn.append((node, *to_seconds([v[:, 0].min(), v[:, 0].max()])))
    drawn.sort()
    assert [d[0] for d in drawn] == [e[0] for e in expected]
    for (_, a, b), (_, start, stop) in zip(drawn, expected, strict=True):
        assert a == pytest.approx(start, abs=1e-6 * end) and b == pytest.approx(stop, abs=1e-6 * end)
    assert "down (failed)" in [t.get_text() for t in ax.get_legend().get_texts()]
    # and the jobs: their core-time drawn is every attempt's, killed ones too
    jobs = [c for c in ax.collections if c.get_gid() is None]
    widths = [np.ptp(c.get_paths()[0].vertices, axis=0) for c in jobs]  # (time, cores - 0.1: a gap between)
    core_time = sum(float(w[0]) * round(float(w[1]) + 0.1) for w in widths) * float(to_seconds(1.0) - to_seconds(0.0))
    assert core_time == pytest.approx(sum(r[4] * (r[6] - r[5]) for r in cluster.placement_rows()), rel=1e-6)


def test_energy_failures_machine_states_and_processor_gantt_count_the_nodes_down(energy):
    results, _, figures = energy
    model = _rebuilt(results)
    cluster = model["cluster"]
    rows = cluster.placement_rows()
    first, end = min(r[5] for r in rows), max(r[6] for r in rows)
    down_time = sum(min(o.end, end) - max(o.start, first) for o in cluster.node_outages if o.start < end)
    ax = figures["machine_states"].axes[0]
    scale = float(_seconds(ax)(1.0) - _seconds(ax)(0.0))
    layers = {c.get_label(): c for c in ax.collections}
    assert _area(layers["down"]) * scale == pytest.approx(down_time, rel=1e-6)
    assert _area(layers["computing"]) * scale == pytest.approx(sum(r[6] - r[5] for r in rows), rel=1e-6)
    # over CPUs: each one-core node's outage over its CPU id
    gantt = figures["gantt"].axes[0]
    to_seconds = _seconds(gantt)
    drawn = sorted(
        (int(v[:, 1].min()), *map(float, to_seconds([v[:, 0].min(), v[:, 0].max()])))
        for v in (c.get_paths()[0].vertices for c in gantt.collections if c.get_gid() == "down")
    )
    last = max(r.end for r in model.records() if r.end == r.end)
    expected = sorted((o.node, o.start, min(o.end, last)) for o in cluster.node_outages if o.start < last)
    assert [d[0] for d in drawn] == [e[0] for e in expected]
    assert all(
        a == pytest.approx(s, abs=1.0) and b == pytest.approx(t, abs=1.0)
        for (_, a, b), (_, s, t) in zip(drawn, expected, strict=True)
    )


def test_the_boot_chart_names_the_origin_it_counts_from(energy):
    results, _, _ = energy
    module = load_scenario(ROOT / "scenarios" / "energy_failures.py").module
    cfg = module.Config(**{k: v for k, v in results.config.items() if k in module.Config.__dataclass_fields__})
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        ax = module.machine_states_figure(cfg, results.seed, zoom=True).axes[0]
    finally:
        os.chdir(here)
    boot = float(re.search(r"boot at t = ([\d,]+) s", ax.get_title()).group(1).replace(",", ""))
    before = re.match(r"minutes since ([\d.]+) minutes before the boot \(t = ", ax.get_xlabel())
    assert before is not None, ax.get_xlabel()
    to_seconds = _seconds(ax)
    # the axis's 0 is the chart's left edge, and that many minutes after it is the boot
    assert float(to_seconds(ax.get_xlim()[0])) == pytest.approx(float(to_seconds(0.0)), abs=1e-9)
    assert float(to_seconds(float(before.group(1)))) == pytest.approx(boot, abs=1.0)


def test_energy_failures_utilization_counts_every_attempt_and_the_cpus_down(energy):
    """The utilization panel counts the CPUs each attempt held (from the run's allocations: a
    killed attempt held its CPUs too), and hatches from the top the share of the machine down."""
    results, _, figures = energy
    model = _rebuilt(results)
    cluster = model["cluster"]
    rows = cluster.placement_rows()
    end = max(r.end for r in model.records() if r.end == r.end)
    top = figures["utilization_queue"].axes[0]
    scale = float(_seconds(top)(1.0) - _seconds(top)(0.0))
    x, y = (np.asarray(a, float) for a in top.lines[0].get_data())
    assert float(np.sum(y[:-1] * np.diff(x))) * scale * 128 == pytest.approx(sum(r[6] - r[5] for r in rows), rel=1e-6)
    down = next(c for c in top.collections if c.get_gid() == "down")
    lost = sum(min(o.end, end) - o.start for o in cluster.node_outages if o.start < end)  # one CPU a node
    assert _area(down) * scale * 128 == pytest.approx(lost, rel=1e-6)

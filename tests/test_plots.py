"""Plots render to PNG with a non-interactive backend; bad input is one clear line."""

from __future__ import annotations

import sys

import matplotlib
import pytest

matplotlib.use("Agg")

from schedlab.experiment.cli import main
from schedlab.model.core.job import Job
from schedlab.plots import (
    draw_topology,
    gantt,
    metric_vs_factor,
    occupancy,
    segments_from_trace,
    utilization_queue,
)
from schedlab.processes import Machine, TracedEnvironment
from schedlab.topologies import bipartite_grid, small_world_ring

PNG = b"\x89PNG"


def _squeezed_and_preempted():
    env = TracedEnvironment()
    machine = Machine(env, 4, policy=lambda view: None, name="m")
    job = Job(id=0, submit=0.0, runtime=10.0, cpus=4)
    machine.submit(job)
    machine.start(job, cpus=2)

    def operator(env):
        yield env.timeout(4)
        machine.resize(job, 4)
        yield env.timeout(2)
        machine.preempt(job)
        yield env.timeout(5)
        machine.start(job)

    env.process(operator(env))
    env.run()
    return machine, env.tracer.entries


def test_trace_segments_follow_squeeze_grow_preempt_resume():
    _, entries = _squeezed_and_preempted()
    segments = [(s.start, s.end, s.cpus) for s in segments_from_trace(entries)]
    assert segments == [(0.0, 4.0, 2), (4.0, 6.0, 4), (11.0, 17.0, 4)]


def test_gantt_from_records_and_from_trace(tmp_path):
    machine, entries = _squeezed_and_preempted()
    for i, source in enumerate([machine.records, entries]):
        path = tmp_path / f"g{i}.png"
        gantt(source).savefig(path)
        assert path.read_bytes()[:4] == PNG


def test_occupancy_and_utilization_plot(tmp_path):
    machine, _ = _squeezed_and_preempted()
    series = occupancy(machine.records)
    times, busy = series["busy"]
    assert times.tolist() == [0.0, 17.0] and busy.tolist() == [4.0, 0.0]
    utilization_queue(machine.records, 4).savefig(tmp_path / "u.png")
    assert (tmp_path / "u.png").read_bytes()[:4] == PNG
    with pytest.raises(ValueError, match="capacity"):
        utilization_queue(machine.records, 0)


def test_occupancy_from_a_trace_is_exact_under_squeeze_and_preemption():
    _, entries = _squeezed_and_preempted()
    series = occupancy(entries)
    assert [list(a) for a in series["busy"]] == [[0.0, 4.0, 6.0, 11.0, 17.0], [2.0, 4.0, 0.0, 4.0, 0.0]]
    assert [list(a) for a in series["queue"]] == [[0.0, 6.0, 11.0], [0.0, 1.0, 0.0]]
    utilization_queue(entries, 4)


def test_topologies_draw(tmp_path):
    draw_topology(small_world_ring(12, seed=1)).savefig(tmp_path / "ring.png")
    draw_topology(bipartite_grid(3, 5, capacity_range=(50, 350), seed=1)).savefig(tmp_path / "grid.png")
    assert (tmp_path / "ring.png").read_bytes()[:4] == PNG == (tmp_path / "grid.png").read_bytes()[:4]


def test_metric_vs_factor_from_rows(tmp_path):
    rows = [
        {"policy": p, "rate": r, "wait": r * k, "wait_ci95": 0.1}
        for p, k in (("fcfs", 2.0), ("sjf", 1.0))
        for r in (0.5, 0.8)
    ]
    fig = metric_vs_factor(rows, "wait")
    assert len(fig.axes[0].get_lines()) >= 2
    fig.savefig(tmp_path / "m.png")
    metric_vs_factor(rows, "wait", "policy").savefig(tmp_path / "m2.png")
    with pytest.raises(ValueError, match=r"no metric .slowdown.*wait"):
        metric_vs_factor(rows, "slowdown")


def test_schedlab_plot_writes_pngs(tmp_path, capsys, monkeypatch):
    from pathlib import Path

    from schedlab.experiment import run

    root = Path(__file__).resolve().parent.parent
    monkeypatch.chdir(root)
    results = run(
        root / "scenarios/mmc.py",
        overrides={"customers": 300},
        reps=2,
        executor="serial",
        sweep={"arrival_rate": [2.0, 3.0]},
    )
    results.save(tmp_path / "mmc")
    assert main(["plot", str(tmp_path / "mmc")]) == 0
    out = capsys.readouterr().out
    names = {p.name for p in (tmp_path / "mmc" / "plots").glob("*.png")}
    assert {"metric_wait_mean.png", "gantt.png", "utilization_queue.png"} <= names
    assert "wrote" in out
    # the queue's time is in mean service times, as its run facts say: the axes name it
    from schedlab.plots.results import result_figures

    figures = result_figures(tmp_path / "mmc")
    assert figures["gantt"].axes[0].get_xlabel() == "simulated time (mean service times)"
    assert figures["metric_wait_mean"].axes[0].get_ylabel() == "wait_mean\n(mean service times)"


def test_schedlab_plot_on_a_folder_without_results(tmp_path, capsys):
    assert main(["plot", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert (
        err.splitlines()[0]
        == f"error: {tmp_path}: no summary.csv here; write one with `schedlab run SCENARIO --out {tmp_path}`"
    )
    assert main(["plot", str(tmp_path / "nope")]) == 2
    assert "no such results folder" in capsys.readouterr().err


def test_missing_matplotlib_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)  # import fails as if not installed
    with pytest.raises(ImportError, match=r"pip install schedlab\[plot\]"):
        gantt([])


def test_cells_without_a_numeric_factor_are_labelled_by_what_varies():
    rows = [{"log": "nasa", "policy": p, "wait": w, "wait_ci95": None} for p, w in (("fcfs", 3.0), ("sjf", 1.0))]
    fig = metric_vs_factor(rows, "wait")
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["policy=fcfs", "policy=sjf"]


def test_schedlab_plot_without_matplotlib_names_the_extra(tmp_path, capsys, monkeypatch):
    (tmp_path / "summary.csv").write_text("rate,wait,wait_ci95\n0.5,1.0,0.1\n0.8,2.0,0.2\n")
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    assert main(["plot", str(tmp_path)]) == 2
    assert "pip install schedlab[plot]" in capsys.readouterr().err.splitlines()[0]


def test_segments_of_two_machines_do_not_mix():
    env = TracedEnvironment()
    machines = [Machine(env, 2, policy=lambda view: None, name=n) for n in ("a", "b")]
    for m, runtime in zip(machines, (3.0, 5.0), strict=True):
        job = Job(id=0, submit=0.0, runtime=runtime, cpus=2)
        m.submit(job)
        m.start(job)
    env.run()
    got = sorted((s.job, s.end) for s in segments_from_trace(env.tracer.entries))
    assert got == [("a/0", 3.0), ("b/0", 5.0)]


@pytest.mark.parametrize(
    "content, message", [("", "not a results table"), ("policy\nfcfs\n", "nothing to plot")], ids=["empty", "no-metric"]
)
def test_schedlab_plot_on_a_summary_it_cannot_use(tmp_path, capsys, content, message):
    (tmp_path / "summary.csv").write_text(content)
    assert main(["plot", str(tmp_path)]) == 2
    first = capsys.readouterr().err.splitlines()[0]
    assert first.startswith(f"error: {tmp_path}") and message in first

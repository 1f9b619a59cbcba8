"""The README's main job, ``scenarios/first_look.py``: policies on a real log, and M/M/c checked against Erlang C."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest

from schedlab.experiment import ConfigError, load_scenario, run
from schedlab.model.analysis.queueing import erlang_c_wait

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scenarios" / "first_look.py"


@pytest.fixture(scope="module")
def quick():
    """The quick run, as ``schedlab run scenarios/first_look.py --quick --executor serial`` makes it."""
    import os

    here = os.getcwd()
    os.chdir(ROOT)  # the log is found in ../shared/traces, relative to the repository root
    try:
        return run(SCRIPT, quick=True, executor="serial", progress=False)
    finally:
        os.chdir(here)


def test_one_row_per_policy_on_the_log_and_one_for_the_queue(quick):
    assert [(r["workload"], r["policy"]) for r in quick.rows] == [
        ("SDSC-SP2 log", "fcfs"),
        ("SDSC-SP2 log", "sjf"),
        ("SDSC-SP2 log", "easy"),
        ("SDSC-SP2 log", "sjf+easy"),
        ("M/M/4 queue", "fcfs"),
    ]
    queue = quick.rows[-1]
    assert queue["erlang_c_wait"] == erlang_c_wait(4, 3.6, 1.0)
    assert "bounded_slowdown" not in queue and "erlang_c_wait" not in quick.rows[0]
    assert quick.reps == 5 and len(quick.replications) == 5 * 5


def test_report_prints_the_validation_line_and_the_paired_comparison(quick, capsys, tmp_path):
    module = load_scenario(SCRIPT).module
    assert module.report(quick, tmp_path) == []
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("validation:"))
    assert "M/M/4 at rho = 0.9, 5 replications of 4,000 customers" in line
    row = quick.rows[-1]
    inside = abs(row["wait"] - row["erlang_c_wait"]) <= row["wait_ci95"]
    assert line.endswith("inside the 95% interval") == inside
    assert "sjf+easy bounded slowdown below FCFS's in" in out


def test_backfilling_beats_fcfs_on_every_window_of_the_busy_log(quick):
    """Not a theorem (backfilling can delay a job FCFS would not), but what seed 0's quick run shows:
    on each of its five SDSC-SP2 windows, FCFS's head-of-line blocking costs more than EASY ever does."""
    by = {}
    for r in quick.replications:
        if r["workload"].endswith("log"):
            by.setdefault(r["rep"], {})[r["policy"]] = r["bounded_slowdown"]
    assert all(w["easy"] <= w["fcfs"] and w["sjf+easy"] <= w["fcfs"] for w in by.values())


def test_bad_settings_are_named():
    scenario = load_scenario(SCRIPT)
    with pytest.raises(ConfigError, match="policies: unknown policy 'lifo'"):
        scenario.config({"policies": "lifo"})
    with pytest.raises(ConfigError, match="rho"):
        scenario.config({"arrival_rate": "4"})


def test_the_validation_line_says_when_an_interval_misses_or_there_is_none(quick):
    validation = load_scenario(SCRIPT).module.validation
    queue = quick.rows[-1]
    far = dataclasses.replace(quick, rows=[{**queue, "wait": queue["erlang_c_wait"] + 2 * queue["wait_ci95"]}])
    assert "OUTSIDE the 95% interval" in validation(far)[0]
    single = dataclasses.replace(quick, reps=1, rows=[{**queue, "wait_ci95": math.nan}])
    assert validation(single)[0].endswith("one replication gives no interval")


def test_the_plotted_utilization_is_the_runs_own(quick, tmp_path):
    """`schedlab plot` draws the first run (a window of SDSC-SP2 under FCFS) over the log's 128
    CPUs, not over the M/M/4 cell's c = 4; the time-average of the plotted utilization
    over [first submission, last end] is the utilization metric of that very run."""
    import numpy as np

    from schedlab.plots.results import drawn_run
    from schedlab.plots.timeseries import utilization_queue

    quick.save(tmp_path / "first_look")
    run = drawn_run(tmp_path / "first_look")
    assert run is not None and run.capacity == 128 and run.time_unit == "s"
    fig = utilization_queue(run.records, run.capacity, time_unit=run.time_unit)
    top, bottom = fig.axes
    x, y = (np.asarray(a, float) for a in top.lines[0].get_data())
    assert y.max() <= 1.0 and "of 128 CPUs" in top.get_ylabel()
    assert bottom.get_xlabel().startswith(("days", "hours"))  # seconds of a log, in a readable unit
    # the step function: y[i] holds from x[i] to x[i + 1]. The axis starts at the first
    # submission (the queue's first step, at 0), and the last step is the last end (busy falls to 0)
    assert bottom.lines[0].get_xdata()[0] == 0 and y[-1] == 0
    average = float(np.sum(y[:-1] * np.diff(x)) / x[-1])
    first_run = next(r for r in quick.replications if r["policy"] == "fcfs" and r["rep"] == 0)
    assert average == pytest.approx(first_run["utilization"], rel=1e-9), (
        f"plotted {average!r} against the run's utilization {first_run['utilization']!r}"
    )


def test_the_gantt_chart_is_drawn_over_the_processors_each_job_held(quick, tmp_path):
    """The log windows run with first-fit CPU ids: `schedlab plot` draws each job over the
    ids it held. The numbers behind the chart: one rectangle area per job, summing to the
    CPU-time the records say, and no CPU covered twice at once."""
    from schedlab.plots.cpu_gantt import cpu_gantt, rectangles
    from schedlab.plots.results import drawn_run, plot_results

    quick.save(tmp_path / "first_look")
    run = drawn_run(tmp_path / "first_look")
    assert run is not None and run.allocations
    boxes = rectangles(run.allocations)
    area = sum(count * (end - start) for _, start, end, _, count in boxes)
    assert area == pytest.approx(sum(r.cpus * (r.end - r.start) for r in run.records), rel=1e-12)
    assert {str(r.id) for r in run.records} == {job for job, *_ in boxes}
    edges = sorted(
        (t, kind, p)
        for _, start, end, lo, count in boxes
        for p in range(lo, lo + count)
        for t, kind in ((start, 1), (end, 0))
    )
    held: set[int] = set()
    for _, kind, p in edges:  # at one time, ends (0) before starts (1)
        assert (p in held) != bool(kind), f"CPU {p} held twice"
        (held.add if kind else held.discard)(p)
    fig = cpu_gantt(run.allocations, int(run.capacity), records=run.records, time_unit=run.time_unit)
    assert fig.axes[0].get_ylim() == (0, 128) and len(fig.axes[0].collections) == len(boxes)
    colours = {tuple(c.get_facecolor()[0]) for c in fig.axes[0].collections}
    assert len(colours) > 1  # coloured by each job's wait, which differ
    assert "gantt.png" in {p.name for p in plot_results(tmp_path / "first_look")}


def test_the_machine_state_chart_counts_the_processors_computing(quick, tmp_path):
    """Each CPU is a machine: computing while a job holds it. The numbers behind the chart:
    its time-average of CPUs computing, over the log's 128, is the run's utilization."""
    import numpy as np

    from schedlab.model.core.procset import parse_procset
    from schedlab.plots.machine_states import computing_count
    from schedlab.plots.results import cpu_states, drawn_run

    quick.save(tmp_path / "first_look")
    run = drawn_run(tmp_path / "first_look")
    busy = [(str(p), start, end) for _, procs, start, end in run.allocations for p in parse_procset(procs)]
    t, count = computing_count(busy)  # the step function the chart fills
    first = min(r.submit for r in run.records)
    area = float(np.sum(count[:-1] * np.diff(t)))
    first_run = next(r for r in quick.replications if r["policy"] == "fcfs" and r["rep"] == 0)
    assert count[-1] == 0 and area / (128 * (t[-1] - first)) == pytest.approx(first_run["utilization"], rel=1e-9)
    ax = cpu_states(run).axes[0]
    assert ax.get_ylim() == (0, 128) and ax.get_ylabel() == "CPUs (128)"
    drawn = set(np.round(ax.collections[0].get_paths()[0].vertices[:, 1], 9))
    assert drawn <= set(count) | {0.0} and max(drawn) == count.max()

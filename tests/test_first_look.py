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
        ("SDSC-SP2 log", "fcfs"), ("SDSC-SP2 log", "sjf"), ("SDSC-SP2 log", "easy"), ("SDSC-SP2 log", "sjf+easy"),
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

"""Smoke test of scenarios/osl_grid.py (seed 003, section 4) with a tiny budget."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from schedlab.experiment import run
from schedlab.experiment.scenario import ConfigError, load_scenario

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "osl_grid.py"
ROWS = [
    "experiment",
    "agents",
    "resources",
    "load",
    "policy",
    "alor_final",
    "alor_mean_last_quarter",
    "lor_max_final",
    "lor_std_final",
    "atpt",
]


def test_cells_cover_section_4():
    scenario = load_scenario(SCENARIO)
    cells = scenario.cells(scenario.config())
    settings = {(c["experiment"], c["agents"], c["resources"], c["load"]) for c in cells}
    assert ("scale", 30, 100, 0.6975) in settings and ("scale", 300, 1000, 0.6975) in settings
    assert {g for e, n, m, g in settings if e == "load"} == {0.5, 0.7, 0.9}
    assert {(n, m, g) for e, n, m, g in settings if e == "capacity"} == {(200, 500, g) for g in (0.5, 0.7, 0.9)}
    assert {(n, m, g) for e, n, m, g in settings if e == "ratio"} == {(500, 200, 0.5), (1000, 500, 0.8)}
    rates = {(c["learning_rate"], c["sharing_factor"]) for c in cells if c["experiment"] == "rates"}
    assert rates == {(0.2, 0.5), (0.5, 0.5), (0.8, 0.5), (0.5, 0.2), (0.5, 0.8)}
    assert len(cells) == 3 * 5 + 3 * 5 + 3 * 5 + 2 * 5 + 5


def test_quick_run_gives_the_rows_and_the_time_series(tmp_path):
    overrides = {
        "experiments": "load",
        "loads": "0.5",
        "steps": 30,
        "record_every": 5,
        "series_dir": str(tmp_path / "series"),
    }
    results = run(SCENARIO, overrides=overrides, reps=1, quick=True, executor="serial", keep_records=False)
    frame = results.frame()
    assert set(ROWS) <= set(frame.columns)
    assert len(frame) == 5 and set(frame["policy"]) == {"osl", "lls", "rs", "sls", "dmms"}
    for row in results.rows:
        assert row["offered_load"] == pytest.approx(row["load"], rel=0.15)
        assert math.isfinite(row["alor_final"]) and row["alor_final"] >= 0
        assert row["lor_max_final"] >= row["alor_final"]
    series = sorted((tmp_path / "series").glob("*.csv"))
    assert len(series) == 5
    one = pd.read_csv(series[0])
    assert one["time"].tolist() == [0, 5, 10, 15, 20, 25, 30]
    scenario = load_scenario(SCENARIO)
    written = scenario.module.report(results, tmp_path / "out")  # what a run's post-processing calls
    mean = pd.read_csv(tmp_path / "out" / "timeseries.csv")
    assert len(mean) == 5 * 7 and (mean["reps"] == 1).all()
    assert written[0].name == "timeseries.csv"


@pytest.mark.parametrize(
    "overrides, match",
    [
        ({"jmin": 10.0, "jmax": 5.0}, r"\[jmin, jmax\] = \[10.0, 5.0\] is empty"),
        ({"policies": "osl,best"}, "policies: unknown 'best'"),
        ({"experiments": ""}, "experiments: need at least one of"),
        ({"alpha": 2.0}, r"alpha must be in \[0, 1\], got 2.0"),
    ],
)
def test_bad_config_is_named(overrides, match):
    with pytest.raises(ConfigError, match=match):
        load_scenario(SCENARIO).config(overrides)

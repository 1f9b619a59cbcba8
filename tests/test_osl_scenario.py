"""Smoke test of scenarios/osl_grid.py (seed 003, section 4) with a tiny budget."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from schedlab.experiment import run
from schedlab.experiment.runner import build_model
from schedlab.experiment.scenario import ConfigError, load_scenario
from schedlab.experiment.seeding import replication_seeds

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


@pytest.mark.slow
def test_section_4_1_small_scale_shapes():
    """(30, 100) at 70% load for 1000 steps, two replications: OSL's ALoR levels off near LLS's; RS's keeps
    growing (its slow resources get more work than they can do)."""
    scenario = load_scenario(SCENARIO)
    cfg = scenario.config({"experiments": "scale", "steps": 1000, "series_dir": "", "policies": "osl,lls,rs"})
    rows: dict[str, list[dict]] = {}
    for cell in (c for c in scenario.cells(cfg) if c["agents"] == 30):
        for rep, seed in enumerate(replication_seeds(0, 2)):
            model = build_model(scenario, cfg, cell, seed, rep=rep).run()
            rows.setdefault(cell["policy"], []).append(scenario.measure(model))

    def mean(policy, key):
        return sum(r[key] for r in rows[policy]) / len(rows[policy])

    assert mean("osl", "alor_mean_last_quarter") < 3 * mean("lls", "alor_mean_last_quarter")
    assert abs(mean("osl", "alor_slope_last_half")) < 1.0  # ALoR units per 1000 steps: level
    assert mean("rs", "alor_slope_last_half") > 20.0
    assert mean("rs", "alor_mean_last_quarter") > 10 * mean("osl", "alor_mean_last_quarter")

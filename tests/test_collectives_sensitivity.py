"""The seed-004 learner-sensitivity scenario: cells, bad grids, a tiny run."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from schedlab.experiment import run
from schedlab.experiment.scenario import load_scenario

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "collectives_sensitivity.py"


def test_cells_vary_one_parameter_at_a_time_and_rand_runs_once():
    scenario = load_scenario(SCENARIO)
    cells = scenario.cells(scenario.config({"grid": "temperature=0.5,2;alpha_p=1"}))
    assert [(c["algorithm"], c["param"]) for c in cells if c["algorithm"] == "rand"] == [("rand", "default")]
    wlu = [(c["param"], c["value"]) for c in cells if c["algorithm"] == "wlu"]
    assert wlu[0][0] == "default" and math.isnan(wlu[0][1])
    assert wlu[1:] == [("temperature", 0.5), ("temperature", 2.0), ("alpha_p", 1.0)]


@pytest.mark.parametrize(
    "grid, message",
    [
        ("tau=1", "grid: unknown parameter 'tau'"),
        ("candidates=x", "grid: candidates needs int values, got 'x'"),
        ("temperature=0", "temperature must be > 0, got 0.0"),
        ("sigma=-1", "sigma must be >= 0, got -1.0"),
    ],
)
def test_bad_grid_is_one_clear_error(grid, message):
    with pytest.raises(ValueError, match=message):
        load_scenario(SCENARIO).config({"grid": grid})


def test_tiny_sensitivity_run(tmp_path):
    overrides = {"runs": 3, "warmup": 1, "steps": 15, "servers": 6, "grid": "temperature=5;candidates=2"}
    results = run(SCENARIO, overrides=overrides, reps=1, executor="serial", keep_records=False)
    frame = results.frame()
    assert len(frame) == 1 + 2 * 3  # rand once; su and wlu at the defaults and two settings
    table = load_scenario(SCENARIO).module.table(frame)
    assert len(table) == 6 and (table.loc[table["param"] == "default", "change_vs_default"] == 0).all()
    assert (frame["efficiency"] <= frame["lp_bound"] + 1e-9).all()

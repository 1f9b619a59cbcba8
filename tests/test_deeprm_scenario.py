"""scenarios/deeprm.py with a tiny budget: trains once, evaluates every policy, saves the curve."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
import torch

from schedlab.experiment import run

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "deeprm.py"
COLUMNS = {"load", "policy", "slowdown_mean", "bounded_slowdown_mean", "response_mean", "utilization"}


@pytest.fixture
def tiny(tmp_path):
    before = torch.get_num_threads()
    yield {
        "train_steps": 600,
        "learning_starts": 200,
        "buffer_size": 600,
        "eval_every": 300,
        "hidden": "16",
        "arrival_steps": 10,
        "loads": "0.7,1.9",
        "train_loads": "1.9",
        "out_dir": str(tmp_path),
    }
    torch.set_num_threads(before)


def test_the_scenario_trains_once_and_reports_every_policy_at_every_load(tiny, tmp_path):
    results = run(SCENARIO, overrides=tiny, reps=2, seed=1, executor="serial", progress=False)
    rows = results.rows
    assert {(row["load"], row["policy"]) for row in rows} == {
        (load, p) for load in (0.7, 1.9) for p in ("dqn", "sjf", "tetris", "fcfs", "random")
    }
    assert set(rows[0]) >= COLUMNS
    for row in rows:
        assert row["slowdown_mean"] >= 1 and row["bounded_slowdown_mean"] >= 1 and 0 < row["utilization"] <= 1
    checkpoints = list(tmp_path.glob("dqn_*.pt"))
    (curve_path,) = tmp_path.glob("curve_*.csv")
    with open(curve_path) as fh:
        curve = list(csv.DictReader(fh))
    assert [row["step"] for row in curve if row["slowdown_1.9"]] == ["300", "600"]
    assert len(checkpoints) == 1
    # a second run with the same training settings reuses the checkpoint
    stamp = checkpoints[0].stat().st_mtime_ns
    again = run(SCENARIO, overrides={**tiny, "policies": "dqn"}, reps=2, seed=1, executor="serial", progress=False)
    assert checkpoints[0].stat().st_mtime_ns == stamp
    dqn = {row["load"]: row["slowdown_mean"] for row in rows if row["policy"] == "dqn"}
    assert {row["load"]: row["slowdown_mean"] for row in again.rows} == dqn


def test_an_unknown_policy_is_named():
    with pytest.raises(ValueError, match=r"policies: unknown \['lottery'\]"):
        run(SCENARIO, overrides={"policies": "sjf,lottery"}, reps=1, executor="serial", progress=False)


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("policies", "dqn,lottery", "policies: unknown"),
        ("guide", "foo", "guide: unknown 'foo'"),
        ("guide_fraction", "2", r"guide_fraction=2.0 must be <= 1"),
        ("discount", "x", "discount must be 'step' or 'time', got 'x'"),
    ],
)
def test_a_bad_setting_is_one_error_naming_it(tiny, key, value, message):
    with pytest.raises(ValueError, match=message):
        run(SCENARIO, overrides={**tiny, key: value}, reps=1, seed=1, executor="serial", progress=False)

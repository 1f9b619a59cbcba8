"""The Stable-Baselines3 benchmark runs end to end with a tiny budget (the docs/rl.md table comes from a full run)."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("supersuit")

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "sb3_baselines.py"


def load():
    spec = importlib.util.spec_from_file_location("sb3_baselines", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_maskable_ppo_is_trained_and_compared_with_the_heuristics_on_held_out_seeds(tmp_path):
    bench = load()
    out = tmp_path / "sb3.json"
    results = bench.main(["--steps", "200", "--seeds", "2", "--out", str(out)])
    assert out.exists()
    machine, grid = results["machine"], results["grid"]
    assert set(machine) == {"ppo", "ppo_sampled", "fcfs", "sjf", "easy"}
    assert set(grid) == {"ppo", "ppo_sampled", "lls", "rs"}
    assert all(math.isfinite(cells["bsld"]["mean"]) and cells["bsld"]["mean"] >= 1 for cells in machine.values())
    assert all(math.isfinite(cells["atpt"]["mean"]) for cells in grid.values())
    # the paired difference is taken with the best heuristic on the same seeds
    best = min(("fcfs", "sjf", "easy"), key=lambda p: machine[p]["bsld"]["mean"])
    assert f"bsld_minus_{best}" in machine["ppo"]


def test_held_out_sequences_are_the_same_for_every_policy_and_differ_between_seeds():
    bench = load()
    assert [j.runtime for j in bench.machine_jobs(0)] == [j.runtime for j in bench.machine_jobs(0)]
    assert [j.runtime for j in bench.machine_jobs(0)] != [j.runtime for j in bench.machine_jobs(1)]

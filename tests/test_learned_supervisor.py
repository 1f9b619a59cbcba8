"""scenarios/learned_supervisor.py: `schedlab train SiteSupervisor-v0` models beside FIFO, PRIO, EDF and SARSA + ESN."""

from __future__ import annotations

from pathlib import Path

import pytest

from schedlab.experiment import run
from schedlab.experiment.scenario import load_scenario
from schedlab.papers.site_learned import learned_table
from schedlab.training import TrainConfig, train

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "learned_supervisor.py"


def rows_of(table: str) -> dict[str, list[str]]:
    """The markdown table's rows by setting name."""
    out = {}
    for line in table.splitlines():
        if line.startswith("| ") and not line.startswith("| setting"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            out[cells[0]] = cells[1:]
    return out


def test_a_trained_model_runs_beside_the_baselines_on_the_same_held_out_episodes(tmp_path):
    """The quick version: a tiny training, then two held-out episodes of every setting, paired."""
    config = TrainConfig(
        env="SiteSupervisor-v0", env_settings={"reward": "overhead", "jobs": 300}, teacher="prio", generations=1,
        pairs=2, episodes=1, validation=1, imitation_episodes=2, imitation_epochs=20, seed=0,
    )  # fmt: skip
    train(config, tmp_path / "overhead" / "seed0")
    overrides = {
        "models": str(tmp_path), "rewards": ("overhead",), "seeds": (0,), "episodes": 2, "jobs": 300, "drop": 50,
        "pretrain": 50,
    }  # fmt: skip
    results = run(SCENARIO, overrides=overrides, executor="serial", progress=False, keep_records=False)
    table = learned_table(results.replications)
    rows = rows_of(table)
    assert list(rows) == [
        "FIFO", "PRIO", "EDF", "GREEDY", "SARSA+ESN", "learned (overhead), seed 0",
        "**learned (overhead), mean ± sd over 1 seeds**",
    ]  # fmt: skip
    assert rows["FIFO"][1] == "1.00x" and rows["FIFO"][-1] == "no"  # FIFO is 1x itself: never 3x below
    assert "2 held-out episodes (seeds 0..1)" in table and "overhead vs interactive mean wait: r =" in table


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ({"rewards": ("wait",)}, "unknown rewards or baselines"),
        ({"jobs": 100, "drop": 50}, "need jobs > 2 x drop"),
        ({"teacher": "x"}, "teacher: 'x' is not a heuristic of schedlab/SiteSupervisor-v0"),
    ],
)
def test_bad_scenario_settings_are_named(override, message):
    with pytest.raises(ValueError, match=message):
        load_scenario(SCENARIO).config(override)


@pytest.mark.slow
def test_the_shipped_supervisors_meet_the_target_and_sarsa_esn_does_not():
    """The full version: the default run (20 held-out episodes, the six shipped models; docs/responsive.md, 6)."""
    results = run(SCENARIO, executor="serial", progress=False, keep_records=False)
    rows = rows_of(learned_table(results.replications))
    for reward in ("paper", "overhead"):
        assert rows[f"**learned ({reward}), mean ± sd over 3 seeds**"][-1] == "yes"
    assert rows["SARSA+ESN"][-1] == "no" and rows["PRIO"][-1] == "yes"

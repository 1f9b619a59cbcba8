"""scenarios/trained_model.py: any ``schedlab train ENV`` model beside its env's heuristics, on held-out episodes."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

pytest.importorskip("torch")

from schedlab.experiment import run
from schedlab.experiment.cli import main
from schedlab.experiment.scenario import load_scenario
from schedlab.training import TrainConfig, train
from schedlab.training.episodes import episode_costs
from schedlab.training.run import env_spec

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "trained_model.py"
TINY = TrainConfig(
    env="Machine-v0", generations=1, pairs=2, episodes=1, validation=1, teacher="sjf",
    imitation_episodes=2, imitation_epochs=2, hidden=(8,),
)  # fmt: skip


def test_the_model_and_the_heuristics_play_the_same_held_out_episodes_paired(tmp_path, capsys):
    model = train(TINY, tmp_path / "model")
    overrides = {"model": str(model.model.parent), "heuristics": "sjf,easy-sjf", "episodes": 2}
    results = run(SCENARIO, overrides=overrides, executor="serial", progress=False)
    cost = {(r["policy"], r["rep"]): r["cost"] for r in results.replications}
    assert {p for p, _ in cost} == {"learned", "sjf", "easy-sjf"}
    # episode k is reset(seed=k): the heuristic's cost is the one the training's own scorer gives it there
    assert [cost["sjf", k] for k in (0, 1)] == pytest.approx(episode_costs(env_spec(TINY), None, "sjf", [0, 1]))
    assert all(r["bounded_slowdown_mean"] >= 1 for r in results.replications)  # Machine-v0 keeps its records
    (written,) = load_scenario(SCENARIO).module.report(results, tmp_path)
    with open(written) as fh:
        rows = list(csv.DictReader(fh))
    for row in rows:
        k = int(row["episode"])
        assert float(row["learned_minus_easy-sjf"]) == pytest.approx(cost["learned", k] - cost["easy-sjf", k])
    assert "learned cost" in capsys.readouterr().out


def test_a_missing_model_or_an_unknown_heuristic_is_one_line(tmp_path, capsys):
    assert main(["run", str(SCENARIO)]) == 2
    assert "model: none given: --set model=DIR" in capsys.readouterr().err
    assert main(["run", str(SCENARIO), "--set", f"model={tmp_path}"]) == 2
    assert "model.pt is not a file" in capsys.readouterr().err
    train(TINY, tmp_path / "m")
    assert main(["run", str(SCENARIO), "--set", f"model={tmp_path / 'm'}", "--set", "heuristics=lottery"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("error: ") and "'lottery'" in err[0] and "schedlab/Machine-v0" in err[0]

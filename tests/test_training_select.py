"""Keeping the best of several trainings of one model, judged on their validation episodes only."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("torch")

from schedlab.training import TrainConfig, train
from schedlab.training.run import validation_seeds
from schedlab.training.select import main, pick, read_trained, score

TINY = TrainConfig(
    env="Machine-v0", generations=2, pairs=2, episodes=2, validation=3, teacher="sjf",
    imitation_episodes=2, imitation_epochs=2, hidden=(8,),
)  # fmt: skip


@pytest.fixture(scope="module")
def trainings(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("trainings")
    return [train(replace(TINY, seed=seed), root / f"s{seed}").model.parent for seed in (0, 1, 2)]


def test_on_its_own_episodes_a_training_scores_what_it_recorded(trainings: list[Path]) -> None:
    """The choice measures a model as its training did: on its own validation episodes, the same score."""
    for folder in trainings:
        trained = read_trained(folder)
        own = score(trained, validation_seeds(trained.seed, trained.validation))
        assert own == pytest.approx(trained.validation_score, rel=1e-9, abs=1e-12), folder


def test_the_command_keeps_the_best_on_the_union_of_validation_episodes(trainings: list[Path], tmp_path, capsys):
    candidates = pick(trainings)
    union = list(dict.fromkeys(s for f in trainings for s in validation_seeds(read_trained(f).seed, 3)))
    assert len(union) == 9
    assert [c.score for c in candidates] == pytest.approx([score(read_trained(f), union) for f in trainings])
    best = min(candidates, key=lambda c: c.score)
    assert main([*map(str, trainings), "--out", str(tmp_path / "best")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == f"weights sha256 {best.sha256}"
    assert (tmp_path / "best" / "model.pt").read_bytes() == (best.folder / "model.pt").read_bytes()
    record = json.loads((tmp_path / "best" / "selection.json").read_text())
    assert record["chosen"] == str(best.folder) and [c["seed"] for c in record["candidates"]] == [0, 1, 2]


def test_trainings_of_different_models_or_no_training_are_refused_in_one_line(trainings, tmp_path, capsys):
    other = train(replace(TINY, teacher="fcfs"), tmp_path / "fcfs").model.parent
    with pytest.raises(ValueError, match=r"fcfs: trained with teacher=fcfs, .*s0 with teacher=sjf$"):
        pick([trainings[0], other])
    with pytest.raises(ValueError, match="two or more"):
        pick(trainings[:1])
    with pytest.raises(ValueError, match="given twice"):
        pick([trainings[0], trainings[0]])
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "model.pt").write_bytes((trainings[0] / "model.pt").read_bytes())
    (broken / "settings.json").write_text('{"env": "Machine-v0"}')  # no config: not what schedlab train writes
    with pytest.raises(ValueError, match=r"broken: not a training schedlab train wrote \(KeyError: 'config'\)$"):
        pick([trainings[0], broken])
    (tmp_path / "empty").mkdir()
    assert main([str(trainings[0]), str(tmp_path / "empty"), "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and "empty/model.pt: no such file" in err[0]
    assert not (tmp_path / "x").exists()


def test_a_pettingzoo_grids_trainings_are_chosen_alike(tmp_path):
    """The grid's shared kernel policy (a Parallel env): on its own episodes, the score its training recorded."""
    grid = TrainConfig(
        env="GridParallel-v0", env_settings={"agents": 3, "resources": 6, "steps": 12, "rate": 1.0},
        generations=1, pairs=2, episodes=1, validation=2, teacher="mct", imitation_episodes=2, imitation_epochs=3,
        hidden=(8,), policy="kernel",
    )  # fmt: skip
    folders = [train(replace(grid, seed=seed), tmp_path / f"s{seed}").model.parent for seed in (0, 1)]
    for folder in folders:
        trained = read_trained(folder)
        assert score(trained, validation_seeds(trained.seed, 2)) == pytest.approx(trained.validation_score, rel=1e-9)
    candidates = pick(folders)
    assert [c.seed for c in candidates] == [0, 1] and candidates[0].episodes == 4

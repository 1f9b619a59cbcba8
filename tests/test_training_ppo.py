"""``schedlab.training.ppo``: the optional PPO stage of ``schedlab train``, seeded, never worse than the search.

Resuming: a run stopped inside PPO goes on from its last validation (the checkpoint's
``ppo``), to the weights of a run never stopped; more ``ppo_steps`` go on with the saved
stage; other PPO settings, more generations of
the search, or a checkpoint from before PPO was saved, start PPO again from the search's
best weights.
"""

from __future__ import annotations

import csv
import pickle
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from schedlab.training import TrainConfig, train
from schedlab.training.ppo import PPO

TINY_PPO = TrainConfig(
    env="Machine-v0", generations=2, pairs=2, episodes=2, validation=2, teacher="sjf",
    imitation_episodes=2, imitation_epochs=2, hidden=(8,),
    ppo_steps=384, ppo_rollout=128, ppo_minibatch=64, ppo_validate=128,
)  # fmt: skip


def test_bad_ppo_settings_are_refused_in_one_line():
    """Non-finite or out-of-range PPO settings, or a minibatch larger than the rollout: one line naming the field."""
    for bad, words in [
        ({"ppo_rate": float("nan")}, "ppo_rate"),
        ({"ppo_rate": float("inf")}, "ppo_rate"),
        ({"ppo_clip": 0.0}, "ppo_clip"),
        ({"ppo_gamma": 1.5}, "ppo_gamma"),
        ({"ppo_lambda": -0.1}, "ppo_lambda"),
        ({"ppo_entropy": float("nan")}, "ppo_entropy"),
        ({"ppo_steps": -1}, "ppo_steps"),
        ({"ppo_epochs": 0}, "ppo_epochs"),
        ({"ppo_minibatch": 256}, "ppo_minibatch=256 exceeds ppo_rollout=128"),
    ]:
        with pytest.raises(ValueError, match=words) as info:
            replace(TINY_PPO, **bad)
        assert "\n" not in str(info.value)


def test_a_tiny_ppo_stage_runs_and_keeps_weights_no_worse_than_the_search(tmp_path):
    """The kept validation score is at most the search's; curve.csv has the search's rows, then PPO's by steps."""
    search = train(replace(TINY_PPO, ppo_steps=0), tmp_path / "search")
    both = train(TINY_PPO, tmp_path / "ppo")
    assert both.validation_score <= search.validation_score
    if both.phase == "search":  # PPO never validated better: the search's weights, exactly
        assert both.sha256 == search.sha256
    with open(tmp_path / "ppo" / "curve.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["phase"] for r in rows] == ["start", "search", "search"] + ["ppo"] * (len(rows) - 3)
    steps = [int(r["steps"]) for r in rows if r["phase"] == "ppo"]
    assert steps[0] == 0 and steps == sorted(steps) and steps[-1] >= TINY_PPO.ppo_steps
    assert len(steps) >= 2


def test_the_same_seed_gives_the_same_ppo_weights_and_resuming_reruns_ppo_alike(tmp_path):
    """Twice the same seed: the same sha256; a finished search resumed with a PPO stage: the same sha256 again."""
    first = train(TINY_PPO, tmp_path / "a")
    assert train(TINY_PPO, tmp_path / "b").sha256 == first.sha256
    train(replace(TINY_PPO, ppo_steps=0), tmp_path / "c")  # the search alone, then PPO on --resume
    assert train(TINY_PPO, tmp_path / "c", resume=True).sha256 == first.sha256
    assert train(replace(TINY_PPO, seed=1), tmp_path / "d").sha256 != first.sha256


class Killed(Exception):
    """Stands for the process being killed."""


def _curve(out: Path) -> list[dict[str, str]]:
    """``out``'s curve.csv without its wall times (which no two runs share)."""
    with open(out / "curve.csv") as f:
        return [{k: v for k, v in row.items() if k != "wall_s"} for row in csv.DictReader(f)]


def _last_weights(out: Path) -> list[np.ndarray]:
    """The actor's and the critic's weights after PPO's last update, from ``out``'s checkpoint (not only the best)."""
    with open(out / "checkpoint.pkl", "rb") as f:
        learner = pickle.load(f).ppo.learner
    return [learner.actor, *(t.numpy() for t in learner.critic.values())]


def _learn_calls(monkeypatch: pytest.MonkeyPatch, kill_at: int = 0) -> list[int]:
    """Count the calls of ``PPO.learn`` (one per validation) into the list returned; the ``kill_at``-th raises."""
    calls: list[int] = []
    learn = PPO.learn

    def counted(self: PPO, steps: int) -> float:
        calls.append(steps)
        if len(calls) == kill_at:
            raise Killed
        return learn(self, steps)

    monkeypatch.setattr(PPO, "learn", counted)
    return calls


def _killed_in_ppo(monkeypatch: pytest.MonkeyPatch, config: TrainConfig, out: Path) -> None:
    """Run ``config`` into ``out``, killed while learning towards PPO's second validation."""
    with monkeypatch.context() as m:
        _learn_calls(m, kill_at=2)
        with pytest.raises(Killed):
            train(config, out)


def test_a_run_stopped_inside_ppo_goes_on_from_its_last_validation(tmp_path, monkeypatch):
    """Killed after PPO's first validation, resumed: only the remaining validations, and the unstopped run's weights."""
    whole = train(TINY_PPO, tmp_path / "whole")
    _killed_in_ppo(monkeypatch, TINY_PPO, tmp_path / "cut")
    with open(tmp_path / "cut" / "checkpoint.pkl", "rb") as f:
        saved = pickle.load(f).ppo  # the PPO stage after its first validation
    assert [row["steps"] for row in saved.rows] == [0, saved.learner.steps] and saved.learner.steps > 0
    calls = _learn_calls(monkeypatch)
    resumed = train(TINY_PPO, tmp_path / "cut", resume=True)
    assert resumed.sha256 == whole.sha256 and resumed.ppo_steps == whole.ppo_steps
    assert _curve(tmp_path / "cut") == _curve(tmp_path / "whole")  # row for row, PPO's rows included
    for last, unstopped in zip(_last_weights(tmp_path / "cut"), _last_weights(tmp_path / "whole"), strict=True):
        assert np.array_equal(last, unstopped)  # the last update's weights too, not only the best kept
    ppo_rows = [row for row in _curve(tmp_path / "whole") if row["phase"] == "ppo"]
    assert len(calls) == len(ppo_rows) - 2  # not the first validation again: only those after it
    calls.clear()  # a finished PPO stage, resumed, learns nothing more and keeps its weights
    assert train(TINY_PPO, tmp_path / "cut", resume=True).sha256 == whole.sha256 and calls == []


def test_ppo_resumed_with_other_ppo_settings_starts_again_from_the_search(tmp_path, monkeypatch):
    """Other PPO settings on resuming: the saved PPO stage is not used; as a run with those settings from the start."""
    other = replace(TINY_PPO, ppo_rate=1e-3)
    straight = train(other, tmp_path / "straight")
    _killed_in_ppo(monkeypatch, TINY_PPO, tmp_path / "cut")
    assert train(other, tmp_path / "cut", resume=True).sha256 == straight.sha256
    assert _curve(tmp_path / "cut") == _curve(tmp_path / "straight")
    with open(tmp_path / "cut" / "checkpoint.pkl", "rb") as f:
        assert pickle.load(f).ppo.settings["ppo_rate"] == 1e-3  # the checkpoint now holds the new stage


def test_a_checkpoint_from_before_ppo_was_saved_resumes_with_ppo_from_the_search(tmp_path):
    """A checkpoint pickled without the ``ppo`` attribute loads; PPO then runs from the search's best weights."""
    whole = train(TINY_PPO, tmp_path / "whole")
    train(replace(TINY_PPO, ppo_steps=0), tmp_path / "old")
    path = tmp_path / "old" / "checkpoint.pkl"
    with open(path, "rb") as f:
        state = pickle.load(f)
    del state.__dict__["ppo"]  # as the Checkpoint of before PPO was saved pickled itself
    with open(path, "wb") as f:
        pickle.dump(state, f)
    with open(path, "rb") as f:
        assert "ppo" not in vars(pickle.load(f))
    assert train(TINY_PPO, tmp_path / "old", resume=True).sha256 == whole.sha256
    assert _curve(tmp_path / "old") == _curve(tmp_path / "whole")


def test_a_search_resumed_for_more_generations_drops_its_finished_ppo_stage(tmp_path):
    """More generations on resuming: PPO runs again from the longer search's best, as in a run of that length."""
    longer = replace(TINY_PPO, generations=3)
    straight = train(longer, tmp_path / "straight")
    train(TINY_PPO, tmp_path / "cut")  # 2 generations, then a whole PPO stage, saved
    assert train(longer, tmp_path / "cut", resume=True).sha256 == straight.sha256
    assert _curve(tmp_path / "cut") == _curve(tmp_path / "straight")


def test_a_finished_ppo_stage_resumed_with_more_steps_goes_on_where_it_stopped(tmp_path, monkeypatch):
    """A larger ``ppo_steps`` on resuming: only the new steps are learnt, and the updates are a longer run's."""
    longer = replace(TINY_PPO, ppo_steps=2 * TINY_PPO.ppo_steps)
    straight = train(longer, tmp_path / "straight")
    train(TINY_PPO, tmp_path / "cut")
    done = _curve(tmp_path / "cut")
    calls = _learn_calls(monkeypatch)
    resumed = train(longer, tmp_path / "cut", resume=True)
    assert resumed.sha256 == straight.sha256  # (ppo_validate <= ppo_rollout: both validate after every rollout)
    assert len(calls) >= 1 and sum(calls) <= longer.ppo_steps - TINY_PPO.ppo_steps  # not PPO again from step 0
    assert _curve(tmp_path / "cut")[: len(done)] == done  # the shorter stage's rows, kept as they were
    for last, unstopped in zip(_last_weights(tmp_path / "cut"), _last_weights(tmp_path / "straight"), strict=True):
        assert np.array_equal(last, unstopped)  # the same rollouts and updates as the longer run from the start

"""``schedlab.training.ppo``: the optional PPO stage of ``schedlab train``, seeded, never worse than the search."""

from __future__ import annotations

import csv
from dataclasses import replace

import pytest

pytest.importorskip("torch")

from schedlab.training import TrainConfig, train

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

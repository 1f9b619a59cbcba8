"""PPO in a PettingZoo Parallel env: one actor and one critic shared by the grid's brokers, seeded, never worse."""

from __future__ import annotations

import csv
from dataclasses import replace

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("pettingzoo")

import torch
from test_training_ppo import _curve, _killed_in_ppo, _last_weights, _learn_calls

from schedlab.experiment.cli import main
from schedlab.model.core.streams import Streams
from schedlab.training import TrainConfig, train
from schedlab.training.episodes import make_env
from schedlab.training.policy import MLPPolicy
from schedlab.training.ppo import PPO

SMALL = {"agents": 3, "resources": 6, "steps": 12, "rate": 1.0}
TINY_PPO = TrainConfig(
    env="GridParallel-v0", env_settings=SMALL, generations=2, pairs=2, episodes=1, validation=2,
    teacher="mct", imitation_episodes=2, imitation_epochs=3, hidden=(8,),
    ppo_steps=96, ppo_rollout=32, ppo_minibatch=16, ppo_validate=32,
)  # fmt: skip


def _learner(env, seeds, baseline=None):
    config = replace(TINY_PPO, ppo_rollout=40)
    streams = Streams(0)
    policy = MLPPolicy(env.observation_space("scheduler_0").shape[0], 6, (8,), streams["init"])
    return PPO(config, env, policy, streams, baseline, lambda: next(seeds)), policy


def _count(env, seeds):
    """Decisions and deciding brokers in the episodes ``seeds`` (their jobs do not depend on the actions)."""
    decisions, brokers = 0, 0
    for seed in seeds:
        _, infos = env.reset(seed=seed)
        deciders = set()
        while env.agents:
            deciding = [a for a in env.agents if infos[a]["decides"]]
            decisions += len(deciding)
            deciders.update(deciding)
            _, _, _, _, infos = env.step(dict.fromkeys(env.agents, 0))
        brokers += len(deciders)
    return decisions, brokers


def test_each_broker_decision_is_a_step_and_each_broker_a_trajectory_paid_its_own_rewards():
    """A rollout's steps are the brokers' decisions, one trajectory per broker and episode, ended once;
    the rewards the brokers are paid sum, over the rollout, to minus the episodes' costs (each divided by
    the teacher's cost on its episode with a teacher): nothing is lost or counted twice."""
    env = make_env("schedlab/GridParallel-v0", SMALL)
    for baseline in (None, lambda seed: 10.0 + seed):
        learner, _ = _learner(env, iter(range(11, 100)), baseline)
        data, costs = learner.rollout()
        steps, seeds = len(data["actions"]), range(11, 11 + len(costs))
        assert steps >= 40 and len(costs) >= 2
        assert data["masks"][torch.arange(steps), data["actions"]].all()  # every sampled action valid
        assert (steps, int(data["ends"].sum())) == _count(env, seeds) and bool(data["ends"][-1])
        # a relative cost is (cost - b) / |b|: with a baseline the rewards sum to -cost / |b| = -(relative + 1)
        expected = -sum(costs) if baseline is None else -sum(c + 1.0 for c in costs)
        assert float(data["rewards"].double().sum()) == pytest.approx(expected, rel=1e-5)


def test_an_update_moves_the_shared_actor():
    """One rollout and update change the scorer's weights (the actor is the shared policy, trained)."""
    env = make_env("schedlab/GridParallel-v0", SMALL)
    learner, policy = _learner(env, iter(range(20, 100)))
    before = policy.vector()
    learner.learn(1)
    assert learner.steps >= 40
    assert not np.array_equal(policy.vector(), before)


def test_a_grid_ppo_stage_keeps_weights_no_worse_than_the_search_and_logs_its_rows(tmp_path):
    """The kept validation score is at most the search's, its weights exactly the search's unless PPO validated
    better; curve.csv has the search's rows, then PPO's by steps."""
    search = train(replace(TINY_PPO, ppo_steps=0), tmp_path / "search")
    both = train(TINY_PPO, tmp_path / "ppo")
    assert both.validation_score <= search.validation_score
    if both.phase == "search":
        assert both.sha256 == search.sha256 and both.ppo_steps == 0
    else:
        assert both.validation_score < search.validation_score and both.ppo_steps > 0
    with open(tmp_path / "ppo" / "curve.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["phase"] for r in rows] == ["start", "search", "search"] + ["ppo"] * (len(rows) - 3)
    ppo = [r for r in rows if r["phase"] == "ppo"]
    steps = [int(r["steps"]) for r in ppo]
    assert steps[0] == 0 and steps == sorted(steps) and steps[-1] >= TINY_PPO.ppo_steps and len(steps) >= 3
    best = min(float(r["validation_score"]) for r in ppo)
    assert both.validation_score == pytest.approx(min(best, search.validation_score), rel=1e-12)


def test_the_same_seed_gives_the_same_grid_ppo_weights(tmp_path):
    """Twice the same seed, or the search resumed with PPO: the same sha256 and PPO's validations; another seed not."""
    config = replace(TINY_PPO, generations=0, teacher="", imitation_episodes=0)  # from the initial weights
    first = train(config, tmp_path / "a")
    assert first.phase == "ppo"  # measured: PPO betters seed 0's initial weights, so PPO's weights are compared
    assert train(config, tmp_path / "b").sha256 == first.sha256
    with open(tmp_path / "a" / "curve.csv") as a, open(tmp_path / "b" / "curve.csv") as b:
        scores = [[r["validation_score"] for r in csv.DictReader(f)] for f in (a, b)]
    assert scores[0] == scores[1]
    train(replace(config, ppo_steps=0), tmp_path / "r")  # the search alone, then PPO on --resume: the same
    assert train(config, tmp_path / "r", resume=True).sha256 == first.sha256
    assert train(replace(config, seed=1), tmp_path / "c").sha256 != first.sha256


def test_a_grid_ppo_stage_stopped_and_resumed_ends_as_the_unstopped_one(tmp_path, monkeypatch):
    """Killed inside PPO, resumed: from the last validation (every broker's trajectories as before), the same sha256."""
    config = replace(TINY_PPO, generations=0, teacher="", imitation_episodes=0)  # PPO's weights kept, as above
    whole = train(config, tmp_path / "whole")
    _killed_in_ppo(monkeypatch, config, tmp_path / "cut")
    calls = _learn_calls(monkeypatch)
    assert train(config, tmp_path / "cut", resume=True).sha256 == whole.sha256
    assert _curve(tmp_path / "cut") == _curve(tmp_path / "whole")
    assert len(calls) == [row["phase"] for row in _curve(tmp_path / "whole")].count("ppo") - 2
    for last, unstopped in zip(_last_weights(tmp_path / "cut"), _last_weights(tmp_path / "whole"), strict=True):
        assert np.array_equal(last, unstopped)  # the last update's weights, not only the best kept


def test_the_command_trains_the_grid_with_ppo(tmp_path, capsys):
    """``schedlab train GridParallel-v0 --quick --set ppo_steps=...`` runs end to end and prints the sha256."""
    args = ["train", "GridParallel-v0", "--quick", "--executor", "serial", "--set", "teacher=lls", "--set", "hidden=8",
            "--set", "env.agents=3", "--set", "env.resources=5", "--set", "env.steps=10",
            "--set", "ppo_steps=64", "--set", "ppo_rollout=32", "--set", "ppo_minibatch=16",
            "--out", str(tmp_path)]  # fmt: skip
    assert main(args) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("weights sha256 ")
    with open(tmp_path / "curve.csv") as f:
        assert [r["phase"] for r in csv.DictReader(f)].count("ppo") >= 2

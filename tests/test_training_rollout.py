"""The rollout teacher (``rollout-easy-ORDER``): the cheapest replayed branch; ``imitate`` copies it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

pytest.importorskip("torch")

import gymnasium as gym

from schedlab.envs.machine.env import MachineEnv
from schedlab.envs.machine.jobs import SyntheticJobs
from schedlab.training import TrainConfig, load_policy, train
from schedlab.training.episodes import run_episode
from schedlab.training.heuristics import heuristic
from schedlab.training.imitation import teacher_decisions
from schedlab.training.run import validation_seeds
from schedlab.training.search import relative

MACHINE = "schedlab/Machine-v0"
SMALL: dict[str, Any] = {
    "workload": SyntheticJobs(count=16, load=1.2, cpus=8, max_width=4),
    "window": 4,
    "reward": "bounded_slowdown",
}


def replayed(jobs: tuple, actions: list, base: Any) -> float:
    """The cost of ``jobs`` played through ``actions``, then ``base`` to the end, in a fresh env (the test's replay)."""
    env = MachineEnv(**SMALL)
    env.reset(options={"jobs": list(jobs)})
    total, done = 0.0, False
    for action in actions:
        _, reward, done, _, _ = env.step(action)
        total += reward
    while not done:
        _, reward, done, _, _ = env.step(base(env))
        total += reward
    return -total


def test_the_rollout_takes_the_cheapest_replayed_branch_and_never_costs_more_than_its_base():
    """At every decision with a choice, the action whose replayed branch (then easy-sjf) costs least; somewhere not
    easy-sjf's own, and the episode cheaper than easy-sjf's."""
    base, rollout = heuristic(MACHINE, "easy-sjf"), heuristic(MACHINE, "rollout-easy-sjf")
    env = MachineEnv(**SMALL)
    differed, checked = 0, 0

    def act(obs: np.ndarray, mask: np.ndarray, e: Any) -> int:
        nonlocal differed, checked
        chosen = rollout(e)
        valid = [int(a) for a in np.flatnonzero(mask)]
        if len(valid) > 1:
            prefix = list(e.episode_actions)
            costs = {a: replayed(e.episode_jobs, [*prefix, a], base) for a in valid}
            assert costs[chosen] == pytest.approx(min(costs.values()), rel=1e-9)
            differed += chosen != base(e)
            checked += 1
        return chosen

    for seed in range(4):
        cost = run_episode(env, act, seed)
        assert cost == pytest.approx(replayed(env.episode_jobs, env.episode_actions, base))  # the env replays itself
        assert cost <= run_episode(env, lambda o, m, e: base(e), seed) + 1e-9
    assert checked > 0 and differed > 0  # a rollout that always took easy-sjf's action would fail here


def test_unknown_rollouts_and_imitated_heuristics_are_refused_in_one_line(tmp_path):
    """``rollout-`` of no heuristic, or an unknown ``imitate``: one ValueError line naming it, before any work."""
    with pytest.raises(ValueError, match="rollout-easy-nope") as info:
        heuristic(MACHINE, "rollout-easy-nope")
    assert "\n" not in str(info.value)
    config = TrainConfig(env="Machine-v0", teacher="easy-sjf", imitate="rollout-nope", generations=0, validation=1)
    with pytest.raises(ValueError, match="rollout-nope") as info:
        train(config, tmp_path / "out")
    assert "\n" not in str(info.value)
    assert not (tmp_path / "out").exists()


def test_imitate_copies_the_rollout_while_the_teacher_stays_the_yardstick(tmp_path):
    """``imitate=rollout-easy-sjf``: other weights than copying easy-sjf, the same twice, and the validation score
    still relative to easy-sjf's cost on the validation episodes."""
    settings = {"backfill": "sjf", "reward": "bounded_slowdown"}
    plain = TrainConfig(
        env="Machine-v0", teacher="easy-sjf", env_settings=settings, policy="kernel", generations=0, validation=2,
        imitation_episodes=1, imitation_epochs=20, hidden=(8,),
    )  # fmt: skip
    cheat = replace(plain, imitate="rollout-easy-sjf")
    a, b = train(cheat, tmp_path / "a"), train(cheat, tmp_path / "b")
    assert a.sha256 == b.sha256
    assert train(plain, tmp_path / "plain").sha256 != a.sha256
    env = gym.make(MACHINE, disable_env_checker=True, **settings)
    policy, base = load_policy(a.model, env), heuristic(MACHINE, "easy-sjf")
    seeds = validation_seeds(0, 2)
    learned = np.array([run_episode(env, lambda o, m, e: policy.act(o, m), s) for s in seeds])
    easy = np.array([run_episode(env, lambda o, m, e: base(e), s) for s in seeds])
    assert a.validation_score == pytest.approx(float(relative(learned, easy)))


class Last:
    """A learner that always takes the last valid action (never easy-sjf's choice of a window job)."""

    def act(self, obs: np.ndarray, mask: np.ndarray) -> int:
        return int(np.flatnonzero(mask)[-1])


def test_dagger_labels_the_states_the_learner_visits_with_the_teachers_actions():
    """With a learner, the learner acts and the teacher only labels: the states and labels of the learner's episode."""
    env, base = MachineEnv(**SMALL), heuristic(MACHINE, "easy-sjf")
    observations, masks, labels = teacher_decisions(env, MACHINE, "easy-sjf", [3], learner=Last())  # type: ignore[arg-type]
    expected_obs, expected = [], []
    obs, info = env.reset(seed=3)
    done = False
    while not done:
        expected_obs.append(obs)
        expected.append(base(env))
        obs, _, done, _, info = env.step(Last().act(obs, info["action_mask"]))
    assert np.array_equal(observations, np.stack(expected_obs)) and list(labels) == expected
    assert any(label != int(np.flatnonzero(m)[-1]) for label, m in zip(labels, masks, strict=True))
    teacher_only = teacher_decisions(env, MACHINE, "easy-sjf", [3])
    assert len(teacher_only[0]) != len(observations) or not np.array_equal(teacher_only[0], observations)


def test_a_dagger_round_changes_the_weights_and_the_same_seed_gives_them_again(tmp_path):
    """``dagger=1`` refits on the learner's states too: other weights than cloning alone, the same for the same seed."""
    config = TrainConfig(
        env="Machine-v0", teacher="sjf", generations=0, validation=1, imitation_episodes=2, imitation_epochs=3,
        hidden=(8,),
    )  # fmt: skip
    once = train(replace(config, dagger=1), tmp_path / "a")
    assert train(replace(config, dagger=1), tmp_path / "b").sha256 == once.sha256
    assert train(config, tmp_path / "c").sha256 != once.sha256

"""schedlab/SiteSupervisor-v0: seed 001's site supervisor as a Gymnasium environment, trained by `schedlab train`."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import simpy

import schedlab.envs  # noqa: F401  # registers the environments
from schedlab.envs import agent_machine
from schedlab.envs.site import SiteEnvConfig, SlotPolicy
from schedlab.model.contracts.site import INTERACTIVE
from schedlab.papers.site_workloads import election_rewards
from schedlab.policies import FCFS
from schedlab.policies.site_supervisor import InteractiveFirst
from schedlab.processes import Source
from schedlab.training import MLPPolicy, TrainConfig, train
from schedlab.training.heuristics import heuristic, heuristic_names

ENV = "schedlab/SiteSupervisor-v0"
SMALL = {"jobs": 300}  # a short episode: a few hundred elections


def play(env, act, seed: int) -> float:
    """One episode from reset(seed) with act(obs, mask, env); its return."""
    obs, info = env.reset(seed=seed)
    total, done = 0.0, False
    while not done:
        obs, reward, done, _, info = env.step(act(obs, info["action_mask"], env))
        total += reward
    return total


def waits(records) -> dict[int, float]:
    return {r.id: r.wait for r in records}


def on_machine(jobs, policy) -> list:
    sim = simpy.Environment()
    machine = agent_machine(sim, 50, policy)
    Source(sim, jobs, machine)
    sim.run()
    return machine.all_records()


def test_the_paper_state_and_one_slot_per_type_and_vo():
    env = gym.make(ENV, disable_env_checker=True, **SMALL)
    obs, info = env.reset(seed=3)
    # 4 site quantities + 4 VO shares of the queue, then (present, execution time) for 2 types x 4 VOs
    assert env.observation_space.shape == (8 + 8 * 2,) and env.action_space.n == 8
    assert obs.shape == (24,) and info["action_mask"].sum() == 1  # the first arrival: the only candidate


@pytest.mark.parametrize(("name", "policy"), [("fifo", FCFS()), ("prio", InteractiveFirst())])
def test_fifo_and_prio_in_the_env_are_the_machine_policies_exactly(name, policy):
    env = gym.make(ENV, disable_env_checker=True, **SMALL)
    rule = heuristic(ENV, name)
    play(env, lambda obs, mask, e: rule(e), 7)
    jobs = SiteEnvConfig(**SMALL).episode_jobs(7)
    assert waits(env.unwrapped.records()) == waits(on_machine(jobs, policy))


def test_the_paper_reward_sums_to_each_jobs_lambda_w_plus_fairness():
    env = gym.make(ENV, disable_env_checker=True, **SMALL)
    rule = heuristic(ENV, "edf")
    total = play(env, lambda obs, mask, e: rule(e), 1)
    expected = sum(v for _, v in election_rewards(env.unwrapped.records(), SiteEnvConfig().fair_targets(), 0.5))
    assert total == pytest.approx(expected, rel=1e-9)


def test_the_overhead_reward_is_minus_each_jobs_bounded_relative_wait_and_unfairness():
    env = gym.make(ENV, disable_env_checker=True, reward="overhead", weight=1.0, **SMALL)
    rule = heuristic(ENV, "fifo")
    total = play(env, lambda obs, mask, e: rule(e), 1)
    records = env.unwrapped.records()
    assert total == pytest.approx(-sum(r.wait / max(r.service, 120.0) for r in records), rel=1e-9)


def test_prio_cuts_interactive_waits_and_greedy_the_papers_reward_does_not():
    env = gym.make(ENV, disable_env_checker=True)
    mean_wait = {}
    for name in ("fifo", "prio", "greedy"):
        rule = heuristic(ENV, name)
        play(env, lambda obs, mask, e, rule=rule: rule(e), 0)
        mean_wait[name] = np.mean([r.wait for r in env.unwrapped.records() if r.job_class == INTERACTIVE])
    assert mean_wait["prio"] < mean_wait["fifo"] / 3 < mean_wait["greedy"]


def test_a_trained_scorer_elects_the_same_on_a_machine_as_in_the_env():
    env = gym.make(ENV, disable_env_checker=True, **SMALL)
    scorer = MLPPolicy(24, 8, (8,), np.random.default_rng(5))
    play(env, lambda obs, mask, e: scorer.act(obs, mask), 2)
    jobs = SiteEnvConfig(**SMALL).episode_jobs(2)
    assert waits(env.unwrapped.records()) == waits(on_machine(jobs, SlotPolicy(scorer, env.unwrapped.slots)))


def test_heuristics_are_found_by_env_id_and_an_unknown_one_is_refused():
    assert heuristic_names(ENV) == ["fifo", "prio", "edf", "sjf", "greedy"]
    assert "fcfs" in heuristic_names("schedlab/Machine-v0")
    with pytest.raises(ValueError, match="'fcfs' is not a heuristic of schedlab/SiteSupervisor-v0"):
        heuristic(ENV, "fcfs")


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"reward": "wait"}, "reward must be one of paper, overhead"),
        ({"vo_shares": [0.5, 0.5]}, "vo_shares must be 4 shares"),
        ({"targets": [0.4, 0.4, 0.4, 0.4]}, "targets must be 4 shares >= 0 summing to 1"),
        ({"rho": 1.5}, "rho"),
    ],
)
def test_bad_settings_are_refused_in_one_line(settings, message):
    with pytest.raises(ValueError, match=message):
        SiteEnvConfig(**settings)


def test_an_invalid_slot_is_refused():
    env = gym.make(ENV, disable_env_checker=True, **SMALL)
    env.reset(seed=0)
    empty = int(np.flatnonzero(~env.unwrapped.action_masks())[0])
    with pytest.raises(ValueError, match=f"action {empty} is not a valid slot"):
        env.step(empty)


def test_same_training_seed_same_weights(tmp_path):
    """`schedlab train SiteSupervisor-v0` is reproducible: the same seed gives the same weights sha256."""
    config = TrainConfig(
        env="SiteSupervisor-v0", env_settings=SMALL, teacher="edf", generations=1, pairs=2, episodes=1,
        validation=1, imitation_episodes=1, imitation_epochs=5, hidden=(8,), seed=4,
    )  # fmt: skip
    first, second = train(config, tmp_path / "a"), train(config, tmp_path / "b")
    assert first.sha256 == second.sha256
    other = train(TrainConfig(**{**config.__dict__, "seed": 5}), tmp_path / "c")
    assert other.sha256 != first.sha256

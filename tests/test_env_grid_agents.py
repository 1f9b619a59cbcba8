"""The multi-agent grid environment: PettingZoo's checks, seeds, LLS equivalence, rewards, bad actions and settings."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test
from pettingzoo.utils import wrappers

import schedlab.envs
from schedlab.envs import GridAgentPolicy, GridAgentsConfig, grid_model, least_loaded
from schedlab.envs.grid.agents import GridAgentsEnv
from schedlab.model.core.streams import Streams
from schedlab.policies import LeastLoaded

#: a small grid, loaded past 1 so queues build and loads differ between resources
SMALL = GridAgentsConfig(agents=4, resources=6, rate=1.0, steps=40)


def play(env, policy, seed):
    """One episode with ``policy(obs)`` for every agent; each agent's return and the number of actions."""
    env.reset(seed=seed)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    actions = 0
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        returns[agent] += reward
        if terminated or truncated:
            env.step(None)
        else:
            env.step(policy(obs))
            actions += 1
    return returns, actions


def same_records(a, b):
    return [repr(r) for r in a] == [repr(r) for r in b]  # repr: records of unfinished jobs hold nan


# its two warnings are choices: LoR has no upper bound, and there is nothing to render
@pytest.mark.filterwarnings("ignore::UserWarning:pettingzoo.test.api_test")
def test_pettingzoo_api_and_seed_tests_pass():
    api_test(GridAgentsEnv(agents=3, resources=4, steps=12), num_cycles=30)
    wrapped = wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(GridAgentsEnv(agents=2, steps=6)))
    api_test(wrapped, num_cycles=10)  # PettingZoo's usual wrappers take it
    seed_test(lambda: GridAgentsEnv(agents=3, resources=4, steps=12), num_cycles=30)


def test_importing_schedlab_envs_does_not_import_pettingzoo():
    import subprocess
    import sys

    code = "import sys, schedlab.envs; assert 'pettingzoo' not in sys.modules; print(schedlab.envs.GridAgentsEnv)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "GridAgentsEnv" in out.stdout
    assert schedlab.envs.GridAgentsEnv is GridAgentsEnv


def test_spaces_and_first_observation():
    env = GridAgentsEnv(SMALL)
    env.reset(seed=0)
    agent = env.agent_selection
    assert env.possible_agents == ["scheduler_0", "scheduler_1", "scheduler_2", "scheduler_3"]
    assert env.action_space(agent).n == 6
    obs = env.observe(agent)
    assert obs.shape == (3 + 3 * 6,) and obs.dtype == np.float64
    assert env.observation_space(agent).contains(obs)
    assert 0 < obs[0] <= 1 and obs[1] >= 1 and obs[2] == 0.0
    assert np.array_equal(env.observer.capacities(obs), env.model.resources.capacities / SMALL.cmax)
    assert not env.observer.unfinished(obs).any() and not env.observer.loads(obs).any()
    env.step(0)
    state = env.state()
    assert env.state_space.contains(state) and state.shape == (1 + 3 * 6,)
    assert state[1 + 2 * 6 :].sum() == 1  # every agent's unfinished jobs: the one placed so far
    others = [a for a in env.possible_agents if a != env.agent_selection]
    assert all(env.observe(a)[0] == 0 and env.observe(a)[1] == 0 for a in others)  # no job to place: no length


def test_same_seed_same_episode_and_streams_match_scenarios():
    def random_policy():
        rng = np.random.default_rng(1)
        return lambda obs: int(rng.integers(SMALL.resources))

    first, n1 = play(GridAgentsEnv(SMALL), random_policy(), seed=7)
    again, n2 = play(GridAgentsEnv(SMALL), random_policy(), seed=7)
    other, _ = play(GridAgentsEnv(SMALL), random_policy(), seed=8)
    assert first == again and n1 == n2 and first != other
    env = GridAgentsEnv(SMALL)  # resets without a seed continue reproducibly from the last seed
    env.reset(seed=3)
    env.reset()
    a = env.model.resources.capacities.copy()
    env.reset(seed=3)
    env.reset()
    assert np.array_equal(a, env.model.resources.capacities)


# overloaded (queues everywhere, few ties) and lightly loaded (idle resources tie: LLS draws from its stream)
@pytest.mark.parametrize("rate, seed", [(1.0, 11), (0.25, 3)])
def test_least_loaded_policy_reproduces_the_models_lls_exactly(rate, seed):
    config = GridAgentsConfig(agents=4, resources=6, rate=rate, steps=40)
    streams = Streams(seed)
    sim = simpy.Environment()
    reference = grid_model(sim, config, LeastLoaded(streams["routing"]), streams)
    sim.run(until=reference.done)

    env = GridAgentsEnv(config)
    _, actions = play(env, least_loaded(Streams(seed)["routing"], env.observer), seed)
    assert actions == reference.resources.submitted > 0
    assert same_records(env.records(), reference.all_records())
    for name in reference.series.COLUMNS:
        assert np.array_equal(env.model.series.column(name), reference.series.column(name), equal_nan=True), name

    # and the same policy back inside a GridModel, through the adapter
    streams = Streams(seed)
    sim = simpy.Environment()
    grid_policy = env.as_grid_policy(least_loaded(streams["routing"], env.observer))
    adapted = grid_model(sim, config, grid_policy, streams)
    sim.run(until=adapted.done)
    assert same_records(adapted.all_records(), reference.all_records())
    assert grid_policy.decisions == actions


@settings(max_examples=15, deadline=None)
@given(
    agents=st.integers(1, 4),
    resources=st.integers(1, 4),
    rate=st.sampled_from([0.0, 0.5, 2.0]),
    steps=st.integers(1, 12),
    seed=st.integers(0, 2**16),
)
def test_every_job_is_placed_once_at_its_arrival_by_its_own_agent(agents, resources, rate, steps, seed):
    config = GridAgentsConfig(agents=agents, resources=resources, rate=rate, steps=steps, cmin=100.0, cmax=100.0)
    env = GridAgentsEnv(config)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    placed = []
    for agent in env.agent_iter():
        obs, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        assert env.observation_space(agent).contains(obs) and obs[1] >= 1
        assert info["time"] == info["step"] == int(obs[2] * steps + 0.5)  # decisions happen at a step's start
        action = int(rng.integers(resources))
        placed.append((agent, action, info["time"]))
        env.step(action)
    records = sorted(env.records(), key=lambda r: r.id)
    assert [(f"scheduler_{r.origin}", int(r.machine[1:]), r.submit) for r in records] == placed
    assert env.model.resources.submitted == len(placed)


def test_tpt_return_is_minus_the_time_jobs_spent_unfinished_and_infos_carry_alor():
    env = GridAgentsEnv(SMALL)
    returns, _ = play(env, lambda obs: int(np.argmin(env.observer.loads(obs))), seed=2)
    horizon = SMALL.steps
    records = env.records()
    tpt = sum((r.end if r.end <= horizon else horizon) - r.submit for r in records if not math.isnan(r.end))
    tpt += sum(horizon - r.submit for r in records if math.isnan(r.end))
    assert sum(returns.values()) == pytest.approx(-tpt, rel=1e-12)
    per_agent = {f"scheduler_{i}": 0.0 for i in range(SMALL.agents)}
    for r in records:
        per_agent[f"scheduler_{r.origin}"] -= (horizon if math.isnan(r.end) else min(r.end, horizon)) - r.submit
    assert returns == pytest.approx(per_agent)

    env.reset(seed=2)
    info = env.infos[env.agent_selection]
    assert set(info) >= {"time", "step", "alor", "lor_max", "lor_std", "system_load", "completed"}
    assert info["system_load"] == pytest.approx(env.model.load)


def test_osl_reward_counts_finished_minus_unfinished_jobs():
    env = GridAgentsEnv(SMALL, reward="osl", reward_scale=0.5)
    turns = itertools.count()
    returns, actions = play(env, lambda obs: next(turns) % SMALL.resources, seed=4)  # round robin
    expected = dict.fromkeys(env.possible_agents, 0.0)
    for r in env.records():  # at each step's end t + 1: +1 if it finished in (t, t + 1], -1 if still unfinished
        end = math.inf if math.isnan(r.end) else r.end
        for t in range(int(r.submit), SMALL.steps):
            if t < end <= t + 1:
                expected[f"scheduler_{r.origin}"] += 0.5
            elif end > t + 1:
                expected[f"scheduler_{r.origin}"] -= 0.5
    assert actions > 0 and returns == expected


def test_policy_decider_takes_one_policy_per_agent_and_checks_answers():
    streams = Streams(5)
    sim = simpy.Environment()
    grid_policy = GridAgentPolicy([lambda obs, j=j: j for j in range(SMALL.agents)], SMALL)
    model = grid_model(sim, SMALL, grid_policy, streams)
    sim.run(until=model.done)
    assert {(r.origin, r.machine) for r in model.all_records()} <= {(i, f"r{i}") for i in range(SMALL.agents)}

    sim = simpy.Environment()
    model = grid_model(sim, SMALL, GridAgentPolicy(lambda obs: 6, SMALL), Streams(5))
    with pytest.raises(ValueError, match=r"action of scheduler_\d: 6 is not a resource index in 0\.\.5"):
        sim.run(until=model.done)
    with pytest.raises(TypeError, match="policy must be a callable"):
        GridAgentPolicy(3, SMALL)


@pytest.mark.parametrize("action", [6, -1, 2.0, True, "1", None])
def test_invalid_actions_are_refused_by_name(action):
    env = GridAgentsEnv(SMALL)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=rf"action of {env.agent_selection}: .* not a resource index in 0\.\.5"):
        env.step(action)
    env.step(np.int64(5))  # numpy integers and 0-d arrays are fine
    env.step(np.array(1))


@pytest.mark.parametrize(
    "key, value, message",
    [
        ("agents", 0, r"agents=0 must be >= 1"),
        ("resources", 0, r"resources=0 must be >= 1"),
        ("resources", 2.5, r"resources=2.5 must be a whole number"),
        ("reward", "ator", r"reward must be one of tpt, osl, got 'ator'"),
        ("rate", -1.0, r"rate=-1.0 must be >= 0"),
        ("steps", 0, r"steps=0 must be >= 1"),
        ("jmax", 1.0, r"jmax must be >= jmin = 5.0, got 1.0"),
        ("time_scale", 0.0, r"time_scale=0.0 must be > 0"),
    ],
)
def test_bad_settings_are_one_line_errors_naming_key_and_value(key, value, message):
    with pytest.raises(ValueError, match=message) as err:
        GridAgentsEnv(**{key: value})
    assert "\n" not in str(err.value)


def test_stepping_before_reset_or_after_the_end_is_refused():
    env = GridAgentsEnv(SMALL, steps=2)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    play(env, lambda obs: 0, seed=0)
    assert env.agents == []
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step(0)

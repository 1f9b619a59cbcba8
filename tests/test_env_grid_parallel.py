"""The grid behind PettingZoo's Parallel API, and Stable-Baselines3 training a shared policy on it via SuperSuit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("pettingzoo")

from pettingzoo.test import parallel_api_test, parallel_seed_test

from schedlab.envs import GridAgentsConfig
from schedlab.envs.grid.agents import GridAgentsEnv
from schedlab.envs.grid.parallel import GridParallelEnv

#: a small grid, loaded past 1 so queues build and loads differ between resources
SMALL = GridAgentsConfig(agents=4, resources=6, rate=1.0, steps=40)


def play_parallel(env, policy, seed):
    """One episode, every deciding agent acting with ``policy(agent, obs)``: returns and actions taken."""
    observations, infos = env.reset(seed=seed)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    actions = 0
    while env.agents:
        chosen = {a: policy(a, observations[a]) for a in env.agents}
        actions += sum(infos[a]["decides"] for a in env.agents)
        observations, rewards, _, _, infos = env.step(chosen)
        for a, r in rewards.items():
            returns[a] += r
    return returns, actions


def play_aec(env, policy, seed):
    env.reset(seed=seed)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        returns[agent] += reward
        env.step(None if terminated or truncated else policy(agent, obs))
    return returns


def own_resource(agent, obs):
    """Each agent sends every job to a resource of its own: decisions that never interact."""
    return int(agent.rsplit("_", 1)[1])


@pytest.mark.filterwarnings("ignore::UserWarning:pettingzoo.test.parallel_test")
def test_pettingzoo_parallel_api_and_seed_tests_pass():
    parallel_api_test(GridParallelEnv(agents=3, resources=4, steps=12), num_cycles=30)
    parallel_seed_test(lambda: GridParallelEnv(agents=3, resources=4, steps=12))


def test_with_decisions_that_do_not_interact_parallel_and_aec_give_the_same_episode():
    parallel, aec = GridParallelEnv(SMALL), GridAgentsEnv(SMALL)
    returns, _ = play_parallel(parallel, own_resource, seed=5)
    assert returns == pytest.approx(play_aec(aec, own_resource, seed=5))
    assert [repr(r) for r in parallel.records()] == [repr(r) for r in aec.records()]


def test_every_agent_is_stepped_and_only_those_with_a_job_decide():
    env = GridParallelEnv(SMALL)
    observations, infos = env.reset(seed=2)
    assert set(observations) == set(env.possible_agents)  # the agent set never changes: a vector env can take it
    for agent, obs in observations.items():
        decides = infos[agent]["decides"]
        assert (obs[0] > 0 and obs[1] >= 1) if decides else (obs[0] == 0 and obs[1] == 0)
        assert infos[agent]["action_mask"].tolist() == [1] * SMALL.resources
    assert any(info["decides"] for info in infos.values())
    idle = [a for a in env.agents if not infos[a]["decides"]]
    # an agent without a job may send any action, even none at all: it is ignored
    env.step({a: own_resource(a, None) for a in env.agents if a not in idle[:1]})
    with pytest.raises(ValueError, match="has a job to place this step but no action"):
        env.step({})


@settings(max_examples=20, deadline=None)
@given(
    agents=st.integers(1, 4),
    resources=st.integers(1, 4),
    rate=st.sampled_from([0.0, 0.5, 2.0]),
    steps=st.integers(1, 12),
    seed=st.integers(0, 2**16),
)
def test_every_job_is_placed_once_at_its_arrival_by_its_own_agent(agents, resources, rate, steps, seed):
    config = GridAgentsConfig(agents=agents, resources=resources, rate=rate, steps=steps, cmin=100.0, cmax=100.0)
    env = GridParallelEnv(config)
    rng = np.random.default_rng(seed)
    observations, infos = env.reset(seed=seed)
    placed = []
    while env.agents:
        actions = {}
        for i, agent in enumerate(env.possible_agents):
            if infos[agent]["decides"]:
                actions[agent] = int(rng.integers(resources))
                assert infos[agent]["time"] == int(observations[agent][2] * steps + 0.5)  # at a step's start
                placed.append((i, actions[agent], infos[agent]["time"]))
        observations, _, _, _, infos = env.step(actions)
    records = sorted(env.records(), key=lambda r: r.id)
    # rounds go agent by agent within a step: sort both by (time, agent) keeps each agent's jobs in order
    assert sorted((r.submit, r.origin, int(r.machine[1:])) for r in records) == sorted(
        (t, i, resource) for i, resource, t in placed
    )
    assert env.model.resources.submitted == len(placed)


def test_state_and_text_render():
    env = GridParallelEnv(SMALL, render_mode="ansi")
    env.reset(seed=0)
    assert env.state_space.contains(env.state())
    text = env.render()
    assert text.startswith("t=0 step=0") and "to place: scheduler_" in text
    aec = GridAgentsEnv(SMALL, render_mode="ansi")
    aec.reset(seed=0)
    assert "to act: scheduler_" in aec.render()
    assert GridParallelEnv(SMALL).render() is None
    with pytest.raises(ValueError, match="render_mode"):
        GridParallelEnv(SMALL, render_mode="human")


def test_supersuit_vector_env_trains_a_shared_stable_baselines3_policy():
    sb3 = pytest.importorskip("stable_baselines3")
    pytest.importorskip("supersuit")
    from schedlab.envs.sb3 import grid_vec_env

    vec = grid_vec_env(SMALL, copies=2)  # one vector entry per agent and copy: one policy for all
    assert vec.num_envs == 2 * SMALL.agents
    model = sb3.PPO("MlpPolicy", vec, n_steps=16, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=256)
    obs = vec.reset()
    actions, _ = model.predict(obs, deterministic=True)
    assert actions.shape == (vec.num_envs,) and ((actions >= 0) & (actions < SMALL.resources)).all()


def test_maskable_ppo_reads_the_masks_through_the_vector_env():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    pytest.importorskip("supersuit")
    from schedlab.envs.sb3 import grid_vec_env

    vec = grid_vec_env(SMALL)
    model = sb3_contrib.MaskablePPO("MlpPolicy", vec, n_steps=16, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=128)
    assert vec.action_masks().shape == (SMALL.agents, SMALL.resources)


def test_on_a_topology_the_masks_are_each_brokers_reach_and_latency_delays_the_jobs():
    """Any grid of the kind: brokers in a two-level tree, each reaching only its own sites (hops=2)."""
    from schedlab.topologies import grid_topology, hierarchical_grid

    graph = hierarchical_grid((2, 2), 2, capacity_range=(50.0, 350.0), seed=1)  # 2 brokers x 4 sites x 2 resources
    topology = grid_topology(graph, hops=2)
    env = GridParallelEnv(agents=2, resources=8, rate=2.0, steps=20, topology=topology)
    _, infos = env.reset(seed=3)
    for i, agent in enumerate(env.possible_agents):
        assert infos[agent]["action_mask"].tolist() == topology.reach[i].astype(int).tolist()
    while env.agents:  # every broker picks the first resource it may reach
        _, _, _, _, infos = env.step({a: int(np.flatnonzero(infos[a]["action_mask"])[0]) for a in env.agents})
    done = [r for r in env.records() if r.status.name == "COMPLETED"]
    assert done and all(r.start >= r.submit + topology.latency[r.origin, int(r.machine[1:])] for r in done)

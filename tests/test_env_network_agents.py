"""Seed 004's shipping agents behind PettingZoo: API checks, the model's own runs under the same decisions, rewards."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import simpy

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test

from schedlab.envs.network.agents import NetworkAgentsEnv, network_aec_env
from schedlab.envs.network.obs import NetworkAgentsConfig
from schedlab.model.contracts.routing import neighbour_lists
from schedlab.model.core.streams import Streams
from schedlab.policies import RandomVectors, ShippingAgents
from schedlab.processes.network.network import ServerNetwork
from schedlab.topologies import small_world_ring

SMALL = NetworkAgentsConfig(servers=8, steps=30, arrival_prob=0.8, max_requirement=8)


@pytest.mark.filterwarnings("ignore::UserWarning:pettingzoo.test")
def test_pettingzoo_parallel_and_aec_api_tests_pass():
    parallel_api_test(NetworkAgentsEnv(servers=6, steps=20), num_cycles=50)
    parallel_seed_test(lambda: NetworkAgentsEnv(servers=6, steps=20))
    api_test(network_aec_env(servers=6, steps=20), num_cycles=30)


def model_run(config, seed, touches="visit"):
    """The network as scenarios/collectives.py builds it: RAND's shipping agents, one run."""
    streams = Streams(seed)
    sim = simpy.Environment()
    graph = small_world_ring(config.servers, config.shortcut_prob, seed=streams["topology"])
    caps = streams["capacities"].integers(1, config.max_requirement + 1, size=(config.servers, config.resources))
    agents = ShippingAgents(neighbour_lists(graph), config.classes, streams["routing"])
    rule = RandomVectors(agents, streams["exploration"])
    network = ServerNetwork(
        sim,
        graph,
        caps,
        config.arrival_prob,
        config.max_requirement,
        rule,
        streams["arrivals"],
        streams["requirements"],
        steps=config.steps,
        runs=1,
        keep_records=True,
        touches=touches,
    )
    outcomes = []
    network.run_ended.connect(outcomes.append)
    records = []
    network.completed.connect(lambda event: records.append(event[1]))
    sim.run(until=network.done)
    return records, network.curve, outcomes[0]


@pytest.mark.parametrize("touches", ["visit", "decision"])
def test_agents_deciding_as_rand_give_the_models_run_bit_for_bit(touches):
    config = NetworkAgentsConfig(**{**SMALL.__dict__, "touches": touches})
    env = NetworkAgentsEnv(config)
    streams = Streams(3)  # RAND's own streams, as the model draws them
    _, infos = env.reset(seed=3)
    agents = ShippingAgents(env.observer.neighbours, config.classes, streams["routing"])
    rand = RandomVectors(agents, streams["exploration"])
    rand.begin_run(0)
    records = []
    env.model.completed.connect(lambda event: records.append(event[1]))
    outcomes = []
    env.model.run_ended.connect(outcomes.append)
    while env.agents:
        ships = {(server, job.id): dest for server, job, dest in agents.decide(_Untouched(env.model))}
        actions = {}
        for name in env.agents:
            if infos[name]["decides"]:
                server = int(name.split("_")[1])
                job = dict(env.model.heads())[server]
                dest = ships.get((server, job.id))
                actions[name] = 0 if dest is None else 1 + env.observer.neighbours[server].index(dest)
        _, _, _, _, infos = env.step(actions)
    expected, curve, outcome = model_run(config, 3, touches)
    assert [repr(r) for r in records] == [repr(r) for r in expected]
    assert env.model.curve == curve and infos[env.possible_agents[0]]["efficiency"] == curve[0]
    assert np.array_equal(outcomes[0].touch_agent, outcome.touch_agent)


class _Untouched:
    """The network as RAND's agents read it, with touches left to the environment (which records them)."""

    def __init__(self, network):
        self._network = network
        self.touches = "visit"

    def __getattr__(self, name):
        return getattr(self._network, name)


def test_only_the_head_jobs_agents_decide_and_masks_follow_the_degree():
    graph = nx.path_graph(4)  # degrees 1, 2, 2, 1
    env = NetworkAgentsEnv(servers=4, steps=5, graph=graph, arrival_prob=1.0)
    observations, infos = env.reset(seed=0)
    assert env.action_space(env.possible_agents[0]).n == 3  # keep, or one of up to D = 2 neighbours
    assert infos["server_0_class_0"]["action_mask"].tolist() == [1, 1, 0]
    assert infos["server_1_class_0"]["action_mask"].tolist() == [1, 1, 1]
    deciding = [a for a in env.agents if infos[a]["decides"]]
    heads = env.model.heads()  # the servers with a waiting job: one deciding agent each, its job's class's agent
    assert sorted(deciding) == sorted(f"server_{s}_class_{env.model.job_class(job)}" for s, job in heads)
    for name in env.agents:
        assert observations[name][0] == float(infos[name]["decides"])
        assert env.observation_space(name).contains(observations[name])
    # ship one head job to its server's first neighbour; it arrives there the next step
    first = int(deciding[0].split("_")[1])
    job, neighbour = dict(heads)[first], env.observer.neighbours[first][0]
    env.step({a: (1 if a == deciding[0] else 0) for a in deciding})
    there = [*env.model.waiting(neighbour), *[r.job for r in [env.model.servers[neighbour].running] if r]]
    assert job in there and job not in env.model.waiting(first)
    with pytest.raises(ValueError, match=r"is not an action in 0\.\.2"):
        env.step({a: 7 for a in env.agents})


def test_team_rewards_share_the_networks_completions():
    env = NetworkAgentsEnv(SMALL)
    env.reset(seed=1)
    outcomes = []
    env.model.run_ended.connect(outcomes.append)
    total = 0.0
    while env.agents:
        _, rewards, _, _, _ = env.step(dict.fromkeys(env.agents, 0))
        total += sum(rewards.values())
    executed = int(outcomes[0].executed.sum())  # the run's jobs completed within it
    assert executed > 0 and total == pytest.approx(executed * SMALL.classes)  # N * 2^K agents earn completions / N


def test_text_render_and_state():
    env = NetworkAgentsEnv(SMALL, render_mode="ansi")
    env.reset(seed=0)
    assert env.render().startswith("step=0 arrived=")
    assert env.state().shape == (2 * SMALL.servers,)


def test_supersuit_vector_env_trains_a_shared_policy_on_the_network():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    pytest.importorskip("supersuit")
    from schedlab.envs.sb3 import parallel_vec_env

    vec = parallel_vec_env(NetworkAgentsEnv(SMALL))  # one entry per shipping agent: 8 servers x 4 classes
    assert vec.num_envs == SMALL.agents
    model = sb3_contrib.MaskablePPO("MlpPolicy", vec, n_steps=8, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=256)
    masks = vec.action_masks()  # keep, then each neighbour the server has
    assert masks.shape == (SMALL.agents, 5) and masks[:, :3].all()

"""Seed 004 (Tumer and Lawson): utilities by hand, the ring model by hand, LB, the learner, the scenario."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path
from types import SimpleNamespace

import networkx as nx
import numpy as np
import pytest
import simpy

from schedlab.experiment import run
from schedlab.experiment.scenario import load_scenario
from schedlab.learners import (
    CollectiveLearner,
    VectorLearner,
    clamped_world_utility,
    selfish,
    team_game,
    wonderful_life,
    world_utility,
)
from schedlab.model.contracts.network import job_classes, random_vectors
from schedlab.model.contracts.routing import neighbour_lists
from schedlab.model.core.streams import Streams
from schedlab.papers.collectives_tables import gain, tables
from schedlab.policies import LoadBalancing, RandomVectors, ShippingAgents, job_load, server_loads
from schedlab.processes.network.network import ServerNetwork
from schedlab.topologies import small_world_ring

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "collectives.py"


# --------------------------------------------------------------------------- utilities (eqs. 6-9)
def _state(weights, executed, touches, agents):
    pairs = np.array(touches, dtype=np.int64).reshape(-1, 2)
    return SimpleNamespace(
        weights=np.array(weights, dtype=float),
        executed=np.array(executed, dtype=bool),
        touch_agent=pairs[:, 0],
        touch_job=pairs[:, 1],
        agents=agents,
    )


#: 5 jobs (weights 1, 2, 1, 1, 3; jobs 0, 1 and 3 executed); agent 0 touched jobs 0 and 2,
#: agent 1 jobs 1, 2 and 4, agent 2 nothing. G = (1 + 2 + 1) / 8 = 0.5.
HAND = _state([1, 2, 1, 1, 3], [1, 1, 0, 1, 0], [(0, 0), (0, 2), (1, 1), (1, 2), (1, 4)], 3)


def test_world_utility_and_team_game_by_hand():
    assert world_utility(HAND) == 0.5
    assert team_game(HAND).tolist() == [0.5, 0.5, 0.5]


def test_wonderful_life_is_g_minus_g_with_the_agents_jobs_clamped_to_null():
    # clamping agent 0 removes job 0 (w 1) from the numerator: G(clamped) = 3/8, WLU = 1/8
    assert [clamped_world_utility(HAND, a) for a in range(3)] == [3 / 8, 2 / 8, 4 / 8]
    wlu = wonderful_life(HAND)
    assert wlu.tolist() == [1 / 8, 2 / 8, 0.0]
    for a in range(3):
        assert wlu[a] == pytest.approx(world_utility(HAND) - clamped_world_utility(HAND, a))


def test_selfish_counts_only_the_jobs_the_agent_touched():
    su = selfish(HAND)
    assert su[0] == 1 / 2  # job 0 of jobs 0 and 2 (weights 1 and 1)
    assert su[1] == 2 / 6  # job 1 (w 2) of jobs 1, 2, 4 (weights 2, 1, 3)
    assert math.isnan(su[2])  # no touched job, no information


@pytest.mark.parametrize("seed", range(5))
def test_wlu_against_the_clamped_definition_on_random_states(seed):
    rng = np.random.default_rng(seed)
    jobs, agents = 30, 6
    touches = {(int(a), int(j)) for a, j in zip(rng.integers(0, agents, 40), rng.integers(0, jobs, 40), strict=True)}
    state = _state(rng.uniform(0.5, 2, jobs), rng.random(jobs) < 0.6, sorted(touches), agents)
    g = world_utility(state)
    for a in range(agents):
        assert wonderful_life(state)[a] == pytest.approx(g - clamped_world_utility(state, a))
        mine = [j for b, j in touches if b == a]
        if mine:
            w, e = state.weights[mine], state.executed[mine]
            assert selfish(state)[a] == pytest.approx((w * e).sum() / w.sum())


def test_job_classes_split_each_requirement_at_half_of_m():
    assert job_classes(np.array([[1, 1], [2, 1], [1, 2], [2, 2]]), 2).tolist() == [0, 1, 2, 3]
    assert job_classes(np.array([[4, 5], [5, 4], [8, 8]]), 8).tolist() == [2, 1, 3]


# --------------------------------------------------------------------------- the model by hand
class Scripted:
    """A rule for hand examples: inject jobs at given steps, then let the agents decide."""

    def __init__(self, agents, script):
        self.agents, self.script, self.step = agents, script, 0
        self.outcomes = []

    def bind(self, network):
        network.run_ended.connect(self.outcomes.append)

    def begin_run(self, run):
        pass

    def decide(self, network):
        for server, req in self.script.get(self.step, []):
            network.add_job(server, req)
        self.step += 1
        return self.agents.decide(network)


def _keep_all(agents):
    v = np.zeros(agents.mask.shape)
    v[:, 0] = 1.0
    return v


@pytest.mark.parametrize("touches", ["visit", "decision"])
def test_a_blocked_head_is_shipped_to_the_front_of_a_neighbour_and_the_job_behind_it_starts(touches):
    # three servers in a ring: server 0 has resource 2 = 1, server 1 has (speed 2, resource 2 = 2)
    graph = small_world_ring(3, 0.0)
    caps = np.array([[1, 1], [2, 2], [1, 2]])
    env = simpy.Environment()
    agents = ShippingAgents(neighbour_lists(graph), 4, np.random.default_rng(0))
    vectors = _keep_all(agents)
    vectors[0 * 4 + 2] = [0.0, 1.0, 0.0]  # server 0's agent of class 2 (r2 in the upper half) ships to server 1
    agents.set_vectors(vectors)
    # job A (1 cycle, needs 2 of resource 2) blocks server 0; job B (1, 1) waits behind it
    rule = Scripted(agents, {0: [(0, [1, 2]), (0, [1, 1])]})
    net = ServerNetwork(env, graph, caps, 0.0, 2, rule, np.random.default_rng(1), np.random.default_rng(2),
                        steps=4, runs=1, keep_records=True, touches=touches)  # fmt: skip
    env.run(0.5)
    assert net.servers[0].running.id == 1  # B started at once when A was taken away
    assert net.in_transit() == 1 and net.queued() == 0
    env.run(1.5)
    assert net.servers[1].running.id == 0  # A arrived at server 1's front at step 1 and fits there
    env.run(3.5)
    done = {r.id: (r.machine, r.start, r.end) for s in net.servers for r in s.records}
    assert done == {1: ("server0", 0.0, 1.0), 0: ("server1", 1.0, 2.0)}
    env.run(net.done)  # records are per run: cleared with the system at the run's end
    assert all(not s.records for s in net.servers)
    outcome = rule.outcomes[0]
    assert outcome.executed.tolist() == [True, True] and net.curve == [1.0]
    # B (class 0) ran at server 0 (agent 0); A (class 2) at server 1 (agent 1 * 4 + 2 = 6)
    assert outcome.executed_agent.tolist() == [6, 0]
    assert outcome.requirements.tolist() == [[1, 2], [1, 1]]
    pairs = list(zip(outcome.touch_agent.tolist(), outcome.touch_job.tolist(), strict=True))
    wlu, su, su_here = wonderful_life(outcome), selfish(outcome), selfish(outcome, "agent")
    if touches == "decision":
        # only agent 2 of server 0 decided on a job (A, at step 0): WLU is 1/2 for it, 0 for all others
        assert pairs == [(2, 0)]
        assert wlu[2] == 0.5 and wlu.sum() == 0.5
        assert su[2] == 1.0 and su_here[2] == 0.0 and np.isnan(su).sum() == 11
    else:
        # every queue a job entered: A at server 0 (agent 2) and server 1 (agent 6), B at server 0 (agent 0)
        assert pairs == [(0, 1), (2, 0), (6, 0)]
        assert wlu[[0, 2, 6]].tolist() == [0.5, 0.5, 0.5] and wlu.sum() == 1.5
        assert su[[0, 2, 6]].tolist() == [1.0, 1.0, 1.0]
        assert su_here[[0, 2, 6]].tolist() == [1.0, 0.0, 1.0]  # A was executed at agent 6, not at agent 2


def test_shipped_jobs_land_at_the_front_ahead_of_waiting_jobs():
    graph = small_world_ring(4, 0.0)  # 0-1-2-3-0
    caps = np.array([[1, 1], [1, 1], [1, 1], [1, 1]])
    env = simpy.Environment()
    agents = ShippingAgents(neighbour_lists(graph), 4, np.random.default_rng(0))
    vectors = _keep_all(agents)
    vectors[2 * 4 + 0] = [0.0, 1.0, 0.0]  # server 2's class-0 agent ships to its first neighbour, server 1
    agents.set_vectors(vectors)
    # server 1 is busy (a 2-cycle job) with one job waiting; server 2 gets two jobs and ships its head
    script = {0: [(1, [2, 1]), (1, [1, 1]), (2, [2, 1]), (2, [1, 1])]}
    net = ServerNetwork(env, graph, caps, 0.0, 2, Scripted(agents, script), np.random.default_rng(1),
                        np.random.default_rng(2), steps=6, runs=1)  # fmt: skip
    env.run(0.5)
    # server 2 ran its first job and shipped the second; server 1 runs job 0, job 1 waits
    assert [j.id for j in net.servers[1].queue.items] == [1] and net.in_transit() == 1
    env.run(1.5)
    assert [j.id for j in net.servers[1].queue.items] == [3, 1]  # the shipped job went to the front


def test_run_outcomes_clear_the_system_and_curves_are_deterministic():
    def curve(seed):
        s = Streams(seed)
        graph = small_world_ring(12, seed=s["topology"])
        caps = s["capacities"].integers(1, 5, (12, 2))
        agents = ShippingAgents(neighbour_lists(graph), 4, s["routing"])
        env = simpy.Environment()
        net = ServerNetwork(env, graph, caps, 0.6, 4, RandomVectors(agents, s["exploration"]), s["arrivals"],
                            s["requirements"], steps=30, runs=4)  # fmt: skip
        seen = []
        net.run_ended.connect(lambda o: seen.append((o.run, net.queued(), net.running(), net.in_transit())))
        env.run(net.done)
        assert seen == [(0, 0, 0, 0), (1, 0, 0, 0), (2, 0, 0, 0), (3, 0, 0, 0)]
        return net.curve

    assert curve(3) == curve(3)
    assert curve(3) != curve(4)
    assert all(0 <= g <= 1 for g in curve(3))


def _reference_module():
    spec = importlib.util.spec_from_file_location("bench_collectives", ROOT / "benchmarks" / "collectives.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("r, m, k", [(0.8, 8, 2), (0.2, 2, 2), (0.5, 4, 3), (1.0, 1, 1)])
def test_the_plain_numpy_loop_gives_the_same_efficiency_run_by_run(r, m, k):
    bench = _reference_module()
    setup = Streams(11)
    graph = small_world_ring(20, seed=setup["topology"])
    caps = setup["capacities"].integers(1, m + 1, size=(20, k))
    nb = neighbour_lists(graph)
    ours = bench.schedlab_curve(nb, graph, caps, r, m, Streams(5), steps=60, runs=3)
    ref = bench.numpy_reference(nb, caps, r, m, Streams(5), steps=60, runs=3)
    assert ours == ref


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "change, message",
    [
        (dict(r=1.5), "r \\(arrival probability"),
        (dict(r=-0.1), "r \\(arrival probability"),
        (dict(m=0), "M \\(largest requirement"),
        (dict(k=0), "K >= 1"),
        (dict(steps=0), "steps"),
        (dict(touches="often"), "touches: unknown 'often'"),
    ],
)
def test_bad_model_input_names_the_field(change, message):
    p = dict(r=0.5, m=2, k=2, steps=10, touches="visit")
    p.update(change)
    graph = small_world_ring(5, seed=0)
    caps = np.ones((5, p["k"]), dtype=int)
    agents = ShippingAgents(neighbour_lists(graph), 4, np.random.default_rng(0))
    with pytest.raises(ValueError, match=message):
        ServerNetwork(simpy.Environment(), graph, caps, p["r"], p["m"], RandomVectors(agents, np.random.default_rng()),
                      np.random.default_rng(), np.random.default_rng(), steps=p["steps"], runs=1,
                      touches=p["touches"])  # fmt: skip


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"max_requirements": "0"}, "M must be >= 1"),
        ({"arrival_probs": "0.2,1.2"}, "arrival_probs\\[1\\]=1.2 must be <= 1"),
        ({"arrival_probs": "0"}, "arrival_probs\\[0\\]=0.0 must be > 0"),  # no job would ever arrive
        ({"resources": "0"}, "resources \\(K\\) must be >= 1"),
        ({"algorithms": "wlu,xyz"}, "algorithms"),
        ({"touches": "sometimes"}, "touches: unknown 'sometimes'"),
        ({"su_executed": "nowhere"}, "su_executed: unknown 'nowhere'"),
    ],
)
def test_bad_scenario_config_names_the_field(overrides, message):
    scenario = load_scenario(SCENARIO)
    with pytest.raises(ValueError, match=message):
        scenario.config(overrides)


# --------------------------------------------------------------------------- load balancing
def test_lb_ships_the_highest_load_waiting_job_towards_the_nearest_least_loaded_server():
    graph = small_world_ring(6, 0.0)
    caps = np.array([[1, 2], [2, 2], [1, 1], [2, 1], [2, 2], [1, 2]])
    env = simpy.Environment()
    lb = LoadBalancing(0.1, np.random.default_rng(0))
    net = ServerNetwork(env, graph, caps, 0.0, 2, lb, np.random.default_rng(), np.random.default_rng(), runs=1)
    for req in ([1, 1], [2, 2], [1, 2]):  # before the run: all three wait at server 0
        net.add_job(0, req)
    net.add_job(1, [1, 1])
    loads = server_loads(net)
    assert loads[0] == pytest.approx(((1 + 2 + 1) / 1 + (1 + 2 + 2) / 2) / 2)
    assert loads[1] == pytest.approx((1 / 2 + 1 / 2) / 2) and loads[2:].tolist() == [0, 0, 0, 0]
    assert job_load(net.servers[0].queue.items[1], caps[0]) == pytest.approx((2 / 1 + 2 / 2) / 2)
    (decision,) = lb.decide(net)
    # servers 2-5 are empty; of them 5 is one hop from 0 (2 and 4 are two, 3 is three)
    assert decision[0] == 0 and decision[1].id == 1 and decision[2] == 5


def test_held_requirements_are_summed_at_the_first_read_then_kept_job_by_job():
    """A server's held sums (LB's loads) wait for a reader: read late, they are the sums of its jobs all the same."""
    s = Streams(5)
    graph = small_world_ring(10, seed=s["topology"])
    caps = s["capacities"].integers(1, 5, (10, 3))
    agents = ShippingAgents(neighbour_lists(graph), 8, s["routing"])
    env = simpy.Environment()
    net = ServerNetwork(env, graph, caps, 0.7, 4, RandomVectors(agents, s["exploration"]), s["arrivals"],
                        s["requirements"], steps=40, runs=2)  # fmt: skip

    def sums(server):
        jobs = [*server.queue.items, *([server.running] if server.running is not None else [])]
        return [sum(j.runtime for j in jobs), *(sum(j.demand(f"r{k}") for j in jobs) for k in (2, 3))]

    env.run(25.5)  # RAND reads no load: nothing kept so far
    assert all(server._held is None for server in net.servers)
    assert [server.held for server in net.servers] == [sums(server) for server in net.servers]  # summed now
    env.run(60.5)  # kept job by job since, across a run's end and its clearing
    assert [server.held for server in net.servers] == [sums(server) for server in net.servers]
    assert net.loads().tolist() == [server.load() for server in net.servers]


def test_lb_routes_hop_by_hop_and_the_job_lands_at_the_destination_front():
    graph = small_world_ring(7, 0.0)
    caps = np.full((7, 2), 2)
    env = simpy.Environment()

    class ShipOnce:
        def bind(self, network):
            pass

        def begin_run(self, run):
            pass

        def decide(self, network):
            if network.env.now == 0:
                network.add_job(0, [2, 2])
                network.add_job(0, [2, 2])
                return [(0, network.servers[0].queue.items[0], 3)]  # three links away: 0 -> 1 -> 2 -> 3
            return []

    net = ServerNetwork(env, graph, caps, 0.0, 2, ShipOnce(), np.random.default_rng(), np.random.default_rng(),
                        steps=10, runs=1)  # fmt: skip
    where = []
    for t in range(4):
        env.run(t + 0.5)
        where.append((net.in_transit(), net.servers[3].running))
    assert [w[0] for w in where] == [1, 1, 1, 0]
    assert where[3][1] is not None and where[3][1].id == 1


# --------------------------------------------------------------------------- learning (section 3.2)
def test_eq3_estimate_by_hand():
    mask = np.array([[True, True]])
    learner = VectorLearner(mask, 10, np.random.default_rng(0), warmup=0, alpha_t=0.1, alpha_p=2.0)
    learner.record(0, np.array([[1.0, 0.0]]), np.array([1.0]))
    learner.record(1, np.array([[0.0, 1.0]]), np.array([0.0]))
    learner.record(1, np.array([[0.5, 0.5]]), np.array([np.nan]))  # no information: not kept
    est = learner.estimate(2, np.array([[[1.0, 0.0], [0.0, 1.0]]]))
    w0, w1 = math.exp(-0.1 * 2), math.exp(-0.1 * 1 - 2.0 * math.sqrt(2))
    assert est[0, 0] == pytest.approx(w0 / (w0 + w1))
    v0, v1 = math.exp(-0.1 * 2 - 2.0 * math.sqrt(2)), math.exp(-0.1 * 1)
    assert est[0, 1] == pytest.approx(v0 / (v0 + v1))


def test_boltzmann_choice_is_greedy_when_cold_and_uniform_when_hot():
    mask = np.ones((200, 3), dtype=bool)
    cand = np.broadcast_to(np.eye(3), (200, 3, 3)).copy()
    rewards = np.zeros(200)
    for temperature, check in ((1e-3, "greedy"), (1e3, "uniform")):
        learner = VectorLearner(mask, 10, np.random.default_rng(1), warmup=0, temperature=temperature)
        for t, (vec, g) in enumerate(((np.eye(3)[0], 1.0), (np.eye(3)[1], 0.0), (np.eye(3)[2], 0.5))):
            learner.record(t, np.broadcast_to(vec, (200, 3)), rewards + g)
        chosen = learner.choose(3, cand).argmax(axis=1)
        if check == "greedy":
            assert (chosen == 0).all()
        else:
            counts = np.bincount(chosen, minlength=3)
            assert counts.min() > 40


def test_candidates_are_probability_vectors_on_each_agents_actions():
    mask = np.array([[True, True, False], [True, True, True]])
    learner = VectorLearner(mask, 5, np.random.default_rng(2), candidates=50, sigma=0.3)
    current = random_vectors(mask, np.random.default_rng(3))
    cand = learner.candidates_about(current)
    assert cand.shape == (2, 51, 3)
    np.testing.assert_allclose(cand.sum(-1), 1.0)
    assert (cand >= 0).all() and (cand[0, :, 2] == 0).all()
    np.testing.assert_array_equal(cand[:, 0], current)


def test_collective_learner_subscribes_and_records_one_reward_per_agent_per_run():
    s = Streams(2)
    graph = small_world_ring(8, seed=s["topology"])
    agents = ShippingAgents(neighbour_lists(graph), 4, s["routing"])  # the rule: the agents ship
    learner = VectorLearner(agents.mask, 6, s["exploration"], warmup=3)
    env = simpy.Environment()
    net = ServerNetwork(env, graph, s["capacities"].integers(1, 3, (8, 2)), 0.5, 2, agents, s["arrivals"],
                        s["requirements"], steps=20, runs=6)  # fmt: skip
    CollectiveLearner(agents, "wlu", learner).subscribe(net)  # the learner listens to the runs
    outcomes = []
    net.run_ended.connect(outcomes.append)
    env.run(net.done)
    assert learner.size == 6 and len(net.curve) == 6
    for k, o in enumerate(outcomes):
        np.testing.assert_allclose(learner.data_rewards[:, k][learner.data_valid[:, k]], wonderful_life(o))
    with pytest.raises(ValueError, match="utility: unknown"):
        CollectiveLearner(agents, "gdp", learner)


# --------------------------------------------------------------------------- the scenario
def test_scenario_cells_and_optimal_estimate():
    scenario = load_scenario(SCENARIO)
    cfg = scenario.config()
    cells = scenario.cells(cfg)
    assert len(cells) == 20 and {(c["r"], c["M"]) for c in cells} == {(0.2, 2), (0.2, 8), (0.8, 2), (0.8, 8)}
    assert scenario.default_reps(cfg) == 50 and (cfg.runs, cfg.steps, cfg.warmup, cfg.servers) == (400, 400, 100, 50)
    opt = scenario.module.optimal_estimate
    # every server (M, M): every job fits; (1, 1) servers only the (1, 1) jobs
    assert opt(np.full((4, 2), 8), 8, 0.8) == 1.0
    assert opt(np.ones((4, 2), dtype=int), 8, 0.8) == pytest.approx(1 / 64 / 0.8)
    # the paper's M = 8 estimate: E[s/M] E[m/M] = (9/16)^2 = 0.316 per step, / 0.8 = 0.395
    caps = np.stack(np.meshgrid(np.arange(1, 9), np.arange(1, 9)), -1).reshape(-1, 2)
    assert opt(caps, 8, 0.8) == pytest.approx(0.3955, abs=1e-4)
    assert gain(0.9788, 0.9318, 1.0) == pytest.approx(68.9, abs=0.1)  # Table I, WLU


def test_quick_scenario_smoke(tmp_path):
    overrides = {"runs": 4, "warmup": 2, "steps": 20, "servers": 8, "curves_dir": str(tmp_path / "curves")}
    results = run(SCENARIO, overrides=overrides, reps=1, quick=True, executor="serial", keep_records=False)
    frame = results.frame()
    assert len(frame) == 20 and set(frame["algorithm"]) == {"rand", "su", "tg", "wlu", "lb"}
    assert ((frame["efficiency"] >= 0) & (frame["efficiency"] <= 1)).all()
    module = load_scenario(SCENARIO).module
    table = tables(frame)
    assert set(table["algorithm"]) == {"opt", "lp", "rand", "su", "tg", "wlu", "lb"} and len(table) == 28
    assert (frame["efficiency"] <= frame["lp_bound"] + 1e-9).all()  # the LP bound of the last run holds
    assert table.loc[table["algorithm"] == "rand", "paper_efficiency"].tolist() == [0.9318, 0.6435, 0.626, 0.1944]
    assert len(list((tmp_path / "curves").glob("*.csv"))) == 20
    written = module.report(results, tmp_path / "figs")  # what `schedlab run` calls after saving
    assert (tmp_path / "figs" / "tables.csv").exists() and (tmp_path / "figs" / "curves.csv").exists()
    assert len(written) >= 2
    again = run(SCENARIO, overrides=overrides, reps=1, quick=True, executor="serial", keep_records=False).frame()
    assert again["efficiency"].tolist() == frame["efficiency"].tolist()  # same seed, same results


def test_small_world_graph_used_by_the_scenario_is_connected():
    scenario = load_scenario(SCENARIO)
    cfg = scenario.config({"servers": 10, "runs": 2, "warmup": 1, "steps": 5, "curves_dir": ""})
    from schedlab.experiment.runner import build_model

    model = build_model(scenario, cfg, {"r": 0.5, "M": 2, "algorithm": "lb"}, np.random.SeedSequence(1))
    assert nx.is_connected(model["network"].graph)


def test_a_learner_hears_every_signal_of_the_network():
    """The network's signals, in the order a learner hears them: run_started, then per step its completions
    and step_ended, then run_ended with the run's outcome."""
    s = Streams(4)
    graph = small_world_ring(6, seed=s["topology"])
    agents = ShippingAgents(neighbour_lists(graph), 4, s["routing"])
    env = simpy.Environment()
    net = ServerNetwork(env, graph, s["capacities"].integers(1, 3, (6, 2)), 0.5, 2, agents, s["arrivals"],
                        s["requirements"], steps=5, runs=2)  # fmt: skip
    heard = []
    net.run_started.connect(lambda run: heard.append(("run_started", run)))
    net.completed.connect(lambda event: heard.append(("completed", event[0])))
    net.step_ended.connect(lambda step: heard.append(("step_ended", step)))
    net.run_ended.connect(lambda outcome: heard.append(("run_ended", int(outcome.executed.sum()))))
    env.run(net.done)
    kinds = [k for k, _ in heard]
    assert kinds.count("run_started") == kinds.count("run_ended") == 2
    assert [v for k, v in heard if k == "step_ended"] == [0, 1, 2, 3, 4] * 2
    first_run = heard[: kinds.index("run_ended") + 1]
    assert first_run[0] == ("run_started", 0)
    assert sum(k == "completed" for k, _ in first_run) == first_run[-1][1]  # every execution was heard

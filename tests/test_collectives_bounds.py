"""Seed 004: the paper's optimal estimate, the fluid LP bound on G, and the two readings of "touched"."""

from __future__ import annotations

import numpy as np
import pytest
import simpy
from hypothesis import example, given, settings
from hypothesis import strategies as st

from schedlab.learners.utilities import selfish, wonderful_life, world_utility
from schedlab.model.contracts.routing import neighbour_lists
from schedlab.model.core.streams import Streams
from schedlab.papers.ring_bounds import fluid_bound, paper_estimate, throughput_bound
from schedlab.policies import LoadBalancing, RandomVectors, ShippingAgents
from schedlab.processes.network.network import ServerNetwork
from schedlab.topologies import small_world_ring


def test_throughput_bound_by_hand():
    # one server (speed 1, resource 2 = 1), 4 steps, three jobs of 2 cycles: two fit in time
    assert throughput_bound(np.array([[1, 1]]), np.array([[2, 1]] * 3), 4) == pytest.approx(2 / 3)
    # in continuous time the same: 3 jobs x 2 = 6 > 4
    assert throughput_bound(np.array([[1, 1]]), np.array([[2, 1]] * 3), 4, whole_steps=False) == pytest.approx(2 / 3)
    # speed 2: 3 cycles take ceil(3 / 2) = 2 whole steps, 1.5 in continuous time
    caps, jobs = np.array([[2, 1]]), np.array([[3, 1]] * 4)
    assert throughput_bound(caps, jobs, 4) == pytest.approx(2 / 4)
    assert throughput_bound(caps, jobs, 3, whole_steps=False) == pytest.approx(2 / 4)
    # a job that fits nowhere (resource 2 = 2 > 1) is never processed; the other server takes the rest
    caps = np.array([[1, 1], [1, 3]])
    assert throughput_bound(caps, np.array([[1, 4], [1, 2], [1, 1]]), 10) == pytest.approx(2 / 3)


def test_paper_estimate_matches_table_iv_and_fluid_bound_is_larger_where_jobs_take_several_steps():
    # E[s] E[c_2] / M^2 = 4.5^2 / 64 when every capacity pair appears once: 0.3164 / 0.8 = 0.3955 (Table IV: 0.395)
    caps = np.array([[s, c] for s in range(1, 9) for c in range(1, 9)])
    assert paper_estimate(caps, 8, 0.8) == pytest.approx(0.3955, abs=1e-4)
    assert paper_estimate(caps, 8, 0.2) == 1.0
    assert fluid_bound(caps, 8, 0.8, 400) > paper_estimate(caps, 8, 0.8)
    assert fluid_bound(caps, 8, 0.0, 400) == 1.0
    with pytest.raises(ValueError, match="steps must be a whole number >= 1, got 0"):
        fluid_bound(caps, 8, 0.8, 0)


@settings(max_examples=20, deadline=None)
@given(
    n=st.integers(3, 10),
    k=st.integers(1, 3),
    m=st.integers(1, 5),
    r=st.floats(0.05, 1),
    lb=st.booleans(),
    seed=st.integers(0, 2**31),
)
def test_no_run_beats_the_fluid_bound(n, k, m, r, lb, seed):
    streams = Streams(seed)
    graph = small_world_ring(n, seed=streams["topology"])
    caps = streams["capacities"].integers(1, m + 1, size=(n, k))
    agents = ShippingAgents(neighbour_lists(graph), 2**k, streams["routing"])
    rule = LoadBalancing(0.1, streams["routing"]) if lb else RandomVectors(agents, streams["exploration"])
    env = simpy.Environment()
    net = ServerNetwork(env, graph, caps, r, m, rule, streams["arrivals"], streams["requirements"], steps=25, runs=3)
    seen = []
    net.run_ended.connect(lambda o: seen.append((o.efficiency, throughput_bound(caps, o.requirements, 25))))
    env.run(net.done)
    for g, bound in seen:
        assert np.isnan(g) or g <= bound + 1e-9


@settings(max_examples=15, deadline=None)
@given(n=st.integers(3, 10), m=st.integers(1, 5), r=st.floats(0.05, 1), seed=st.integers(0, 2**31))
@example(n=3, m=1, r=0.0508, seed=57)  # a run with no job: G is nan (found at 300 examples)
def test_touch_readings(n, m, r, seed):
    """Visits: every job is touched by the agent of its class where it entered (eq. 5's remark);
    decisions are a subset of visits; the curves (G) do not depend on the reading."""
    curves, outcomes = {}, {}
    for touches in ("visit", "decision"):
        streams = Streams(seed)
        graph = small_world_ring(n, seed=streams["topology"])
        caps = streams["capacities"].integers(1, m + 1, size=(n, 2))
        agents = ShippingAgents(neighbour_lists(graph), 4, streams["routing"])
        env = simpy.Environment()
        net = ServerNetwork(env, graph, caps, r, m, RandomVectors(agents, streams["exploration"]),
                            streams["arrivals"], streams["requirements"], steps=20, runs=2,
                            touches=touches)  # fmt: skip
        seen = []
        net.run_ended.connect(seen.append)
        env.run(net.done)
        curves[touches], outcomes[touches] = net.curve, seen
    np.testing.assert_array_equal(curves["visit"], curves["decision"])  # nan (a run with no job) equals nan
    for visit, decision in zip(outcomes["visit"], outcomes["decision"], strict=True):
        v = set(zip(visit.touch_agent.tolist(), visit.touch_job.tolist(), strict=True))
        d = set(zip(decision.touch_agent.tolist(), decision.touch_job.tolist(), strict=True))
        assert d <= v
        assert set(visit.touch_job.tolist()) == set(range(len(visit.weights)))  # every job touched at least once
        # each job is executed at most at one agent, and that agent touched it
        done = visit.executed_agent >= 0
        assert (done == visit.executed).all()
        assert all((int(visit.executed_agent[j]), j) in v for j in np.flatnonzero(done))
        # WLU is G minus clamped G, at most G; the two SU readings: "agent" never above "system".
        # A run with no job has G = nan (documented in world_utility): nothing to compare there.
        g = world_utility(visit)
        assert np.isnan(g) or (wonderful_life(visit) <= g + 1e-12).all()
        su, su_here = selfish(visit), selfish(visit, "agent")
        ok = np.isfinite(su)
        assert (su_here[ok] <= su[ok] + 1e-12).all()


def test_selfish_reading_is_checked():
    state = ServerNetwork  # any object: the reading is checked first
    with pytest.raises(ValueError, match="executed: unknown 'somewhere'"):
        selfish(state, "somewhere")


@pytest.mark.slow
def test_reproduction_at_a_small_budget_wlu_beats_tg_and_rand_and_lb_falls_below_rand():
    """(r, M) = (0.2, 8), 2 networks, 80 runs (30 random + 50 learning): the paper's ordering of Table II."""
    from pathlib import Path

    from schedlab.experiment import run

    scenario = Path(__file__).resolve().parent.parent / "scenarios" / "collectives.py"
    overrides = {"arrival_probs": (0.2,), "max_requirements": (8,), "algorithms": ("rand", "tg", "wlu", "lb"),
                 "runs": 80, "warmup": 30, "curves_dir": ""}  # fmt: skip
    frame = run(scenario, overrides=overrides, reps=2, executor="serial", keep_records=False).frame()
    g = frame.set_index("algorithm")["efficiency_last10"]
    assert g["wlu"] > g["tg"] > g["rand"] > g["lb"]

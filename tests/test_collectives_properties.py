"""Invariants of the seed-004 ring model under Hypothesis: jobs conserved, fits respected, shipped jobs in front."""

from __future__ import annotations

import numpy as np
import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.model.contracts.routing import neighbour_lists
from schedlab.model.core.job import Job
from schedlab.model.core.streams import Streams
from schedlab.policies import LoadBalancing, RandomVectors, ShippingAgents, job_load
from schedlab.policies.load_balancing import heaviest
from schedlab.processes.network.network import ServerNetwork
from schedlab.topologies import small_world_ring


class Watched:
    """Wraps a rule: checks, at each decisions phase, where last step's shipments landed."""

    def __init__(self, rule, failures):
        self.rule, self.failures = rule, failures
        self.shipped: list[tuple[int, object, int]] = []

    def bind(self, network):
        self.rule.bind(network)

    def begin_run(self, run):
        self.shipped = []
        self.rule.begin_run(run)

    def decide(self, network):
        # jobs that reached their destination this step sit at the front of its queue (ahead of
        # every job that was there), in reverse order of delivery, or started at once
        arrived: dict[int, list] = {}
        for hop, job, dest in self.shipped:
            if hop == dest:
                arrived.setdefault(dest, []).append(job)
        for dest, jobs in arrived.items():
            server = network.servers[dest]
            waiting = [j for j in reversed(jobs) if j is not server.running]
            front = list(server.queue.items)[: len(waiting)]
            if front != waiting:
                self.failures.append(("not at the front", network.env.now, dest))
        decisions = self.rule.decide(network)
        nh = network.next_hop
        self.shipped = [(nh[s][d], job, d) for s, job, d in decisions]
        return decisions


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(3, 12),
    k=st.integers(1, 3),
    m=st.integers(1, 6),
    r=st.floats(0, 1),
    lb=st.booleans(),
    seed=st.integers(0, 2**31),
)
def test_jobs_conserved_fits_respected_and_shipped_jobs_land_in_front(n, k, m, r, lb, seed):
    s = Streams(seed)
    graph = small_world_ring(n, seed=s["topology"])
    caps = s["capacities"].integers(1, m + 1, size=(n, k))
    agents = ShippingAgents(neighbour_lists(graph), 2**k, s["routing"])
    inner = LoadBalancing(0.1, s["routing"]) if lb else RandomVectors(agents, s["exploration"])
    failures: list = []
    env = simpy.Environment()
    steps, runs = 15, 2
    net = ServerNetwork(env, graph, caps, r, m, Watched(inner, failures), s["arrivals"], s["requirements"],
                        steps=steps, runs=runs)  # fmt: skip
    outcomes = []
    net.run_ended.connect(outcomes.append)
    for t in range(steps * runs):
        env.run(t + 0.5)
        # conservation: every job of the run is executed, waiting, running or on a link
        assert net.arrived == net.executed() + net.queued() + net.running() + net.in_transit()
        for i, server in enumerate(net.servers):
            job = server.running
            if job is not None:  # whole-step service: every job is seen running at some t + 0.5
                req = [job.runtime, *job.demands.values()]
                assert all(req[x] <= caps[i][x] for x in range(1, k)), (i, req, caps[i])
            # LB's bookkeeping of what the server holds matches its jobs
            held = list(server.queue.items) + ([job] if job is not None else [])
            sums = np.array([[j.runtime, *j.demands.values()] for j in held]).sum(axis=0) if held else np.zeros(k)
            np.testing.assert_allclose(server.held, sums)
    env.run(net.done)
    assert not failures, failures[:3]
    assert len(outcomes) == runs and len(net.curve) == runs
    for o in outcomes:
        assert o.executed.sum() <= len(o.weights)


@given(
    caps=st.lists(st.integers(1, 9), min_size=1, max_size=4),
    rows=st.lists(st.lists(st.integers(1, 9), min_size=4, max_size=4), max_size=30),
)
def test_lb_heaviest_is_the_first_job_of_highest_load(caps, rows):
    """LB's written-out scan picks the very job max(..., key=job_load) picks: the first of equal loads."""
    names = [f"r{k + 1}" for k in range(1, len(caps))]
    jobs = [Job(i, 0.0, float(row[0]), demands=dict(zip(names, row[1:], strict=False))) for i, row in enumerate(rows)]
    expected = max(jobs, key=lambda j: job_load(j, caps)) if jobs else None
    assert heaviest(jobs, caps) is expected

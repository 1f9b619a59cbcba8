"""The grid model of seed 003: resources, ring agents, loads, and the baselines' decisions."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest
import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.learners import OrdinalSharing, SimpleLearning
from schedlab.model.analysis import metrics
from schedlab.model.contracts.grid import GridTopology, ring_order
from schedlab.model.core.job import Job
from schedlab.model.core.streams import Streams
from schedlab.model.core.workloads import PoissonJobs
from schedlab.model.records.job_record import Status
from schedlab.model.records.table import records_frame
from schedlab.policies import DecentralisedMinMin, LeastLoaded, RandomSelection
from schedlab.processes.grid.grid import GridModel
from schedlab.processes.grid.resources import GridModelView as GridView
from schedlab.processes.grid.resources import GridResources
from schedlab.topologies import ordinal_ring

ROOT = Path(__file__).resolve().parent.parent


def make_policy(name, streams, period=2):
    return {
        "osl": lambda: OrdinalSharing(rng=streams["exploration"]),
        "sls": lambda: SimpleLearning(rng=streams["exploration"]),
        "lls": lambda: LeastLoaded(streams["routing"]),
        "rs": lambda: RandomSelection(streams["routing"]),
        "dmms": lambda: DecentralisedMinMin(period),
    }[name]()


def grid_run(policy, agents, resources, xi, steps, seed=0, cap=(50.0, 350.0), ring=None, env=None):
    streams = Streams(seed)
    caps = streams["capacities"].uniform(*cap, resources)
    env = env or simpy.Environment()
    jobs = PoissonJobs(xi, 5.0, 995.0, streams["arrivals"], streams["lengths"])
    topology = GridTopology.complete(agents, caps, sharing=ring)
    model = GridModel(env, topology, make_policy(policy, streams), jobs, steps=steps)
    return env, model


def test_eq7_load_matches_the_offered_work_measured_in_a_run():
    """gamma = N xi (Jmin + Jmax)/2 / sum C (eq. 7); the work that actually arrives over 400 steps,
    per step and per unit of capacity, is within 5% of it (about 3 standard deviations here)."""
    env, model = grid_run("lls", 20, 50, 0.6, 400, seed=4)
    caps = model.resources.capacities
    assert model.load == pytest.approx(20 * 0.6 * 500.0 / caps.sum())
    env.run(until=model.done)
    offered = model.resources.offered_work / (400 * caps.sum())
    assert offered == pytest.approx(model.load, rel=0.05)
    # and what the servers were given is what the jobs asked for
    assert sum(r.runtime for r in model.all_records()) == pytest.approx(model.resources.offered_work)


def test_system_load_by_hand():
    # section 4.1 (a): 30 agents x 0.93 jobs of mean length 500 on 100 resources of mean capacity 200
    assert metrics.system_load([0.93] * 30, 500.0, [200.0] * 100) == pytest.approx(0.6975)
    with pytest.raises(ValueError, match="mean_length must be finite and > 0"):
        metrics.system_load([1.0], 0.0, [1.0])


def test_lor_is_each_servers_queued_length_over_capacity():
    """The busy-until view gives the same LoR as walking each server's queue (eq. 2), at every step."""
    env, model = grid_run("rs", 6, 5, 1.0, 40, seed=2)
    gaps = []

    def probe():
        while True:
            yield env.timeout(1)
            exact = [s.load() for s in model.resources.servers]
            gaps.append(np.max(np.abs(model.resources.lor() - exact)))

    env.process(probe())
    env.run(until=model.done)
    assert len(gaps) >= 39 and max(gaps) < 1e-9


def test_a_completion_carries_who_where_and_when_and_its_record_is_the_resources_own():
    """``completed`` gives agent, resource, job, start and end; ``record`` is made when read, equal to the kept one."""
    env = simpy.Environment()
    grid = GridResources(env, [2.0, 4.0])
    heard = []
    grid.completed.connect(heard.append)
    grid.submit(1, Job(0, 0.0, 8.0, origin=3))  # 8 / 4 = 2 time units
    grid.submit(1, Job(1, 0.0, 4.0, origin=5))  # waits for the first, then 1 more
    env.run()
    seen = [(e.agent, e.resource, e.job.id, e.start, e.end) for e in heard]
    assert seen == [(3, 1, 0, 0.0, 2.0), (5, 1, 1, 2.0, 3.0)]
    assert [e.record for e in heard] == grid.all_records()
    assert heard[1].record.wait == 2.0 and heard[1].record.machine == "r1"


def test_a_mailbox_hands_each_token_to_its_waiting_reader_on_one_plain_event():
    """A post to a waiting reader fires its wait() event; a token posted first is there when it waits."""
    from schedlab.processes.grid.grid import Mailbox

    env = simpy.Environment()
    box = Mailbox(env)
    got = []

    def reader():
        for _ in range(2):
            token = yield box.wait()
            got.append((env.now, token))

    def writer():
        yield env.timeout(1)
        box.post("a")  # the reader waits already
        box.post("b")  # kept until the reader asks again
        yield env.timeout(0)

    env.process(reader())
    env.process(writer())
    env.run()
    assert got == [(1, "a"), (1, "b")] and not box.items


def test_same_seed_same_records_and_series():
    def once():
        env, model = grid_run("osl", 8, 6, 0.8, 60, seed=11)
        env.run(until=model.done)
        return model.all_records(), model.series.column("alor")

    (rec_a, alor_a), (rec_b, alor_b) = once(), once()
    assert len(rec_a) > 100
    assert records_frame(rec_a).equals(records_frame(rec_b))  # equals(): waiting jobs' nan times match too
    np.testing.assert_array_equal(alor_a, alor_b)


def test_simpy_model_matches_an_independent_numpy_implementation():
    """benchmarks/_numpy_osl.py writes the same model without SimPy (completion times known at submission):
    same streams, same decisions, so the same ALoR, max/std LoR and ATPT series."""
    spec = importlib.util.spec_from_file_location("_numpy_osl", ROOT / "benchmarks" / "_numpy_osl.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    ref = module.numpy_osl(12, 30, 0.9, 150, seed=7)
    streams = Streams(7)
    caps = streams["capacities"].uniform(50.0, 350.0, 30)
    env = simpy.Environment()
    jobs = PoissonJobs(0.9, 5.0, 995.0, streams["arrivals"], streams["lengths"])
    model = GridModel(env, GridTopology.complete(12, caps), OrdinalSharing(rng=streams["exploration"]), jobs, steps=150)
    env.run(until=model.done)
    for name in ("alor", "lor_max", "lor_std", "atpt"):
        np.testing.assert_allclose(model.series.column(name), ref[name], rtol=1e-12, atol=1e-12, err_msg=name)


@settings(max_examples=30, deadline=None)
@given(
    policy=st.sampled_from(["osl", "sls", "lls", "rs", "dmms"]),
    agents=st.integers(1, 4),
    resources=st.integers(1, 4),
    xi=st.floats(0.0, 2.0),
    steps=st.integers(1, 12),
    seed=st.integers(0, 2**16),
    shuffled=st.booleans(),
)
def test_work_conserved_fifo_and_every_job_completes_once(policy, agents, resources, xi, steps, seed, shuffled):
    ring = None
    if shuffled and agents > 1:  # any cycle through the agents, not only 0 -> 1 -> ...
        order = [0, *np.random.default_rng(seed).permutation(np.arange(1, agents)).tolist()]
        ring = ordinal_ring(agents)
        ring.clear_edges()
        ring.add_edges_from(zip(order, order[1:] + order[:1], strict=True))
    env, model = grid_run(policy, agents, resources, xi, steps, seed=seed, ring=ring)
    submitted: list[tuple[int, object]] = []
    plain = model.resources.submit

    def logged(resource, job):
        submitted.append((resource, job))
        plain(resource, job)

    model.resources.submit = logged  # the agents look it up when they first run
    env.run(until=model.done)
    env.run()  # drain the queues: nothing arrives after the last step
    records = model.all_records()
    assert len(submitted) == model.resources.submitted
    ids = [r.id for r in records]
    assert sorted(ids) == sorted(job.id for _, job in submitted) and len(set(ids)) == len(ids)
    assert all(r.status is Status.COMPLETED for r in records)
    by_id = {r.id: r for r in records}
    caps = model.resources.capacities
    for j, server in enumerate(model.resources.servers):
        mine = [job for res, job in submitted if res == j]
        served = [r.id for r in server.records]
        assert served == [job.id for job in mine]  # FIFO: served in the order submitted
        free = 0.0
        for job in mine:  # never idle while a job waits; each job takes exactly J / C
            r = by_id[job.id]
            assert r.machine == f"r{j}"
            assert r.start == pytest.approx(max(free, job.submit))
            assert (r.end - r.start) * caps[j] == pytest.approx(job.runtime)
            free = r.end
    assert sum(r.runtime for r in records) == pytest.approx(model.resources.offered_work)


def test_least_loaded_picks_the_smallest_lor_and_sees_its_own_submissions():
    streams = Streams(0)
    env = simpy.Environment()
    grid = GridResources(env, [1.0, 2.0, 4.0])
    view = GridView(env, grid, 1)
    lls = LeastLoaded(streams["routing"])
    lls.bind(view)
    grid.submit(0, Job(0, 0.0, 3.0))  # LoR 3
    grid.submit(1, Job(1, 0.0, 2.0))  # LoR 1
    grid.submit(2, Job(2, 0.0, 8.0))  # LoR 2
    picks = []
    for k, (_pos, j) in enumerate(lls.assign(0, np.array([4.0, 4.0]))):
        picks.append(j)
        grid.submit(j, Job(3 + k, 0.0, 4.0))
    assert picks == [1, 2]  # r1 (LoR 1), which then has LoR 3; r2 (LoR 2) is next


def test_dmms_sees_others_only_at_refresh_and_runs_min_min():
    """Min-Min on its jobs: the job with the earliest possible completion first; between refreshes an
    agent's picture holds its own submissions, not other agents'."""
    env = simpy.Environment()
    grid = GridResources(env, [1.0, 10.0])
    dmms = DecentralisedMinMin(period=2)
    dmms.bind(GridView(env, grid, 2))
    # agent 0: jobs of length 10 and 1: the short one completes first anywhere (r1 at 0.1), then the long
    # one: r1 at 0.1 + 1 = 1.1 beats r0 at 10
    assert list(dmms.assign(0, np.array([10.0, 1.0]))) == [(1, 1), (0, 1)]
    grid.submit(1, Job(0, 0.0, 11.0))
    # agent 1 has not heard of agent 0's jobs: r1 still looks idle
    assert list(dmms.assign(1, np.array([5.0]))) == [(0, 1)]
    dmms.end_step(0)  # step 1 of period 2: no refresh
    assert dmms.ready[1, 1] == pytest.approx(0.5)
    dmms.end_step(1)  # refresh: every agent now has the service's exact figure
    np.testing.assert_allclose(dmms.ready[1], grid.busy_until)
    with pytest.raises(ValueError, match=r"period \(DMMS refresh, in steps\) must be a whole number >= 1, got 0"):
        DecentralisedMinMin(period=0)


def test_random_selection_is_uniform():
    rs = RandomSelection(np.random.default_rng(3))
    env = simpy.Environment()
    rs.bind(GridView(env, GridResources(env, [1.0] * 4), 1))
    counts = np.bincount([j for _, j in rs.assign(0, np.ones(8000))], minlength=4)
    assert np.all(np.abs(counts - 2000) < 150)


def test_errors_name_the_field_and_value():
    streams = Streams(0)
    jobs = PoissonJobs(1.0, 5.0, 995.0, streams["arrivals"], streams["lengths"])
    env = simpy.Environment()
    with pytest.raises(ValueError, match=r"system load \(eq. 7\) = 1.25 >= 1 with no horizon"):
        GridModel(env, GridTopology.complete(1, [400.0]), RandomSelection(streams["routing"]), jobs, steps=None)
    # the same load over a finite horizon is a legitimate (overload) experiment
    GridModel(env, GridTopology.complete(1, [400.0]), RandomSelection(streams["routing"]), jobs, steps=10)
    with pytest.raises(ValueError, match=r"\[Jmin, Jmax\] = \[10.0, 5.0\] is empty"):
        PoissonJobs(1.0, 10.0, 5.0, streams["arrivals"], streams["lengths"])
    with pytest.raises(ValueError, match="arrival rate xi must be finite and >= 0, got -1"):
        PoissonJobs(-1, 1.0, 5.0, streams["arrivals"], streams["lengths"])
    with pytest.raises(ValueError, match="agents: need N >= 1 scheduler agents, got 0"):
        GridTopology.complete(0, [1.0])
    with pytest.raises(ValueError, match=r"need at least one resource \(M >= 1\), got 0"):
        GridTopology.complete(1, [])
    with pytest.raises(ValueError, match=r"capacity of resource 1 must be finite and > 0, got 0\.0"):
        GridResources(env, [1.0, 0.0])
    with pytest.raises(ValueError, match="steps: the horizon must be a whole number >= 1"):
        GridModel(env, GridTopology.complete(1, [1.0]), RandomSelection(streams["routing"]), jobs, steps=0)
    with pytest.raises(ValueError, match=r"record_every must be a whole number >= 1, got 0\.5"):
        GridModel(
            env, GridTopology.complete(1, [1.0]), RandomSelection(streams["routing"]), jobs, steps=1, record_every=0.5
        )
    with pytest.raises(ValueError, match=r"topology: 2 resources, but 1 capacities"):
        GridTopology(1, 2, np.zeros((1, 2)), np.ones((1, 2), dtype=bool), (0,), ((0,),), np.ones(1))
    with pytest.raises(ValueError, match="ring: not one cycle through all 3 agents"):
        ring = ordinal_ring(3)
        ring.remove_edge(1, 2)
        ring.add_edge(1, 0)
        ring_order(ring, 3)


def test_series_samples_every_k_steps_and_at_the_end():
    env = simpy.Environment()
    streams = Streams(1)
    jobs = PoissonJobs(0.5, 5.0, 995.0, streams["arrivals"], streams["lengths"])
    grid = GridTopology.complete(2, [100.0] * 3)
    model = GridModel(env, grid, LeastLoaded(streams["routing"]), jobs, steps=25, record_every=10)
    env.run(until=model.done)
    assert model.series.column("time").tolist() == [0.0, 10.0, 20.0, 25.0]
    assert env.now == 25.0 and model.step == 25
    atpt = model.series.column("atpt")
    done = [r for r in model.all_records() if r.status is Status.COMPLETED]
    assert atpt[-1] == pytest.approx(metrics.average_time_per_token(done))
    assert math.isnan(atpt[0])


@pytest.mark.parametrize("policy", ["rs", "lls", "dmms", "sls"])
def test_skipping_idle_agents_changes_nothing(policy):
    """Policies that share nothing give turns only to agents with new jobs; forcing every agent's turn
    round the full ring (shares = True) gives the same schedule."""

    def schedule(full_ring):
        streams = Streams(3)
        grid_policy = make_policy(policy, streams)
        if full_ring:
            grid_policy.shares = True
        env = simpy.Environment()
        jobs = PoissonJobs(0.3, 5.0, 995.0, streams["arrivals"], streams["lengths"])
        grid = GridTopology.complete(12, streams["capacities"].uniform(50, 350, 8))
        model = GridModel(env, grid, grid_policy, jobs, steps=60)
        env.run(until=model.done)
        return sorted((r.id, r.machine, r.start) for r in model.all_records())

    skipped, full = schedule(False), schedule(True)
    assert len(skipped) > 100 and skipped == full


class Unchecked:
    """A job source that says nothing about its lengths: the model checks each job it makes."""

    def __init__(self, source):
        self.source = source

    def lengths(self, step, agents):
        return self.source.lengths(step, agents)


def test_jobs_from_poisson_lengths_are_made_unchecked_and_are_the_same_jobs():
    """PoissonJobs says its lengths are valid (drawn between checked bounds), so the model makes its jobs
    without checking each; the same draws through a source that says nothing give the same jobs and schedule."""

    def run(wrap):
        streams = Streams(5)
        jobs = PoissonJobs(0.9, 5.0, 995.0, streams["arrivals"], streams["lengths"])
        env = simpy.Environment()
        model = GridModel(
            env,
            GridTopology.complete(4, streams["capacities"].uniform(50, 350, 6)),
            OrdinalSharing(rng=streams["exploration"]),
            wrap(jobs),
            steps=40,
        )
        env.run(until=model.done)
        return model

    trusted, checked = run(lambda jobs: jobs), run(Unchecked)
    assert PoissonJobs.lengths_checked and not hasattr(Unchecked, "lengths_checked")
    assert records_frame(trusted.all_records()).equals(records_frame(checked.all_records()))
    np.testing.assert_array_equal(trusted.series.column("atpt"), checked.series.column("atpt"))
    # each broker has read its predecessor's message of the last step: one left on the ring, for agent 0
    assert list(trusted.board) == [(3, 0)]


def test_a_source_that_does_not_vouch_for_its_lengths_gets_each_job_checked():
    class Zero:
        def lengths(self, step, agents):
            return [[0.0]] + [[] for _ in range(agents - 1)]

    env = simpy.Environment()
    GridModel(env, GridTopology.complete(2, [1.0, 2.0]), RandomSelection(np.random.default_rng(0)), Zero(), steps=2)
    with pytest.raises(ValueError, match=r"job 0: runtime must be finite and > 0, got 0\.0"):
        env.run()


def test_poisson_jobs_moved_to_the_workloads_and_the_old_path_says_so():
    # tutorial 5 imported it from the grid's contract; it is a workload generator (issue 34)
    import schedlab.model.contracts.grid as contract
    from schedlab.model.core.workloads import PoissonJobs as moved

    with pytest.warns(DeprecationWarning, match="moved to schedlab.model.core.workloads.PoissonJobs"):
        assert contract.PoissonJobs is moved

"""Seed 001's site: fair share and responsiveness by hand, runtime estimates, the elastic pool, the scenario."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest
import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.experiment import run
from schedlab.experiment.scenario import load_scenario
from schedlab.learners.approximators import ApproximatorConfig, make_approximator
from schedlab.learners.sarsa import Sarsa, SarsaConfig
from schedlab.model.analysis.estimates import MedianRuntime
from schedlab.model.analysis.fair_share import FairShare, FairShareError, responsiveness_utility
from schedlab.model.contracts.site import SiteFeatures
from schedlab.model.core.job import Job
from schedlab.model.records.job_record import Status
from schedlab.model.records.table import job_record
from schedlab.policies import FCFS
from schedlab.policies.site_supervisor import EarliestDeadlineFirst, SarsaScheduler
from schedlab.processes import Machine, Source
from schedlab.processes.machine.elastic import ElasticPool

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "responsive_grid.py"


def test_responsiveness_by_hand():
    assert responsiveness_utility(60.0, 0.0) == 1.0
    assert responsiveness_utility(60.0, 180.0) == 0.25  # waited three times its length: V = 3, W = 1/(1+V)
    assert responsiveness_utility(0.0, 0.0) == 1.0


def test_fair_share_by_hand():
    fs = FairShare({"a": 0.5, "b": 0.3, "c": 0.2})
    # a gets everything first: b is short by 0.3, the deficit; M = 0.5
    assert fs.elect("a", 10.0) == pytest.approx(1 - 0.3 / 0.5)
    # then b gets 10: shares 0.5/0.5/0 -> c short by 0.2
    assert fs.elect("b", 10.0) == pytest.approx(1 - 0.2 / 0.5)
    # then c gets 5: shares 0.4/0.4/0.2 -> a short by 0.1
    assert fs.elect("c", 5.0) == pytest.approx(1 - 0.1 / 0.5)
    assert fs.deficit() == pytest.approx(0.1)


def test_the_unfeasible_schedule_is_worth_at_most_0_625():
    # section 5.2: targets 0.4/0.2/0.2/0.2, load 0.7/0.2/0.05/0.05
    fs = FairShare({"1": 0.4, "2": 0.2, "3": 0.2, "4": 0.2})
    for group, amount in [("1", 70.0), ("2", 20.0), ("3", 5.0), ("4", 5.0)]:
        f = fs.elect(group, amount)
    assert f == pytest.approx(0.625)


@pytest.mark.parametrize(
    "targets, message",
    [
        ({"a": 0.5, "b": 0.3}, "sum to 1"),
        ({"a": 1.2, "b": -0.2}, ">= 0"),
        ({}, "at least one"),
    ],
)
def test_bad_fair_share_targets_are_named(targets, message):
    with pytest.raises(FairShareError, match=message):
        FairShare(targets)


def _done(job, service):
    return job_record(job, "m", Status.COMPLETED, start=0.0, end=service, cpu_time=service)


def test_median_runtime_over_a_sliding_window_per_class():
    est = MedianRuntime(window=3, default={"interactive": 450.0, "batch": 3600.0})
    short = Job(id=0, submit=0.0, runtime=1.0, cpus=1, job_class="interactive")
    long = Job(id=1, submit=0.0, runtime=1.0, cpus=1, job_class="batch")
    assert (est.estimate(short), est.estimate(long)) == (450.0, 3600.0)
    for service in [100.0, 300.0, 200.0, 900.0]:  # the window keeps the last 3: 300, 200, 900
        est.observe(_done(short, service))
    assert est.estimate(short) == 300.0 and est.estimate(long) == 3600.0
    with pytest.raises(ValueError, match="at least 1 job"):
        MedianRuntime(window=0, default=1.0)


def test_edf_elects_by_submit_plus_execution_time():
    from schedlab.model.analysis.estimates import OracleRuntime

    jobs = [
        Job(id=0, submit=0.0, runtime=500.0, cpus=1),
        Job(id=1, submit=100.0, runtime=10.0, cpus=1),
        Job(id=2, submit=50.0, runtime=100.0, cpus=1),
    ]
    assert EarliestDeadlineFirst(OracleRuntime()).pick(jobs) == 1  # deadlines 500, 110, 150


def test_scheduler_refuses_bad_lambda():
    with pytest.raises(ValueError, match="lambda"):
        SarsaScheduler(None, SiteFeatures(("a",), 4), MedianRuntime(5, 1.0), weight=1.5)


class _Random:
    """A chooser that picks uniformly: the pool's constraints must hold whatever it chooses."""

    def __init__(self, seed):
        self.rng, self.n, self.rewards = np.random.default_rng(seed), 0, []

    def choose(self, rows, forced=None):
        self.n += 1
        return int(self.rng.integers(len(rows))), self.n - 1

    def rewarded(self, event):  # the pool's period_ended signal: one reward per decision, in order
        assert event.decision == len(self.rewards) and 0.0 <= event.reward <= 1.0
        self.rewards.append(event.reward)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.floats(0, 500), st.integers(1, 16), st.floats(1, 400)), min_size=1, max_size=40),
    st.integers(1, 8),
    st.integers(0, 10_000),
)
def test_elastic_pool_respects_floor_running_jobs_and_period(specs, floor, seed):
    env = simpy.Environment()
    jobs = [Job(id=i, submit=s, runtime=r, cpus=c) for i, (s, c, r) in enumerate(sorted(specs))]
    checks = []

    def fcfs_checked(view):
        checks.append((view.capacity, view.capacity - view.free))
        return FCFS()(view)

    machine = Machine(env, 16, fcfs_checked)
    features = SiteFeatures(("",), 16)
    pool = ElasticPool(
        env,
        machine,
        _Random(seed),
        features,
        MedianRuntime(5, 10.0),
        sizes=[2, 4, 8, 12, 16],
        period=60.0,
        floor=floor,
        weight=0.5,
        pretrain=0,
    )
    sizer = pool.sizer
    pool.period_ended.connect(sizer.rewarded)
    Source(env, jobs, machine)
    done = env.event()
    machine.completed.connect(lambda _: len(machine.records) == len(jobs) and not done.triggered and done.succeed())
    env.run(until=env.any_of([done, env.timeout(10**7)]))
    times = [t for t, _ in pool.history]
    assert all(b - a == pytest.approx(60.0) for a, b in itertools.pairwise(times))  # one change per period
    assert all(size >= floor for _, size in pool.history)
    assert all(capacity >= busy for capacity, busy in checks)  # running jobs never lose their cores
    assert len(machine.records) == len(jobs)  # every job ran (16 cores is always a candidate)
    assert len(sizer.rewards) in (len(pool.history), len(pool.history) - 1)  # every period that ended was heard


def test_elastic_pool_refuses_bad_settings():
    env = simpy.Environment()
    machine = Machine(env, 16, FCFS())
    features = SiteFeatures(("",), 16)
    for bad, message in [
        (dict(floor=0), "floor"),
        (dict(period=0), "period"),
        (dict(weight=2), "lambda"),
        (dict(sizes=[40]), "sizes"),
    ]:
        kwargs = dict(sizes=[8, 16], period=60.0, floor=4, weight=0.5) | bad
        with pytest.raises(ValueError, match=message):
            ElasticPool(env, machine, _Random(0), features, MedianRuntime(5, 1.0), **kwargs)


def test_sarsa_scheduler_elects_and_is_rewarded_at_completion():
    import torch

    torch.set_num_threads(1)
    env = simpy.Environment()
    features = SiteFeatures(("a", "b"), 2)
    learner = Sarsa(
        make_approximator(
            features.state_size + features.action_size, ApproximatorConfig(units=20), np.random.default_rng(0)
        ),
        SarsaConfig(refit_every=3),
        np.random.default_rng(1),
    )
    from schedlab.model.analysis.estimates import OracleRuntime

    scheduler = SarsaScheduler(
        learner, features, OracleRuntime(), fair_share=FairShare({"a": 0.5, "b": 0.5}), weight=0.5, pretrain=4
    )
    machine = Machine(env, 2, scheduler)
    machine.completed.connect(scheduler.completed)
    jobs = [
        Job(
            id=i,
            submit=float(i),
            runtime=float(1 + i % 3),
            cpus=1,
            group="ab"[i % 2],
            job_class="interactive" if i % 3 == 0 else "batch",
        )
        for i in range(30)
    ]
    Source(env, jobs, machine)
    env.run()
    assert len(machine.records) == 30 and scheduler.elections == 30
    assert learner.examples == 29  # every election but the last has its reward and a successor


@pytest.mark.parametrize(
    "override, message",
    [
        ({"lambda_s": 1.5}, "lambda_s"),
        ({"epsilon": -0.1}, "epsilon"),
        ({"vo_shares": (0.5, 0.2, 0.2, 0.2)}, "sum to 1"),
        ({"estimate_window": 0}, "estimate_window"),
        ({"approximator": "gp"}, "approximator"),
        ({"settings": ("RIG-XYZ-1",)}, "unknown settings"),
        ({"rho": 1.0}, "rho"),
    ],
)
def test_bad_scenario_configuration_is_named(override, message):
    with pytest.raises(ValueError, match=message):
        load_scenario(SCENARIO).config(override)


def test_scenario_runs_both_experiments():
    overrides = {
        "experiment": "both",
        "jobs": 400,
        "drop": 50,
        "log_jobs": 400,
        "log_weeks": 1,
        "interactive_shares": (0.5,),
        "fair_shares": ("feasible", "unfeasible"),
        "synthetic_settings": ("FIFO", "RL"),
        "pretrain": 50,
        "pool_pretrain": 2,
        "settings": ("NATIVE", "FIFO", "RIG-ORA-1", "ELA-EST-0.5"),
        "reps_synthetic": 1,
    }
    results = run(SCENARIO, overrides=overrides, executor="serial", progress=False, keep_records=False)
    rows = {(r["experiment"], r["fairness"], r["setting"]): r for r in results.rows}
    assert len(rows) == 4 + 4
    fifo = rows[("synthetic", "feasible", "FIFO")]
    assert fifo["completed"] == 300 and fifo["wait_interactive_mean"] >= 0
    assert 0 < rows[("synthetic", "unfeasible", "RL")]["fair_share_final"] <= 1
    native = rows[("log", "observed", "NATIVE")]
    assert native["pool_mean"] == 140 and 0 < native["utilization"] < 1  # LPC-EGEE: 140 cores
    elastic = rows[("log", "observed", "ELA-EST-0.5")]
    assert 30 <= elastic["pool_mean"] <= 2 * 140  # the pool may grow beyond the site, up to 2x
    for row in rows.values():
        assert 0 <= row["interactive_under_2min"] <= 1 or math.isnan(row["interactive_under_2min"])

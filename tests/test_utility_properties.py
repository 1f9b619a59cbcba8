"""Invariants of preemption and squeezing under any workload and value function (Hypothesis)."""

from __future__ import annotations

import pytest
import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.learners.fuzzy_rulebase import FuzzyRulebase
from schedlab.learners.td import AverageRewardTD, LearningRate, TDConfig
from schedlab.model.core.job import Job
from schedlab.model.core.utility import LinearDecay
from schedlab.model.records.job_record import Status
from schedlab.policies.utility_scheduling import AggressiveScheduler, UtilityScheduler
from schedlab.processes import Machine, Source

CAPACITY = 8

jobs_strategy = st.lists(
    st.tuples(
        st.floats(0, 30, allow_nan=False),  # submit
        st.integers(1, CAPACITY),  # cpus
        st.floats(0.25, 10, allow_nan=False),  # ideal length
        st.sampled_from([0.5, 1.0, 2.0]),  # TUF exponent
    ),
    min_size=1,
    max_size=25,
)
p_strategy = st.lists(st.floats(-50, 50, allow_nan=False), min_size=8, max_size=8)


def checked(policy, log):
    """Wrap a scheduler: after every action, no job holds more CPUs than it asked for."""

    def check(view):
        held = 0
        for run in view.running:
            assert 1 <= run.cpus <= run.job.cpus, run
            held += run.cpus
        assert held + view.free == view.capacity and view.free >= 0
        log.append(held)

    def decide(view):
        check(view)
        for action in policy(view):
            yield action
            check(view)

    return decide


def simulate(policy, specs, learner=None):
    jobs = [
        Job(id=i, submit=s, runtime=length, cpus=c, utility=LinearDecay(length, e))
        for i, (s, c, length, e) in enumerate(sorted(specs))
    ]
    env = simpy.Environment()
    log: list[int] = []
    machine = Machine(env, CAPACITY, checked(policy, log))
    if learner is not None:
        machine.completed.connect(learner)
    Source(env, jobs, machine)
    env.run()
    return jobs, machine.records, log


def check_records(jobs, records):
    assert sorted(r.id for r in records) == [j.id for j in jobs]  # each job completes exactly once
    by_id = {j.id: j for j in jobs}
    for r in records:
        job = by_id[r.id]
        assert r.status is Status.COMPLETED
        # work conserved: whatever the squeezes and suspensions, it got cpus x runtime of CPU time
        assert r.cpu_time == pytest.approx(job.cpus * job.runtime, rel=1e-9)
        assert r.end - r.start >= job.runtime * (1 - 1e-9)  # never faster than with all its CPUs
        assert 0.0 <= r.utility <= job.cpus * job.runtime * (1 + 1e-12)


@settings(max_examples=60, deadline=None)
@given(jobs_strategy, st.booleans(), st.booleans())
def test_aggressive_policies_conserve_work(specs, preempt, oversubscribe):
    jobs, records, _ = simulate(AggressiveScheduler(preempt=preempt, oversubscribe=oversubscribe), specs)
    check_records(jobs, records)


@settings(max_examples=60, deadline=None)
@given(jobs_strategy, p_strategy, st.booleans(), st.booleans())
def test_value_based_policies_conserve_work(specs, p, preempt, oversubscribe):
    learner = AverageRewardTD(FuzzyRulebase(3), TDConfig(learning_rate=LearningRate(0.05)))
    learner.p = list(p)  # any value function, learning on from there
    policy = UtilityScheduler(learner, preempt=preempt, oversubscribe=oversubscribe)
    jobs, records, log = simulate(policy, specs, learner)
    check_records(jobs, records)
    assert all(0 <= held <= CAPACITY for held in log)

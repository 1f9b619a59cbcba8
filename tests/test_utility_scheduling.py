"""Seed 000's schedulers on small machines, with completion times and utilities worked by hand.

Every case scripts a few arrivals with ``LinearDecay`` time-utility functions (unit
utility 1 until the ideal length L, then down to 0 at 2L; final utility = unit x K x L).
"""

from __future__ import annotations

import math

import pytest
import simpy

from schedlab.learners.fuzzy_rulebase import FuzzyRulebase
from schedlab.learners.td import AverageRewardTD
from schedlab.model.core.job import Job
from schedlab.model.core.utility import LinearDecay
from schedlab.policies.machine_state import RunningSet, Slot
from schedlab.policies.utility_scheduling import AggressiveScheduler, UtilityScheduler
from schedlab.processes import Machine, Source


def tuf_job(id: int, submit: float, cpus: int, length: float) -> Job:
    return Job(id=id, submit=submit, runtime=length, cpus=cpus, utility=LinearDecay(length))


def run(policy, jobs, capacity: int = 8) -> dict[int, object]:
    env = simpy.Environment()
    machine = Machine(env, capacity, policy)
    Source(env, jobs, machine)
    env.run()
    return {r.id: r for r in machine.records}


def test_squeezed_job_grows_back_when_cpus_free_up():
    # t=1: job 1 (4 cpus, L=2) finds 2 free cpus and is squeezed onto them: half speed.
    # t=4: job 0 ends; job 1 has done 3 x 0.5 = 1.5 of its 2 ideal units, grows back to 4
    # cpus and ends 0.5 later, at 4.5. Response 3.5 = 1.75 L: unit utility 2 - 1.75 = 0.25.
    records = run(AggressiveScheduler(preempt=False), [tuf_job(0, 0, 6, 4), tuf_job(1, 1, 4, 2)])
    assert (records[0].end, records[0].utility) == (4.0, 24.0)  # 1 x 6 x 4
    r = records[1]
    assert (r.start, r.end, r.resizes, r.preemptions) == (1.0, 4.5, 1, 0)
    assert r.utility == pytest.approx(0.25 * 4 * 2)
    assert r.cpu_time == pytest.approx(4 * 2)  # work conserved: 2 cpus x 3 + 4 cpus x 0.5


def test_preempted_job_resumes_where_it_left_off():
    # t=2: job 1 (4 cpus, L=1) cannot start. Job 0 (8 cpus, L=10) would end at 10 with unit
    # utility 1: remaining unit utility 1/8, below job 1's 1/1, so job 0 is suspended.
    # Job 1 runs 2..3; job 0 resumes with 8 units left and ends at 11: unit 2 - 1.1 = 0.9.
    records = run(AggressiveScheduler(oversubscribe=False), [tuf_job(0, 0, 8, 10), tuf_job(1, 2, 4, 1)])
    assert (records[1].start, records[1].end, records[1].utility) == (2.0, 3.0, 4.0)
    r = records[0]
    assert (r.start, r.end, r.preemptions) == (0.0, 11.0, 1)
    assert r.utility == pytest.approx(0.9 * 8 * 10)
    assert r.cpu_time == pytest.approx(80.0)


def test_a_job_may_not_preempt_one_with_higher_remaining_unit_utility():
    # t=0.5: job 0 has 1.5 left, unit 1: remaining unit utility 2/3. Job 1 (L=10) would
    # earn 1 over 10 units: 0.1 < 2/3, so it waits for job 0 to end at 2, and ends at 12:
    # response 11.5 = 1.15 L, unit utility 0.85.
    records = run(AggressiveScheduler(oversubscribe=False), [tuf_job(0, 0, 8, 2), tuf_job(1, 0.5, 4, 10)])
    assert records[0].preemptions == 0
    assert (records[1].start, records[1].end) == (2.0, 12.0)
    assert records[1].utility == pytest.approx(0.85 * 4 * 10)


def test_preempt_then_squeeze_at_one_decision():
    # Jobs 0 (6 cpus) and 1 (2 cpus), both L=10, fill the machine at t=0. At t=1 job 2
    # (5 cpus, L=1) arrives: both running jobs have remaining unit utility 1/9 (a tie,
    # broken by start order), so job 0 is suspended and job 2 starts; then the smallest
    # waiting job, job 0 itself, is squeezed into the one free cpu (1/6 speed). At t=2 job
    # 2 ends and job 0 grows back to 6 cpus with 9 - 1/6 units left: it ends at 10.8333,
    # response 1.08333 L, unit utility 0.91667.
    jobs = [tuf_job(0, 0, 6, 10), tuf_job(1, 0, 2, 10), tuf_job(2, 1, 5, 1)]
    records = run(AggressiveScheduler(), jobs)
    assert (records[2].start, records[2].end, records[2].utility) == (1.0, 2.0, 5.0)
    assert records[1].end == 10.0 and records[1].preemptions == 0
    r = records[0]
    assert (r.preemptions, r.resizes) == (1, 1)
    assert r.end == pytest.approx(2 + 9 - 1 / 6)
    assert r.utility == pytest.approx((2 - r.end / 10) * 60)
    assert r.cpu_time == pytest.approx(60.0)


class Constant:
    """A value function for scripted tests: the value of a state is one input's weight."""

    def __init__(self, weights):
        self.weights = weights
        self.seen = []

    def value(self, x):
        return sum(w * v for w, v in zip(self.weights, x, strict=True))

    def decision_point(self, x, *, acted, considered, started):
        self.seen.append((tuple(round(v, 6) for v in x), acted, considered, started))


def test_utility_scheduler_squeezes_only_when_the_value_rises():
    jobs = [tuf_job(0, 0, 6, 4), tuf_job(1, 1, 4, 2)]
    likes_idle = Constant([0, 0, 1])  # V = x3: idle cpus are worth keeping
    records = run(UtilityScheduler(likes_idle, preempt=False), jobs)
    assert records[1].start == 4.0  # waited for all its cpus
    # t=1: considered (job 1 waits), not done; x = (1, (4-1)/10, 2/8)
    assert likes_idle.seen[1] == ((1.0, 0.3, 0.25), False, True, False)
    hates_idle = Constant([0, 0, -1])
    records = run(UtilityScheduler(hates_idle, preempt=False), jobs)
    assert (records[1].start, records[1].end) == (1.0, 4.5)  # squeezed, grown back at 4
    # after the squeeze: job 1 on 2 of 4 cpus ends at 1 + 4 = 5 (response 4 = 2L: unit 0)
    assert hates_idle.seen[1] == ((6 * 1.0 / 8, 0.3, 0.0), True, True, False)


def test_utility_scheduler_preempts_for_the_best_value():
    # V = x1: preempt whenever the CPU-weighted expected unit utility rises.
    jobs = [tuf_job(0, 0, 8, 10), tuf_job(1, 9, 4, 1)]
    # at t=9, job 0 (8 cpus) ends at 10 with unit 1; job 1 would too: x1 stays 1, no gain
    records = run(UtilityScheduler(Constant([1, 0, 0]), oversubscribe=False), jobs)
    assert records[0].preemptions == 0
    # V = -x2: preempt to bring the next completion closer (job 1 ends 1 unit after t=2)
    jobs = [tuf_job(0, 0, 8, 10), tuf_job(1, 2, 4, 1)]
    records = run(UtilityScheduler(Constant([0, -1, 0]), oversubscribe=False), jobs)
    assert records[0].preemptions == 1 and records[1].end == 3.0 and records[0].end == 11.0


def test_running_set_states_of_candidate_actions():
    slots = [Slot(4, 2.0, 1.0), Slot(2, 8.0, 0.5), Slot(1, 1.0, 0.0)]  # remaining unit utility 0.5, 1/16, 0
    rs = RunningSet(slots, free=1, capacity=8, max_job_length=10)
    assert [s.cpus for s in rs.slots] == [1, 2, 4]  # preemption order
    assert rs.features() == pytest.approx(((4 + 1) / 7, 0.1, 1 / 8))
    # preempt the first two, start a 3-cpu job ending in 5 with unit 0.8 on the 4 now free
    assert rs.features(2, 3, 5.0, 0.8) == pytest.approx(((4 + 2.4) / 7, 0.2, 1 / 8))
    assert rs.victims(own=0.1, needed=4) == 2
    assert rs.victims(own=0.01, needed=4) is None  # the 2-cpu job is worth more per unit of time
    assert rs.victims(own=1.0, needed=9) is None  # never enough cpus
    empty = RunningSet([], free=8, capacity=8, max_job_length=10)
    assert empty.features() == (0.0, 0.0, 1.0)


def test_max_job_length_must_be_positive():
    with pytest.raises(ValueError, match="max_job_length"):
        UtilityScheduler(Constant([0, 0, 0]), max_job_length=0)


def test_learning_scheduler_runs_and_learns_from_completions():
    learner = AverageRewardTD(FuzzyRulebase(3))
    env = simpy.Environment()
    machine = Machine(env, 8, UtilityScheduler(learner))
    machine.completed.connect(learner)
    for i, (cpus, length) in enumerate([(6, 4), (4, 2), (5, 3), (3, 6), (8, 2), (2, 5)]):
        machine.submit(tuf_job(i, 0, cpus, length))
    env.run()
    assert len(machine.records) == 6
    assert learner.updates > 0 and any(v != 0 for v in learner.p)
    assert math.isfinite(learner.rho)

"""Machine: a multi-CPU machine run by a policy, with preemption, squeezing and growing (seed 000).

Readable demonstrations in the style of SimPy's own tests: build a tiny model, run it,
check the times in the records.
"""

from __future__ import annotations

import math

import pytest
import simpy

from schedlab.model.contracts.machine import Preempt, Resize, Start
from schedlab.model.core.job import Job
from schedlab.model.core.utility import Constant, LinearDecay
from schedlab.model.records.job_record import Status
from schedlab.policies import FCFS, SJF, BestFit, expected_utility
from schedlab.processes import Machine, Model, PolicyError, Signal, Source, TracedEnvironment


def build(jobs, capacity=4, policy=None, **kwargs):
    """An environment, a machine and a source feeding it ``jobs``."""
    env = simpy.Environment()
    machine = Machine(env, capacity, policy or FCFS(), **kwargs)
    Source(env, jobs, machine)
    return env, machine


def by_id(machine):
    return {r.id: r for r in machine.all_records()}


def at(env, t, action):
    """Run ``action()`` at time ``t`` (a one-shot process)."""

    def proc():
        yield env.timeout(t - env.now)
        action()

    return env.process(proc())


def squeeze_to(cpus):
    """A policy that starts the head of the queue on at most ``cpus`` CPUs."""

    def policy(view):
        if view.waiting:
            job = view.waiting[0]
            n = min(cpus, job.cpus)
            if view.fits(job, n):
                return Start(job, n)
        return None

    return policy


# --------------------------------------------------------------------------- running, squeezing, growing


def test_job_runs_for_its_runtime():
    """A job that gets all it asked for runs exactly its runtime and holds its CPUs meanwhile."""
    env, machine = build([Job(0, 1.0, 10.0, cpus=2)])
    env.run(until=5.0)
    assert (machine.free, machine.busy) == (2, 2)
    env.run()
    rec = machine.records[0]
    assert (rec.start, rec.end, rec.service, rec.wait) == (1.0, 11.0, 10.0, 0.0)
    assert (rec.cpu_time, rec.preemptions, rec.resizes, rec.status) == (20.0, 0, 0, Status.COMPLETED)
    assert machine.free == 4
    assert machine.busy_time() == 20.0


@pytest.mark.parametrize(("allocated", "expected_end"), [(4, 10.0), (3, 40 / 3), (2, 20.0), (1, 40.0)])
def test_squeezed_job_runs_proportionally_longer(allocated, expected_end):
    """Seed 000: a job of length L on N_I CPUs given N_A takes L * N_I / min(N_A, N_I).

    Its CPU time is still N_I * L: squeezing stretches the job, it does not make it cheaper.
    """
    env, machine = build([Job(0, 0.0, 10.0, cpus=4)], policy=squeeze_to(allocated))
    env.run()
    rec = machine.records[0]
    assert rec.end == pytest.approx(expected_end, rel=1e-12)
    assert rec.cpu_time == pytest.approx(40.0, rel=1e-12)
    assert rec.resizes == 0


def test_squeeze_then_grow_back():
    """4-CPU job of length 10: full speed on [0, 5] (5 done), squeezed to 2 on [5, 10] (2.5 done),
    grown back at 10 to finish the last 2.5 at full speed: it ends at 12.5."""
    job = Job(0, 0.0, 10.0, cpus=4)
    env, machine = build([job])
    at(env, 5.0, lambda: machine.resize(job, 2))
    at(env, 10.0, lambda: machine.resize(job, 4))
    env.run(until=7.0)
    (run,) = machine.running
    assert (run.cpus, machine.free) == (2, 2)
    assert run.remaining(env.now) == pytest.approx(4.0)  # 5 left at t=5, 1 done in 2 units at rate 1/2
    assert run.expected_end(env.now) == pytest.approx(15.0)  # were nothing to change
    env.run()
    rec = machine.records[0]
    assert rec.end == pytest.approx(12.5)
    assert rec.resizes == 2
    assert rec.cpu_time == pytest.approx(4 * 5 + 2 * 5 + 4 * 2.5)  # = 40 = cpus * runtime


def test_preempt_and_resume_where_it_left_off():
    """Preempted at t=3 and resumed at t=7, a job of length 10 ends at 7 + (10 - 3) = 14."""
    job = Job(0, 0.0, 10.0, cpus=2)
    env, machine = build([job])
    at(env, 3.0, lambda: machine.preempt(job))
    at(env, 7.0, lambda: machine.start(job))
    env.run(until=5.0)
    assert machine.running == [] and machine.waiting == [job]
    assert machine.free == 4
    assert machine.view.is_suspended(job)
    (rec,) = machine.snapshot()
    assert (rec.status, rec.start, rec.cpu_time, rec.preemptions) == (Status.WAITING, 0.0, 6.0, 1)
    env.run()
    rec = machine.records[0]
    assert (rec.start, rec.end, rec.service) == (0.0, 14.0, 14.0)
    assert (rec.preemptions, rec.resizes, rec.cpu_time) == (1, 0, 20.0)
    assert machine.busy_time() == 20.0  # suspended time costs no CPU time


def test_preempted_job_goes_back_to_its_place_and_policy_resumes_it():
    """A suspended job waits at its arrival position, so FCFS resumes it before later arrivals."""
    first, second = Job(0, 0.0, 10.0, cpus=4), Job(1, 1.0, 2.0, cpus=4)
    env, machine = build([first, second])

    def make_room():
        machine.apply(Preempt(first))
        machine.decide()  # FCFS: 'first' is at the head again and resumes at once

    at(env, 4.0, make_room)
    env.run(until=4.5)
    assert machine.waiting == [second]
    assert [r.job for r in machine.running] == [first]
    env.run()
    recs = by_id(machine)
    assert (recs[0].end, recs[0].preemptions) == (10.0, 1)
    assert (recs[1].start, recs[1].end) == (10.0, 12.0)


def test_preemptions_and_resizes_are_counted_in_the_record():
    """Every preempt and every effective resize lands in the job's record; a no-op resize does not."""
    job = Job(0, 0.0, 10.0, cpus=4)
    env, machine = build([job])

    def meddle():
        yield env.timeout(1.0)
        machine.apply(Resize(job, 3))
        machine.apply(Resize(job, 3))  # already on 3: nothing happens
        yield env.timeout(1.0)
        machine.preempt(job)
        yield env.timeout(1.0)
        machine.start(job, 1)  # resumed squeezed: not a resize
        yield env.timeout(1.0)
        machine.resize(job, 4)
        yield env.timeout(1.0)
        machine.preempt(job)
        machine.start(job)  # preempt and resume at once

    env.process(meddle())
    env.run()
    rec = machine.records[0]
    assert (rec.preemptions, rec.resizes) == (2, 2)
    # work: 1 + 0.75 + 0 + 0.25 + 1 by t=5, then 7 more at full speed -> ends at 12
    assert rec.end == pytest.approx(12.0)
    assert rec.cpu_time == pytest.approx(40.0)


# --------------------------------------------------------------------------- the completion signal


def test_completion_signal_is_synchronous_ordered_and_before_the_next_decision():
    """Receivers are called at the completion time, with a frozen record, in the order they connected,
    after the machine has freed the job's CPUs and before the policy decides again."""
    log = []
    fcfs = FCFS()

    def policy(view):
        action = fcfs(view)
        if action is not None:
            log.append(("start", action.job.id, view.now))
        return action

    env, machine = build([Job(0, 0.0, 5.0, cpus=4), Job(1, 1.0, 1.0, cpus=4)], policy=policy)

    @machine.completed.connect
    def learner(record):
        log.append(("learner", record.id, env.now))
        assert record.end == env.now
        assert machine.free == 4 and machine.running == []  # the state the completion left
        with pytest.raises(AttributeError):
            record.end = 0.0

    machine.completed.connect(lambda record: log.append(("logger", record.id, env.now)))
    env.run()
    assert log == [
        ("start", 0, 0.0),
        ("learner", 0, 5.0),
        ("logger", 0, 5.0),
        ("start", 1, 5.0),
        ("learner", 1, 6.0),
        ("logger", 1, 6.0),
    ]


def test_signal_connect_disconnect():
    """Signal basics: connect returns the receiver (decorator use), disconnect removes it, no callables refused."""
    signal: Signal[int] = Signal()
    got = []
    assert not signal and len(signal) == 0
    receiver = signal.connect(got.append)
    assert signal.receivers == (receiver,)  # what a hot path tests before building a value nobody hears
    signal.emit(1)
    signal.disconnect(receiver)
    assert signal.receivers == ()
    signal.emit(2)
    assert got == [1]
    with pytest.raises(TypeError, match="a receiver must be callable"):
        signal.connect(3)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- jobs that can never run


def test_oversize_job_is_rejected_with_a_record():
    """By default a job that can never fit gets a REJECTED record; the others run as usual."""
    env, machine = build(
        [Job(0, 0.0, 1.0, cpus=8), Job(1, 0.0, 1.0, cpus=4), Job(2, 0.0, 1.0, demands={"memory": 32})],
        resources={"memory": 16},
    )
    env.run()
    recs = by_id(machine)
    assert machine.rejected == 2
    assert recs[0].status is recs[2].status is Status.REJECTED
    assert math.isnan(recs[0].start) and math.isnan(recs[0].end) and recs[0].utility == 0.0
    assert (recs[1].status, recs[1].end) == (Status.COMPLETED, 1.0)


def test_oversize_raise_names_the_job_and_the_capacity():
    """With oversize='raise' the submission fails with a ValueError naming the job and the machine's CPUs."""
    env = simpy.Environment()
    machine = Machine(env, 4, FCFS(), name="m0", oversize="raise")
    with pytest.raises(ValueError, match=r"job 7 needs 8 cpus .*machine 'm0' has 4 cpus") as err:
        machine.submit(Job(7, 0.0, 1.0, cpus=8))
    assert "can never run here" in str(err.value)
    assert machine.all_records() == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"capacity": 0}, "capacity must be a whole number >= 1, got 0"),
        ({"capacity": 2.5}, "capacity must be a whole number >= 1, got 2.5"),
        ({"oversize": "ignore"}, "oversize must be 'reject' or 'raise', got 'ignore'"),
    ],
)
def test_machine_construction_errors(kwargs, message):
    """A machine with no CPUs, or an unknown oversize rule, is refused."""
    args = {"capacity": 4, **kwargs}
    with pytest.raises(ValueError, match=message):
        Machine(simpy.Environment(), args.pop("capacity"), FCFS(), **args)


# --------------------------------------------------------------------------- policies that misbehave


@pytest.mark.parametrize(
    ("bad_action", "message"),
    [
        (lambda view, big, small: Start(big), r"job 1 does not fit on 3 cpus \(1 free"),
        (lambda view, big, small: Start(small, 0), "job 2 asks for 1 cpus; cannot start it on 0"),
        (lambda view, big, small: Start(small, 2), "job 2 asks for 1 cpus; cannot start it on 2"),
        (lambda view, big, small: Start(Job(2, 1.0, 1.0)), "job 2 is not waiting here"),
        (lambda view, big, small: Preempt(small), "job 2 is not running here"),
        (lambda view, big, small: Resize(view.running[0].job, 5), "job 0 asks for 3 cpus; cannot resize to 5"),
        (lambda view, big, small: "start job 2", "returned 'start job 2', not an Action or None"),
    ],
)
def test_invalid_action_raises_policy_error(bad_action, message):
    """An action the machine cannot carry out raises PolicyError with a message saying why."""
    blocker, big, small = Job(0, 0.0, 10.0, cpus=3), Job(1, 1.0, 1.0, cpus=3), Job(2, 1.0, 1.0)
    fcfs = FCFS()

    def policy(view):
        if view.now < 1.0:
            return fcfs(view)
        if small in view.waiting:
            return bad_action(view, big, small)
        return None

    env, _ = build([blocker, big, small], policy=policy)
    with pytest.raises(PolicyError, match=message):
        env.run()


def test_starting_a_running_job_says_it_is_not_waiting():
    """A policy that starts a job that is already running is told the job is not waiting, not that it does not fit."""
    job = Job(0, 0.0, 10.0, cpus=3)
    env, machine = build([job])
    env.run(until=1.0)
    with pytest.raises(PolicyError, match="job 0 is not waiting here"):
        machine.start(job)


def test_growing_beyond_the_free_cpus_is_a_policy_error():
    """Growing a squeezed job needs the extra CPUs to be free."""
    a, b = Job(0, 0.0, 5.0, cpus=4), Job(1, 0.0, 5.0, cpus=2)
    env, machine = build([a, b], policy=squeeze_to(2))
    env.run(until=1.0)
    assert machine.free == 0
    with pytest.raises(PolicyError, match="growing job 0 to 4 cpus needs 2 more, 0 free"):
        machine.resize(a, 4)


def test_policy_that_never_returns_none_raises_instead_of_hanging():
    """A policy that keeps returning (valid) actions is stopped with a PolicyError saying so."""

    def restless(view):
        if view.waiting:
            return Start(view.waiting[0])
        return Preempt(view.running[0].job)  # ...and start it again, forever

    env, _ = build([Job(0, 0.0, 1.0)], policy=restless, name="m1")
    with pytest.raises(PolicyError, match=r"on machine 'm1' kept returning actions .* it must return None"):
        env.run()


# --------------------------------------------------------------------------- queue-ordering policies


def test_fcfs_is_strict_head_blocks():
    """FCFS never lets a job overtake the head: a 1-CPU job waits behind a 2-CPU head that does not fit."""
    jobs = [Job(0, 0.0, 10.0, cpus=3), Job(1, 1.0, 5.0, cpus=2), Job(2, 2.0, 5.0, cpus=1)]
    env, machine = build(jobs, policy=FCFS())
    env.run()
    starts = {i: r.start for i, r in by_id(machine).items()}
    assert starts == {0: 0.0, 1: 10.0, 2: 10.0}  # job 2 could have run at t=2 on the free CPU


def test_best_fit_picks_the_tightest_fit():
    """BestFit starts the fitting job with the most CPUs and passes over jobs that do not fit.

    At t=10 the machine empties: waiting are A (2 CPUs), B (3) and C (1). BestFit starts B, then C
    (A does not fit the 1 CPU left); FCFS would have started A and blocked on B.
    """
    jobs = [Job(0, 0.0, 10.0, cpus=4), Job(1, 1.0, 5.0, cpus=2), Job(2, 2.0, 5.0, cpus=3), Job(3, 3.0, 5.0, cpus=1)]
    env, machine = build(jobs, policy=BestFit())
    env.run()
    starts = {i: r.start for i, r in by_id(machine).items()}
    assert starts == {0: 0.0, 2: 10.0, 3: 10.0, 1: 15.0}
    env, machine = build(jobs, policy=FCFS())
    env.run()
    assert {i: r.start for i, r in by_id(machine).items()} == {0: 0.0, 1: 10.0, 2: 15.0, 3: 15.0}


def test_best_fit_breaks_ties_by_expected_utility_then_arrival():
    """Among equally wide jobs BestFit prefers the higher expected utility, then the earlier arrival."""
    plain = Job(1, 1.0, 5.0, cpus=2)  # no TUF: expected utility 0
    urgent = Job(2, 2.0, 5.0, cpus=2, utility=LinearDecay(12.0))  # decays from response 12 to 24
    valuable = Job(3, 3.0, 5.0, cpus=2, utility=Constant(1.0))  # 10 whenever it ends
    twin = Job(4, 4.0, 5.0, cpus=2, utility=Constant(1.0))
    # started at t=10 urgent would end with response 13: unit 2 - 13/12, times 2 cpus * 5
    assert expected_utility(urgent, 10.0) == pytest.approx(10 * (2 - 13 / 12))
    assert expected_utility(urgent, 20.0) == pytest.approx(10 * (2 - 23 / 12))  # still > 0
    assert expected_utility(valuable, 10.0) == 10.0 and expected_utility(plain, 10.0) == 0.0
    env, machine = build([Job(0, 0.0, 10.0, cpus=2), plain, urgent, valuable, twin], capacity=2, policy=BestFit())
    env.run()
    order = sorted(machine.records, key=lambda r: r.start)
    assert [r.id for r in order] == [0, 3, 4, 2, 1]  # 3 and 4 tie at 10: the earlier one goes first


@pytest.mark.parametrize(("by", "order"), [("runtime", [0, 2, 1, 3]), ("estimate", [0, 1, 3, 2])])
def test_sjf_by_runtime_or_by_estimate(by, order):
    """SJF by runtime (an oracle) or by the user's estimate gives different orders on the same jobs."""
    jobs = [
        Job(0, 0.0, 10.0),
        Job(1, 1.0, 5.0, estimate=1.0),
        Job(2, 2.0, 2.0, estimate=9.0),
        Job(3, 3.0, 8.0, estimate=3.0),
    ]
    env, machine = build(jobs, capacity=1, policy=SJF(by=by))
    env.run()
    assert [r.id for r in sorted(machine.records, key=lambda r: r.start)] == order
    with pytest.raises(ValueError, match="SJF: by must be 'estimate' or 'runtime', got 'size'"):
        SJF(by="size")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- other named resources


def test_named_resources_gate_starts():
    """Memory is held whole while a job runs: a second 6-unit job waits for it though CPUs are free."""
    jobs = [
        Job(0, 0.0, 10.0, demands={"memory": 6}),
        Job(1, 1.0, 5.0, demands={"memory": 6}),
        Job(2, 2.0, 5.0, demands={"memory": 4}),
    ]
    env, machine = build(jobs, capacity=8, policy=BestFit(), resources={"memory": 10})
    env.run(until=3.0)
    assert machine.used == {"memory": 10.0}
    assert machine.free == 6
    assert not machine.fits(jobs[1])
    env.run()
    starts = {i: r.start for i, r in by_id(machine).items()}
    assert starts == {0: 0.0, 1: 10.0, 2: 2.0}
    assert machine.used == {"memory": 0.0}


def test_squeezed_job_keeps_its_whole_memory():
    """Squeezing gives CPUs back, not memory: a squeezed job's demands still block others."""
    jobs = [Job(0, 0.0, 10.0, cpus=4, demands={"memory": 8}), Job(1, 1.0, 1.0, demands={"memory": 4})]
    env, machine = build(jobs, capacity=4, policy=FCFS(), resources={"memory": 10})
    at(env, 0.5, lambda: machine.resize(jobs[0], 1))
    env.run(until=2.0)
    assert machine.free == 3 and machine.used == {"memory": 8.0}
    assert machine.waiting == [jobs[1]]


def test_memory_accounting_does_not_drift():
    """After jobs needing 0.1 and 0.3 of a 0.4 memory ran together and left, the whole 0.4 is free again."""
    jobs = [
        Job(0, 0.0, 1.0, demands={"memory": 0.1}),
        Job(1, 0.0, 2.0, demands={"memory": 0.3}),
        Job(2, 5.0, 1.0, demands={"memory": 0.4}),
    ]
    env, machine = build(jobs, resources={"memory": 0.4})
    env.run(until=100.0)
    assert by_id(machine)[2].status is Status.COMPLETED
    assert machine.used == {"memory": 0.0}


def test_demands_that_add_up_to_the_capacity_fit_together():
    """Two jobs whose memory adds up to the machine's (0.1 + 0.2 of 0.3) run side by side."""
    jobs = [Job(0, 0.0, 1.0, demands={"memory": 0.1}), Job(1, 0.0, 1.0, demands={"memory": 0.2})]
    env, machine = build(jobs, resources={"memory": 0.3})
    env.run()
    assert [r.start for r in machine.records] == [0.0, 0.0]


def test_zero_demand_on_an_unknown_resource_is_harmless():
    """A job that needs 0 GPUs runs on a machine without GPUs (can_ever_fit already says it fits)."""
    env, machine = build([Job(0, 0.0, 1.0, demands={"gpu": 0})])
    assert machine.can_ever_fit(Job(9, 0.0, 1.0, demands={"gpu": 0}))
    env.run()
    assert machine.records[0].status is Status.COMPLETED


def test_two_workloads_with_overlapping_ids():
    """Jobs compare by identity; two sources whose ids overlap must not corrupt the machine.

    Either both jobs complete, or the second submission is refused with a clear error naming the id.
    """
    env = simpy.Environment()
    machine = Machine(env, 4, FCFS())
    Source(env, [Job(0, 0.0, 5.0)], machine, name="interactive")
    Source(env, [Job(0, 1.0, 5.0)], machine, name="batch")
    try:
        env.run()
    except ValueError as err:
        assert "0" in str(err) and "id" in str(err)
    else:
        assert sorted(r.end for r in machine.records) == [5.0, 6.0]


# --------------------------------------------------------------------------- stopping early, models, traces


def test_snapshot_when_the_run_stops_early():
    """Stopped at t=5: completed jobs have records, the rest appear as RUNNING or WAITING, as of now."""
    jobs = [Job(0, 0.0, 2.0, cpus=4), Job(1, 1.0, 10.0, cpus=3), Job(2, 2.0, 10.0, cpus=2)]
    env, machine = build(jobs)
    env.run(until=5.0)
    recs = machine.all_records()
    assert [(r.id, r.status) for r in recs] == [(0, Status.COMPLETED), (1, Status.RUNNING), (2, Status.WAITING)]
    running, waiting = recs[1], recs[2]
    assert (running.start, running.wait, running.cpu_time) == (2.0, 1.0, 9.0)
    assert math.isnan(running.end) and running.utility == 0.0
    assert math.isnan(waiting.start) and waiting.cpu_time == 0.0
    assert machine.busy_time() == pytest.approx(4 * 2 + 3 * 3)


def test_model_runs_until_and_gathers_records():
    """Model bundles env and stations; run() stops at ``until`` and records() lists every station's jobs."""
    env = simpy.Environment()
    m1 = Machine(env, 2, FCFS(), name="a")
    m2 = Machine(env, 2, FCFS(), name="b")
    Source(env, [Job(0, 0.0, 1.0), Job(1, 0.0, 9.0)], m1)
    Source(env, [Job(2, 0.0, 1.0, cpus=3)], m2)
    model = Model(env, [m1, m2], until=5.0, parts={"first": m1}).run()
    assert env.now == 5.0
    assert model["first"] is m1
    assert [(r.id, r.machine, r.status) for r in model.records()] == [
        (0, "a", Status.COMPLETED),
        (1, "a", Status.RUNNING),
        (2, "b", Status.REJECTED),
    ]


def test_source_refuses_a_workload_out_of_order():
    """A workload must be in submission order; the error names both jobs."""
    env, _ = build([Job(0, 5.0, 1.0), Job(1, 2.0, 1.0)])
    with pytest.raises(ValueError, match=r"job 1 submits at 2\.0, after job 0 at 5\.0"):
        env.run()


def test_source_submits_jobs_of_the_same_time_whatever_the_clock_rounding():
    """The clock reaches a submit time as now + delay, which may round a hair past it; a job
    submitted at the same time as the previous one is still in order (found by Hypothesis)."""
    t = 257.1452315456016
    env, machine = build([Job(0, 1.0440999990421176, 1.0), Job(1, t, 1.0), Job(2, t, 1.0)])
    env.run()
    assert [r.submit for r in machine.records] == [1.0440999990421176, t, t]


def test_trace_of_a_preempted_job():
    """On a TracedEnvironment the machine logs each event with its time, in order."""
    env = TracedEnvironment()
    job = Job(0, 0.0, 4.0, cpus=2)
    machine = Machine(env, 2, FCFS(), name="m")
    Source(env, [job], machine)
    at(env, 1.0, lambda: machine.preempt(job))
    at(env, 2.0, machine.decide)
    env.run()
    log = env.tracer.entries  # type: ignore[union-attr]
    assert [(e.time, e.process, e.action) for e in log] == [
        (0.0, "source", "arrive"),
        (0.0, "m", "submit"),
        (0.0, "m", "start"),
        (1.0, "m", "preempt"),
        (2.0, "m", "resume"),
        (5.0, "m", "complete"),
    ]
    assert "job 0, 3 ideal time left" in log[3].detail
    assert "time" in env.tracer.table().splitlines()[0]  # type: ignore[union-attr]


def test_an_arrival_scheduled_after_a_start_comes_before_that_jobs_end_at_the_same_time():
    """Job 0 starts at 0 and ends at 5, when job 1 arrives. The source scheduled that arrival
    after job 0 started, and the machine plans a job's end where SimPy's Initialize of a job
    process would have stood (after the starting callback), so at t=5 the arrival comes
    first: the order that one process per job gave, which every stored digest depends on."""
    env = TracedEnvironment()
    machine = Machine(env, 1, FCFS(), name="cpu")
    Source(env, [Job(0, 0.0, 5.0), Job(1, 5.0, 1.0)], machine)
    env.run()
    at_5 = [
        (e.action, e.detail.split(",")[0].split(" (")[0].split(" on")[0]) for e in env.tracer.entries if e.time == 5.0
    ]
    assert at_5 == [("arrive", "job 1"), ("submit", "job 1"), ("complete", "job 0"), ("start", "job 1")]

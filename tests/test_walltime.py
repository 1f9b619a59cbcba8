"""Walltime limits (issue 18 item 1): a job that reaches its time limit is killed, as Slurm, PBS and OAR do.

``Machine(..., walltime="kill")`` takes a job's ``estimate`` (SWF's requested time) as
its limit; ``"run-on"`` (the default) lets every job run to its end. A killed job
leaves with a ``TIMEOUT`` record: ``end`` is the kill time, ``cpu_time`` what its
allocation did until then. Run time is wall-clock time holding CPUs: time suspended
after a preemption does not count, a squeezed job's time counts whole.
"""

from __future__ import annotations

import json

import pytest
import simpy

from schedlab.model.core.job import Job
from schedlab.model.formats.logs import evaluate
from schedlab.model.records.job_record import Status
from schedlab.policies import FCFS
from schedlab.policies.batch import make_policy
from schedlab.processes import Machine, Source, TracedEnvironment


def run(jobs, capacity=4, policy=None, walltime="kill", until=None):
    env = simpy.Environment()
    machine = Machine(env, capacity, policy or FCFS(), walltime=walltime)
    Source(env, jobs, machine)
    env.run(until=until)
    return machine, {r.id: r for r in machine.records}


def test_a_job_past_its_estimate_is_killed_at_start_plus_estimate():
    jobs = [Job(0, 1.0, runtime=10.0, cpus=2, estimate=6.0)]
    _, records = run(jobs)
    killed = records[0]
    assert killed.status is Status.TIMEOUT
    assert (killed.start, killed.end) == (1.0, 7.0)
    assert killed.cpu_time == 2 * 6.0  # two CPUs for six time units: the work it did
    assert killed.utility == 0.0


def test_run_on_is_the_default_and_lets_it_finish():
    jobs = [Job(0, 1.0, runtime=10.0, cpus=2, estimate=6.0)]
    env = simpy.Environment()
    machine = Machine(env, 4, FCFS())
    Source(env, jobs, machine)
    env.run()
    (record,) = machine.records
    assert machine.walltime == "run-on"
    assert (record.status, record.end, record.cpu_time) == (Status.COMPLETED, 11.0, 20.0)


def test_no_estimate_no_limit_and_ending_at_the_limit_completes():
    jobs = [Job(0, 0.0, runtime=10.0), Job(1, 0.0, runtime=5.0, estimate=5.0)]
    _, records = run(jobs)
    assert records[0].status is records[1].status is Status.COMPLETED
    assert (records[0].end, records[1].end) == (10.0, 5.0)


def test_easy_reservation_is_exact_when_jobs_are_killed():
    """A (3 of 4 CPUs) asks for 10 but would run 100; B (all 4) blocks behind it, its
    reservation at A's requested end, 10; C (1 CPU, requested 8) ends by then, so it is
    backfilled at 2. Under kill A is killed at 10 and B starts at its reservation;
    under run-on A runs on to 100 and B's reservation was stale by 90."""
    jobs = [
        Job(0, 0.0, runtime=100.0, cpus=3, estimate=10.0),
        Job(1, 1.0, runtime=5.0, cpus=4, estimate=5.0),
        Job(2, 2.0, runtime=8.0, cpus=1, estimate=8.0),
    ]
    _, killed = run(jobs, policy=make_policy("fcfs", "easy"))
    assert {i: (r.start, r.end, r.status.value) for i, r in killed.items()} == {
        0: (0.0, 10.0, "timeout"),
        1: (10.0, 15.0, "completed"),
        2: (2.0, 10.0, "completed"),
    }
    _, ran_on = run(jobs, policy=make_policy("fcfs", "easy"), walltime="run-on")
    assert (ran_on[0].end, ran_on[1].start, ran_on[2].start) == (100.0, 100.0, 2.0)


def test_a_preempted_jobs_suspension_does_not_count():
    """Limit 6: it runs 0-2, is suspended 2-5, resumes and is killed at 5 + 4 = 9."""
    env = simpy.Environment()
    holding = [False]  # while set, the policy starts nothing: the job stays suspended
    fcfs = FCFS()
    machine = Machine(env, 2, lambda view: None if holding[0] else fcfs(view), walltime="kill")
    job = Job(0, 0.0, runtime=10.0, cpus=2, estimate=6.0)
    machine.submit(job)

    def meddle():
        yield env.timeout(2.0)
        holding[0] = True
        machine.preempt(job)
        yield env.timeout(3.0)
        holding[0] = False
        machine.decide()

    env.process(meddle())
    env.run()
    (record,) = machine.records
    assert (record.status, record.start, record.end, record.preemptions) == (Status.TIMEOUT, 0.0, 9.0, 1)
    assert record.cpu_time == pytest.approx(2 * 6.0)


def test_a_squeezed_job_is_killed_by_wall_clock_and_keeps_what_its_allocation_did():
    """Limit 6 on 2 CPUs, squeezed to 1 at t=2: killed at 6, after 2*2 + 4*1 = 8 CPU-time units."""
    env = simpy.Environment()
    machine = Machine(env, 2, FCFS(), walltime="kill")
    job = Job(0, 0.0, runtime=10.0, cpus=2, estimate=6.0)
    machine.submit(job)

    def squeeze():
        yield env.timeout(2.0)
        machine.resize(job, 1)

    env.process(squeeze())
    env.run()
    (record,) = machine.records
    assert (record.status, record.end, record.resizes) == (Status.TIMEOUT, 6.0, 1)
    assert record.cpu_time == pytest.approx(8.0)


def test_a_job_resized_back_and_forth_is_still_killed_at_its_limit():
    env = simpy.Environment()
    machine = Machine(env, 2, FCFS(), walltime="kill")
    job = Job(0, 0.0, runtime=10.0, cpus=2, estimate=6.0)
    machine.submit(job)

    def meddle():
        yield env.timeout(1.0)
        machine.resize(job, 1)
        machine.resize(job, 2)  # twice at one instant: only the last allocation's end is planned
        yield env.timeout(1.0)
        machine.resize(job, 1)
        yield env.timeout(1.0)
        machine.resize(job, 2)

    env.process(meddle())
    env.run()
    (record,) = machine.records
    assert (record.status, record.end) == (Status.TIMEOUT, 6.0)
    assert record.cpu_time == pytest.approx(2 * 5.0 + 1 * 1.0)


def test_a_subclass_imposes_its_own_limits_a_queues_say():
    class ShortQueue(Machine):
        def time_limit(self, job):
            return 3.0 if job.job_class == "short" else None

    env = simpy.Environment()
    machine = ShortQueue(env, 4, FCFS())  # run-on: only the queue's limit applies
    Source(env, [Job(0, 0.0, 10.0, job_class="short", estimate=20.0), Job(1, 0.0, 10.0, estimate=2.0)], machine)
    env.run()
    records = {r.id: r for r in machine.records}
    assert (records[0].status, records[0].end) == (Status.TIMEOUT, 3.0)
    assert (records[1].status, records[1].end) == (Status.COMPLETED, 10.0)


def test_listeners_and_the_trace_see_the_kill():
    env = TracedEnvironment()
    machine = Machine(env, 1, FCFS(), name="cpu", walltime="kill")
    seen = []
    machine.completed.connect(seen.append)
    Source(env, [Job(7, 0.0, runtime=5.0, estimate=2.0)], machine)
    env.run()
    assert [(r.id, r.status, r.end) for r in seen] == [(7, Status.TIMEOUT, 2.0)]
    (kill,) = [e for e in env.tracer.entries if e.action == "timeout"]
    assert (kill.time, kill.detail) == (2.0, "job 7 killed at its time limit 2, waited 0")


def test_a_gantt_from_the_trace_ends_a_killed_jobs_bar_at_the_kill():
    from schedlab.plots.gantt import segments_from_trace

    env = TracedEnvironment()
    machine = Machine(env, 2, FCFS(), walltime="kill")
    Source(env, [Job(0, 0.0, 10.0, estimate=4.0), Job(1, 0.0, 3.0)], machine)
    env.run()
    assert [(s.job, s.start, s.end) for s in segments_from_trace(env.tracer.entries)] == [("0", 0, 4.0), ("1", 0, 3.0)]


def test_a_bad_walltime_is_named():
    with pytest.raises(ValueError, match=r"machine 'm': walltime must be 'run-on' or 'kill', got 'stop'"):
        Machine(simpy.Environment(), 1, FCFS(), name="m", walltime="stop")


def test_evaluate_counts_killed_jobs_apart():
    """Waits over every job that ran; bounded slowdown over completed and killed jobs, a killed
    job's run time being the time it ran; utilization with the CPU-time the killed job held."""
    jobs = [
        Job(0, 0.0, runtime=100.0, cpus=2, estimate=20.0),
        Job(1, 0.0, runtime=10.0, cpus=2, estimate=10.0),
        Job(2, 5.0, runtime=30.0, cpus=2, estimate=40.0),
    ]
    _, records = run(jobs)
    assert [records[i].status.value for i in range(3)] == ["timeout", "completed", "completed"]
    metrics = evaluate(list(records.values()), cpus=4)
    assert metrics["killed"] == 1.0 and metrics["jobs"] == 2.0
    assert metrics["wait"] == pytest.approx((0 + 0 + 5) / 3)  # job 2 waited for job 1's CPUs
    assert metrics["bounded_slowdown"] == pytest.approx((20 / 20 + 10 / 10 + 35 / 30) / 3)  # job 2 ran 10-40
    assert metrics["utilization"] == pytest.approx((2 * 20 + 2 * 10 + 2 * 30) / (4 * 40))
    run_on = evaluate(list(run(jobs, walltime="run-on")[1].values()), cpus=4)
    assert run_on["killed"] == 0.0 and run_on["jobs"] == 3.0
    assert evaluate([], 4)["killed"] == 0.0


# job 2 asks for 5 s and would run 50: killed at 1 + 5
SWF = """; Version: 2.2
; MaxJobs: 3
; MaxRecords: 3
; MaxProcs: 4
; MaxNodes: 4
1 0 -1 10 2 -1 -1 2 10 -1 1 1 1 -1 -1 -1 -1 -1
2 1 -1 50 2 -1 -1 2 5 -1 1 1 1 -1 -1 -1 -1 -1
3 2 -1 10 4 -1 -1 4 10 -1 1 1 1 -1 -1 -1 -1 -1
"""


@pytest.mark.parametrize(
    ("args", "walltime", "killed"),
    [
        ([], "kill", 1.0),
        (["--walltime", "run-on"], "run-on", 0.0),
        (["--compat", "rlscheduler"], "run-on", 0.0),
    ],
)
def test_replay_kills_by_default_and_says_so_in_summary_json(tmp_path, args, walltime, killed):
    from schedlab.experiment.cli import main

    log = tmp_path / "tiny.swf"
    log.write_text(SWF)
    out = tmp_path / "out"
    assert (
        main(
            [
                "replay",
                str(log),
                "--length",
                "3",
                "--start",
                "0",
                "--backfill",
                "easy",
                "--no-native",
                "--executor",
                "serial",
                "--out",
                str(out),
                *args,
            ]
        )
        == 0
    )
    summary = json.loads((out / "summary.json").read_text())
    assert summary["config"]["walltime"] == walltime
    (row,) = summary["rows"]
    assert row["killed"] == killed

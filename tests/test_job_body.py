"""Jobs as SimPy processes (issue 25 item 5): a ProcessJob's body runs on its allocation, interrupted on change."""

from __future__ import annotations

from pathlib import Path

import pytest
import simpy
from hypothesis import example, given, settings
from hypothesis import strategies as st

from schedlab.model.analysis.failures import failure_conservation
from schedlab.model.core.failures import NodeFailure
from schedlab.model.core.job import Job, ProcessJob, with_body
from schedlab.model.formats.logs import load_log
from schedlab.model.records.job_record import Status
from schedlab.policies import EASY, FCFS
from schedlab.processes import Machine, Source


def plain_body(env, alloc):
    """The plain job as a body: run for what the machine's accounting has left."""
    yield env.timeout(alloc.time_left)


def as_process_jobs(jobs):
    return [with_body(j, plain_body) for j in jobs]


def replay(jobs, cpus, policy, **machine):
    env = simpy.Environment()
    m = Machine(env, cpus, policy, **machine)
    Source(env, jobs, m)
    env.run()
    return m


@st.composite
def workloads(draw):
    n = draw(st.integers(1, 30))
    times = sorted(draw(st.lists(st.floats(0, 100, allow_nan=False), min_size=n, max_size=n)))
    return [
        Job(
            i,
            t,
            draw(st.floats(0.5, 40)),
            cpus=draw(st.integers(1, 8)),
            estimate=draw(st.one_of(st.none(), st.floats(0.5, 60))),
        )
        for i, t in enumerate(times)
    ]


#: a kill at a time limit and another job's end at the same instant (0.5): the kill comes after the end, for a
#: plain job as for a body (found by hypothesis on the lower bounds' versions; plain jobs killed first before)
TIE = [Job(0, 0.0, 1.0, cpus=1), Job(1, 0.0, 1.0, cpus=1, estimate=0.5), Job(2, 0.0, 0.5, cpus=1)]


@settings(max_examples=60, deadline=None)
@given(workloads(), st.sampled_from(["fcfs", "easy"]), st.sampled_from(["run-on", "kill"]), st.booleans())
@example(TIE, "fcfs", "kill", False)
@example(TIE, "easy", "kill", True)
def test_a_one_timeout_body_gives_the_plain_jobs_records(jobs, policy, walltime, ids):
    """Same jobs, same machine: the records are equal field for field, in the same order."""
    runs = [
        replay(
            js, 8, FCFS() if policy == "fcfs" else EASY(), walltime=walltime, allocation="first-fit" if ids else None
        )
        for js in (jobs, as_process_jobs(jobs))
    ]
    assert list(runs[1].records) == list(runs[0].records)
    assert runs[1].busy_time() == runs[0].busy_time()
    assert runs[1].ids.allocation_rows() == runs[0].ids.allocation_rows()  # empty on a plain machine


SP2 = Path(__file__).resolve().parents[1].parent / "shared" / "traces" / "SDSC-SP2-1998-4.2-cln.swf.gz"


@pytest.mark.skipif(not SP2.exists(), reason="traces not present")
@pytest.mark.parametrize("walltime", ["run-on", "kill"])
def test_on_a_real_log_the_one_timeout_body_is_the_plain_job(walltime):
    """SDSC-SP2 jobs 2000-2499 under EASY: every record equal, whole-second ties and kills included."""
    trace = load_log(str(SP2))
    jobs = trace.jobs[2000:2500]
    plain = replay(jobs, trace.cpus, EASY(), allocation="first-fit", walltime=walltime)
    bodies = replay(as_process_jobs(jobs), trace.cpus, EASY(), allocation="first-fit", walltime=walltime)
    assert list(bodies.records) == list(plain.records) and len(plain.records) == 500
    if walltime == "kill":
        assert any(r.status is Status.TIMEOUT for r in plain.records)


def test_preemption_resize_walltime_and_node_failure_interrupt_the_body_with_their_cause():
    seen = []

    def body(env, alloc):
        try:
            yield env.timeout(alloc.time_left)
        except simpy.Interrupt as stop:
            seen.append((env.now, alloc.job.id, alloc.incarnation, alloc.cpus, stop.cause))

    env = simpy.Environment()
    machine = Machine(env, 4, FCFS(), walltime="kill", allocation="first-fit", node_size=2)
    a = ProcessJob(1, 0.0, 10.0, cpus=2, body=body)
    b = ProcessJob(2, 0.0, 50.0, cpus=2, estimate=30.0, body=body)
    Source(env, [a, b], machine)

    def operator(env):
        yield env.timeout(2)
        machine.resize(a, 1)  # a: 8 s of ideal work left, at half rate: 16 s
        yield env.timeout(2)
        machine.preempt(a)  # 1 s of its work done since: 7 left
        machine.start(a)  # resumed on all its 2 CPUs
        yield env.timeout(1)
        machine.fail_nodes([0])  # a holds CPU 0: killed, requeued, starts over on the repair

    env.process(operator(env))
    env.timeout(6).callbacks.append(lambda _e: machine.repair_nodes([0]))
    env.run()
    assert seen == [
        (2, 1, 1, 2, "resize"),
        (4, 1, 2, 1, "preempt"),
        (5, 1, 3, 2, "node_fail"),
        (30, 2, 1, 2, "walltime"),
    ]
    by_id = {r.id: r for r in machine.records}
    assert by_id[2].status is Status.TIMEOUT and by_id[2].end == 30.0
    assert by_id[1].status is Status.COMPLETED and (by_id[1].start, by_id[1].end) == (6.0, 16.0)


CHECKPOINT = 4.0  # seconds of work between checkpoints


def checkpointing(env, alloc):
    """Compute in chunks, saving progress after each; a restart resumes from the last checkpoint."""
    done = alloc.state.get("checkpoint", 0.0)
    alloc.state.setdefault("resumed_from", []).append(done)
    while done < alloc.job.runtime:
        chunk = min(CHECKPOINT, alloc.job.runtime - done)
        yield env.timeout(chunk)
        done += chunk
        alloc.state["checkpoint"] = done


def test_a_checkpointing_job_restarts_from_its_last_checkpoint_after_a_failure():
    """20 s of work in 4 s chunks. Node 0 fails at 10 (checkpoints at 4 and 8 saved): the job is
    requeued, waits for the repair at 12, and runs the 12 s left from its checkpoint: it ends at 24,
    where a job that starts over would end at 32."""
    states = {}

    def body(env, alloc):
        states[alloc.attempt] = alloc.state
        yield from checkpointing(env, alloc)

    machine = replay_with_failure(ProcessJob(1, 0.0, 20.0, cpus=2, body=body))
    (record,) = machine.records
    assert (record.status, record.start, record.end) == (Status.COMPLETED, 12.0, 24.0)
    assert states[2]["resumed_from"] == [0.0, 8.0] and machine.node_kills[0].cpu_time == 20.0
    plain = replay_with_failure(Job(1, 0.0, 20.0, cpus=2))
    assert plain.records[0].end == 32.0
    failure_conservation([1], machine.records, machine.node_kills)


def replay_with_failure(job):
    env = simpy.Environment()
    machine = Machine(env, 2, FCFS(), allocation="first-fit", node_size=2)
    Source(env, [job], machine)
    machine.inject_failures([NodeFailure(10.0, 2.0, (0,))])
    env.run()
    return machine


def test_a_body_must_be_a_function_and_its_own_errors_propagate():
    with pytest.raises(ValueError, match="body must be a function"):
        ProcessJob(1, 0.0, 1.0, body=None)

    def broken(env, alloc):
        yield env.timeout(1)
        raise RuntimeError("the job's own bug")

    with pytest.raises(RuntimeError, match="the job's own bug"):
        replay([ProcessJob(1, 0.0, 5.0, body=broken)], 1, FCFS())

"""Node failures (issue 25 item 4): a failed node kills its jobs (requeued or dropped) and is down until repaired."""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import numpy as np
import pytest
import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.model.analysis.failures import availability, failure_conservation, jobs_hit, lost_cpu_hours
from schedlab.model.core.failures import NodeFailure, random_failures
from schedlab.model.core.job import Job
from schedlab.model.core.streams import Streams
from schedlab.model.formats.failures import FailureLogError, read_failure_log
from schedlab.model.records.job_record import Status
from schedlab.model.records.node_fail import NodeKill, NodeOutage
from schedlab.policies import EASY, FCFS
from schedlab.policies.batch import make_policy
from schedlab.processes import Machine, Source
from schedlab.replay import log_replay


def run(jobs, failures, cpus=4, node_size=2, on_node_fail="requeue", policy=None):
    env = simpy.Environment()
    machine = Machine(
        env, cpus, policy or FCFS(), allocation="first-fit", node_size=node_size, on_node_fail=on_node_fail
    )
    Source(env, jobs, machine)
    machine.inject_failures(failures)
    env.run()
    return machine


def two_jobs():
    # A (id 1) takes node 0 (CPUs 0-1), B (id 2) node 1 (2-3); both run 10 s from 0
    return [Job(1, 0.0, 10.0, cpus=2), Job(2, 0.0, 10.0, cpus=2)]


def test_a_failed_node_kills_its_job_which_restarts_after_the_repair_worked_by_hand():
    """Node 0 fails at 4 for 3 s: A is killed (8 CPU-seconds lost) and requeued; only 2
    CPUs are up, B holds them, so A waits for the repair at 7 and runs 7-17 on 0-1."""
    machine = run(two_jobs(), [NodeFailure(4.0, 3.0, (0,))])
    by_id = {r.id: r for r in machine.records}
    assert by_id[2].status is Status.COMPLETED and by_id[2].end == 10.0
    assert by_id[1].status is Status.COMPLETED and (by_id[1].start, by_id[1].end) == (7.0, 17.0)
    assert machine.node_kills == [NodeKill(4.0, 0, 1, 2, 0.0, 8.0, "requeued", 1)]
    assert machine.node_outages == [NodeOutage(0, "0-1", 4.0, 7.0)]
    assert machine.allocation_rows() == [(1, "0-1", 0.0, 4.0), (2, "2-3", 0.0, 10.0), (1, "0-1", 7.0, 17.0)]
    # the CPU-time up: 4 x 17 less the node's 2 x 3
    assert machine.capacity_time() == 4 * 17 - 2 * 3
    assert availability(machine.node_outages, 4, 0.0, 17.0) == pytest.approx(1 - 6 / 68, rel=1e-12)
    assert lost_cpu_hours(machine.node_kills) == pytest.approx(8 / 3600, rel=1e-12)
    assert jobs_hit(machine.node_kills) == 1
    balance = failure_conservation([1, 2], machine.records, machine.node_kills)
    assert (balance.kills, balance.restarts, balance.dropped, balance.completed) == (1, 1, 0, 2)


def test_a_dropped_job_ends_with_a_node_fail_record():
    machine = run(two_jobs(), [NodeFailure(4.0, 3.0, (0,))], on_node_fail="drop")
    by_id = {r.id: r for r in machine.records}
    assert by_id[1].status is Status.NODE_FAIL
    assert (by_id[1].start, by_id[1].end, by_id[1].cpu_time) == (0.0, 4.0, 8.0)
    assert machine.node_kills[0].outcome == "dropped"
    balance = failure_conservation([1, 2], machine.records, machine.node_kills)
    assert (balance.kills, balance.restarts, balance.dropped) == (1, 0, 1)


def test_a_whole_cluster_failure_and_overlapping_failures_of_one_node():
    """A cluster-wide failure (nodes None) at 2 for 1 s kills both jobs; node 1 fails again at
    2.5 for 2 s, so it stays down until 4.5: one outage per stretch a node is down."""
    machine = run(two_jobs(), [NodeFailure(2.0, 1.0, None), NodeFailure(2.5, 2.0, (1,))])
    assert [(k.job, k.time) for k in machine.node_kills] == [(1, 2.0), (2, 2.0)]
    assert machine.node_outages == [NodeOutage(0, "0-1", 2.0, 3.0), NodeOutage(1, "2-3", 2.0, 4.5)]
    by_id = {r.id: r for r in machine.records}
    assert (by_id[1].start, by_id[2].start) == (3.0, 4.5)
    failure_conservation([1, 2], machine.records, machine.node_kills)


def test_failures_need_processor_ids_and_nodes_on_the_machine():
    env = simpy.Environment()
    plain = Machine(env, 4, FCFS())
    assert not hasattr(plain, "fail_nodes")  # a plain machine is no MachineWithIds; its failures part says why
    with pytest.raises(ValueError, match="need CPU ids"):
        plain.failures.fail_nodes([0])
    machine = Machine(env, 4, FCFS(), allocation="first-fit", node_size=2)
    with pytest.raises(ValueError, match=r"failure log line 7: node 2 is not on machine 'machine' \(nodes 0-1"):
        machine.inject_failures([NodeFailure(1.0, 1.0, (2,), "c", 7)])
    with pytest.raises(ValueError, match=r"node 1 is not down; nodes down: \[\]"):
        machine.repair_nodes([1])
    with pytest.raises(ValueError, match="on_node_fail must be"):
        Machine(env, 4, FCFS(), on_node_fail="retry")


def test_an_alea_failure_log_is_read_and_bad_lines_are_named(tmp_path):
    good = tmp_path / "x.failures"
    good.write_text("# time cluster duration ids\n1000\tc0\t600\t3 4\n900\tc0\t30\t1\n950\tc1\t100\n1200 c0 60 0 1 2\n")
    log = read_failure_log(good, epoch=100, cluster="c0", min_duration=60)
    assert [(f.time, f.duration, f.nodes, f.line) for f in log.failures] == [
        (900.0, 600.0, (3, 4), 2),
        (1100.0, 60.0, (0, 1, 2), 5),
    ]
    assert (log.other_clusters, log.skipped) == (1, 1)
    whole = read_failure_log(good).failures
    assert [f.nodes for f in whole] == [(1,), None, (3, 4), (0, 1, 2)]
    gz = tmp_path / "x.failures.gz"
    gz.write_bytes(gzip.compress(good.read_bytes()))
    assert read_failure_log(gz).failures == whole
    for text, field, value in [
        ("10\tc\tlong\t1\n", "duration", "long"),
        ("ten\tc\t5\t1\n", "time", "ten"),
        ("10\tc\t5\t1 x\n", "machine ids", "x"),
        ("10\tc\t-5\t1\n", "duration", "-5"),
    ]:
        bad = tmp_path / "bad.failures"
        bad.write_text("# header\n" + text)
        with pytest.raises(FailureLogError) as info:
            read_failure_log(bad)
        message = str(info.value)
        assert "\n" not in message and f"{bad}, line 2: field {field!r} is {value!r}" in message
    short = tmp_path / "short.failures"
    short.write_text("10 c\n")
    with pytest.raises(FailureLogError, match=r"short.failures, line 1: 2 fields"):
        read_failure_log(short)


def test_random_failures_are_seeded_and_have_the_asked_mean():
    a = random_failures(Streams(7)["failures"], 4, 1e6, mtbf=1000.0, repair=50.0, shape=0.7)
    b = random_failures(Streams(7)["failures"], 4, 1e6, mtbf=1000.0, repair=50.0, shape=0.7)
    assert a == b and all(0 < f.time < 1e6 for f in a)
    # each node is up mtbf and down 50 s per cycle on average: about 1e6 / 1050 failures a node
    per_node = len(a) / 4
    assert 1e6 / 1050 * 0.85 < per_node < 1e6 / 1050 * 1.15, per_node


@st.composite
def workloads(draw):
    n = draw(st.integers(1, 25))
    jobs = [
        Job(
            i,
            float(draw(st.integers(0, 40))),
            float(draw(st.integers(1, 30))),
            cpus=draw(st.integers(1, 6)),
            estimate=float(draw(st.integers(1, 40))),
        )
        for i in range(n)
    ]
    jobs.sort(key=lambda j: j.submit)
    failures = sorted(
        (
            NodeFailure(
                float(draw(st.integers(0, 80))),
                float(draw(st.integers(0, 20))),
                draw(st.one_of(st.none(), st.lists(st.integers(0, 3), min_size=1, max_size=3).map(tuple))),
            )
            for _ in range(draw(st.integers(0, 8)))
        ),
        key=lambda f: f.time,
    )
    return jobs, failures


@settings(max_examples=60, deadline=None)
@given(
    workloads(),
    st.sampled_from(["requeue", "drop"]),
    st.sampled_from(["none", "easy", "conservative"]),
    st.sampled_from(["run-on", "kill"]),
)
def test_no_job_is_lost_or_run_twice_under_failures(case, on_node_fail, policy, walltime):
    """Whatever the failures: every job ends exactly once, kills = restarts + drops, no CPU
    is held twice or while down, and the CPU-time up is the whole less the outages'."""
    jobs, failures = case
    env = simpy.Environment()
    machine = Machine(
        env,
        8,
        make_policy("fcfs", policy),
        allocation="first-fit",
        node_size=2,
        on_node_fail=on_node_fail,
        walltime=walltime,
    )
    Source(env, jobs, machine)
    machine.inject_failures(failures)
    env.run()
    balance = failure_conservation([j.id for j in jobs], machine.records, machine.node_kills)
    assert balance.kills == balance.restarts + balance.dropped
    assert machine.free == machine.capacity == 8 and machine.cpu_map.free == 8
    # no job held a CPU while its node was down
    for job, procs, start, end in machine.allocation_rows():
        for o in machine.node_outages:
            if set(procs_of(procs)) & set(procs_of(o.procs)):
                assert end <= o.start or start >= o.end, (job, procs, start, end, o)
    span = env.now
    if span > 0:
        down = sum(len(procs_of(o.procs)) * (o.end - o.start) for o in machine.node_outages)
        assert math.isclose(machine.capacity_time(), 8 * span - down, rel_tol=1e-9, abs_tol=1e-9)


def procs_of(text):
    from schedlab.model.core.procset import parse_procset

    return parse_procset(text)


def test_random_failures_on_a_machine_conserve_jobs():
    rng = np.random.default_rng(3)
    jobs = [
        Job(i, float(t), float(rng.integers(1, 200)), cpus=int(rng.integers(1, 9)))
        for i, t in enumerate(np.sort(rng.integers(0, 5000, 300)))
    ]
    failures = random_failures(Streams(1)["failures"], 8, 5000.0, mtbf=2000.0, repair=100.0)
    machine = run(jobs, failures, cpus=16, node_size=2, policy=EASY())
    balance = failure_conservation([j.id for j in jobs], machine.records, machine.node_kills)
    assert balance.kills > 0 and balance.kills == balance.restarts


TRACES = Path(__file__).resolve().parents[1].parent / "shared" / "traces"
SP2 = TRACES / "SDSC-SP2-1998-4.2-cln.swf.gz"


def sp2_failure_log(path):
    """40 failures of 1-3 nodes (of 4 CPUs) within SDSC-SP2 jobs 2000-2999's span, in Alea's format."""
    rng = np.random.default_rng(5)
    lines = []
    for _ in range(40):
        nodes = sorted(set(rng.integers(0, 32, size=int(rng.integers(1, 4))).tolist()))
        lines.append(
            f"{2233651 + int(rng.integers(0, 1_000_000))}\tsp2\t{int(rng.integers(600, 7200))}\t"
            + " ".join(map(str, nodes))
        )
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.skipif(not SP2.exists(), reason="traces not present")
@pytest.mark.parametrize("on_node_fail", ["requeue", "drop"])
def test_a_failure_log_replayed_on_sdsc_sp2_counts_and_conserves_the_killed_jobs(tmp_path, on_node_fail):
    """The replay scenario (what ``schedlab replay --failures`` runs) on SDSC-SP2's jobs 2000-2999 under
    EASY and walltime kill, with a failure log: every job ends once, kills = restarts + drops."""
    cfg = log_replay.Config(
        logs=(SP2.name,),
        policies=("fcfs",),
        backfills=("easy",),
        starts=(2000,),
        length=1000,
        native=False,
        logs_dir=str(TRACES),
        failures=str(sp2_failure_log(tmp_path / "sp2.failures")),
        node_size=4,
        on_node_fail=on_node_fail,
    )
    env = simpy.Environment()
    model = log_replay.build(env, cfg, {"log": SP2.name, "policy": "fcfs", "backfill": "easy"}, Streams(0))
    env.run()
    out = log_replay.measure(model)
    machine, records = model["machine"], list(model.records())
    balance = failure_conservation([r.id for r in records], records, machine.node_kills)
    assert balance.submitted == balance.ended == 1000
    assert out["kills"] == balance.kills == balance.restarts + balance.dropped > 0
    assert out["jobs_hit"] == len({k.job for k in machine.node_kills}) > 0
    if on_node_fail == "requeue":
        assert balance.dropped == 0 and not any(r.status is Status.NODE_FAIL for r in records)
    else:
        assert balance.restarts == 0 and sum(r.status is Status.NODE_FAIL for r in records) == balance.dropped
    assert out["lost_cpu_hours"] == pytest.approx(sum(k.cpu_time for k in machine.node_kills) / 3600, rel=1e-12)
    assert 0.95 < out["availability"] < 1.0
    assert out["files"]["node_kills.csv"].count("\n") == balance.kills + 1
    print(on_node_fail, {k: v for k, v in out.items() if k != "files"})


def test_a_schedule_with_failures_is_written_as_swf_with_partial_executions(tmp_path):
    """Job 1 was killed at 4 and requeued: a summary line (completed, run 0-17), then its two
    executions under the same number: status 2 (0-4, cut short) and 3 (7-17, the last, completed)."""
    from schedlab.model.formats.swf.reader import read_swf
    from schedlab.model.formats.swf.schedule import schedule_records
    from schedlab.model.formats.swf.writer import write_swf

    machine = run(two_jobs(), [NodeFailure(4.0, 3.0, (0,))])
    lines, left_out = schedule_records(machine.records, machine.node_kills)
    assert left_out == 0
    assert [(r.job_number, r.wait_time, r.run_time, r.status) for r in lines] == [
        (2, 0, 10.0, 1),
        (1, 0.0, 17.0, 1),
        (1, 0.0, 4.0, 2),
        (1, 7.0, 10.0, 3),
    ]
    write_swf(tmp_path / "run.swf", records=lines)
    back = list(read_swf(tmp_path / "run.swf").records())
    assert [(r.job_number, r.status) for r in back] == [(2, 1), (1, 1), (1, 2), (1, 3)]
    dropped = run(two_jobs(), [NodeFailure(4.0, 3.0, (0,))], on_node_fail="drop")
    assert [(r.job_number, r.run_time, r.status) for r in schedule_records(dropped.records, dropped.node_kills)[0]] == [
        (1, 4.0, 0),
        (2, 10.0, 1),
    ]

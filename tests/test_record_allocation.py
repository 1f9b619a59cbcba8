"""Records carry the allocation and the restarts (issue 25): ``"0-3 7"`` ids and node-failure restart counts.

A job's :class:`~schedlab.model.records.job_record.JobRecord` says which CPUs (or a
cluster's cores) it held in the run that produced it, in Batsim's interval-set syntax, and
how many times a node failure killed and requeued it. The writers (Batsim's ``jobs.csv``,
the SWF schedule) read both from the record; the machine's per-segment tables
(``allocation_rows``, ``node_kills``) stay the detail, and agree with the records.
"""

from __future__ import annotations

import pytest
import simpy
from test_node_failures import SP2, TRACES, sp2_failure_log, two_jobs
from test_node_failures import run as run_with_failures

from schedlab.model.analysis.failures import failure_conservation
from schedlab.model.core.failures import NodeFailure
from schedlab.model.core.job import Job
from schedlab.model.core.streams import Streams
from schedlab.model.formats.batsim import jobs_csv
from schedlab.model.formats.platform_file import parse_platform
from schedlab.model.formats.swf.schedule import schedule_records
from schedlab.model.records.job_record import Status
from schedlab.policies import FCFS
from schedlab.policies.batch import make_policy
from schedlab.policies.placement import FirstFitPlacement
from schedlab.processes import Machine, Source
from schedlab.processes.cluster.cluster import cluster_model
from schedlab.replay import log_replay


def first_fit_run(jobs, cpus=8, allocation="first-fit"):
    env = simpy.Environment()
    machine = Machine(env, cpus, FCFS(), allocation=allocation)
    Source(env, jobs, machine)
    env.run()
    return machine


def hand_jobs():
    # test_cpu_ids' worked case: A 0-2, B 3-4, C (4 CPUs) 3-6 once B ends, D 0-1 once A ends
    return [Job(1, 0.0, 10.0, cpus=3), Job(2, 1.0, 5.0, cpus=2), Job(3, 2.0, 4.0, cpus=4), Job(4, 3.0, 1.0, cpus=2)]


def test_a_first_fit_machine_gives_records_with_interval_sets():
    machine = first_fit_run(hand_jobs())
    assert {r.id: (r.allocation, r.restarts) for r in machine.records} == {
        1: ("0-2", 0),
        2: ("3-4", 0),
        3: ("3-6", 0),
        4: ("0-1", 0),
    }
    # the record's ids are the machine's side table's, job for job (one run each here)
    assert {r.id: r.allocation for r in machine.records} == machine.allocated()


def test_a_machine_without_ids_gives_empty_allocations_and_no_restarts():
    machine = first_fit_run(hand_jobs(), allocation=None)
    assert {(r.allocation, r.restarts) for r in machine.records} == {("", 0)}
    assert machine.records.column("allocation").tolist() == [""] * 4
    assert "restarts" not in machine.records._extra and "allocation" not in machine.records._extra  # stored: nothing


def test_a_rejected_or_waiting_job_holds_nothing_and_a_running_one_its_ids():
    env = simpy.Environment()
    machine = Machine(env, 4, FCFS(), allocation="first-fit", oversize="reject")
    Source(env, [Job(1, 0.0, 10.0, cpus=3), Job(2, 0.0, 5.0, cpus=2), Job(3, 0.0, 1.0, cpus=9)], machine)
    env.run(until=4)
    assert {r.id: (r.status, r.allocation) for r in machine.all_records()} == {
        3: (Status.REJECTED, ""),
        1: (Status.RUNNING, "0-2"),
        2: (Status.WAITING, ""),
    }


def test_a_resized_job_records_the_union_of_the_ids_of_its_last_run():
    """Job 1 (4 CPUs) runs on 0-3, is squeezed onto 0-1 at 2 (job 2 takes 2-3), grown back to 4
    at 5 once job 2 has ended (first fit gives it 2-3 again, then the run ends): the record
    holds 0-3. A preempted job's last run is the one after its resume."""
    env = simpy.Environment()
    machine = Machine(env, 4, lambda view: None, allocation="first-fit")
    job, other = Job(1, 0.0, 10.0, cpus=4), Job(2, 0.0, 3.0, cpus=2)
    machine.submit(job)
    machine.submit(other)
    machine.start(job)
    env.run(until=2)
    machine.resize(job, 2)
    machine.start(other)
    env.run(until=6)
    machine.resize(job, 4)
    env.run()
    by_id = {r.id: r for r in machine.records}
    assert by_id[1].allocation == "0-3" and by_id[1].resizes == 2
    assert [row[1] for row in machine.allocation_rows() if row[0] == 1] == ["0-3", "0-1", "0-3"]

    env = simpy.Environment()
    machine = Machine(env, 4, lambda view: None, allocation="first-fit")
    job, other = Job(1, 0.0, 10.0, cpus=2), Job(2, 0.0, 10.0, cpus=2)
    machine.submit(job)
    machine.submit(other)
    machine.start(job)  # 0-1
    env.run(until=2)
    machine.preempt(job)
    machine.start(other)  # 0-1
    machine.start(job)  # resumed on 2-3
    env.run()
    assert {r.id: r.allocation for r in machine.records} == {1: "2-3", 2: "0-1"}
    assert machine.allocated()[1] == "0-3"  # the side table's union over the whole life


def test_a_cluster_gives_its_records_the_core_ids_of_its_nodes():
    """Two nodes of 4 cores (ids 0-3 on cpu-0, 4-7 on cpu-1), first-fit placement (test_cpu_ids'
    case): A 0-2, B (3 cores) on cpu-1: 4-6, C cpu-0's last core 3, D 0-1 once A has ended."""
    platform = parse_platform({"nodes": {"cpu": {"count": 2, "cores": 4}}})
    jobs = [Job(1, 0.0, 10.0, cpus=3), Job(2, 1.0, 10.0, cpus=3), Job(3, 2.0, 10.0, cpus=1), Job(4, 3.0, 5.0, cpus=2)]
    model = cluster_model(simpy.Environment(), jobs, platform, make_policy("fcfs", "easy"), FirstFitPlacement()).run()
    assert {r.id: r.allocation for r in model.records()} == {1: "0-2", 2: "4-6", 3: "3", 4: "0-1"}
    two_nodes = [Job(5, 0.0, 1.0, cpus=6)]  # one job across both nodes: 0-3 and 4-5
    model = cluster_model(simpy.Environment(), two_nodes, platform, make_policy("fcfs"), FirstFitPlacement()).run()
    assert [r.allocation for r in model.records()] == ["0-5"]


def test_a_requeued_job_records_its_restarts_and_the_ids_of_its_last_run():
    """test_node_failures' worked case: node 0 fails at 4, job 1 is killed and requeued, and runs
    7-17 on 0-1 after the repair: one restart. Dropped instead, it ends NODE_FAIL with 0 restarts."""
    machine = run_with_failures(two_jobs(), [NodeFailure(4.0, 3.0, (0,))])
    assert {r.id: (r.restarts, r.allocation) for r in machine.records} == {1: (1, "0-1"), 2: (0, "2-3")}
    dropped = run_with_failures(two_jobs(), [NodeFailure(4.0, 3.0, (0,))], on_node_fail="drop")
    assert {r.id: (r.status, r.restarts, r.allocation) for r in dropped.records} == {
        1: (Status.NODE_FAIL, 0, "0-1"),
        2: (Status.COMPLETED, 0, "2-3"),
    }
    # the SWF writer takes the count from the record, the executions' times from the kills
    lines, _ = schedule_records(machine.records, machine.node_kills)
    assert [line.status for line in lines if line.job_number == 1] == [1, 2, 3]
    with pytest.raises(ValueError, match="job 1: its record says 1 restarts, but 0 requeued node kills"):
        schedule_records(machine.records)


def test_a_cluster_failure_requeues_and_counts_on_the_record():
    from test_power_states import PLATFORM

    jobs = [Job(1, 0.0, 10.0, cpus=4), Job(2, 0.0, 10.0, cpus=2), Job(3, 0.0, 10.0, cpus=2)]
    model = cluster_model(
        simpy.Environment(),
        jobs,
        PLATFORM,
        make_policy("fcfs"),
        FirstFitPlacement(),
        failures=[NodeFailure(4.0, 3.0, (1,))],
    ).run()
    assert {r.id: (r.restarts, r.allocation) for r in model.records()} == {1: (0, "0-3"), 2: (1, "4-5"), 3: (1, "6-7")}


@pytest.mark.skipif(not SP2.exists(), reason="traces not present")
def test_a_failure_log_replay_records_agree_with_the_kills_and_the_allocation_rows(tmp_path):
    """SDSC-SP2 jobs 2000-2999 under EASY with a failure log (test_node_failures' case): each record's
    restarts is the count of its job's requeued kills, its allocation the procs of its job's last row."""
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
    )
    env = simpy.Environment()
    model = log_replay.build(env, cfg, {"log": SP2.name, "policy": "fcfs", "backfill": "easy"}, Streams(0))
    env.run()
    machine, records = model["machine"], list(model.records())
    requeued: dict[int, int] = {}
    for kill in machine.node_kills:
        if kill.outcome == "requeued":
            requeued[kill.job] = requeued.get(kill.job, 0) + 1
    last_row = {job: procs for job, procs, _, _ in machine.allocation_rows()}  # rows in closing order
    assert sum(requeued.values()) > 0
    mismatched = [
        (r.id, r.restarts, requeued.get(r.id, 0), r.allocation, last_row.get(r.id, ""))
        for r in records
        if r.restarts != requeued.get(r.id, 0) or r.allocation != last_row.get(r.id, "")
    ]
    assert mismatched == [], f"(job, record restarts, kills, record allocation, last row) differ: {mismatched[:5]}"
    restarted = sum(r.restarts > 0 for r in records)
    balance = failure_conservation([r.id for r in records], records, machine.node_kills)
    assert sum(r.restarts for r in records) == balance.restarts
    print(f"{len(records)} records, {restarted} restarted, {balance.restarts} restarts, {balance.kills} kills")


def test_batsim_jobs_csv_takes_allocated_resources_from_the_records():
    """What jobs_csv wrote from the machine's side table (its ``allocated=`` mapping, before the
    records carried ids) is what it writes from the records now, on the hand-worked case."""
    machine = first_fit_run(hand_jobs())
    text, left_out = jobs_csv(machine.records)
    before, _ = jobs_csv([r._replace(allocation=machine.allocated()[r.id]) for r in machine.records])
    assert left_out == 0 and text == before
    rows = [line.split(",") for line in text.splitlines()[1:]]
    assert {row[0]: row[14] for row in rows} == {"1": "0-2", "2": "3-4", "3": "3-6", "4": "0-1"}


def test_arrow_and_parquet_keep_the_new_columns(tmp_path):
    """The columns from the log's arrays (Arrow, no pandas), and a saved run read back from Parquet."""
    from schedlab.experiment.run_records import RunRecords
    from schedlab.model.records.table import read_records, records_of_frame

    env = simpy.Environment(initial_time=0.0)  # float times: the log holds every record in its arrays
    machine = Machine(env, 4, FCFS(), allocation="first-fit", node_size=2)
    Source(env, two_jobs(), machine)
    machine.inject_failures([NodeFailure(4.0, 3.0, (0,))])
    env.run()
    table = machine.records.arrow_table()
    assert table is not None
    assert table.column("restarts").to_pylist() == [r.restarts for r in machine.records] == [0, 1]
    assert table.column("allocation").to_pylist() == [r.allocation for r in machine.records] == ["2-3", "0-1"]
    assert RunRecords([(machine.records, {"policy": "fcfs"}, 0)]).save(tmp_path) == "records.parquet"
    back = records_of_frame(read_records(tmp_path))
    assert [(r.id, r.restarts, r.allocation) for r in back] == [(2, 0, "2-3"), (1, 1, "0-1")]

"""CPUs with identities: a Machine built with ``allocation=`` gives each job specific ids (issue 25 item 1)."""

from __future__ import annotations

import pytest
import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.model.contracts.cpu_map import CpuMap, first_fit, lowest_free
from schedlab.model.core.job import Job
from schedlab.model.core.procset import format_procset, parse_procset
from schedlab.policies import FCFS
from schedlab.policies.batch import make_policy
from schedlab.processes import Machine, Source


def run(jobs, cpus=8, policy=None, allocation="first-fit", until=None):
    env = simpy.Environment()
    machine = Machine(env, cpus, policy or FCFS(), allocation=allocation)
    Source(env, jobs, machine)
    env.run(until=until)
    return machine


def test_interval_sets_are_written_and_read_as_batsim_writes_them():
    assert format_procset([7, 0, 1, 2, 3]) == "0-3 7"
    assert format_procset([5]) == "5" and format_procset([]) == ""
    assert parse_procset("0-3 7") == [0, 1, 2, 3, 7]
    assert parse_procset(" 7 0-1 1-2 ") == [0, 1, 2, 7]  # any order, overlaps merged
    with pytest.raises(ValueError, match=r"jobs.csv line 3: '3-1' is not an interval"):
        parse_procset("0 3-1", where="jobs.csv line 3")
    with pytest.raises(ValueError, match=r"'a-2' is not an id"):
        parse_procset("a-2")


def test_first_fit_gives_the_lowest_contiguous_block_worked_by_hand():
    """8 CPUs, FCFS. A (3 CPUs, 0-10) takes 0-2; B (2, 1-6) 3-4; C (4 CPUs) waits until B
    ends at 6 and takes 3-6, the lowest block of 4 (0-2 still A's); D (2) waits behind C
    (FCFS) until A ends at 10 and takes 0-1."""
    jobs = [Job(1, 0.0, 10.0, cpus=3), Job(2, 1.0, 5.0, cpus=2), Job(3, 2.0, 4.0, cpus=4), Job(4, 3.0, 1.0, cpus=2)]
    machine = run(jobs)
    assert machine.allocation_rows() == [
        (2, "3-4", 1.0, 6.0),
        (1, "0-2", 0.0, 10.0),
        (3, "3-6", 6.0, 10.0),
        (4, "0-1", 10.0, 11.0),
    ]
    assert machine.allocated() == {1: "0-2", 2: "3-4", 3: "3-6", 4: "0-1"}
    assert machine.cpu_map.free == 8


def test_without_a_contiguous_block_first_fit_takes_the_lowest_free_ids():
    procs = CpuMap(6)
    procs.take([1, 3])
    assert list(first_fit(procs, 2)) == [4, 5] and list(first_fit(procs, 3)) == [0, 2, 4]
    assert lowest_free(procs, 2) == [0, 2]


def test_another_rule_is_a_function_of_the_map():
    def highest(procs: CpuMap, n: int) -> list[int]:
        free = [i for i in range(procs.size) if not procs.busy[i]]
        return free[-n:]

    machine = run([Job(1, 0.0, 5.0, cpus=3), Job(2, 1.0, 5.0, cpus=2)], allocation=highest)
    assert machine.allocated() == {1: "5-7", 2: "3-4"}
    with pytest.raises(ValueError, match="gave \\[0\\] for 3 CPUs"):
        run([Job(1, 0.0, 5.0, cpus=3)], allocation=lambda procs, n: [0])
    with pytest.raises(ValueError, match="unknown allocation 'best'"):
        run([], allocation="best")


def test_squeezed_jobs_keep_their_lowest_ids_and_preempted_jobs_give_all_back():
    env = simpy.Environment()
    machine = Machine(env, 4, lambda view: None, allocation="first-fit")
    job, other = Job(1, 0.0, 10.0, cpus=4), Job(2, 0.0, 10.0, cpus=2)
    machine.submit(job)
    machine.submit(other)
    machine.start(job)
    env.run(until=2)
    machine.resize(job, 2)  # squeezed onto 0-1
    machine.start(other)  # takes 2-3
    env.run(until=3)
    machine.preempt(job)  # gives 0-1 back
    assert machine.held_ids(job) == [] and machine.held_ids(other) == [2, 3]
    rows = machine.allocation_rows(running=False)
    assert rows == [(1, "0-3", 0.0, 2.0), (1, "0-1", 2.0, 3.0)]
    with pytest.raises(ValueError, match="elastic capacity with CPU ids"):
        machine.set_capacity(3)


@st.composite
def workloads(draw):
    cpus = draw(st.integers(1, 8))
    n = draw(st.integers(1, 20))
    submits = sorted(draw(st.lists(st.integers(0, 30), min_size=n, max_size=n)))
    jobs = [
        Job(
            i,
            float(s),
            float(draw(st.integers(1, 15))),
            cpus=draw(st.integers(1, cpus)),
            estimate=float(draw(st.integers(1, 20))),
        )
        for i, s in enumerate(submits)
    ]
    return (
        cpus,
        jobs,
        draw(st.sampled_from(["none", "easy", "conservative"])),
        draw(st.sampled_from(["first-fit", "lowest"])),
    )


@settings(max_examples=150, deadline=None)
@given(workloads())
def test_no_processor_is_held_by_two_jobs_at_once_and_each_job_holds_what_it_asked(case):
    cpus, jobs, backfill, rule = case
    machine = run(jobs, cpus, make_policy("fcfs", backfill), allocation=rule)
    rows = machine.allocation_rows()
    by_job = {job.id: job for job in jobs}
    events = []
    for job_id, procs, start, end in rows:
        ids = parse_procset(procs)
        assert len(ids) == by_job[job_id].cpus and all(0 <= i < cpus for i in ids)
        events += [(start, 1, i, job_id) for i in ids] + [(end, 0, i, job_id) for i in ids]
    holder: dict[int, int] = {}
    for _, begins, i, job_id in sorted(events):  # at one time, ends (0) before starts (1)
        if begins:
            assert i not in holder, f"CPU {i} given to job {job_id} while job {holder[i]} holds it"
            holder[i] = job_id
        else:
            del holder[i]
    record_start = {r.id: r.start for r in machine.records}
    assert {job_id: start for job_id, _, start, _ in rows} == record_start  # one segment per job here
    again = run(jobs, cpus, make_policy("fcfs", backfill), allocation=rule)
    assert again.allocation_rows() == rows  # deterministic


def test_a_cluster_gives_core_ids_through_its_placement_rule():
    """Two nodes of 4 cores: ids 0-3 on cpu-0, 4-7 on cpu-1. First-fit placement puts A (3
    cores) on cpu-0 (cores 0-2); B (3) does not fit there (1 core left): cpu-1, ids 4-6; C (1)
    takes cpu-0's last core, id 3. When A ends, D (2) gets cpu-0's cores 0-1."""
    from schedlab.model.formats.platform_file import parse_platform
    from schedlab.policies.placement import FirstFitPlacement
    from schedlab.processes.cluster.cluster import cluster_model

    platform = parse_platform({"nodes": {"cpu": {"count": 2, "cores": 4}}})
    jobs = [Job(1, 0.0, 10.0, cpus=3), Job(2, 1.0, 10.0, cpus=3), Job(3, 2.0, 10.0, cpus=1), Job(4, 3.0, 5.0, cpus=2)]
    model = cluster_model(simpy.Environment(), jobs, platform, make_policy("fcfs", "easy"), FirstFitPlacement()).run()
    cluster = model["cluster"]
    assert cluster.allocated() == {1: "0-2", 2: "4-6", 3: "3", 4: "0-1"}
    assert [row[1:] for row in cluster.allocation_rows() if row[0] == 4] == [("0-1", 10.0, 15.0)]
    assert cluster.core_of(5) == ("cpu-1", 1) and cluster.core_of(3) == ("cpu-0", 3)
    with pytest.raises(ValueError, match="no core 8"):
        cluster.core_of(8)


def test_a_machine_with_ids_is_its_own_class_and_shows_what_runs() -> None:
    from schedlab.processes.machine.with_ids import MachineWithIds

    env = simpy.Environment()
    plain = Machine(env, 4, FCFS())
    with_ids = Machine(env, 4, FCFS(), allocation="first-fit")
    assert type(plain) is Machine and type(with_ids) is MachineWithIds
    # no method replaced on an instance: what runs is the class's
    for name in ("start", "resize", "_release", "_leave"):
        assert name not in vars(with_ids) and name not in vars(plain)
    assert MachineWithIds.start is not Machine.start


def test_a_subclass_that_cannot_give_ids_is_refused_in_one_line() -> None:
    class Mine(Machine):
        pass

    with pytest.raises(TypeError, match=r"machine 'machine': a Mine gives no CPU ids; .*MachineWithIds"):
        Mine(simpy.Environment(), 4, FCFS(), allocation="first-fit")


def test_machine_with_allocation_builds_a_machine_with_ids_when_only_machine_py_is_imported():
    """``Machine(..., allocation=...)`` builds a ``MachineWithIds`` with nothing but machine.py imported.

    Python runs a package's ``__init__`` before any module of it, and the machine package's
    ``__init__`` imports with_ids.py, which tells ``Machine`` its subclass: no import order a
    user writes can leave it untold.
    """
    import subprocess
    import sys

    code = (
        "import simpy\n"
        "from schedlab.processes.machine.machine import Machine\n"
        "from schedlab.model.contracts.machine import Start\n"
        "from schedlab.model.core.job import Job\n"
        "env = simpy.Environment()\n"
        "m = Machine(env, 4, lambda v: Start(v.waiting[0]) if v.waiting else None, allocation='first-fit')\n"
        "m.submit(Job(1, 0.0, 2.0, cpus=3))\n"
        "env.run()\n"
        "print(type(m).__name__, m.gives_ids, m.allocation_rows())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[0] == "MachineWithIds True [(1, '0-2', 0.0, 2.0)]"

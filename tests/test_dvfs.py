"""DVFS pstates (issue 25 item 3, optional pstates): slower nodes stretch jobs, their watts are counted to the joule."""

from __future__ import annotations

import csv
import math

import pytest
import simpy

from schedlab.model.analysis.energy import energy
from schedlab.model.contracts.power import SetPstate, WakeAt
from schedlab.model.core.job import Job
from schedlab.model.core.platform import Pstate
from schedlab.model.formats.batsim_platform import BatsimPlatformError, batsim_node_power
from schedlab.model.formats.platform_file import PlatformError, load_platform, parse_platform
from schedlab.model.records.job_record import Status
from schedlab.policies.batch import make_policy
from schedlab.policies.dvfs import QueueDVFS
from schedlab.policies.placement import FirstFitPlacement
from schedlab.processes.cluster.power import powered_cluster_model
from schedlab.processes.machine.machine import PolicyError


def platform(start: int = 0):
    """Two nodes of 4 cores: pstate 0 at speed 1, 100 W idle and 200 W full; pstate 1 at half speed, 60 W and 100 W."""
    pstates = [{"speed": 1.0, "idle": 100, "full": 200}, {"speed": 0.5, "idle": 60, "full": 100}]
    return parse_platform({"nodes": {"n": {"count": 2, "cores": 4, "power": {"pstates": pstates, "pstate": start}}}})


def run(jobs, policy, plat, walltime="run-on"):
    model = powered_cluster_model(simpy.Environment(), jobs, plat, policy, FirstFitPlacement(), walltime=walltime)
    return model.run()["cluster"]


def report_of(cluster, end):
    return energy(cluster.placement_rows(), cluster.platform, 0.0, end, cluster.power_rows(), cluster.pstate_rows())


def test_the_platform_file_reads_pstates_and_names_bad_values():
    power = platform(start=1).node_types[0].power
    assert power.levels == (Pstate(1.0, 100.0, 200.0), Pstate(0.5, 60.0, 100.0))
    assert (power.idle, power.full, power.pstate) == (100.0, 200.0, 1)
    # no list: one pstate at speed 1 from idle and full (the files written before DVFS)
    assert parse_platform({"nodes": {"n": {"cores": 1, "power": {"idle": 1, "full": 2}}}}).node_types[
        0
    ].power.levels == (Pstate(1.0, 1.0, 2.0),)
    bad = [
        ({"pstates": [{"speed": 0, "idle": 1, "full": 2}]}, r"pstates\[0\]\.speed: .*> 0, got 0"),
        ({"pstates": [{"speed": math.inf, "idle": 1, "full": 2}]}, r"pstates\[0\]\.speed: .*finite.*got inf"),
        ({"pstates": [{"speed": 1, "idle": 3, "full": 2}]}, r"pstates\[0\]\.full: must be >= idle \(3 W\), got 2"),
        ({"pstates": [{"speed": 1, "idle": 1}]}, r"pstates\[0\]\.full: is missing"),
        ({"pstates": []}, r"pstates: must be a non-empty list"),
        ({"pstates": [{"speed": 1, "idle": 1, "full": 2}], "idle": 1}, r"idle: give pstate 0's watts"),
        ({"pstates": [{"speed": 1, "idle": 1, "full": 2}], "pstate": 1}, r"pstate: names no pstate.*got 1"),
    ]
    for table, message in bad:
        with pytest.raises(PlatformError, match=r"^platform: nodes\.n\.power\." + message):
            parse_platform({"nodes": {"n": {"cores": 1, "power": table}}})


def test_a_job_at_half_speed_computed_by_hand_to_the_joule():
    """Both nodes start in pstate 1 (half speed; 60 W idle, 100 W full). Job 1 (4 cores,
    runtime 10 s) runs on n-0 from 0 to 20 s: its runtime doubles.

    n-0: 60 W x 20 s + (100 - 60) W x 4/4 x 20 s = 2,000 J (100 W throughout);
    n-1: idle, 60 W x 20 s = 1,200 J. Total 3,200 J. Job 1: 100 W x 20 s = 2,000 J.
    The record keeps the ideal runtime (10 s); its service shows the stretch (20 s)."""
    cluster = run([Job(1, 0.0, 10.0, cpus=4)], make_policy("fcfs"), platform(start=1))
    (record,) = cluster.records
    assert (record.runtime, record.start, record.end) == (10.0, 0.0, 20.0)
    assert cluster.pstate_rows() == [("n-0", 1, 0.0, 20.0), ("n-1", 1, 0.0, 20.0)]
    report = report_of(cluster, 20.0)
    assert report.per_node == {"n-0": 2000.0, "n-1": 1200.0}
    assert report.total == 3200.0 and report.per_job == {1: 2000.0}


class SlowDownAt:
    """FCFS, and both nodes set to pstate ``pstate`` at time ``at`` (a policy written against the contract)."""

    def __init__(self, at: float, pstate: int) -> None:
        self.inner, self.at, self.pstate, self.done = make_policy("fcfs"), at, pstate, False

    def __call__(self, view):
        answer = self.inner(view)  # FCFS's whole answer (lazily), then this policy's
        return self._then(answer if answer is not None else (), view)

    def _then(self, answer, view):
        yield from answer
        if view.now < self.at:
            yield WakeAt(self.at)
        elif not self.done:
            self.done = True
            yield SetPstate(list(view.power), self.pstate)


def test_a_pstate_change_under_a_running_job_rescales_its_work_left():
    """Job 1 (4 cores, runtime 100 s) starts at 0 on n-0 at full speed; at 50 s both nodes go to
    half speed. Half its work is left, which now takes 100 s: it ends at 150 s.

    n-0: 200 W x 50 s + 100 W x 100 s = 20,000 J; n-1: 100 W x 50 s + 60 W x 100 s = 11,000 J.
    Job 1: 20,000 J (all of n-0's cores, all the time)."""
    cluster = run([Job(1, 0.0, 100.0, cpus=4)], SlowDownAt(50.0, 1), platform())
    (record,) = cluster.records
    assert (record.status, record.runtime, record.end) == (Status.COMPLETED, 100.0, 150.0)
    assert {n: p.pstate for n, p in cluster.power.items()} == {"n-0": 1, "n-1": 1}
    report = report_of(cluster, 150.0)
    assert report.per_node == {"n-0": 20000.0, "n-1": 11000.0}
    assert report.per_job == {1: 20000.0}


def test_speeding_up_a_slowed_job_brings_its_end_forward():
    """Starts at half speed (runtime 100 s: 200 s planned); at 50 s, a quarter done, pstate 0:
    the other 75 s of work end at 125 s."""
    cluster = run([Job(1, 0.0, 100.0, cpus=4)], SlowDownAt(50.0, 0), platform(start=1))
    (record,) = cluster.records
    assert record.end == pytest.approx(125.0, abs=1e-9)


def test_a_walltime_kill_counts_wall_clock_seconds_on_a_slow_node():
    """Runtime 10 s, 15 s asked for: at half speed it would need 20 s, so it is killed at 15 s."""
    job = Job(1, 0.0, 10.0, cpus=4, estimate=15.0)
    cluster = run([job], make_policy("fcfs"), platform(start=1), walltime="kill")
    (record,) = cluster.records
    assert (record.status, record.end) == (Status.TIMEOUT, 15.0)
    fast = run([job], make_policy("fcfs"), platform(start=0), walltime="kill")
    assert (fast.records[0].status, fast.records[0].end) == (Status.COMPLETED, 10.0)


def test_the_view_shows_pstates_and_bad_set_pstate_is_named():
    seen = {}

    def policy(view):
        seen.update(view.power)
        return SetPstate("n-0", 2)

    with pytest.raises(PolicyError, match=r"node 'n-0' has pstates 0\.\.1; cannot set pstate 2"):
        run([Job(1, 0.0, 10.0, cpus=4)], policy, platform())
    assert seen["n-0"].pstate == 0 and seen["n-0"].pstates[1] == Pstate(0.5, 60.0, 100.0)
    with pytest.raises(PolicyError, match=r"cannot set the pstate of 'x': no such node"):
        run([Job(1, 0.0, 10.0, cpus=4)], lambda view: SetPstate("x", 0), platform())


def test_batsims_cluster_energy_128_compute_pstates(tmp_path):
    """Batsim's platforms/cluster_energy_128.xml (transcribed in tests/data; checked against
    oar-team/batsim at 6ea18398): pstates 0-12 compute, from 100 Mf at 95:190.738 W down to
    44.976 Mf at 95:125.88 W; 13-15 are its sleep pstates, not DVFS levels."""
    power = batsim_node_power("tests/data/batsim_energy_cluster.xml")
    assert len(power.levels) == 13 and power.levels[0] == Pstate(1.0, 95.0, 190.738)
    full = [190.738, 171.02, 165.62, 160.47, 155.729, 151.3, 146.92, 142.95, 138.928, 135.368, 132.519, 128.87, 125.88]
    assert [p.full for p in power.levels] == full and {p.idle for p in power.levels} == {95.0}
    assert power.levels[1].speed == pytest.approx(0.8895899053627761, rel=1e-12)
    assert power.levels[12].speed == pytest.approx(0.4497607655502392, rel=1e-12)
    # docs/platforms/batsim_dvfs_128.toml, the measured table's platform, gives the same pstates
    (host,) = load_platform("docs/platforms/batsim_dvfs_128.toml").node_types
    assert host.count == 128 and host.power.off == power.off
    assert [(p.idle, p.full) for p in host.power.levels] == [(p.idle, p.full) for p in power.levels]
    assert [p.speed for p in host.power.levels] == pytest.approx([p.speed for p in power.levels], rel=1e-15)
    bad = tmp_path / "bad.xml"
    bad.write_text(
        '<platform><cluster id="c" speed="1Mf, 0f, 1f, 1f, 1f">'
        '<prop id="watt_per_state" value="1:2, 1:2, 3:3, 3:3, 3:3"/>'
        '<prop id="watt_off" value="3"/><prop id="sleep_pstates" value="2:3:4"/></cluster></platform>'
    )
    with pytest.raises(BatsimPlatformError, match=r"bad\.xml: cluster 'c': pstate 1: speed 0 f"):
        batsim_node_power(bad)


def test_queue_dvfs_computed_by_hand_to_the_joule():
    """QueueDVFS(FCFS, low=1): half speed while no job waits, full speed when one does.

    0 s: job 1 (4 cores, 10 s of work) starts on n-0; nothing waits: both nodes to pstate 1.
    5 s: job 2 (8 cores, 10 s) arrives and cannot start: both nodes to pstate 0. Job 1 did
    2.5 s of work at half speed; its 7.5 s left end at 12.5 s. Job 2 starts then, the queue
    is empty again, pstate 1: its 10 s of work take 20 s, to 32.5 s.

    n-0: 100 W x 5 s + 200 W x 7.5 s + 100 W x 20 s = 4,000 J;
    n-1: 60 W x 5 s + 100 W x 7.5 s + 100 W x 20 s = 3,050 J. Total 7,050 J.
    Job 1: 500 + 1,500 = 2,000 J; job 2: 2 nodes x 100 W x 20 s = 4,000 J."""
    jobs = [Job(1, 0.0, 10.0, cpus=4), Job(2, 5.0, 10.0, cpus=8)]
    cluster = run(jobs, QueueDVFS(make_policy("fcfs"), low=1), platform())
    assert {r.id: (r.start, r.end) for r in cluster.records} == {1: (0.0, 12.5), 2: (12.5, 32.5)}
    report = report_of(cluster, 32.5)
    assert report.per_node == {"n-0": 4000.0, "n-1": 3050.0}
    assert report.per_job == {1: 2000.0, 2: 4000.0}
    with pytest.raises(ValueError, match=r"QueueDVFS: low must be a whole number >= 1, got 0"):
        QueueDVFS(make_policy("fcfs"), low=0)


def test_schedlab_replay_dvfs_gives_the_same_joules(dvfs_replays):
    """The case above as a log on a platform file, through ``schedlab replay --dvfs 1``."""
    tmp_path = dvfs_replays
    rows = {}
    for name in ("dvfs", "fast"):
        with (tmp_path / name / "replications.csv").open() as stream:
            rows[name] = next(csv.DictReader(stream))
    assert float(rows["dvfs"]["energy_j"]) == pytest.approx(7050.0, rel=1e-12)
    assert float(rows["dvfs"]["wait"]) == pytest.approx(7.5 / 2)
    # always pstate 0: job 1 0-10 s, job 2 10-20 s; n-0 200 W x 20 s, n-1 100 W x 10 s + 200 W x 10 s
    assert float(rows["fast"]["energy_j"]) == pytest.approx(7000.0, rel=1e-12)


def test_a_slowed_job_preempted_resumes_with_its_ideal_work_left():
    """Job 1 (4 cores, 10 s of work) starts at half speed at 0; preempted at 5 s it has done
    2.5 s of work. Both nodes go to pstate 0 and it resumes at 6 s: 7.5 s left, it ends at 13.5 s."""
    from schedlab.model.contracts.machine import Preempt, Start

    def policy(view):
        if view.now == 0 and view.waiting:
            return Start(view.waiting[0])
        if view.now == 0:
            return [WakeAt(5.0)]  # a list: the whole answer
        if view.now == 5.0 and view.running:
            return [Preempt(view.running[0].job), SetPstate(list(view.power), 0), WakeAt(6.0)]
        if view.now == 6.0 and view.waiting:
            return Start(view.waiting[0])
        return None

    cluster = run([Job(1, 0.0, 10.0, cpus=4)], policy, platform(start=1))
    (record,) = cluster.records
    assert (record.status, record.start, record.end, record.preemptions) == (Status.COMPLETED, 0.0, 13.5, 1)

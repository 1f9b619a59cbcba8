"""Conservative backfilling: hand-worked schedules, the plan, and the heapq reference on real logs."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import simpy

from schedlab.model.core.job import Job
from schedlab.model.formats.logs import load_log
from schedlab.policies.backfilling import EASY
from schedlab.policies.batch import BACKFILLS, make_policy
from schedlab.policies.conservative import Conservative
from schedlab.policies.conservative_rebuild import RebuildConservative, plan
from schedlab.policies.profile import Profile
from schedlab.policies.scoring import Priority
from schedlab.processes.machine.machine import Machine
from schedlab.processes.machine.replay import replay_model
from schedlab.processes.source import Source

ROOT = Path(__file__).resolve().parents[1]
TRACES = ROOT.parent / "shared" / "traces"


def five_jobs() -> list[Job]:
    """Four CPUs; exact estimates (no ``estimate``: the runtime is the requested time)."""
    return [
        Job(id=1, submit=0.0, runtime=10.0, cpus=3),  # A
        Job(id=2, submit=1.0, runtime=10.0, cpus=2),  # B
        Job(id=3, submit=2.0, runtime=10.0, cpus=4),  # C
        Job(id=4, submit=3.0, runtime=30.0, cpus=1),  # D
        Job(id=5, submit=4.0, runtime=5.0, cpus=1),  # E
    ]


def starts(policy, jobs: list[Job], cpus: int = 4) -> dict[int, float]:
    env = simpy.Environment()
    model = replay_model(env, jobs, cpus, policy).run()
    return {r.id: r.start for r in model.records()}


def test_conservative_protects_every_reservation_where_easy_protects_only_the_head():
    """Worked by hand, 4 CPUs, FCFS; job: submit, CPUs, run (= requested) time.

    A 0, 3, 10 · B 1, 2, 10 · C 2, 4, 10 · D 3, 1, 30 · E 4, 1, 5.

    EASY. A starts at 0 (1 CPU left). B does not fit: it is the head; at A's end (10)
    4 CPUs are free, so its shadow time is 10 with 2 extra CPUs. C (4 CPUs) does not fit.
    At 3, D fits the free CPU and would run past 10, but uses 1 <= 2 extra CPUs: it
    starts, until 33. E at 4 finds no CPU free. At 10 A ends: B starts (3 free, needs 2);
    the head is now C, whose shadow is 33 (B ends at 20, D at 33): E ends at 15 <= 33 and
    starts. B ends at 20, but D holds a CPU until 33: C starts at 33, 13 s after the
    time conservative gives it.

    Conservative. Every waiting job holds a reservation in the profile of free CPUs.
    At 3 the profile is 1 CPU from 3, 4 from 10. B takes [10, 20) (2 CPUs), C takes
    [20, 30) (all 4), so D (1 CPU for 30 s) finds 1 CPU at 3 and 2 at 10 but 0 at 20:
    its slot is 30, and it does not start. At 4, E needs 1 CPU for 5 s: [4, 9) lies
    before B's reservation and the 1 free CPU is unreserved there, so E starts now,
    earlier than under EASY. Then B 10, C 20, D 30: each at the reservation it got.
    """
    jobs = five_jobs()
    assert starts(make_policy("fcfs", "easy"), jobs) == {1: 0.0, 2: 10.0, 3: 33.0, 4: 3.0, 5: 10.0}
    assert starts(make_policy("fcfs", "conservative"), jobs) == {1: 0.0, 2: 10.0, 3: 20.0, 4: 30.0, 5: 4.0}
    # exact estimates, FCFS: rebuilding the plan at each decision gives the same slots
    assert starts(make_policy("fcfs", "conservative-rebuild"), jobs) == starts(Conservative(), jobs)


def test_plan_gives_every_waiting_job_its_reservation():
    """The plan at 4.5 (E runs on the free CPU until 9): B 10, C 20, D 30, as worked above."""
    env = simpy.Environment()
    policy = Conservative()
    machine = Machine(env, 4, policy)
    Source(env, five_jobs(), machine)
    env.run(until=4.5)
    reserved = {job.id: t for job, t in plan(machine.view).items()}
    assert reserved == {2: 10.0, 3: 20.0, 4: 30.0}
    assert {job.id: t for job, t in policy.reservations().items()} == reserved  # the plan it keeps
    assert {job.id: t for job, t in policy.promised.items()} == {**reserved, 1: 0.0, 5: 4.0}


def test_a_job_ending_early_lets_the_plan_move_up():
    """A asks for 10 s but ends at 6: at 6 the plan is made again from the machine as it is.

    4 CPUs. A 0, 3 CPUs, runs 6 of 10 requested; B 1, 4 CPUs, 10 s. B's reservation is
    10 (A's requested end) until A ends at 6; then B fits and starts at 6. A later,
    narrow job C (1 CPU, 2 s, at 2) ran on the free CPU in [2, 4) before B's slot.
    """
    jobs = [
        Job(id=1, submit=0.0, runtime=6.0, cpus=3, estimate=10.0),
        Job(id=2, submit=1.0, runtime=10.0, cpus=4),
        Job(id=3, submit=2.0, runtime=2.0, cpus=1),
    ]
    assert starts(Conservative(), jobs) == {1: 0.0, 2: 6.0, 3: 2.0}
    assert starts(RebuildConservative(), jobs) == {1: 0.0, 2: 6.0, 3: 2.0}


def test_profile_finds_the_earliest_slot_and_splits_steps():
    """Free CPUs 1 from 0, 4 from 10 (a 3-CPU job requested to end at 10)."""
    profile = Profile(0.0, 1, [(10.0, 3)])
    assert (profile.times, profile.free) == ([0.0, 10.0], [1, 4])
    i = profile.earliest(2, 10.0)
    assert profile.times[i] == 10.0
    profile.reserve(i, 2, 10.0)  # [10, 20): a new step at 20
    assert (profile.times, profile.free) == ([0.0, 10.0, 20.0], [1, 2, 4])
    assert profile.times[profile.earliest(3, 5.0)] == 20.0
    assert profile.earliest(1, 100.0) == 0  # 1 CPU stays free throughout
    assert profile.earliest(5, 1.0) == -1  # wider than the machine


def test_any_priority_order_and_the_command_line_names():
    """Rebuilt at each decision, SJF ranks the whole queue by requested time: the 2 s job goes
    before the 10 s one that came first. With reservations at arrival, the 10 s job's slot
    (10) was promised before the 2 s job came: it keeps it, and the order ranks only jobs
    that arrive together."""
    assert {"conservative", "conservative-rebuild"} <= set(BACKFILLS)
    policy = make_policy("sjf", "conservative")
    assert isinstance(policy, Conservative) and str(policy) == "sjf+conservative"
    rebuild = make_policy("sjf", "conservative-rebuild")
    assert isinstance(rebuild, RebuildConservative) and str(rebuild) == "sjf+conservative-rebuild"
    jobs = [
        Job(id=1, submit=0.0, runtime=10.0, cpus=4),
        Job(id=2, submit=1.0, runtime=10.0, cpus=4),
        Job(id=3, submit=2.0, runtime=2.0, cpus=4),
    ]
    assert starts(RebuildConservative(Priority("sjf")), jobs) == {1: 0.0, 2: 12.0, 3: 10.0}
    assert starts(Conservative(Priority("sjf")), jobs) == {1: 0.0, 2: 10.0, 3: 20.0}
    together = [
        Job(id=1, submit=0.0, runtime=10.0, cpus=4),
        Job(id=2, submit=1.0, runtime=10.0, cpus=4),
        Job(id=3, submit=1.0, runtime=2.0, cpus=4),
    ]
    env = simpy.Environment()
    model = replay_model(env, together, 4, Conservative(Priority("sjf")), batch_decisions=True).run()
    assert {r.id: r.start for r in model.records()} == {1: 0.0, 2: 12.0, 3: 10.0}
    for name in ("conservative", "conservative-rebuild"):
        with pytest.raises(ValueError, match="rlscheduler has no conservative"):
            make_policy("fcfs", name, compat="rlscheduler")


def test_other_resources_are_asked_at_start_only():
    """It plans CPUs: B is reserved now (2 CPUs free) but its memory is taken, so it waits for A."""
    for policy in (Conservative(), RebuildConservative()):
        env = simpy.Environment()
        machine = Machine(env, 4, policy, resources={"memory": 10.0})
        Source(
            env,
            [
                Job(id=1, submit=0.0, runtime=5.0, cpus=2, demands={"memory": 8.0}),
                Job(id=2, submit=1.0, runtime=5.0, cpus=2, demands={"memory": 8.0}),
            ],
            machine,
        )
        env.run()
        assert {r.id: r.start for r in machine.records} == {1: 0.0, 2: 5.0}


def _heapq_conservative():
    path = ROOT / "benchmarks" / "_heapq_conservative.py"
    spec = importlib.util.spec_from_file_location("_heapq_conservative", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("trace", "lo", "hi"), [("UniLu-Gaia-2014-1.swf.gz", 20000, 23000), ("lublin_256.swf.gz", 0, 1200)]
)
def test_same_schedule_as_the_heapq_reference_on_a_window(trace, lo, hi):
    """benchmarks/_heapq_conservative.py, written apart from schedlab, gives every job the same start.

    Its ``full=True`` plans the whole queue at every decision: stopping early, as both
    do by default, changes no start either.
    """
    path = TRACES / trace
    if not path.exists():
        pytest.skip(f"{path} not present")
    loaded = load_log(str(path))
    window = loaded.jobs[lo:hi]
    env = simpy.Environment()
    model = replay_model(env, window, loaded.cpus, make_policy("fcfs", "conservative-rebuild")).run()
    mine = {r.id: r.start for r in model.records()}
    tuples = [(j.id, j.submit, j.runtime, j.cpus, j.requested_time) for j in window]
    reference = _heapq_conservative()
    theirs = reference.replay(tuples, loaded.cpus)
    assert [mine[j[0]] for j in tuples] == theirs
    if trace.startswith("lublin"):
        assert reference.replay(tuples, loaded.cpus, full=True) == theirs


def test_same_schedule_as_the_heapq_reference_when_jobs_are_killed_at_their_requested_time():
    """Under ``walltime="kill"`` (the replay default) a job over its requested time ends there.

    On this SDSC-SP2 window 204 of 3,000 jobs are killed; every start agrees with the
    reference's ``kill=True``, and at least one differs from its run-on schedule.
    """
    path = TRACES / "SDSC-SP2-1998-4.2-cln.swf.gz"
    if not path.exists():
        pytest.skip(f"{path} not present")
    loaded = load_log(str(path))
    window = loaded.jobs[20000:23000]
    model = replay_model(
        simpy.Environment(), window, loaded.cpus, make_policy("fcfs", "conservative-rebuild"), walltime="kill"
    ).run()
    records = model.records()
    mine = {r.id: r.start for r in records}
    killed = sum(r.status.value == "timeout" for r in records)
    tuples = [(j.id, j.submit, j.runtime, j.cpus, j.requested_time) for j in window]
    reference = _heapq_conservative()
    theirs = reference.replay(tuples, loaded.cpus, kill=True)
    assert [mine[j[0]] for j in tuples] == theirs
    assert killed == 204 and theirs != reference.replay(tuples, loaded.cpus)


def test_easy_and_conservative_differ_but_both_keep_every_job():
    """On the five jobs above both run every job; their schedules are not the same."""
    jobs = five_jobs()
    a, b = starts(EASY(), jobs), starts(Conservative(), jobs)
    assert a.keys() == b.keys() == {1, 2, 3, 4, 5} and a != b
    assert starts(RebuildConservative(), jobs).keys() == a.keys()


def test_schedlab_replay_takes_conservative(tmp_path, capsys):
    """``schedlab replay --backfill conservative``: the CLI's choices are policies.batch.BACKFILLS."""
    from schedlab.experiment.arguments import build_parser
    from schedlab.experiment.cli import main

    replay = next(
        a for a in build_parser()._subparsers._group_actions[0].choices["replay"]._actions if a.dest == "backfill"
    )
    assert tuple(replay.choices) == BACKFILLS
    example = ROOT / "tests" / "data" / "easy_example.swf"
    code = main(
        [
            "replay",
            str(example),
            "--backfill",
            "easy",
            "--backfill",
            "conservative",
            "--start",
            "0",
            "--length",
            "5",
            "--executor",
            "serial",
            "--out",
            str(tmp_path),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "conservative" in out


#: found by a random search, 3 CPUs, every estimate >= the run time: (id, submit, run, cpus, estimate)
MOVES_LATER = [
    (0, 2, 8, 3, 18),
    (1, 3, 6, 2, 15),
    (2, 4, 4, 2, 8),
    (3, 6, 7, 2, 13),
    (4, 7, 10, 1, 16),
    (5, 10, 10, 1, 12),
    (6, 12, 10, 3, 15),
    (7, 14, 2, 1, 8),
    (8, 15, 10, 2, 10),
]


def test_early_completions_can_move_a_reservation_later_when_the_plan_is_rebuilt():
    """The price of recomputing the plan (conservative_rebuild's docstring): when jobs end
    before their requested time, a job's reservation can move later, which the paper's
    compression forbids. At 16, job 7's reservation moves from 38 to 53."""
    jobs = [Job(i, float(s), runtime=float(r), cpus=c, estimate=float(e)) for i, s, r, c, e in MOVES_LATER]
    seen: list[tuple[float, float]] = []  # (now, job 7's reservation)
    policy = RebuildConservative()

    def watched(view):
        reserved = {job.id: t for job, t in plan(view).items()}
        if 7 in reserved:
            seen.append((view.now, reserved[7]))
        return policy(view)

    env = simpy.Environment()
    machine = Machine(env, 3, watched)
    Source(env, jobs, machine)
    env.run()
    assert (16.0, 53.0) in seen and any(t == 38.0 for _, t in seen)


def test_with_compression_no_reservation_moves_later():
    """The same jobs under the paper's rule: job 7 is promised 38 on arrival; each early end
    compresses the plan, and no job's reservation is ever later than at the decision before."""
    jobs = [Job(i, float(s), runtime=float(r), cpus=c, estimate=float(e)) for i, s, r, c, e in MOVES_LATER]
    policy = Conservative()
    last: dict[int, float] = {}
    moved_up = 0

    def check(now):
        nonlocal moved_up
        for job, t in policy.reservations().items():
            assert t <= last.get(job.id, t), f"job {job.id}: {last[job.id]} -> {t} at {now}"
            moved_up += t < last.get(job.id, t)
            last[job.id] = t

    def checked(now, answer):
        yield from answer  # as the machine applies each start
        check(now)

    def watched(view):
        answer = policy(view)
        return check(view.now) if answer is None else checked(view.now, answer)

    env = simpy.Environment()
    machine = Machine(env, 3, watched)
    Source(env, jobs, machine)
    env.run()
    started = {r.id: r.start for r in machine.records}
    assert {job.id: t for job, t in policy.promised.items()}[7] == 38.0
    assert all(started[job.id] <= t for job, t in policy.promised.items())
    assert moved_up > 0  # early ends did move some jobs up


def test_on_sdsc_sp2_under_kill_no_job_starts_after_its_arrival_reservation():
    """The guarantee on a real log: SDSC-SP2's first 2,000 jobs, killed at their requested
    time. The rebuilt plan starts some jobs after the slot it gave them on arrival; the
    paper's rule none (benchmarks/conservative_guarantee.py runs more windows)."""
    path = TRACES / "SDSC-SP2-1998-4.2-cln.swf.gz"
    if not path.exists():
        pytest.skip(f"{path} not present")
    loaded = load_log(str(path))
    window = loaded.jobs[:2000]
    paper = Conservative()
    model = replay_model(simpy.Environment(), window, loaded.cpus, paper, walltime="kill").run()
    started = {r.id: r.start for r in model.records()}
    assert len(paper.promised) == len(window)
    late = [(job.id, t, started[job.id]) for job, t in paper.promised.items() if started[job.id] > t]
    assert late == []

    first: dict = {}
    rebuild = RebuildConservative()

    def noted(view):
        if any(job not in first for job in view.waiting):
            for job, t in plan(view).items():
                first.setdefault(job, t)
        return rebuild(view)

    model = replay_model(simpy.Environment(), window, loaded.cpus, noted, walltime="kill").run()
    started = {r.id: r.start for r in model.records()}
    assert sum(started[job.id] > t for job, t in first.items()) > 0

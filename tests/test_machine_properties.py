"""Invariants of :class:`~schedlab.processes.machine.machine.Machine` under random workloads and meddling.

Hypothesis builds a random workload (submit times, runtimes, CPUs, sometimes memory), a policy (FCFS, SJF or
BestFit, sometimes squeezing the head job onto the CPUs left) and a driver process that wakes
at random times and applies a random valid action: preempt, squeeze (resize down), grow
(resize up) or start a waiting job squeezed. The properties, checked at every event and at
the end of the run:

* jobs are conserved: every arrived job has exactly one record (completed, waiting, running
  or rejected), none lost or duplicated;
* CPUs are never over-allocated: ``0 <= free <= capacity`` and the running jobs' CPUs add up
  to ``capacity - free``; the memory in use is the running jobs' demands, within capacity;
* simulated time never goes back (completion times, trace entries);
* work is conserved exactly under preemption and squeezing: a completed job did its runtime
  of ideal work and was allocated ``cpus * runtime`` CPU-time; the machine's busy-time integral
  equals the sum of the records' CPU-time;
* under walltime limits (``walltime="kill"``, jobs with estimates), a killed job held CPUs for
  exactly its limit, and one never squeezed did ``limit`` of ideal work on ``cpus * limit``
  CPU-time; a completed job never ran past its limit.

A last property checks an interrupt-free FCFS run of 1-CPU jobs against the earliest-free-server
recursion of a FCFS multi-server queue (Kiefer–Wolfowitz).
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from dataclasses import dataclass
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.model.contracts.machine import Preempt, Resize, Start
from schedlab.model.core.job import Job
from schedlab.model.records.job_record import Status
from schedlab.policies import FCFS, SJF, BestFit
from schedlab.processes import Machine, Running, Source, TracedEnvironment

# About 10 s for the whole file on a laptop core; keep it under a minute on a slow CI machine.
SETTINGS = settings(max_examples=300, deadline=None)

ACTIONS = ("preempt", "squeeze", "grow", "start_squeezed", "idle")

# Integers make simultaneous events (ties) common; floats cover the rest.
gaps = st.one_of(st.integers(0, 4).map(float), st.floats(0.0, 4.0, allow_nan=False, allow_infinity=False))
lengths = st.one_of(st.integers(1, 8).map(float), st.floats(0.01, 8.0, allow_nan=False, allow_infinity=False))


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


@dataclass
class Scenario:
    capacity: int
    resources: dict[str, float]  # other named resources of the machine (memory), maybe none
    jobs: list[Job]
    base: str  # FCFS, SJF or BestFit
    squeeze: list[bool]  # cycled: does the policy squeeze the head when nothing fits?
    actions: list[tuple[float, str, int, int]]  # (gap before it, kind, pick, size)
    walltime: str = "run-on"  # "kill": jobs carry estimates, and are killed at them


@st.composite
def scenarios(draw, max_jobs: int = 20, max_actions: int = 25, oversize: bool = True, kill: bool = False) -> Scenario:
    capacity = draw(st.integers(1, 6))
    memory = draw(st.one_of(st.none(), st.integers(1, 8)))  # a second, whole-number resource, or none
    n = draw(st.integers(1, max_jobs))
    t = 0.0
    jobs = []
    for i in range(n):
        t += draw(gaps)
        cpus = draw(st.integers(1, capacity))
        demands = {} if memory is None else {"memory": draw(st.integers(0, memory))}
        if oversize and draw(st.integers(0, 9)) == 0:  # can never fit: rejected at submission
            if memory is not None and draw(st.booleans()):
                demands = {"memory": memory + 1}
            else:
                cpus = capacity + 1
        estimate = draw(st.one_of(st.none(), lengths)) if kill else None  # above or below the runtime
        jobs.append(Job(i, t, draw(lengths), cpus=cpus, demands=demands, estimate=estimate))
    actions = draw(
        st.lists(
            st.tuples(gaps, st.sampled_from(ACTIONS), st.integers(0, 99), st.integers(0, 99)), max_size=max_actions
        )
    )
    return Scenario(
        capacity=capacity,
        resources={} if memory is None else {"memory": memory},
        jobs=jobs,
        base=draw(st.sampled_from(["fcfs", "sjf", "bestfit"])),
        squeeze=draw(st.lists(st.booleans(), min_size=1, max_size=5)),
        actions=actions,
        walltime="kill" if kill else "run-on",
    )


def never_fits(sc: Scenario, job: Job) -> bool:
    return job.cpus > sc.capacity or any(a > sc.resources.get(r, 0) for r, a in job.demands.items())


class Harness:
    """One run of a scenario, with its invariants checked at every decision, action and completion."""

    def __init__(self, sc: Scenario) -> None:
        self.sc = sc
        self.env = env = TracedEnvironment()
        self.base = {"fcfs": FCFS(), "sjf": SJF(), "bestfit": BestFit()}[sc.base]
        self.calls = 0
        self.machine = Machine(env, sc.capacity, self.policy, name="m", resources=sc.resources, walltime=sc.walltime)
        self.states: dict[int, Running] = {}  # latest Running state seen for each job id
        self.completions: list[float] = []
        self.preempts: Counter[int] = Counter()
        self.resizes: Counter[int] = Counter()
        self.allocated: dict[int, int] = {}  # CPUs each job was last started (or resumed) on
        self.squeezed: set[int] = set()  # jobs that ever ran on fewer CPUs than they asked for
        self.last_now = 0.0
        self.machine.completed.connect(self.on_complete)
        self.source = Source(env, sc.jobs, self.machine)
        self.driver = env.process(self.drive())

    # ---- the policy: the base rule, else (sometimes) squeeze the head onto the CPUs left
    def policy(self, view):
        self.check()
        action = self.base(view)
        if action is not None:
            self.allocated[action.job.id] = action.job.cpus
            return action
        squeeze = self.sc.squeeze[self.calls % len(self.sc.squeeze)]
        self.calls += 1
        if squeeze and view.waiting and view.free >= 1:
            head = view.waiting[0]
            n = min(view.free, head.cpus)
            if view.fits(head, n):  # the CPUs left, if its memory fits
                self.allocated[head.id] = n
                if n < head.cpus:
                    self.squeezed.add(head.id)
                return Start(head, n)
        return None

    # ---- the driver: random valid actions at random times, then a decision
    def drive(self):
        m = self.machine
        for gap, kind, pick, size in self.sc.actions:
            yield self.env.timeout(gap)
            self.check()
            self.act(kind, pick, size)
            self.check()
            m.decide()
            self.check()

    def act(self, kind: str, pick: int, size: int) -> None:
        m = self.machine
        if kind == "preempt" and m.running:
            job = m.running[pick % len(m.running)].job
            m.apply(Preempt(job)) if pick % 2 else m.preempt(job)
            self.preempts[job.id] += 1
        elif kind == "squeeze":
            cands = [r for r in m.running if r.cpus > 1]
            if cands:
                run = cands[pick % len(cands)]
                new = 1 + size % (run.cpus - 1)
                m.apply(Resize(run.job, new)) if pick % 2 else m.resize(run.job, new)
                assert run.cpus == new
                self.squeezed.add(run.job.id)
                self.resizes[run.job.id] += 1
        elif kind == "grow" and m.free > 0:
            cands = [r for r in m.running if r.cpus < r.job.cpus]
            if cands:
                run = cands[pick % len(cands)]
                new = run.cpus + 1 + size % min(m.free, run.job.cpus - run.cpus)
                m.apply(Resize(run.job, new)) if pick % 2 else m.resize(run.job, new)
                self.resizes[run.job.id] += 1
        elif kind == "start_squeezed" and m.waiting and m.free > 0:
            job = m.waiting[pick % len(m.waiting)]
            n = 1 + size % min(m.free, job.cpus)
            if not m.fits(job, n):
                return
            m.apply(Start(job, n)) if pick % 2 else m.start(job, n)
            self.allocated[job.id] = n
            if n < job.cpus:
                self.squeezed.add(job.id)

    # ---- invariants at every event
    def check(self) -> None:
        m, now = self.machine, self.env.now
        assert now >= self.last_now, "time went back"
        self.last_now = now
        assert 0 <= m.free <= m.capacity
        assert sum(r.cpus for r in m.running) == m.capacity - m.free == m.busy
        for name, cap in self.sc.resources.items():  # demands are held whole, squeezed or not
            assert m.used[name] == sum(r.job.demand(name) for r in m.running) <= cap
        for run in m.running:
            assert 1 <= run.cpus <= run.job.cpus
            assert 0.0 <= run.work_done <= run.job.runtime * (1 + 1e-9)
            self.states[run.job.id] = run
        running_ids = [r.job.id for r in m.running]
        waiting_ids = [j.id for j in m.waiting]
        assert len(set(running_ids)) == len(running_ids)
        assert len(set(waiting_ids)) == len(waiting_ids)
        assert not set(running_ids) & set(waiting_ids)
        assert m.busy_time() <= m.capacity * now * (1 + 1e-9) + 1e-12

    def on_complete(self, record) -> None:
        now = self.env.now
        assert record.end == now
        assert not self.completions or self.completions[-1] <= now
        self.completions.append(now)
        assert record.id not in [r.job.id for r in self.machine.running]
        self.check()


def check_records(h: Harness, *, finished: bool) -> None:
    """Conservation and work checks on the records at the end of a run (finished or stopped early)."""
    m, now = h.machine, h.env.now
    arrived = h.sc.jobs[: h.source.count]
    recs = m.all_records()
    ids = [r.id for r in recs]
    assert len(ids) == len(set(ids)), "a job has two records"
    assert sorted(ids) == [j.id for j in arrived], "a job was lost or invented"
    by_id = {r.id: r for r in recs}
    running = {r.job.id for r in m.running}
    waiting = {j.id for j in m.waiting}
    for job in arrived:
        rec = by_id[job.id]
        if never_fits(h.sc, job):
            assert rec.status is Status.REJECTED
            continue
        ended = Status.TIMEOUT if rec.status is Status.TIMEOUT else Status.COMPLETED
        assert ended is Status.COMPLETED or h.sc.walltime == "kill", "killed without a limit"
        if finished:
            assert rec.status is ended
        expected = Status.RUNNING if job.id in running else Status.WAITING if job.id in waiting else ended
        assert rec.status is expected
        if rec.status is Status.WAITING and job.id not in h.states:
            assert math.isnan(rec.start) and rec.cpu_time == 0.0
            continue
        assert rec.start >= job.submit
        assert rec.start <= now
        assert (rec.preemptions, rec.resizes) == (h.preempts[job.id], h.resizes[job.id])
        state = h.states[job.id]
        if rec.status is Status.COMPLETED:
            assert rec.end >= rec.start
            assert rec.end <= now
            assert close(state.work_done, job.runtime), (state.work_done, job.runtime)
            assert close(rec.cpu_time, job.cpus * job.runtime), (rec.cpu_time, job.cpus * job.runtime)
            if rec.preemptions == 0 and rec.resizes == 0:  # one allocation from start to end
                n = h.allocated[job.id]
                assert close(rec.service, job.runtime * job.cpus / n), (rec.service, job.runtime, job.cpus, n)
            if h.sc.walltime == "kill" and job.estimate is not None:
                assert state.run_time <= job.estimate * (1 + 1e-9), "ran past its limit"
        elif rec.status is Status.TIMEOUT:
            limit = job.estimate
            assert limit is not None and rec.start < rec.end <= now
            assert close(state.run_time, limit), (state.run_time, limit)  # killed exactly at its limit
            assert state.work_done < job.runtime
            if job.id not in h.squeezed:  # the work done is its limit, on all its CPUs
                assert close(state.work_done, limit), (state.work_done, limit)
                assert close(rec.cpu_time, job.cpus * limit), (rec.cpu_time, job.cpus, limit)
                if rec.preemptions == 0:  # one allocation: the kill is at start + limit, to the bit
                    assert rec.end == rec.start + limit and rec.cpu_time == job.cpus * limit
            else:  # what its (smaller) allocations did
                assert rec.cpu_time <= job.cpus * limit * (1 + 1e-9)
        else:
            assert math.isnan(rec.end)
            assert rec.cpu_time <= job.cpus * job.runtime * (1 + 1e-9)
    # busy-time integral == sum of allocated CPU-time (records include running jobs up to now)
    assert close(m.busy_time(), sum(r.cpu_time for r in recs))
    times = [e.time for e in h.env.tracer.entries]
    assert all(a <= b for a, b in pairwise(times)), "trace went back in time"


@SETTINGS
@given(scenarios())
def test_random_meddling_conserves_jobs_cpus_and_work(sc):
    """Run to the end: every job completes (or was rejected) and all invariants hold throughout."""
    h = Harness(sc)
    h.env.run()
    m = h.machine
    assert m.running == [] and m.waiting == []
    assert m.free == m.capacity
    assert m.rejected == sum(never_fits(sc, j) for j in sc.jobs)
    assert len(h.completions) == len(sc.jobs) - m.rejected
    check_records(h, finished=True)


@SETTINGS
@given(scenarios(kill=True))
def test_walltime_kill_ends_every_job_at_its_end_or_its_limit(sc):
    """Under walltime limits every job completes, or is killed having held CPUs for exactly its limit."""
    h = Harness(sc)
    h.env.run()
    m = h.machine
    assert m.running == [] and m.waiting == [] and m.free == m.capacity
    assert len(h.completions) == len(sc.jobs) - m.rejected
    check_records(h, finished=True)


@SETTINGS
@given(scenarios(), st.floats(0.001, 30.0, allow_nan=False))
def test_stopping_early_leaves_a_consistent_snapshot(sc, until):
    """Stop at a random time: the records still account for every arrived job exactly once."""
    h = Harness(sc)
    h.env.run(until=until)
    h.check()
    check_records(h, finished=False)


@settings(max_examples=200, deadline=None)
@given(
    servers=st.integers(1, 4),
    sizes=st.lists(st.tuples(gaps, lengths), min_size=1, max_size=30),
)
def test_fcfs_one_cpu_jobs_match_the_multiserver_recursion(servers, sizes):
    """Interrupt-free FCFS on 1-CPU jobs is a FCFS c-server queue: each job starts at
    max(its arrival, the earliest time a server frees up) and ends runtime later."""
    t = 0.0
    jobs = []
    for i, (gap, runtime) in enumerate(sizes):
        t += gap
        jobs.append(Job(i, t, runtime))
    free_at = [0.0] * servers  # Kiefer–Wolfowitz: the servers' next free times, as a heap
    expected = {}
    for job in jobs:
        start = max(job.submit, heapq.heappop(free_at))
        end = start + job.runtime
        heapq.heappush(free_at, end)
        expected[job.id] = (start, end)
    env = TracedEnvironment()
    machine = Machine(env, servers, FCFS())
    Source(env, jobs, machine)
    env.run()
    got = {r.id: (r.start, r.end) for r in machine.records}
    assert got == expected
    assert all(r.preemptions == r.resizes == 0 for r in machine.records)

"""Hypothesis invariants of conservative backfilling (issue 18 item 5, issue 25 item 7).

Random small workloads on a machine of a few CPUs, FCFS order. For the rebuilt plan
(:class:`~schedlab.policies.conservative_rebuild.RebuildConservative`) the plan (every
waiting job's reservation, :func:`~schedlab.policies.conservative_rebuild.plan`) is
taken at every decision before the policy acts, so each start can be set beside the
plan it was made in. For the paper's rule (:class:`~schedlab.policies.conservative.Conservative`)
its defining guarantee is checked: no job starts later than the reservation it was
given on arrival, whatever the estimates, when jobs are killed at their requested time.
"""

from __future__ import annotations

from collections.abc import Iterable

import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.model.contracts.machine import MachineView, Start
from schedlab.model.core.job import Job
from schedlab.policies.conservative import Conservative
from schedlab.policies.conservative_rebuild import RebuildConservative, plan
from schedlab.processes.machine.machine import Machine
from schedlab.processes.source import Source

SETTINGS = settings(max_examples=200, deadline=None)


@st.composite
def workloads(draw, exact: bool) -> tuple[int, list[Job]]:
    """A machine's CPUs and jobs in submit order; whole-number times, so ties are common."""
    cpus = draw(st.integers(1, 6))
    n = draw(st.integers(1, 14))
    submits = sorted(draw(st.lists(st.integers(0, 40), min_size=n, max_size=n)))
    jobs = []
    for i, submit in enumerate(submits):
        runtime = draw(st.integers(1, 20))
        estimate = None if exact else draw(st.integers(1, 30))
        jobs.append(
            Job(
                id=i,
                submit=float(submit),
                runtime=float(runtime),
                cpus=draw(st.integers(1, cpus)),
                estimate=None if estimate is None else float(estimate),
            )
        )
    return cpus, jobs


class Watched:
    """RebuildConservative (FCFS) that notes the plan at each decision before it acts."""

    def __init__(self) -> None:
        self.policy = RebuildConservative()
        self.first: dict[int, float] = {}  # each job's reservation at its first decision (its arrival)
        self.plans: list[tuple[float, dict[int, float]]] = []
        self.started_in: dict[int, int] = {}  # job id -> index of the decision that started it

    def __call__(self, view: MachineView) -> Iterable[Start] | None:
        reserved = {job.id: t for job, t in plan(view).items()}
        for job_id, t in reserved.items():
            self.first.setdefault(job_id, t)
        self.plans.append((view.now, reserved))
        answer = self.policy(view)
        return None if answer is None else self._noted(len(self.plans) - 1, answer)

    def _noted(self, decision: int, answer: Iterable[Start]) -> Iterable[Start]:
        for action in answer:  # lazily, as the machine applies them
            self.started_in[action.job.id] = decision
            yield action


def run(cpus: int, jobs: list[Job]) -> tuple[Watched, dict[int, float]]:
    env = simpy.Environment()
    watched = Watched()
    machine = Machine(env, cpus, watched)
    Source(env, jobs, machine)
    env.run()
    starts = {r.id: r.start for r in machine.records}
    assert starts.keys() == {j.id for j in jobs}  # every job ran
    return watched, starts


@SETTINGS
@given(workloads(exact=True))
def test_exact_estimates_no_job_starts_later_than_its_arrival_reservation(case):
    """The classic guarantee, under recompute-at-every-decision: with exact requested times
    each recomputation sees the same running jobs and the same earlier jobs, so no
    reservation ever moves later, and each job starts at the slot it got on arrival."""
    cpus, jobs = case
    watched, starts = run(cpus, jobs)
    for job in jobs:
        assert starts[job.id] <= watched.first[job.id]
        assert starts[job.id] == watched.first[job.id]  # in fact exactly then: nothing moves
    last: dict[int, float] = {}
    for _, reserved in watched.plans:  # no start (nor arrival) ever delays a reservation
        for job_id, t in reserved.items():
            assert t <= last.get(job_id, t)
            last[job_id] = t


@SETTINGS
@given(workloads(exact=False))
def test_a_job_starts_only_when_its_reservation_is_now(case):
    """Whatever the estimates: a job starts at a decision only if that decision's plan
    reserved it for now, so a start never takes CPUs that an earlier job's reservation
    holds."""
    cpus, jobs = case
    watched, starts = run(cpus, jobs)
    for job in jobs:
        now, reserved = watched.plans[watched.started_in[job.id]]
        assert now == starts[job.id] == reserved[job.id]


@st.composite
def overestimated(draw) -> tuple[int, list[Job]]:
    """Like :func:`workloads`, with every estimate at or above the run time (jobs end early)."""
    cpus, jobs = draw(workloads(exact=False))
    return cpus, [
        Job(id=j.id, submit=j.submit, runtime=j.runtime, cpus=j.cpus, estimate=max(j.runtime, j.requested_time))
        for j in jobs
    ]


def run_paper(cpus: int, jobs: list[Job], walltime: str) -> tuple[Conservative, dict[int, float], list]:
    env = simpy.Environment()
    policy = Conservative()
    moves: list[tuple[float, int, float, float]] = []  # (now, job, before, after): a reservation moved later
    last: dict[int, float] = {}

    def check(now: float) -> None:
        for job, t in policy.reservations().items():
            if t > last.get(job.id, t):
                moves.append((now, job.id, last[job.id], t))
            last[job.id] = t

    def checked(now: float, answer: Iterable[Start]) -> Iterable[Start]:
        yield from answer  # lazily, as the machine applies the starts
        check(now)  # the plan as this decision left it

    def watched(view: MachineView):
        answer = policy(view)
        if answer is None:
            check(view.now)
            return None
        return checked(view.now, answer)

    machine = Machine(env, cpus, watched, walltime=walltime)
    Source(env, jobs, machine)
    env.run()
    starts = {r.id: r.start for r in machine.records}
    assert starts.keys() == {j.id for j in jobs}  # every job ran (or was killed at its limit)
    return policy, starts, moves


@SETTINGS
@given(workloads(exact=False))
def test_killed_at_their_limit_no_job_starts_later_than_its_arrival_reservation(case):
    """Mu'alem & Feitelson's guarantee: under walltime kill no job holds CPUs past its
    requested time, so early ends only compress the schedule, and every job starts at or
    before the slot it was promised when it arrived; no reservation ever moves later."""
    cpus, jobs = case
    policy, starts, moves = run_paper(cpus, jobs, "kill")
    late = {job.id: (starts[job.id], t) for job, t in policy.promised.items() if starts[job.id] > t}
    assert not late, f"started after the arrival reservation (start, promised): {late}"
    assert not moves, f"reservations moved later: {moves}"


@SETTINGS
@given(overestimated())
def test_run_on_with_estimates_at_or_above_the_run_time_keeps_the_guarantee(case):
    """The same under run-on, when no job runs past its estimate (the common case in logs)."""
    cpus, jobs = case
    policy, starts, moves = run_paper(cpus, jobs, "run-on")
    assert all(starts[job.id] <= t for job, t in policy.promised.items())
    assert not moves


@SETTINGS
@given(workloads(exact=True))
def test_exact_estimates_the_paper_and_the_rebuilt_plan_agree(case):
    """With exact estimates and FCFS nothing ends early: both readings give every job the same start."""
    cpus, jobs = case
    policy, paper, _ = run_paper(cpus, jobs, "run-on")
    _, rebuilt = run(cpus, jobs)
    assert paper == rebuilt
    assert all(paper[job.id] == t for job, t in policy.promised.items())  # each at its promise exactly

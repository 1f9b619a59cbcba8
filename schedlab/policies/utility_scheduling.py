"""Scheduling time-utility jobs with preemption and squeezing (seed 000, sections 4.1 and 5).

Both schedulers here first grow squeezed jobs back as CPUs free up, then start jobs
best-fit without preempting or squeezing (step 1). What they do with the jobs still
waiting differs:

- :class:`UtilityScheduler` compares the value of the machine's state as it is with
  the value of the state each candidate action would lead to (steps 2-11): preempt
  the lowest-utility running jobs to start a waiting job whole, and/or squeeze a
  waiting job into the free CPUs, only when the value function says the machine is
  better off.
- :class:`AggressiveScheduler` always does it, for the smallest waiting job: the
  "aggressive" comparison policies of section 5.

A scheduler answers each decision event with a generator of actions, so the machine
applies each action before the scheduler looks again.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from schedlab.model.contracts.machine import Action, MachineView, Preempt, Resize, Start
from schedlab.model.core.job import Job
from schedlab.policies.machine_state import (
    RunningSet,
    job_slot,
    remaining_unit_utility,
    running_slots,
)
from schedlab.policies.ordering import BestFit

__all__ = ["AggressiveScheduler", "UtilityScheduler", "ValueFunction", "grow_back"]

#: the plain order of step 1: a policy that answers one action at a time (or None), as BestFit does
OneAction = Callable[[MachineView], Action | None]


class ValueFunction(Protocol):
    """The value of a machine state ``(x1, x2, x3)``, e.g. a TD learner's estimate."""

    def value(self, x: Sequence[float]) -> float:
        """The value of state ``x``."""
        ...


def grow_back(view: MachineView) -> Iterator[Action]:
    """Give squeezed jobs back the CPUs they asked for as CPUs free up, oldest first."""
    for run in list(view.running):
        free = view.free
        if free == 0:
            return
        if run.cpus < run.job.cpus:
            yield Resize(run.job, min(run.job.cpus, run.cpus + free))


def _schedule_plainly(view: MachineView, order: OneAction) -> Iterator[Action]:
    """Step 1: start jobs by ``order`` until none fits; no preemption, no squeezing."""
    while (action := order(view)) is not None:
        yield action


def _smallest(jobs: Sequence[Job]) -> Job:
    return min(jobs, key=lambda job: job.cpus)  # min keeps the first: ties go to the earliest arrival


@dataclass
class UtilityScheduler:
    """Value-based preemption and oversubscription (seed 000 section 4.1, steps 1-11).

    Parameters
    ----------
    value
        The machine-state value function ``V(x1, x2, x3)``. If it also has a
        ``decision_point(x, acted=, considered=, started=)`` method (as
        :class:`~schedlab.learners.td.AverageRewardTD` does) it is told the state after
        every decision, which is how its TD updates are timed (section 3.4).
    preempt, oversubscribe
        Which of the two value-based policies are enabled.
    max_job_length
        The ``MaxJobLength`` that scales ``x2``.
    order
        The step-1 scheduler (best-fit, ties to the highest expected utility).

    Notes
    -----
    Step 4's candidate state suspends enough running jobs, in increasing remaining
    unit utility, to start the waiting job on all its CPUs; a job that would have to
    suspend one with a higher remaining unit utility than its own is not a
    candidate. Step 8's candidate runs the waiting job on all the free CPUs. When a
    preemption was made, the oversubscription step compares against the value of the
    state after it (the paper's V0 is of the state before any action, which a
    preemption has already replaced). A tie never acts: an action must raise the
    value.
    """

    value: ValueFunction
    preempt: bool = True
    oversubscribe: bool = True
    max_job_length: float = 10.0
    order: OneAction = field(default_factory=BestFit)

    def __post_init__(self) -> None:
        if not (math.isfinite(self.max_job_length) and self.max_job_length > 0):
            raise ValueError(f"UtilityScheduler: max_job_length must be finite and > 0, got {self.max_job_length!r}")
        self._observer = getattr(self.value, "decision_point", None)

    def __call__(self, view: MachineView) -> Iterator[Action]:
        return self._decide(view)

    def _running(self, view: MachineView) -> RunningSet:
        return RunningSet(running_slots(view), view.free, view.capacity, self.max_job_length)

    def _decide(self, view: MachineView) -> Iterator[Action]:
        yield from grow_back(view)
        started = False
        for action in _schedule_plainly(view, self.order):
            started = True
            yield action
        considered = acted = False
        if view.waiting and (self.preempt or self.oversubscribe):
            considered = True
            if self.preempt:
                running = self._running(view)
                plan = self._best_preemption(view, running)
                if plan is not None:
                    victims, job = plan
                    for victim in running.slots[:victims]:
                        yield Preempt(victim.job)  # type: ignore[arg-type]  # a running job's slot has its job
                    yield Start(job)
                    acted = True
            if self.oversubscribe and view.free > 0 and view.waiting:
                squeezed = self._best_squeeze(view, self._running(view))
                if squeezed is not None:
                    yield Start(squeezed, view.free)
                    acted = True
        if self._observer is not None:
            self._observer(self._running(view).features(), acted=acted, considered=considered, started=started)

    def _best_preemption(self, view: MachineView, running: RunningSet) -> tuple[int, Job] | None:
        """Steps 2-7: (victims, job) of the preemption with the highest V1, if V1 > V0."""
        value, now, free, remaining = self.value.value, view.now, running.free, view.remaining
        best_value = value(running.features())  # V0
        best: tuple[int, Job] | None = None
        for job in view.waiting:
            cpus = job.cpus
            if cpus <= free:
                continue  # it fits without preempting: not a preemption (other resources held it back)
            time_left = remaining(job)
            tuf = job.utility
            unit = 0.0 if tuf is None else tuf.unit(now + time_left - job.submit)
            own = math.inf if time_left <= 0 else unit / time_left
            victims = running.victims(own, cpus)
            if victims is None:
                continue
            v1 = value(running.features(victims, cpus, time_left, unit))
            if v1 > best_value:
                best_value, best = v1, (victims, job)
        return best

    def _best_squeeze(self, view: MachineView, running: RunningSet) -> Job | None:
        """Steps 8-11: the waiting job whose squeeze gives the highest V2, if V2 > V0."""
        value, now, free, remaining = self.value.value, view.now, running.free, view.remaining
        best_value = value(running.features())
        best: Job | None = None
        for job in view.waiting:
            if job.cpus <= free or not view.fits(job, free):
                continue
            time_left = remaining(job) * job.cpus / free
            tuf = job.utility
            unit = 0.0 if tuf is None else tuf.unit(now + time_left - job.submit)
            v2 = value(running.features(0, free, time_left, unit))
            if v2 > best_value:
                best_value, best = v2, job
        return best


@dataclass
class AggressiveScheduler:
    """Always preempt and/or squeeze for the smallest waiting job (seed 000 section 5).

    After best-fit, if jobs still wait: with ``preempt``, the smallest waiting job is
    started whole, suspending running jobs in increasing remaining unit utility if it
    may (the rule of section 4.1, step 4); with ``oversubscribe``, the smallest job
    still waiting is squeezed into the free CPUs. With both, preemption comes first.
    """

    preempt: bool = True
    oversubscribe: bool = True
    order: OneAction = field(default_factory=BestFit)

    def __call__(self, view: MachineView) -> Iterator[Action]:
        return self._decide(view)

    def _decide(self, view: MachineView) -> Iterator[Action]:
        yield from grow_back(view)
        yield from _schedule_plainly(view, self.order)
        if self.preempt and view.waiting:
            job = _smallest(view.waiting)
            if job.cpus > view.free:
                running = RunningSet(running_slots(view), view.free, view.capacity, math.inf)
                victims = running.victims(remaining_unit_utility(job_slot(view, job, job.cpus)), job.cpus)
                if victims is not None:
                    for victim in running.slots[:victims]:
                        yield Preempt(victim.job)  # type: ignore[arg-type]  # a running job's slot has its job
                    yield Start(job)
        if self.oversubscribe and view.waiting and view.free > 0:
            job = _smallest(view.waiting)
            if view.fits(job, min(view.free, job.cpus)):
                yield Start(job, min(view.free, job.cpus))

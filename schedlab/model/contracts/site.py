"""A grid site's jobs, and their state as vectors for a learner (seed 001, sections 3.2 and 4.2).

A job is *interactive* when its execution time is under 15 minutes, batch otherwise
(:func:`tagged`); :func:`synthetic_site_jobs` draws Table 1's M/M/P workload.

The state is five quantities: the total work of the running jobs, the time until a
core frees up, the backlog of queued work, the idle cores, and each VO's share of the
queue. An action (a waiting job) is its type (interactive or batch), its execution
time and its VO. Execution times are what the scheduler believes
(:mod:`schedlab.model.analysis.estimates`), never the truth unless it is an oracle.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from schedlab.model.analysis.estimates import RuntimeEstimate
from schedlab.model.contracts.machine import MachineView
from schedlab.model.core.distributions import Exponential
from schedlab.model.core.job import Job
from schedlab.model.core.workloads import poisson_workload

__all__ = ["INTERACTIVE", "INTERACTIVE_LIMIT", "DecisionReward", "SiteFeatures", "synthetic_site_jobs", "tagged"]

#: the class label of jobs asking for responsiveness (execution time under 15 minutes)
INTERACTIVE = "interactive"

#: interactive: execution time under 15 minutes (seed 001 section 4.2)
INTERACTIVE_LIMIT = 900.0


def tagged(job: Job, group: str | None = None) -> Job:
    """``job`` labelled interactive or batch by its execution time (and moved to ``group`` if given)."""
    label = INTERACTIVE if job.runtime < INTERACTIVE_LIMIT else "batch"
    return dataclasses.replace(job, job_class=label, group=job.group if group is None else group)


def synthetic_site_jobs(
    cores: int, rho: float, count: int, share: float, vo_shares: Mapping[str, float], rng: np.random.Generator
) -> list[Job]:
    """Table 1: exponential execution times with P(X < 15 min) = ``share``, Poisson arrivals at ``rho``.

    The arrival rate is ``mu rho P``, so the three workloads of Table 1 are one workload in
    three time units: only the 15-minute class boundary moves.
    """
    mu = -math.log(1.0 - share) / INTERACTIVE_LIMIT
    jobs = poisson_workload(
        mu * rho * cores, Exponential.from_rate(mu), 1, count=count, groups=dict(vo_shares), seed=rng
    )
    return [tagged(j) for j in jobs]


class DecisionReward(NamedTuple):
    """A decision's reward, once known: what a learner hears (e.g. an elastic pool's ``period_ended``)."""

    decision: int
    reward: float


@dataclass(frozen=True)
class SiteFeatures:
    """The state and action vectors of the scheduling MDP, scaled for a learner.

    Times are given as ``log1p(t / time_scale)`` (execution times span seconds to days)
    and core counts as fractions of ``cores``.

    Parameters
    ----------
    groups
        The VOs, in a fixed order (jobs of other groups count in none).
    cores
        The scale of core counts (the site's largest pool).
    time_scale
        The scale of times, in simulated time units.
    waited
        Also describe each job by the time it has waited so far. Seed 001's action is
        type, VO and execution time only; this reading is off by default.
    oldest
        Also describe the state by the longest wait in the queue of each class
        (interactive, batch): a reading in which the learner can see starvation. Off
        by default (seed 001's state has five quantities).
    """

    groups: tuple[str, ...]
    cores: int
    time_scale: float = 3600.0
    waited: bool = False
    oldest: bool = False

    @property
    def state_size(self) -> int:
        """Length of the state vector: four quantities, one per group, and two more with ``oldest``."""
        return 4 + len(self.groups) + 2 * self.oldest

    @property
    def action_size(self) -> int:
        """Length of an action's vector: two quantities, one per group, and one more with ``waited``."""
        return 2 + len(self.groups) + self.waited

    def scaled_time(self, t: float) -> float:
        """``log1p(t / time_scale)`` of a time ``t`` (0 for a negative one): how times are shown to a learner."""
        return math.log1p(max(t, 0.0) / self.time_scale)

    def state(self, view: MachineView, estimate: RuntimeEstimate) -> np.ndarray:
        """[running work, time to a free core, backlog, idle cores, VO shares of the queue (, oldest waits)]."""
        now = view.now
        left = [max(estimate.estimate(r.job) - (now - r.first_start), 0.0) for r in view.running]
        running_work = sum(t * r.cpus for t, r in zip(left, view.running, strict=True))
        first_free = 0.0 if view.free > 0 or not left else min(left)
        backlog = sum(estimate.estimate(j) * j.cpus for j in view.waiting)
        shares = np.zeros(len(self.groups))
        index = {g: i for i, g in enumerate(self.groups)}
        for group, n in Counter(j.group for j in view.waiting).items():
            k = index.get(group)
            if k is not None:
                shares[k] = n
        if view.waiting:
            shares /= len(view.waiting)
        head = [
            self.scaled_time(running_work / self.cores),
            self.scaled_time(first_free),
            self.scaled_time(backlog / self.cores),
            view.free / self.cores,
        ]
        if not self.oldest:
            return np.concatenate([head, shares])
        # the queue is in arrival order: each class's first job is its oldest
        first: dict[bool, float] = {}
        for job in view.waiting:
            first.setdefault(job.job_class == INTERACTIVE, job.submit)
            if len(first) == 2:
                break
        tail = [self.scaled_time(now - first[k]) if k in first else 0.0 for k in (True, False)]
        return np.concatenate([head, shares, tail])

    def actions(self, jobs: Sequence[Job], estimate: RuntimeEstimate, now: float = 0.0) -> np.ndarray:
        """One row per job: [interactive?, execution time, VO one-hot (, time waited by ``now``)]."""
        # column by column: one pass of Python per column, not one numpy item write per cell
        out = np.zeros((len(jobs), self.action_size))
        index = {g: i for i, g in enumerate(self.groups)}
        out[:, 0] = [job.job_class == INTERACTIVE for job in jobs]
        out[:, 1] = [self.scaled_time(estimate.estimate(job)) for job in jobs]
        vo = np.array([index.get(job.group, -1) for job in jobs], dtype=int)
        known = vo >= 0
        out[np.flatnonzero(known), 2 + vo[known]] = 1.0
        if self.waited:
            out[:, -1] = [self.scaled_time(now - job.submit) for job in jobs]
        return out

"""Job selection at a grid site by SARSA, by earliest deadline and by arrival (seed 001, section 3.2).

The site is one machine with a shared queue. Each time cores are free and some waiting
job fits, the supervisor elects one: the scheduler is work-conserving. The state of
the site is five quantities (total work of the running jobs, time until a core frees
up, backlog of queued work, idle cores, and each VO's share of the queue) and an
action is a waiting job (its type, its VO and its execution time), all as a
scheduler knows them: execution times come from a :class:`~schedlab.model.analysis.estimates.RuntimeEstimate`.

:class:`SarsaScheduler` elects by SARSA and learns from each elected job's reward
``R_s = lambda W + (1 - lambda) F``, computed when the job completes (``W`` its
responsiveness, ``F`` the fair share at its election). Before it acts on its own
judgement it elects as :class:`EarliestDeadlineFirst` would, learning from that
schedule (the pre-training of section 3.3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from schedlab.model.analysis.estimates import RuntimeEstimate
from schedlab.model.analysis.fair_share import FairShare, responsiveness_utility
from schedlab.model.contracts.machine import MachineView, Start
from schedlab.model.contracts.site import INTERACTIVE, SiteFeatures
from schedlab.model.core.job import Job
from schedlab.model.records.job_record import JobRecord

__all__ = ["EarliestDeadlineFirst", "FirstFit", "GreedyReward", "InteractiveFirst", "SarsaScheduler", "ShortestFirst"]


def _deadline(job: Job, estimate: RuntimeEstimate) -> float:
    # when the job's responsiveness would fall to 1/2: it has waited as long as it will run
    return job.submit + estimate.estimate(job)


@dataclass
class EarliestDeadlineFirst:
    """Elect the fitting job whose deadline, submit + (estimated) execution time, comes first.

    The deadline is when the job's responsiveness ``W`` would fall to 1/2, so the rule
    weighs waiting against shortness; ties go to the earlier arrival.
    """

    estimate: RuntimeEstimate

    def pick(self, jobs: Sequence[Job]) -> int:
        """The index of the job whose deadline, by the estimated run time, comes first."""
        return min(range(len(jobs)), key=lambda i: _deadline(jobs[i], self.estimate))

    def __call__(self, view: MachineView) -> Start | None:
        fitting = [j for j in view.waiting if view.fits(j)]
        return Start(fitting[self.pick(fitting)]) if fitting else None


@dataclass(frozen=True)
class FirstFit:
    """Elect the first job in arrival order that fits: FIFO made work-conserving for multi-core jobs."""

    def __call__(self, view: MachineView) -> Start | None:
        for job in view.waiting:
            if view.fits(job):
                return Start(job)
        return None


@dataclass(frozen=True)
class InteractiveFirst:
    """Non-preemptive priority to interactive jobs: the oldest fitting interactive job, else the oldest fitting one."""

    def __call__(self, view: MachineView) -> Start | None:
        fallback = None
        for job in view.waiting:
            if view.fits(job):
                if job.job_class == INTERACTIVE:
                    return Start(job)
                fallback = fallback or job
        return Start(fallback) if fallback is not None else None


@dataclass
class ShortestFirst:
    """Shortest (estimated) execution time first among the fitting jobs; ties go to the earlier arrival.

    With :class:`~schedlab.model.analysis.estimates.OracleRuntime` this is the SJF oracle; with
    :class:`~schedlab.model.analysis.estimates.MedianRuntime` every job of a class has the same
    estimate, so it is priority to the class with the shorter median, FIFO within it.
    """

    estimate: RuntimeEstimate

    def __call__(self, view: MachineView) -> Start | None:
        fitting = [j for j in view.waiting if view.fits(j)]
        if not fitting:
            return None
        return Start(min(fitting, key=lambda j: self.estimate.estimate(j)))  # min keeps the first of ties


class GreedyReward:
    """Elect the job whose own reward ``lambda W + (1 - lambda) F`` would be highest if elected now.

    A diagnostic, not a scheduler to use: it is what a SARSA learner with gamma = 0 and a
    perfect fit of seed 001's reward would do (with an oracle, W is fixed at election:
    the job has waited ``now - submit`` and will run its execution time). Comparing it
    with EDF on waits and on the reward tells whether the reward itself leads away from
    responsive schedules.
    """

    def __init__(self, estimate: RuntimeEstimate, fair_share: FairShare | None = None, weight: float = 1.0) -> None:
        self.estimate, self.fair_share, self.weight = estimate, fair_share, weight

    def _value(self, job: Job, now: float) -> float:
        w = responsiveness_utility(self.estimate.estimate(job), now - job.submit)
        if self.fair_share is None or self.weight == 1.0:
            return w
        fairness = self.fair_share.utility_if(job.group, job.cpus * self.estimate.estimate(job))
        return self.weight * w + (1.0 - self.weight) * fairness

    def __call__(self, view: MachineView) -> Start | None:
        fitting = [j for j in view.waiting if view.fits(j)]
        if not fitting:
            return None
        job = max(fitting, key=lambda j: self._value(j, view.now))  # max keeps the first (oldest) of ties
        if self.fair_share is not None:
            self.fair_share.elect(job.group, job.cpus * job.runtime)
        return Start(job)


class SarsaScheduler:
    """Work-conserving job election by SARSA (seed 001, scheduling MDP).

    Parameters
    ----------
    learner
        A :class:`~schedlab.learners.sarsa.Sarsa` over state-action rows of
        ``features.state_size + features.action_size``.
    features
        How the site and the jobs are described.
    estimate
        The execution times the scheduler believes (oracle or estimated).
    fair_share
        The targets' tracker, for ``F``; None for a reward of ``W`` alone.
    weight
        ``lambda_s``: the weight of responsiveness against fairness, in [0, 1].
    pretrain
        Elections made by earliest deadline first (and learned from) before the
        learner elects.
    site_reward
        The site-level reading: an election's reward is the mean reward of the jobs
        that completed between it and the next election (if none did, the mean
        responsiveness the waiting jobs would have if started then, as the elastic
        pool does). Off by default: seed 001 rewards an election by its own job.
    queue_reward
        The queue reading: an election's reward, known at once, is ``lambda`` x the
        mean responsiveness the jobs left waiting would have if started now, plus
        ``(1 - lambda) F``: how responsive the site still is after the election. Off by
        default.

    Attributes
    ----------
    objective
        Election index -> ``lambda W + (1 - lambda) F`` of the elected job, filled as
        jobs complete (the learner's objective, for learning curves).

    Notes
    -----
    Connect :meth:`completed` to the machine's completion signal: it turns the
    completed job's election into a reward. Jobs are matched to their elections by
    id, so job ids must be unique in a run.
    """

    def __init__(
        self,
        learner,
        features: SiteFeatures,
        estimate: RuntimeEstimate,
        *,
        fair_share: FairShare | None = None,
        weight: float = 0.5,
        pretrain: int = 500,
        site_reward: bool = False,
        queue_reward: bool = False,
    ) -> None:
        if not 0.0 <= weight <= 1.0:
            raise ValueError(f"lambda (the responsiveness weight) must be in [0, 1], got {weight!r}")
        if pretrain < 0:
            raise ValueError(f"pretrain must be >= 0, got {pretrain!r}")
        if site_reward and queue_reward:
            raise ValueError("choose one of site_reward and queue_reward: both replace the job's own reward")
        self.learner, self.features, self.estimate = learner, features, estimate
        self.fair_share, self.weight, self.pretrain = fair_share, weight, pretrain
        self.behaviour = EarliestDeadlineFirst(estimate)
        self.site_reward, self.queue_reward = site_reward, queue_reward
        self.elections = 0
        self.objective: dict[int, float] = {}
        self._elected: dict[int, tuple[int, float, int]] = {}  # job id -> (decision, F at election, election)
        self._last: int | None = None  # site reading: the decision the jobs completing now reward
        self._interval: list[float] = []

    def __call__(self, view: MachineView) -> Start | None:
        if view.free < 1:  # no job fits: skip the scan of a long queue
            return None
        fitting = [j for j in view.waiting if view.fits(j)]
        if not fitting:
            return None
        state = self.features.state(view, self.estimate)
        rows = np.hstack(
            [
                np.broadcast_to(state, (len(fitting), len(state))),
                self.features.actions(fitting, self.estimate, view.now),
            ]
        )
        forced = self.behaviour.pick(fitting) if self.elections < self.pretrain else None
        if self.site_reward and self._last is not None:
            self.learner.reward(self._last, self._site_value(view))
        row, decision = self.learner.choose(rows, forced=forced, at=view.now)
        job = fitting[row]
        fairness = self.fair_share.elect(job.group, job.cpus * job.runtime) if self.fair_share else 1.0
        self._elected[job.id] = (decision, fairness, self.elections)
        self._last = decision
        self.elections += 1
        if self.queue_reward:
            now = view.now
            left = [
                responsiveness_utility(self.estimate.estimate(j), now - j.submit) for j in view.waiting if j is not job
            ]
            w = float(np.mean(left)) if left else 1.0
            self.learner.reward(decision, self.weight * w + (1.0 - self.weight) * fairness)
        return Start(job)

    def _site_value(self, view: MachineView) -> float:
        if self._interval:
            value = float(np.mean(self._interval))
        else:
            now = view.now
            w = [responsiveness_utility(self.estimate.estimate(j), now - j.submit) for j in view.waiting]
            fairness = self.fair_share.utility() if self.fair_share else 1.0
            value = self.weight * float(np.mean(w)) + (1.0 - self.weight) * fairness if w else 1.0
        self._interval.clear()
        return value

    def reward(self, record: JobRecord, fairness: float) -> float:
        """``R_s = lambda W + (1 - lambda) F`` of a completed job."""
        w = responsiveness_utility(record.service, record.wait)
        return self.weight * w + (1.0 - self.weight) * fairness

    def completed(self, record: JobRecord) -> None:
        """Completion-signal receiver: reward the election of the job that completed."""
        elected = self._elected.pop(record.id, None)
        if elected is None:
            return  # started by someone else (none here), or rejected
        decision, fairness, election = elected
        r = self.reward(record, fairness)
        self.objective[election] = r
        if self.site_reward:
            self._interval.append(r)
        elif not self.queue_reward:
            self.learner.reward(decision, r)

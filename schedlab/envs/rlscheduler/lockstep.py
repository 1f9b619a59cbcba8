"""Many sequences replayed in lockstep by decision, their pending choices scored in one batched pass.

:func:`~schedlab.envs.rlscheduler.env.sequence_scores` replays one sequence at a time, and
a :class:`~schedlab.envs.rlscheduler.env.ModelChooser` calls the scorer once per
decision: a few hundred small matrix products per sequence, each paying numpy's
per-call cost for a queue of about twenty rows. :func:`lockstep_scores` runs the
sequences of a plan side by side instead: each is stepped (its own SimPy environment
and Machine, RLScheduler's loop with the agent in place of the score, as
:class:`~schedlab.envs.rlscheduler.env.RLSchedulerEnv` steps it) until it asks for a
choice or ends; the rows of every pending choice are stacked and scored in one
:meth:`~schedlab.envs.rlscheduler.scorer.KernelScorer.scores` call; each sequence
commits to its own highest-scored job (the first of equal ones) and goes on.

The choices and scores are those of the per-sequence path: the same rows
(:func:`~schedlab.envs.rlscheduler.obs.shown_rows`), the same float64 products rounded
to float32, the same argmax. That a row's float64 score does not depend on which rows
are scored with it is numpy's matrix product on this machine; the rounding to float32
absorbs a last-bit difference of another BLAS kernel but at a rounding boundary, as it
does for the scorer across machines (:mod:`~schedlab.envs.rlscheduler.scorer`). The
tests compare both paths' scores and a search's weights.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import simpy
from simpy.core import EmptySchedule

from schedlab.envs.rlscheduler.env import RLSchedulerConfig, _AgentCommitted, sequence_score
from schedlab.envs.rlscheduler.obs import LogFeatures, log_features, shown_rows, visible_jobs
from schedlab.envs.rlscheduler.scorer import KernelScorer
from schedlab.model.core.job import Job
from schedlab.processes.machine.machine import Machine
from schedlab.processes.machine.replay import replay_model
from schedlab.processes.model import Model

__all__ = ["lockstep_scores"]


@dataclass
class _Replay:
    """One sequence being replayed: its model, its loop and what it shows at a pending choice."""

    cfg: RLSchedulerConfig
    jobs: list[Job]
    cpus: int
    features: LogFeatures
    model: Model
    machine: Machine
    policy: _AgentCommitted
    shown: list[Job]

    def advance(self) -> bool:
        """Step the simulation until the agent is asked (True) or no event is left (False)."""
        sim, policy = self.model.env, self.policy
        step = sim.step
        try:
            while not policy.asked:
                step()
        except EmptySchedule:
            return False
        self.shown = visible_jobs(self.machine.waiting, self.cfg.queue)
        return True

    def answer(self, job: Job) -> None:
        """Commit to ``job`` and let the machine act on it at once, as the per-sequence path does."""
        self.policy.asked, self.policy.answer = False, job
        self.machine.decide()

    def score(self) -> float:
        starts = {r.id: r.start for r in self.model.records()}
        return sequence_score(self.jobs, starts, self.cfg.score_type, self.cpus)


def _replay(cfg: RLSchedulerConfig, start: int, length: int | None) -> _Replay:
    loaded = cfg.loaded
    features = log_features(str(cfg.path), loaded.cpus * loaded.procs_per_node)
    jobs = list(loaded.jobs[start : start + (length or cfg.sequence)])
    policy = _AgentCommitted(cfg.backfill, ask_single=False)
    model = replay_model(simpy.Environment(), jobs, loaded.cpus, policy, compat="rlscheduler")
    return _Replay(cfg, jobs, loaded.cpus, features, model, model["machine"], policy, [])


def lockstep_scores(
    scorer: KernelScorer, plan: Sequence[tuple[RLSchedulerConfig, int]], length: int | None = None
) -> list[float]:
    """Each ``(setting, start)`` sequence's score under ``scorer`` (``length`` jobs; default: the setting's).

    The same scores as :func:`~schedlab.envs.rlscheduler.env.sequence_scores` with a
    :class:`~schedlab.envs.rlscheduler.env.ModelChooser` of ``scorer`` on each sequence;
    the sequences are stepped side by side and their pending choices scored together.
    """
    replays = [_replay(cfg, start, length) for cfg, start in plan]
    pending = [r for r in replays if r.advance()]
    while pending:
        rows = [shown_rows(r.shown, r.model.env.now, r.machine.free, r.features) for r in pending]
        scores = scorer.scores(np.concatenate(rows)) if len(rows) > 1 else scorer.scores(rows[0])
        at = 0
        for r, part in zip(pending, rows, strict=True):
            n = len(part)
            r.answer(r.shown[int(np.argmax(scores[at : at + n]))])
            at += n
        pending = [r for r in pending if r.advance()]
    return [r.score() for r in replays]

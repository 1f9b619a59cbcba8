"""Baseline agents on the slotted (DeepRM) machine: FCFS, SJF, Tetris and random.

Each agent is a function of a :class:`~schedlab.model.contracts.slotted.SlottedView` that
returns an action of the slotted contract (and of :class:`~schedlab.envs.slotted.deeprm.DeepRMEnv`):
a slot index, or ``M`` (the number of slots) to let time move on. They see what the learned agent
sees, the visible slots, and act through the same actions, as DeepRM's baselines do:
a heuristic only starts a job that can run *now* for its whole length (no look-ahead
reservations), and advances time when none can.

- FCFS: the oldest visible job if it fits now, else wait (strict: it blocks the rest).
- SJF: the shortest visible job among those that fit now (ties: the older), by its
  length: DeepRM's jobs carry no estimate, their lengths are known, as in the paper.
- Tetris: among those that fit now, the highest alignment of demand and free
  resources (:func:`schedlab.policies.packing.alignment`; ties: the older).
- random: a uniformly random action, void included (DeepRM's random agent).

References
----------
H. Mao, M. Alizadeh, I. Menache, S. Kandula, "Resource management with deep
reinforcement learning", HotNets 2016 (section 4, the baselines).
"""

from __future__ import annotations

import numpy as np

from schedlab.model.contracts.slotted import Agent, SlottedView
from schedlab.policies.packing import alignment

__all__ = ["BASELINES", "Agent", "fcfs", "random_agent", "sjf", "tetris"]


def fcfs(view: SlottedView) -> int:
    """The oldest waiting job if it fits now, else the void action."""
    job = view.slot(0)
    return 0 if job is not None and view.fits_now(job) else view.slots


def sjf(view: SlottedView) -> int:
    """The shortest visible job that fits now, else the void action."""
    best, best_len = view.slots, None
    for i in range(view.slots):
        job = view.slot(i)
        if job is None:
            break
        length = view.length(job)
        if (best_len is None or length < best_len) and view.fits_now(job):
            best, best_len = i, length
    return best


def tetris(view: SlottedView) -> int:
    """The visible job that fits now with the best alignment to the free resources, else void."""
    free, cap = view.free_now(), view.capacities
    best, best_score = view.slots, -1.0
    for i in range(view.slots):
        job = view.slot(i)
        if job is None:
            break
        if view.fits_now(job):
            score = alignment(view.demand(job), free, cap)
            if score > best_score:
                best, best_score = i, score
    return best


def random_agent(rng: np.random.Generator) -> Agent:
    """An agent choosing uniformly among all actions (void included), drawing from ``rng``."""

    def act(view: SlottedView) -> int:
        return int(rng.integers(view.slots + 1))

    return act


#: the deterministic baselines by name
BASELINES: dict[str, Agent] = {"fcfs": fcfs, "sjf": sjf, "tetris": tetris}

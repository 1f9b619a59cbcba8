"""Baseline agents on the DeepRM environment: FCFS, SJF, Tetris and random.

Each agent is a function of a :class:`~schedlab.envs.slotted.SlottedMachine` that
returns an action of :class:`~schedlab.envs.deeprm.DeepRMEnv`: a slot index, or
``M`` (the number of slots) to let time move on. They see what the learned agent
sees, the visible slots, and act through the same actions, as DeepRM's baselines do:
a heuristic only starts a job that can run *now* for its whole length (no look-ahead
reservations), and advances time when none can.

- FCFS: the oldest visible job if it fits now, else wait (strict: it blocks the rest).
- SJF: the shortest visible job among those that fit now (ties: the older).
- Tetris: among those that fit now, the highest alignment of demand and free
  resources (:func:`schedlab.policies.packing.alignment`; ties: the older).
- random: a uniformly random action, void included (DeepRM's random agent).

References
----------
H. Mao, M. Alizadeh, I. Menache, S. Kandula, "Resource management with deep
reinforcement learning", HotNets 2016 (section 4, the baselines).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from schedlab.envs.slotted import SlottedMachine
from schedlab.policies.packing import alignment

__all__ = ["BASELINES", "Agent", "fcfs", "random_agent", "sjf", "tetris"]

#: an agent: the machine's state in, an action out
Agent = Callable[[SlottedMachine], int]


def fcfs(machine: SlottedMachine) -> int:
    """The oldest waiting job if it fits now, else the void action."""
    job = machine.slot(0)
    return 0 if job is not None and machine.fits_now(job) else machine.slots


def sjf(machine: SlottedMachine) -> int:
    """The shortest visible job that fits now, else the void action."""
    best, best_len = machine.slots, None
    for i in range(machine.slots):
        job = machine.slot(i)
        if job is None:
            break
        length = machine.length(job)
        if (best_len is None or length < best_len) and machine.fits_now(job):
            best, best_len = i, length
    return best


def tetris(machine: SlottedMachine) -> int:
    """The visible job that fits now with the best alignment to the free resources, else void."""
    free, cap = machine.free_now(), machine.cap
    best, best_score = machine.slots, -1.0
    for i in range(machine.slots):
        job = machine.slot(i)
        if job is None:
            break
        if machine.fits_now(job):
            score = alignment(machine.demand(job), free, cap)
            if score > best_score:
                best, best_score = i, score
    return best


def random_agent(rng: np.random.Generator) -> Agent:
    """An agent choosing uniformly among all actions (void included), drawing from ``rng``."""

    def act(machine: SlottedMachine) -> int:
        return int(rng.integers(machine.slots + 1))

    return act


#: the deterministic baselines by name
BASELINES: dict[str, Agent] = {"fcfs": fcfs, "sjf": sjf, "tetris": tetris}

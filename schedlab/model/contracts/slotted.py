"""The slotted (DeepRM) machine's decision contract (seed 002): what an agent sees, decides, hears.

A time-slotted machine (:class:`schedlab.processes.slotted.slotted.SlottedMachine`) holds ``d``
resources of whole-unit capacities, the scheduler's *plan* (an occupation image over
the next ``horizon`` steps), ``slots`` visible job slots and a backlog behind them
(Mao et al. 2016, section 3). At each time step the agent is asked for actions until
it lets time move on:

- :func:`place` ``(i)``, the integer ``i < view.slots``: place the job of slot ``i``
  at its earliest fit in the horizon (now, or reserved ahead); no time passes;
- :func:`wait` ``(view)``, the integer ``view.slots``: close the step, time moves on.
  An empty slot or a job that fits nowhere moves time on as well.

Actions are plain integers, as the Gymnasium environment's ``Discrete(slots + 1)``,
so an agent trained there acts here unchanged. This module holds, as plain data:

- :class:`SlottedView`: the read-only state an agent gets;
- :data:`Agent`: the decision hook, ``view -> action``;
- :class:`SlottedStep` and the view's signals (``completed``, ``step_ended``): what
  a learner subscribes to;
- :func:`episode_metrics`: the outcome of an episode (seed 002, section 4).

Nothing here imports SimPy. The job sequences live in :mod:`schedlab.model.core.deeprm_jobs`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple, Protocol

import numpy as np

from schedlab.model.analysis import metrics
from schedlab.model.contracts.signals import Subscribable
from schedlab.model.core.job import Job
from schedlab.model.records.job_record import JobRecord, Status

__all__ = [
    "Agent",
    "SlottedOutcome",
    "SlottedStep",
    "SlottedView",
    "episode_metrics",
    "is_wait",
    "place",
    "wait",
]


class SlottedStep(NamedTuple):
    """A time step closed: which one (``time``, before the clock moves on) and its ``cost``.

    ``cost`` is ``sum(1/T_j)`` over the jobs in the system during the step (DeepRM's
    reward is minus it); summed over an episode whose jobs all complete it is the
    total slowdown.
    """

    time: int
    cost: float


class SlottedView(Protocol):
    """What a slotted machine shows its agent (read-only).

    Arrays returned are the machine's own or fresh copies as documented; agents must
    not write to them.
    """

    @property
    def now(self) -> int:
        """The current time step."""
        ...

    @property
    def names(self) -> Sequence[str]:
        """The resources' names, the CPUs first."""
        ...

    @property
    def capacities(self) -> np.ndarray:
        """Each resource's capacity in whole units (int64, read-only)."""
        ...

    @property
    def horizon(self) -> int:
        """Time steps of the plan (the occupation image)."""
        ...

    @property
    def slots(self) -> int:
        """Visible job slots ``M``; the action ``M`` waits."""
        ...

    @property
    def backlog(self) -> int:
        """Waiting jobs behind the slots (not capped)."""
        ...

    @property
    def n_jobs(self) -> int:
        """Jobs of the episode's sequence."""
        ...

    @property
    def done(self) -> bool:
        """Has every job of the sequence arrived and completed?"""
        ...

    @property
    def completed(self) -> Subscribable[JobRecord]:
        """Emitted with a job's record at its completion, before the step's decisions."""
        ...

    @property
    def step_ended(self) -> Subscribable[SlottedStep]:
        """Emitted when the agent lets a step close, before the clock moves on."""
        ...

    def slot(self, i: int) -> Job | None:
        """The job in slot ``i``, or None for an empty slot."""
        ...

    def length(self, job: Job) -> int:
        """``job``'s length in time steps."""
        ...

    def demand(self, job: Job) -> np.ndarray:
        """Units of each resource ``job`` holds while it runs (read-only)."""
        ...

    def free_now(self) -> np.ndarray:
        """Units of each resource free in the current step."""
        ...

    def fits_now(self, job: Job) -> bool:
        """Can ``job`` start now and hold its demand for its whole length?"""
        ...

    def earliest(self, job: Job) -> int | None:
        """The first step offset where ``job`` fits for its whole length in the horizon, or None."""
        ...

    def action_mask(self, *, work_conserving: bool = False) -> np.ndarray:
        """The actions that do something (bool, ``slots + 1``): slots whose job fits in the horizon, and wait."""
        ...

    def images(self) -> tuple[np.ndarray, np.ndarray]:
        """The occupation image ``(horizon, d, C)`` and the slot images ``(slots, horizon, d, C)``."""
        ...

    def observation(self, *, flat: bool = False) -> dict[str, np.ndarray] | np.ndarray:
        """The agent's observation: backlog count, occupation and slot images (a dict, or one vector)."""
        ...


#: an agent: called at each decision with the view, returns an action (a slot index, or ``view.slots``)
Agent = Callable[[SlottedView], int]


def place(i: int) -> int:
    """The action placing the job of slot ``i`` at its earliest fit."""
    if i < 0:
        raise ValueError(f"slot index must be >= 0, got {i!r}")
    return int(i)


def wait(view: SlottedView) -> int:
    """The void action: place nothing more now, let time move on one step."""
    return view.slots


def is_wait(view: SlottedView, action: int) -> bool:
    """Does ``action`` move time on without placing a job (the void action, out of range, an empty slot...)?"""
    if not 0 <= action < view.slots:
        return True
    job = view.slot(action)
    return job is None or view.earliest(job) is None


class SlottedOutcome(Protocol):
    """What :func:`episode_metrics` reads of a finished (or cut-short) episode."""

    @property
    def now(self) -> int:
        """The time slot the episode reached."""
        ...

    @property
    def n_jobs(self) -> int:
        """How many jobs the episode had."""
        ...

    def records(self) -> list[JobRecord]:
        """Every job's record: completed ones, then those still running or waiting."""
        ...

    def utilization(self) -> np.ndarray:
        """Fraction of each resource's capacity used, averaged over the steps so far."""
        ...


def episode_metrics(model: SlottedOutcome, *, threshold: float = 10.0) -> dict[str, float]:
    """Mean slowdown, bounded slowdown, response time and utilization of an episode (seed 002, section 4).

    A job still waiting or running when the episode was cut short (``max_time``) counts
    as if it completed at the episode's end: a lower bound on its times, so an agent
    that leaves jobs behind is not flattered by the jobs it finished.
    ``completed_fraction`` says how many of the sequence's jobs completed.
    ``utilization`` is the mean over resources of the fraction of capacity used from
    time 0 to the episode's end (seed 002's ``U(0, t)``); its CPU part equals
    :func:`schedlab.model.analysis.metrics.utilization` of the records.
    """
    now = float(model.now)
    all_records = model.records()
    records = [r if r.status is Status.COMPLETED else r._replace(end=now, status=Status.COMPLETED) for r in all_records]
    done = sum(1 for r in all_records if r.status is Status.COMPLETED)
    nan = float("nan")
    return {
        "slowdown_mean": float(metrics.slowdown(records).mean()) if records else nan,
        "bounded_slowdown_mean": float(metrics.bounded_slowdown(records, threshold).mean()) if records else nan,
        "response_mean": float(metrics.response(records).mean()) if records else nan,
        "utilization": float(np.mean(model.utilization())),
        "completed_fraction": done / model.n_jobs if model.n_jobs else 1.0,
    }

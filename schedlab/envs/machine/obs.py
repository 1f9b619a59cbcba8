"""What an RL scheduler sees of any schedlab machine, and what its actions mean.

A :class:`MachineObserver` reads nothing but a :class:`~schedlab.model.contracts.machine.MachineView`,
so the same observation, mask and action meaning serve both sides of a trained agent's
life: :class:`~schedlab.envs.machine.env.MachineEnv`, where it learns, and
:class:`~schedlab.envs.machine.agent_policy.AgentPolicy`, where it runs as an ordinary machine
policy inside any scenario.

Actions are ``0..K-1`` (start the job in window slot ``i``: the ``i``-th oldest waiting
job) and ``K`` (wait: start nothing until the next arrival or completion). The mask
(bool, length ``K + 1``) marks as valid the window jobs that fit now, and *wait* while
some job runs. Waiting on an idle machine is masked out: the agent cannot see arrivals
coming, so it could only stall there. An invalid action (masked out, out of range, not
a whole number) is taken as *wait*; where waiting is invalid too it starts the oldest
window job that fits, so an episode always drains.

The observation is one float32 vector, every entry in ``[0, 1]``, in this order
(``R`` resources: the CPUs first, then the machine's named resources in their order):

====================  ==========  ==============================================================
field                 length      value
====================  ==========  ==============================================================
free                  ``R``       free fraction of each resource's capacity
slot ``i`` present    1           1 if window slot ``i`` holds a job, else 0 (and zeros after)
slot ``i`` fits       1           1 if that job fits now (the mask's bit)
slot ``i`` demands    ``R``       the job's demand of each resource / its capacity
slot ``i`` runtime    1           ``squash(estimate)`` (or the true runtime, ``runtime="runtime"``)
slot ``i`` waited     1           ``squash(now - submit)``
queue                 1           ``q / (q + K)`` for ``q`` waiting jobs (window included)
running usage         ``R``       sum over running jobs of demand / capacity x ``squash(time left)``
next completion       1           ``squash(time until the soonest running job ends)``; 0 if none runs
====================  ==========  ==============================================================

With ``backfill`` (an order's name, e.g. ``"sjf"``, or ``"strict-"`` and one, e.g.
``"strict-saf"``; ``None``, the default, leaves the observation above unchanged), each
slot has one more value after ``waited``:

====================  ==========  ==============================================================
slot ``i`` backfills  1           1 if EASY backfilling under that order, restricted to the
                                  window, may start the job now (:func:`easy_starts`): it fits,
                                  and it ranks before the order's first blocked window job or
                                  does not delay that job's reservation. With ``strict-ORDER``,
                                  1 if the order kept strictly may start it now: it fits and
                                  ranks before the first window job that does not
====================  ==========  ==============================================================

Without it a scorer sees when running jobs end only summed (running usage) and the
soonest one, so it cannot tell which fitting job would push back a wide job's start:
EASY's rule, which makes SJF with EASY backfilling better than SJF starting whatever
fits (docs/rl.md, "One training command").

``squash(t) = t / (t + time_scale)`` maps ``[0, inf)`` onto ``[0, 1)`` without clipping
(half way at ``time_scale``); running jobs' time left is by their requested (estimated)
end, or their true remaining work with ``runtime="runtime"``.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, SupportsIndex

import numpy as np
from gymnasium import spaces

from schedlab.envs.action_rows import ABSENT, ActionRows
from schedlab.model.contracts.machine import MachineView
from schedlab.model.core.fields import whole
from schedlab.model.core.job import Job
from schedlab.policies.backfilling import reservation
from schedlab.policies.scoring import SCORES

__all__ = ["RUNTIME_VIEWS", "MachineObserver", "easy_starts"]

#: what the agent is told of a job's length: the user's estimate, or the true runtime (an oracle)
RUNTIME_VIEWS = ("estimate", "runtime")


def easy_starts(
    view: MachineView, jobs: Sequence[Job], fits: Sequence[bool] | np.ndarray, order: str, backfill: bool = True
) -> list[bool]:
    """Which of ``jobs`` (the window) EASY backfilling under ``order`` may start now, among only those jobs.

    ``fits[i]`` says whether ``jobs[i]`` fits now. Ranked by ``order`` (a name of
    :data:`~schedlab.policies.scoring.SCORES`; the oldest first among equal scores), the
    jobs before the first that does not fit may start; that job (the head) gets EASY's
    reservation (:func:`~schedlab.policies.backfilling.reservation`, by the running jobs'
    requested ends), and a later job that fits may start if it ends, by its estimate, by
    the head's shadow time or needs no more than the extra CPUs then. Starting the
    order's first job marked here, again and again, is :class:`~schedlab.policies.backfilling.EASY`
    on the window. With ``backfill=False`` no job after the head may start: the order
    kept strictly.

    >>> from schedlab.model.core.job import Job
    >>> class View:  # 4 CPUs, one running job holding 2 until t=10; t=0
    ...     now, free = 0.0, 2
    ...     running = [type("R", (), {"cpus": 2, "requested_end": 10.0})()]
    >>> wide, long, short = Job(0, 0, 5, 4), Job(1, 0, 20, 1), Job(2, 0, 8, 1)
    >>> easy_starts(View(), [wide, long, short], [False, True, True], "sjf")  # wide waits for t=10
    [False, False, True]
    >>> easy_starts(View(), [wide, long, short], [False, True, True], "sjf", backfill=False)  # all wait
    [False, False, False]
    """
    score, now = SCORES[order], view.now
    ranked = sorted(range(len(jobs)), key=lambda i: (score(jobs[i], now), i))
    starts = [False] * len(jobs)
    for n, i in enumerate(ranked):
        if not fits[i]:
            if not backfill:
                break
            shadow, extra = reservation(view, jobs[i])
            for k in ranked[n + 1 :]:
                starts[k] = bool(fits[k]) and (now + jobs[k].requested_time <= shadow or jobs[k].cpus <= extra)
            break
        starts[i] = True
    return starts


@dataclass(frozen=True)
class MachineObserver:
    """The observation, action mask and action meaning over a machine's view.

    Parameters
    ----------
    resources
        The named resources (besides CPUs) the observation shows, in order.
    window
        ``K``: how many of the oldest waiting jobs the agent can see and start.
    time_scale
        Time at which ``squash`` reaches one half: a typical runtime of the workload.
    runtime
        ``"estimate"`` (the user's requested time, what a real scheduler knows) or
        ``"runtime"`` (the true runtime).
    backfill
        An order's name (``"sjf"``...): each slot also says whether EASY backfilling
        under that order may start its job now (:func:`easy_starts`); ``"strict-"`` and an
        order's name: whether that order kept strictly may; ``None``: not shown.
    """

    resources: tuple[str, ...] = ()
    window: int = 8
    time_scale: float = 1.0
    runtime: Literal["estimate", "runtime"] = "estimate"
    backfill: str | None = None

    def __post_init__(self) -> None:
        whole("window", self.window, 1)
        if not (isinstance(self.time_scale, int | float) and math.isfinite(self.time_scale) and self.time_scale > 0):
            raise ValueError(f"time_scale must be a finite number > 0, got {self.time_scale!r}")
        if self.runtime not in RUNTIME_VIEWS:
            raise ValueError(f"runtime must be one of {RUNTIME_VIEWS}, got {self.runtime!r}")
        if self.backfill is not None and self.backfill.removeprefix("strict-") not in SCORES:
            raise ValueError(
                f"backfill must be None, an order of {', '.join(SCORES)} or strict-ORDER, got {self.backfill!r}"
            )

    # ------------------------------------------------------------------ layout
    @property
    def n_resources(self) -> int:
        """Resources per job in the observation: CPUs, then each named resource."""
        return 1 + len(self.resources)

    @property
    def n_actions(self) -> int:
        """``K + 1``: a start per window slot, then wait."""
        return self.window + 1

    @property
    def wait_action(self) -> int:
        """The action that starts nothing (the last one, after the window slots)."""
        return self.window

    @property
    def slot_size(self) -> int:
        """Values per window slot: present, fits, the job's resources, runtime, waited (and backfills)."""
        return self.n_resources + 4 + (self.backfill is not None)

    @property
    def size(self) -> int:
        """Length of the observation vector."""
        r = self.n_resources
        return r + self.window * self.slot_size + 1 + r + 1

    def observation_space(self) -> spaces.Box:
        """The observation: ``size`` values in [0, 1]."""
        return spaces.Box(0.0, 1.0, shape=(self.size,), dtype=np.float32)

    def action_space(self) -> spaces.Discrete:
        """One action per window slot, and wait."""
        return spaces.Discrete(self.n_actions)

    def slots(self, obs: np.ndarray) -> np.ndarray:
        """The window part of ``obs`` as a ``(K, slot_size)`` view, one row per slot.

        Columns: present, fits, the ``R`` demands, runtime, waited (then backfills, with
        ``backfill``); so ``slots(obs)[:, 2 + R]`` are the (squashed) runtimes an agent sees.
        """
        r = self.n_resources
        return obs[..., r : r + self.window * self.slot_size].reshape(*obs.shape[:-1], self.window, self.slot_size)

    def action_rows(self) -> ActionRows:
        """Each action's row for a per-action (kernel) scorer: a window slot's values, and *wait*'s.

        Slot ``i``'s row is its ``slot_size`` values (present, fits, demands, runtime,
        waited...); *wait* has none of them (zeros: not present, not fitting, which no
        valid slot is). Shared by every row: the free resources, the queue, the running
        usage and the next completion.
        """
        r, k, width = self.n_resources, self.window, self.slot_size
        slots = r + np.arange(k * width).reshape(k, width)
        index = np.vstack([slots, np.full((1, width), ABSENT)])
        shared = np.concatenate([np.arange(r), np.arange(r + k * width, self.size)])
        return ActionRows(self.size, index, shared)

    # ------------------------------------------------------------------ reading the view
    def _capacities(self, view: MachineView) -> list[float]:
        caps = view.resources
        missing = [r for r in self.resources if r not in caps]
        if missing:  # an agent trained with memory in its observation, run on a machine without it
            raise ValueError(f"machine {view.name!r} has no resource {missing[0]!r}, which the observation shows")
        return [float(view.capacity)] + [float(caps[r]) for r in self.resources]

    def mask(self, view: MachineView) -> np.ndarray:
        """Valid actions now: window jobs that fit now, and wait while some job runs."""
        mask = np.zeros(self.n_actions, dtype=bool)
        fits = view.fits
        for i, job in enumerate(view.waiting[: self.window]):
            mask[i] = fits(job)
        mask[-1] = bool(view.running)
        return mask

    def observe(self, view: MachineView, mask: np.ndarray) -> np.ndarray:
        """The observation vector (see the module's table); ``mask`` is :meth:`mask` of the same view."""
        r, k = self.n_resources, self.window
        out = np.zeros(self.size, dtype=np.float32)
        caps = self._capacities(view)
        used = view.used
        now, scale = view.now, self.time_scale
        out[0] = view.free / caps[0]
        for n, name in enumerate(self.resources, 1):
            out[n] = 1.0 - used.get(name, 0.0) / caps[n]
        oracle = self.runtime == "runtime"
        waiting = view.waiting
        base = r
        if self.backfill is not None:
            window = waiting[:k]
            order, strict = self.backfill.removeprefix("strict-"), self.backfill.startswith("strict-")
            for i, starts in enumerate(easy_starts(view, window, mask[: len(window)], order, not strict)):
                out[base + i * self.slot_size + 4 + r] = starts
        for i, job in enumerate(waiting[:k]):
            slot = base + i * self.slot_size
            out[slot] = 1.0
            out[slot + 1] = mask[i]
            out[slot + 2] = job.cpus / caps[0]
            demands = job.demands
            for n, name in enumerate(self.resources, 1):
                out[slot + 2 + n] = demands.get(name, 0.0) / caps[n]
            length = view.remaining(job) if oracle else job.requested_time
            out[slot + 2 + r] = length / (length + scale)
            waited = now - job.submit
            out[slot + 3 + r] = waited / (waited + scale)
        at = base + k * self.slot_size
        out[at] = len(waiting) / (len(waiting) + k)
        at += 1
        soonest = math.inf
        for run in view.running:
            left = run.remaining(now) if oracle else max(0.0, run.requested_end - now)
            soonest = min(soonest, left)
            weight = left / (left + scale)
            job = run.job
            out[at] += weight * run.cpus / caps[0]
            for n, name in enumerate(self.resources, 1):
                out[at + n] += weight * job.demands.get(name, 0.0) / caps[n]
        if soonest < math.inf:
            out[at + r] = soonest / (soonest + scale)
        # float residue (a demand of 0.1 + 0.2 on a capacity of 0.3) must not leave the box
        np.clip(out, 0.0, 1.0, out=out)
        return out

    # ------------------------------------------------------------------ acting
    def resolve(self, action: object, mask: Sequence[bool] | np.ndarray) -> tuple[int | None, bool]:
        """What ``action`` does under ``mask``: the window slot to start (``None``: wait), and whether it was valid.

        An invalid action is taken as wait, or, where waiting is masked out too (an idle
        machine), as the oldest window job that fits.
        """
        # ints and numpy integers; 1.0 or "1" are invalid, not coerced
        a = operator.index(action) if isinstance(action, SupportsIndex) else -1
        if 0 <= a < len(mask) and mask[a]:
            return (None if a == self.wait_action else a), True
        if mask[self.wait_action]:
            return None, False
        fitting = np.flatnonzero(np.asarray(mask[: self.window]))
        return (int(fitting[0]) if fitting.size else None), False

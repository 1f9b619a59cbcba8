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

from schedlab.model.contracts.machine import MachineView
from schedlab.model.core.fields import whole

__all__ = ["RUNTIME_VIEWS", "MachineObserver"]

#: what the agent is told of a job's length: the user's estimate, or the true runtime (an oracle)
RUNTIME_VIEWS = ("estimate", "runtime")


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
    """

    resources: tuple[str, ...] = ()
    window: int = 8
    time_scale: float = 1.0
    runtime: Literal["estimate", "runtime"] = "estimate"

    def __post_init__(self) -> None:
        whole("window", self.window, 1)
        if not (isinstance(self.time_scale, int | float) and math.isfinite(self.time_scale) and self.time_scale > 0):
            raise ValueError(f"time_scale must be a finite number > 0, got {self.time_scale!r}")
        if self.runtime not in RUNTIME_VIEWS:
            raise ValueError(f"runtime must be one of {RUNTIME_VIEWS}, got {self.runtime!r}")

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
        """Values per window slot: the job's resources and four time features."""
        return self.n_resources + 4

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
        """The window part of ``obs`` as a ``(K, R + 4)`` view, one row per slot.

        Columns: present, fits, the ``R`` demands, runtime, waited; so ``slots(obs)[:, -2]``
        are the (squashed) runtimes an agent sees.
        """
        r = self.n_resources
        return obs[..., r : r + self.window * self.slot_size].reshape(*obs.shape[:-1], self.window, self.slot_size)

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

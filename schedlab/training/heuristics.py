"""Heuristics as env-level policies: the teacher imitation copies and the yardstick costs are relative to.

A heuristic here is ``act(env) -> action``: it reads the environment's own state (not
the observation), so it is exact, and takes actions of the env's action space, so it
runs on the same episodes through the same steps as the learner. :data:`HEURISTICS`
lists them per environment id; :func:`heuristic` finds one or refuses in one line.

``schedlab/Machine-v0`` (the window of the ``K`` oldest waiting jobs, ``K`` waits):

- ``sjf``: the window job that fits now with the shortest estimate (the oldest of equal ones);
- ``fcfs``: the oldest waiting job if it fits now, else wait (strict order).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["HEURISTICS", "heuristic"]

Heuristic = Callable[[Any], int]


def _machine_sjf(env: Any) -> int:
    machine, observer = env.unwrapped.machine, env.unwrapped.observer
    mask = env.unwrapped.action_masks()
    fits = [i for i in range(observer.window) if mask[i]]
    if not fits:
        return int(observer.wait_action)
    estimates = [machine.waiting[i].requested_time for i in fits]
    return fits[int(np.argmin(estimates))]


def _machine_fcfs(env: Any) -> int:
    mask = env.unwrapped.action_masks()
    return 0 if mask[0] else int(env.unwrapped.observer.wait_action)


HEURISTICS: dict[str, dict[str, Heuristic]] = {
    "schedlab/Machine-v0": {"sjf": _machine_sjf, "fcfs": _machine_fcfs},
}


def heuristic(env_id: str, name: str) -> Heuristic:
    """The heuristic ``name`` of environment ``env_id``, or a one-line error listing those it has."""
    known = HEURISTICS.get(env_id, {})
    if name not in known:
        have = ", ".join(sorted(known)) or "none"
        raise ValueError(f"teacher: {name!r} is not a heuristic of {env_id} (it has: {have})")
    return known[name]

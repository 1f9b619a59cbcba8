"""Heuristics as env-level policies: the teacher imitation copies and the yardstick costs are relative to.

A heuristic here is ``act(env) -> action``: it reads the environment's own state (not
the observation), so it is exact, and takes actions of the env's action space, so it
runs on the same episodes through the same steps as the learner. :func:`heuristic`
finds one by name or refuses in one line.

``schedlab/Machine-v0`` (the window of the ``K`` oldest waiting jobs, ``K`` waits):

- ``fcfs``: the oldest waiting job if it fits now, else wait (strict order);
- every other registered queue order (``sjf``, ``f1``, ``saf``, ...:
  :data:`~schedlab.policies.scoring.SCORES`): the window job that fits now and that order
  ranks first (the oldest of equal ones). A new ``@order`` is a teacher with no edit here.

A PettingZoo Parallel env's heuristics are ``act(env, agent) -> action``, kept with
the env and found through :data:`ENV_HEURISTICS` (loaded on first use):
``schedlab/GridParallel-v0``'s ``lls`` and ``mct`` (:mod:`schedlab.envs.grid.teachers`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from schedlab.model.contracts.machine import Score
from schedlab.policies.scoring import SCORES

__all__ = ["ENV_HEURISTICS", "heuristic", "heuristic_names"]

Heuristic = Callable[[Any], int]


def _machine_fcfs(env: Any) -> int:
    mask = env.unwrapped.action_masks()
    return 0 if mask[0] else int(env.unwrapped.observer.wait_action)


def _machine_order(score: Score) -> Heuristic:
    """The window job that fits now and ``score`` ranks first, else wait."""

    def act(env: Any) -> int:
        machine, observer = env.unwrapped.machine, env.unwrapped.observer
        mask = env.unwrapped.action_masks()
        fits = [i for i in range(observer.window) if mask[i]]
        if not fits:
            return int(observer.wait_action)
        now = float(machine.env.now)
        return min(fits, key=lambda i: score(machine.waiting[i], now))  # min keeps the first of equal scores

    return act


def _grid_teachers() -> Mapping[str, Callable[..., int]]:
    from schedlab.envs.grid.teachers import TEACHERS

    return TEACHERS


#: env id -> its heuristics by name, kept in the env's own module and imported on first use
ENV_HEURISTICS: dict[str, Callable[[], Mapping[str, Callable[..., int]]]] = {
    "schedlab/GridParallel-v0": _grid_teachers,
}


def heuristic_names(env_id: str) -> list[str]:
    """The heuristics environment ``env_id`` has, by name (none for an env schedlab has none for)."""
    if env_id in ENV_HEURISTICS:
        return list(ENV_HEURISTICS[env_id]())
    return ["fcfs", *(name for name in SCORES if name != "fcfs")] if env_id == "schedlab/Machine-v0" else []


def heuristic(env_id: str, name: str) -> Callable[..., int]:
    """The heuristic ``name`` of environment ``env_id``, or a one-line error listing those it has."""
    known = heuristic_names(env_id)
    if name not in known:
        have = ", ".join(known) or "none"
        raise ValueError(f"teacher: {name!r} is not a heuristic of {env_id} (it has: {have})")
    if env_id in ENV_HEURISTICS:
        return ENV_HEURISTICS[env_id]()[name]
    return _machine_fcfs if name == "fcfs" else _machine_order(SCORES[name])

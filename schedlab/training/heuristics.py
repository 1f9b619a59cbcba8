"""Heuristics as env-level policies: the teacher imitation copies and the yardstick costs are relative to.

A heuristic here is ``act(env) -> action``: it reads the environment's own state (not
the observation), so it is exact, and takes actions of the env's action space, so it
runs on the same episodes through the same steps as the learner. :func:`heuristic`
finds one by name or refuses in one line.

``schedlab/Machine-v0`` (the window of the ``K`` oldest waiting jobs, ``K`` waits):

- ``fcfs``: the oldest waiting job if it fits now, else wait (strict order);
- every other registered queue order (``sjf``, ``f1``, ``saf``, ...:
  :data:`~schedlab.policies.scoring.SCORES`): the window job that fits now and that order
  ranks first (the oldest of equal ones). A new ``@order`` is a teacher with no edit here;
- ``strict-ORDER`` for each of those orders but FCFS (``strict-sjf``, ``strict-saf``...): the
  order kept strictly on the window, as ``fcfs`` keeps its own: the window job that order
  ranks first if it fits now, else wait (the observation shows it with the env setting
  ``backfill=strict-ORDER``). Where the greedy ``ORDER`` lets small jobs pass a wide one
  for ever, the strict order starves no job;
- ``easy-ORDER`` for each of those orders (``easy-sjf``, ``easy-fcfs``...): EASY backfilling
  under that order, on the window: the job the order ranks first among those that
  :func:`~schedlab.envs.machine.obs.easy_starts` lets start now, else wait (the
  observation shows that set with the env setting ``backfill=ORDER``);
- ``rollout-easy-ORDER``: the rollout of ``easy-ORDER`` (:class:`~schedlab.training.rollout.Rollout`):
  each valid action tried, the episode simulated to its end under ``easy-ORDER``, the
  cheapest taken. Clairvoyant (its simulations see the episode's future jobs and true
  runtimes): a privileged teacher to imitate (``TrainConfig.imitate``), not a scheduler,
  and about a hundred times slower than its base on Machine-v0's episodes (docs/rl.md).

``schedlab/SiteSupervisor-v0`` (seed 001's site; :mod:`schedlab.envs.site.heuristics`):
``fifo``, ``prio`` (interactive first), ``edf`` (the paper's pre-training rule), ``sjf``
and ``greedy`` (the election's own reward, maximised now), each a choice among the
candidate slots.

A PettingZoo Parallel env's heuristics are ``act(env, agent) -> action``, kept with the
env: ``schedlab/GridParallel-v0``'s ``lls`` and ``mct`` (:mod:`schedlab.envs.grid.teachers`).

:data:`HEURISTICS` holds each environment's, by env id: one lookup serves every env.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from schedlab.envs.machine.obs import easy_starts
from schedlab.envs.site.heuristics import SITE_ORDERS, site_heuristic
from schedlab.model.contracts.machine import Score
from schedlab.policies.scoring import CLAIRVOYANT, SCORES
from schedlab.training.rollout import Rollout

__all__ = ["HEURISTICS", "heuristic", "heuristic_names", "is_clairvoyant"]

Heuristic = Callable[[Any], int]


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


def _machine_ranked(name: str, backfill: bool) -> Heuristic:
    """The order ``name`` on the window, with EASY backfilling or kept strictly: its first job that
    :func:`easy_starts` allows, else wait."""
    score = SCORES[name]

    def act(env: Any) -> int:
        machine, observer = env.unwrapped.machine, env.unwrapped.observer
        mask = env.unwrapped.action_masks()
        window = machine.waiting[: observer.window]
        starts = easy_starts(machine.view, window, mask[: len(window)], name, backfill)
        allowed = [i for i, ok in enumerate(starts) if ok]
        if not allowed:
            return int(observer.wait_action)
        now = float(machine.env.now)
        return min(allowed, key=lambda i: score(window[i], now))

    return act


def _machine_heuristics() -> dict[str, Heuristic]:
    orders = {name: _machine_order(score) for name, score in SCORES.items() if name != "fcfs"}
    strict = {f"strict-{name}": _machine_ranked(name, False) for name in SCORES if name != "fcfs"}
    easy = {f"easy-{name}": _machine_ranked(name, True) for name in SCORES}
    rollouts = {f"rollout-{name}": Rollout(base) for name, base in easy.items()}
    return {"fcfs": _machine_ranked("fcfs", False), **orders, **strict, **easy, **rollouts}  # fcfs: FCFS kept strictly


def _site_heuristics() -> dict[str, Heuristic]:
    return {name: site_heuristic(order) for name, order in SITE_ORDERS.items()}


def _grid_teachers() -> Mapping[str, Callable[..., int]]:
    from schedlab.envs.grid.teachers import TEACHERS  # with the env, imported on first use

    return TEACHERS


#: env id -> its heuristics by name (made when asked for, so a new registered order is included)
HEURISTICS: dict[str, Callable[[], Mapping[str, Callable[..., int]]]] = {
    "schedlab/Machine-v0": _machine_heuristics,
    "schedlab/SiteSupervisor-v0": _site_heuristics,
    "schedlab/GridParallel-v0": _grid_teachers,
}


def heuristic_names(env_id: str) -> list[str]:
    """The heuristics environment ``env_id`` has, by name (none for an env outside :data:`HEURISTICS`)."""
    return list(HEURISTICS[env_id]()) if env_id in HEURISTICS else []


def is_clairvoyant(name: str) -> bool:
    """Whether heuristic ``name`` sees what no scheduler can: the true runtimes (a
    :data:`~schedlab.policies.scoring.CLAIRVOYANT` order, alone, strict or under EASY) or the
    future (``rollout-``). Such a one may be copied (``TrainConfig.imitate``), never chosen as the best to copy."""
    return name.startswith("rollout-") or name.removeprefix("easy-").removeprefix("strict-") in CLAIRVOYANT


def heuristic(env_id: str, name: str, setting: str = "teacher") -> Callable[..., int]:
    """The heuristic ``name`` of ``env_id``, or a one-line error naming the ``setting`` and those it has."""
    known = HEURISTICS[env_id]() if env_id in HEURISTICS else {}
    if name not in known:
        have = ", ".join(known) or "none"
        raise ValueError(f"{setting}: {name!r} is not a heuristic of {env_id} (it has: {have})")
    return known[name]

"""Heuristics that act through the grid's Parallel environment: teachers and yardsticks for training.

A rule here is ``rule(env, agent) -> resource``: it reads the agent's observation
(``env.observe(agent)``: exact, float64) and its reach (``env.config.action_mask``),
so it places the job the agent holds now, among the resources it may reach, as a
policy would, on the same rounds (:class:`~schedlab.envs.grid.parallel.GridParallelEnv`).
Nothing is drawn: ties go to the fastest resource, then the lowest index, so a rule's
cost on an episode is the same in any process.

- ``lls``: least loaded (LLS): the least LoR the broker sees. The model's
  :class:`~schedlab.policies.grid.LeastLoaded` breaks ties at random instead, and in the
  model each broker sees its predecessors' jobs of the step, while here every broker of
  a round decides on the same loads (they pile onto the same resource);
- ``mct``: minimum completion time: the least ``seen LoR + route latency + length /
  capacity``, when the job would finish if nothing else arrived (what LLS leaves out:
  the job's own run time, which differs sevenfold between capacities 50 and 350, and the
  links' delay).

:func:`mct_policy` is MCT as a policy of the observation alone (it needs the
``runtime`` and ``latency`` features), so it decides back in a ``GridModel`` through
:class:`~schedlab.envs.grid.policy.GridAgentPolicy`, as LLS and OSL do there.

OSL (:class:`~schedlab.learners.OrdinalSharing`) is no rule of this kind: it learns from
its own jobs' completions and shares its table around the ring inside the model's
turns, which the environment takes over; it is a yardstick in the model only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from schedlab.envs.grid.obs import GridObserver

__all__ = ["TEACHERS", "lls", "mct", "mct_policy"]


def _choose(cost: np.ndarray, capacities: np.ndarray, mask: np.ndarray) -> int:
    """The reachable resource of least ``cost``; of equal ones the fastest, then the first."""
    allowed = np.flatnonzero(mask)
    best = allowed[cost[allowed] == cost[allowed].min()]
    return int(best[np.argmax(capacities[best])])


def lls(env: Any, agent: str) -> int:
    """Least loaded: the reachable resource of least LoR as ``agent`` sees it."""
    obs, observer = env.observe(agent), env.observer
    mask = env.config.action_mask(env.possible_agents.index(agent))
    return _choose(observer.loads(obs), observer.capacities(obs), mask)


def mct(env: Any, agent: str) -> int:
    """Minimum completion time: the least seen LoR + route latency + the job's run time there."""
    obs, observer, config = env.observe(agent), env.observer, env.config
    i = env.possible_agents.index(agent)
    capacities = observer.capacities(obs) * observer.cmax
    finish = observer.loads(obs) * observer.time_scale + obs[0] * observer.jmax / capacities
    if config.topology is not None:
        finish = finish + config.topology.latency[i]
    return _choose(finish, capacities, config.action_mask(i))


def mct_policy(observer: GridObserver) -> Callable[[np.ndarray], int]:
    """MCT as ``policy(obs) -> resource``, from the ``runtime`` and ``latency`` features (every resource reachable)."""
    missing = {"runtime", "latency"} - set(observer.features)
    if missing:
        raise ValueError(f"features: MCT as a policy reads runtime and latency; the observer lacks {sorted(missing)}")

    def policy(obs: np.ndarray) -> int:
        scaled = observer.loads(obs) + observer.feature(obs, "runtime") + observer.feature(obs, "latency")
        capacities = observer.capacities(obs)
        return _choose(scaled, capacities, np.ones(capacities.size, dtype=bool))

    return policy


#: the grid's rules by name, as :func:`schedlab.training.heuristics.heuristic` finds them
TEACHERS = {"lls": lls, "mct": mct}

"""Whole episodes, and the tasks that score them on an executor's workers.

The search scores each member of its population on whole episodes: an episode's
**cost** is minus its return (for ``Machine-v0``'s slowdown reward, the episode's total
slowdown). The functions here are module-level and take only picklable arguments
(an :class:`EnvSpec`, a weight vector, seeds), so any ``concurrent.futures``
executor (a process pool, a Dask client's) runs them; each worker process makes its
environment and network once and keeps them (:func:`_cached`).

A member's perturbation is drawn where it is scored, from the training seed, the
generation and the member's pair alone (:func:`member_noise`), never from a shared
stream's position: so the costs, and the weights they lead to, do not depend on how
many workers there are or in what order they finish.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from schedlab.model.core.streams import Streams
from schedlab.training.heuristics import heuristic
from schedlab.training.policy import MLPPolicy, action_mask

__all__ = ["EnvSpec", "episode_costs", "make_env", "member_costs", "member_noise", "run_episode"]


@dataclass(frozen=True)
class EnvSpec:
    """What a worker needs to rebuild the environment and the network: picklable and hashable."""

    env_id: str
    settings_json: str
    hidden: tuple[int, ...]

    @property
    def settings(self) -> dict[str, Any]:
        """The environment's keyword arguments."""
        result: dict[str, Any] = json.loads(self.settings_json)
        return result


def make_env(env_id: str, settings: dict[str, Any]) -> Any:
    """The environment, made through Gymnasium's registry; refused in one line unless Discrete over a flat Box."""
    import gymnasium as gym

    import schedlab.envs  # noqa: F401  # registers schedlab's environments

    try:
        env = gym.make(env_id, disable_env_checker=True, **settings)
    except TypeError as exc:
        raise ValueError(f"env_settings: {env_id} does not take {settings!r} ({exc})") from None
    if not isinstance(env.action_space, gym.spaces.Discrete):
        raise ValueError(f"env: {env_id}'s action space is {env.action_space}, not Discrete")
    space = env.observation_space
    if not (isinstance(space, gym.spaces.Box) and len(space.shape) == 1):
        raise ValueError(f"env: {env_id}'s observation space is {space}, not a flat Box")
    return env


@cache
def _cached(spec: EnvSpec) -> tuple[Any, MLPPolicy]:
    """This process's environment and network for ``spec`` (made once per worker)."""
    import torch

    torch.set_num_threads(1)  # a tiny network: threads only add overhead, and workers share the cores
    env = make_env(spec.env_id, spec.settings)
    size, n = env.observation_space.shape[0], int(env.action_space.n)
    return env, MLPPolicy(size, n, spec.hidden, np.random.default_rng(0))  # weights replaced before any use


def run_episode(env: Any, act: Any, seed: int) -> float:
    """Play one episode from ``reset(seed=seed)`` with ``act(obs, mask, env)``; its cost (minus the return)."""
    obs, info = env.reset(seed=int(seed))
    n = int(env.action_space.n)
    total, done = 0.0, False
    while not done:
        obs, reward, terminated, truncated, info = env.step(act(obs, action_mask(env, info, n), env))
        total += float(reward)
        done = terminated or truncated
    return -total


def episode_costs(spec: EnvSpec, vector: np.ndarray | None, teacher: str | None, seeds: list[int]) -> list[float]:
    """The cost of each episode seed under the weights ``vector``, or under the heuristic ``teacher``."""
    env, policy = _cached(spec)
    if vector is None:
        assert teacher is not None
        rule = heuristic(spec.env_id, teacher)
        return [run_episode(env, lambda obs, mask, e: rule(e), s) for s in seeds]
    policy.set_vector(vector)
    return [run_episode(env, lambda obs, mask, e: policy.act(obs, mask), s) for s in seeds]


def member_noise(seed: int, generation: int, pair: int, size: int) -> np.ndarray:
    """Pair ``pair``'s perturbation in ``generation``: its own child of the ``es_noise`` stream, by index alone."""
    parent = Streams(seed).sequence("es_noise")
    child = np.random.SeedSequence(parent.entropy, spawn_key=(*parent.spawn_key, generation, pair))
    return np.random.Generator(np.random.PCG64(child)).standard_normal(size)


def member_costs(
    spec: EnvSpec, weights: np.ndarray, sigma: float, key: tuple[int, int, int], sign: float, seeds: list[int]
) -> list[float]:
    """Costs of the member ``weights + sign * sigma * noise`` (``key``: seed, generation, pair) on ``seeds``."""
    seed, generation, pair = key
    return episode_costs(spec, weights + sign * sigma * member_noise(seed, generation, pair, weights.size), None, seeds)

"""Whole episodes, and the tasks that score them on an executor's workers.

The search scores each member of its population on whole episodes: an episode's
**cost** is minus its return (for ``Machine-v0``'s slowdown reward, the episode's total
slowdown; for a PettingZoo Parallel env, minus the sum of every agent's rewards: for
the grid's ``tpt`` reward, the total time its jobs spent unfinished).

One runner, :func:`run_episode`, plays both kinds. A policy is ``act(obs, mask, env)``
in a Gymnasium env, asked once per step; in a Parallel env it is asked
``act(obs, mask, env, agent)`` (one policy shared by every agent: parameter sharing) it is asked for
each agent that acts this step, with that agent's observation and mask
(``infos[agent]["action_mask"]``). An agent whose ``infos[agent]["decides"]`` is False
(the grid's brokers without a job) is not asked: it is sent its first valid action,
which the env ignores. The functions here are module-level and take only picklable arguments
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
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from schedlab.model.core.streams import Streams
from schedlab.training.heuristics import heuristic
from schedlab.training.kernel import make_scorer
from schedlab.training.policy import Scorer, action_mask

__all__ = [
    "Act",
    "EnvSpec",
    "env_name",
    "episode_costs",
    "greedy_act",
    "heuristic_act",
    "is_parallel",
    "make_env",
    "member_costs",
    "member_noise",
    "run_episode",
    "spaces",
    "spaces_of",
]

#: a policy as the runner asks it: ``act(obs, mask, env) -> action``, with the ``agent`` too in a Parallel env
Act = Callable[..., int]


@dataclass(frozen=True)
class EnvSpec:
    """What a worker needs to rebuild the environment and the network: picklable and hashable."""

    env_id: str
    settings_json: str
    hidden: tuple[int, ...]
    policy: str = "mlp"  # the scorer's form (TrainConfig.policy)

    @property
    def settings(self) -> dict[str, Any]:
        """The environment's keyword arguments."""
        result: dict[str, Any] = json.loads(self.settings_json)
        return result


def is_parallel(env: Any) -> bool:
    """Whether ``env`` is a PettingZoo Parallel environment (it has agents) rather than a Gymnasium one."""
    return hasattr(env, "possible_agents")


def env_name(env: Any) -> str:
    """The registered id ``env`` was made as (Gymnasium's spec, or the Parallel registry's ``registry_id``)."""
    if is_parallel(env):
        return str(getattr(env, "registry_id", type(env).__name__))
    return str(env.spec.id) if env.spec is not None else type(env.unwrapped).__name__


def spaces(env: Any) -> tuple[Any, Any]:
    """The observation and action spaces one policy acts on (in a Parallel env, every agent's)."""
    if is_parallel(env):
        first = env.possible_agents[0]
        return env.observation_space(first), env.action_space(first)
    return env.observation_space, env.action_space


def make_env(env_id: str, settings: dict[str, Any]) -> Any:
    """The environment, from Gymnasium's registry or schedlab's Parallel one; refused in one line unless
    Discrete over a Box (in a Parallel env, flat and the same for every agent: one policy serves them all).

    A Gymnasium env's Dict, Tuple or many-dimensional Box observation (DeepRM-v0's) is flattened
    (``FlattenObservation``) into the one vector the MLP scores."""
    import gymnasium as gym

    import schedlab.envs  # noqa: F401  # registers schedlab's environments
    from schedlab.envs.parallel_registry import make_parallel, parallel_id

    env: Any
    try:
        env = (
            make_parallel(env_id, **settings)
            if parallel_id(env_id)
            else gym.make(env_id, disable_env_checker=True, **settings)
        )
    except TypeError as exc:
        raise ValueError(f"env_settings: {env_id} does not take {settings!r} ({exc})") from None
    observation, action = spaces(env)
    if not isinstance(action, gym.spaces.Discrete):
        raise ValueError(f"env: {env_id}'s action space is {action}, not Discrete")
    flat = isinstance(observation, gym.spaces.Box) and len(observation.shape) == 1
    if not (flat or is_parallel(env)) and isinstance(observation, gym.spaces.Dict | gym.spaces.Tuple | gym.spaces.Box):
        env = gym.wrappers.FlattenObservation(env)  # DeepRM's images and Dict: one flat vector, same order
        observation = env.observation_space
    if not (isinstance(observation, gym.spaces.Box) and len(observation.shape) == 1):
        raise ValueError(f"env: {env_id}'s observation space is {observation}, not a flat Box")
    if is_parallel(env) and any(spaces_of(env, a) != (observation, action) for a in env.possible_agents):
        raise ValueError(f"env: {env_id}'s agents differ in their spaces: one shared policy cannot serve them")
    return env


def spaces_of(env: Any, agent: str) -> tuple[Any, Any]:
    """Agent ``agent``'s observation and action spaces in a Parallel env."""
    return env.observation_space(agent), env.action_space(agent)


@cache
def _cached(spec: EnvSpec) -> tuple[Any, Scorer]:
    """This process's environment and network for ``spec`` (made once per worker)."""
    import torch

    torch.set_num_threads(1)  # a tiny network: threads only add overhead, and workers share the cores
    env = make_env(spec.env_id, spec.settings)
    return env, make_scorer(spec.policy, env, spaces(env), spec.hidden, np.random.default_rng(0))  # set before use


def _gym_episode(env: Any, act: Act, seed: int) -> float:
    obs, info = env.reset(seed=int(seed))
    n = int(env.action_space.n)
    total, done = 0.0, False
    while not done:
        obs, reward, terminated, truncated, info = env.step(act(obs, action_mask(env, info, n), env))
        total += float(reward)
        done = terminated or truncated
    return -total


def _parallel_episode(env: Any, act: Act, seed: int) -> float:
    observations, infos = env.reset(seed=int(seed))
    n = int(spaces(env)[1].n)
    total = 0.0
    while env.agents:
        actions = {}
        for agent in env.agents:
            info = infos.get(agent, {})
            mask = np.asarray(info["action_mask"], dtype=bool) if "action_mask" in info else np.ones(n, dtype=bool)
            decides = info.get("decides", True)
            actions[agent] = act(observations[agent], mask, env, agent) if decides else int(np.argmax(mask))
        observations, rewards, _, _, infos = env.step(actions)
        total += float(sum(rewards.values()))
    return -total


def run_episode(env: Any, act: Act, seed: int) -> float:
    """Play one episode from ``reset(seed=seed)``, asking ``act`` (the module's notes); its cost (minus the return)."""
    return _parallel_episode(env, act, seed) if is_parallel(env) else _gym_episode(env, act, seed)


def heuristic_act(env_id: str, name: str) -> Act:
    """The heuristic ``name`` of ``env_id`` as the runner asks a policy (``rule(env)``, or ``rule(env, agent)``)."""
    rule = heuristic(env_id, name)
    return lambda obs, mask, env, agent=None: rule(env) if agent is None else rule(env, agent)


def greedy_act(policy: Scorer) -> Act:
    """``policy``'s greedy choice as the runner asks a policy."""
    return lambda obs, mask, env, agent=None: policy.act(obs, mask)


def episode_costs(spec: EnvSpec, vector: np.ndarray | None, teacher: str | None, seeds: list[int]) -> list[float]:
    """The cost of each episode seed under the weights ``vector``, or under the heuristic ``teacher``."""
    env, policy = _cached(spec)
    if vector is None:
        assert teacher is not None
        return [run_episode(env, heuristic_act(spec.env_id, teacher), s) for s in seeds]
    policy.set_vector(vector)
    return [run_episode(env, greedy_act(policy), s) for s in seeds]


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

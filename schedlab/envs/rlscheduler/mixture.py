"""A mixture of logs: one model trained on episodes drawn from several logs.

A model of one log learns a queue order for that log's jobs; its features are normalised
per log (:mod:`schedlab.envs.rlscheduler.obs`: requested time over the log's longest run,
CPUs over the machine's), so the same scorer can read any log. :class:`Mixture` holds the
settings of two or more logs (each :class:`~schedlab.envs.rlscheduler.env.RLSchedulerConfig`
with its own protocol range, ``draw_within``) that share a backfilling setting, a score
type, an episode length and a queue size; the training
(:func:`~schedlab.training.rlscheduler.train.train`) takes one in place of a single log's.

Every draw of a log is from a named stream of the training seed
(:class:`~schedlab.model.core.streams.Streams`): :class:`MixtureEnv` picks each
episode's log from ``mixture_episodes`` and each log's start from its own stream
(``mixture_episodes/<log>``), so the episodes do not depend on how many there were of
each log before.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np

from schedlab.envs.rlscheduler.env import RLSchedulerConfig, RLSchedulerEnv
from schedlab.model.core.streams import Streams
from schedlab.model.formats.logs import log_name

__all__ = ["Mixture", "MixtureEnv", "make_env", "mixture_problem"]


def mixture_problem(names: Sequence[str]) -> str | None:
    """Why the logs ``names`` (by :func:`~schedlab.model.formats.logs.log_name`) are no mixture, or None."""
    if len(names) < 2:
        return f"a mixture needs two logs or more, got {', '.join(names) or 'none'}"
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        return f"names log {', '.join(twice)} twice: give each log once"
    return None


@dataclass(frozen=True)
class Mixture:
    """Two or more logs' settings, trained on as one (see the module): distinct logs, one shared protocol."""

    configs: tuple[RLSchedulerConfig, ...]

    def __post_init__(self) -> None:
        problem = mixture_problem(self.names)
        if problem:
            raise ValueError(f"Mixture: {problem}")
        first = self.configs[0]
        for key in ("backfill", "score_type", "sequence", "queue", "ask_single"):
            if any(getattr(c, key) != getattr(first, key) for c in self.configs):
                raise ValueError(f"a mixture's logs must share {key}")

    @property
    def names(self) -> tuple[str, ...]:
        """The logs' names, in order."""
        return tuple(log_name(c.log) for c in self.configs)

    @property
    def backfill(self) -> bool:
        """Backfilling, as all the logs have it."""
        return self.configs[0].backfill

    @property
    def score_type(self) -> str:
        """The score type the logs share."""
        return self.configs[0].score_type

    @property
    def sequence(self) -> int:
        """Jobs per episode, as the logs share it."""
        return self.configs[0].sequence

    @property
    def queue(self) -> int:
        """Waiting jobs shown, as the logs share it."""
        return self.configs[0].queue

    def with_backfill(self, backfill: bool) -> Mixture:
        """The same logs with backfilling on or off."""
        return Mixture(tuple(dataclasses.replace(c, backfill=backfill) for c in self.configs))


class MixtureEnv(gym.Env[np.ndarray, np.int64]):
    """Episodes of a :class:`Mixture`: each reset picks a log (stream ``mixture_episodes``), then a sequence of it.

    The observation and action spaces are the logs' own (they share the queue size);
    ``current`` is the environment of the episode under way.
    """

    def __init__(self, mixture: Mixture) -> None:
        self.mixture = mixture
        self.envs = [RLSchedulerEnv(c) for c in mixture.configs]
        self.observation_space = self.envs[0].observation_space
        self.action_space = self.envs[0].action_space
        self.current = self.envs[0]
        self._pick: np.random.Generator | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """Pick the episode's log (``options["log"]``: its index, else drawn) and reset it."""
        super().reset(seed=seed)
        if seed is not None or self._pick is None:
            streams = Streams(seed if seed is not None else int(self.np_random.integers(2**63)))
            self._pick = streams["mixture_episodes"]
            for env, name in zip(self.envs, self.mixture.names, strict=True):
                env.np_random = streams[f"mixture_episodes/{name}"]
        options = dict(options or {})
        which = options.pop("log", None)
        if which is None:
            which = int(self._pick.integers(len(self.envs)))
        self.current = self.envs[int(which)]
        obs, info = self.current.reset(options=options)
        return obs, info | {"log": int(which)}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        """The current log's step (:meth:`RLSchedulerEnv.step`)."""
        return self.current.step(action)

    @property
    def done(self) -> bool:
        """Is the current episode over?"""
        return self.current.done

    def action_masks(self) -> np.ndarray:
        """The current episode's valid slots."""
        return self.current.action_masks()


def make_env(cfg: RLSchedulerConfig | Mixture) -> RLSchedulerEnv | MixtureEnv:
    """The environment of one log's settings or of a mixture's."""
    return MixtureEnv(cfg) if isinstance(cfg, Mixture) else RLSchedulerEnv(cfg)

"""Stable-Baselines3 on the multi-agent grid: SuperSuit's vector-env route, seeded and masked.

The usual route from a PettingZoo Parallel environment to a Stable-Baselines3 learner
with one policy shared by every agent is SuperSuit's
``pettingzoo_env_to_vec_env_v1`` (one vector entry per agent) then
``concat_vec_envs_v1(..., base_class="stable_baselines3")`` (several copies of the
game side by side). :func:`grid_vec_env` builds it over
:class:`~schedlab.envs.grid.parallel.GridParallelEnv` and adds :class:`MaskedVecEnv`,
which fills two gaps of that route:

- SuperSuit 3.11's concatenated env has no ``seed``, which SB3 2.x calls when a model
  is built with ``seed=``; here the seed is kept and given to the next ``reset``
  (copy ``c`` of the game is reset with ``seed + c``), the Gymnasium way;
- sb3-contrib's ``MaskablePPO`` asks the vector env for ``action_masks``; here they
  are the ``action_mask`` each agent's ``infos`` carry.

Needs the rl extra (``pip install "schedlab[rl]"``): stable-baselines3, sb3-contrib,
supersuit.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import supersuit as ss
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper
from stable_baselines3.common.vec_env.base_vec_env import VecEnvStepReturn

from schedlab.envs.grid.obs import GridAgentsConfig
from schedlab.envs.grid.parallel import GridParallelEnv

__all__ = ["MaskedVecEnv", "grid_vec_env", "parallel_vec_env"]


class MaskedVecEnv(VecEnvWrapper):
    """A SuperSuit vector env as SB3 expects it: seeded through ``reset``, with ``action_masks``.

    Parameters
    ----------
    venv
        The vector env from ``concat_vec_envs_v1(..., base_class="stable_baselines3")``.
    """

    def __init__(self, venv: VecEnv) -> None:
        super().__init__(venv)
        self._seed: int | None = None
        n = int(getattr(self.action_space, "n", 0))
        self._masks = np.ones((self.num_envs, n), dtype=bool)

    def seed(self, seed: int | None = None) -> list[None]:
        """Keep ``seed`` for the next reset (SuperSuit's env cannot be seeded apart from reset)."""
        self._seed = seed
        return [None] * self.num_envs

    def reset(self) -> np.ndarray:
        """Reset every copy of the game with the kept seed (copy ``c`` with ``seed + c``), and read the first masks."""
        # SuperSuit's SB3 wrapper would call the missing ``seed``: reset the concatenated env beneath it
        inner = self.venv.venv  # type: ignore[attr-defined]  # SuperSuit's SB3 wrapper holds the concatenated env
        obs, infos = inner.reset(seed=self._seed)
        self._seed = None  # later resets draw fresh episodes (the environments spawn child seeds)
        self.venv.reset_infos = infos
        self._read_masks(infos)
        return obs

    def step_wait(self) -> VecEnvStepReturn:
        """The step's results, with the masks the agents' infos carry kept for :meth:`action_masks`."""
        obs, rewards, dones, infos = self.venv.step_wait()
        self._read_masks(infos)
        return obs, rewards, dones, infos

    def _read_masks(self, infos: list[dict[str, Any]]) -> None:
        for k, info in enumerate(infos):
            mask = info.get("action_mask")
            self._masks[k] = True if mask is None else np.asarray(mask, dtype=bool)

    def action_masks(self) -> np.ndarray:
        """The valid actions of every vector entry (one agent of one copy), from the last step's infos."""
        return self._masks.copy()

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
        """Call ``method_name`` on the entries; ``action_masks`` is answered here (SuperSuit's env has none)."""
        if method_name == "action_masks":  # what sb3-contrib's get_action_masks asks each entry for
            return list(self.action_masks())
        return self.venv.env_method(method_name, *args, indices=indices, **kwargs)

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        """An attribute of the entries; ``render_mode`` and ``action_masks`` are answered here.

        SuperSuit's concatenated env has no get_attr to ask. sb3-contrib before 2.6 finds
        whether an env is masked by asking for ``action_masks`` this way (later versions
        call :meth:`has_attr`): each entry's is a function giving that entry's mask.
        """
        if attr_name == "render_mode":
            return [self.venv.render_mode] * self.num_envs
        if attr_name == "action_masks":
            return [functools.partial(self._entry_mask, k) for k in self._get_indices(indices)]
        return self.venv.get_attr(attr_name, indices)

    def _entry_mask(self, k: int) -> np.ndarray:
        return self._masks[k].copy()

    def has_attr(self, attr_name: str) -> bool:
        """Whether the entries have ``attr_name``; ``action_masks`` they do, through this wrapper.

        An SB3 older than 2.6 has no ``VecEnv.has_attr``: then an attribute that :meth:`get_attr`
        finds is one they have.
        """
        if attr_name == "action_masks":
            return True
        has = getattr(self.venv, "has_attr", None)
        if has is not None:
            return bool(has(attr_name))
        try:
            self.get_attr(attr_name)
        except AttributeError:
            return False
        return True


def grid_vec_env(config: GridAgentsConfig | None = None, *, copies: int = 1, **overrides: Any) -> MaskedVecEnv:
    """The grid as one SB3 vector env with an entry per agent (times ``copies``), for a shared policy.

    ``num_envs`` is ``agents x copies``; entry ``c * agents + i`` is agent ``i`` of copy ``c``.
    """
    return parallel_vec_env(GridParallelEnv(config, **overrides), copies=copies)


def parallel_vec_env(parallel: Any, *, copies: int = 1) -> MaskedVecEnv:
    """Any schedlab Parallel environment (grid, network) as one SB3 vector env, an entry per agent and copy."""
    vec = ss.pettingzoo_env_to_vec_env_v1(parallel)
    vec = ss.concat_vec_envs_v1(vec, copies, num_cpus=0, base_class="stable_baselines3")
    return MaskedVecEnv(vec)

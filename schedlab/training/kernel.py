"""A kernel scorer for ``schedlab train``: one small MLP shared by every action, reading that action's own row.

``policy=kernel`` in :class:`~schedlab.training.config.TrainConfig`. Where the
:class:`~schedlab.training.policy.MLPPolicy` reads the whole observation and gives
every action's score at once, the kernel scorer gives action ``a`` the score
``f(row_a)``, the same network ``f`` for every ``a``; ``row_a`` is the action's own
values followed by the observation's global ones, as the environment declares them
(:class:`~schedlab.envs.action_rows.ActionRows`: the grid's per-resource load,
capacity, run time and latency; a machine's window slots and *wait*).

Why. The grid's teacher, MCT, is a sum per resource of its load, the job's run time
there and the route latency: a function of one resource's row, the same for every
resource. An MLP over the whole observation of ``3 + 5M + N`` numbers has to learn that
sum once per resource (docs/rl.md, "The grid"), and a permutation of the resources
changes its choice; the kernel has it by construction (permuting the resources permutes
the scores), with a few hundred weights for any M, so imitation fits MCT with few
episodes and evolution strategies search a much smaller space. It is the form of
RLScheduler's scorer (:mod:`schedlab.envs.kernel_policy`), here behind the same contract
as the MLP: the flat float64 vector, the float32 network, greedy among valid actions,
``model.pt`` and its ``weights sha256`` (:class:`~schedlab.training.policy.Scorer`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from schedlab.envs.action_rows import ABSENT, ActionRows, action_rows
from schedlab.training.policy import MLPPolicy, Scorer, initial_vector, mlp

__all__ = ["POLICIES", "KernelScorer", "RowNet", "make_scorer"]

#: the scorer forms ``TrainConfig.policy`` names
POLICIES = ("mlp", "kernel")


class RowNet(torch.nn.Module):
    """``obs (..., size) -> scores (..., actions)``: the rows gathered from the observation, one MLP on each.

    The rows' indices are buffers, not parameters: the weight vector is the MLP's alone.
    """

    index: torch.Tensor  # (actions, own width): the observation's index of each row's value
    shared: torch.Tensor  # the global values' indices, appended to every row

    def __init__(self, rows: ActionRows, hidden: Sequence[int]) -> None:
        super().__init__()
        index = torch.as_tensor(rows.index)
        self.register_buffer("index", torch.where(index == ABSENT, rows.size, index))  # the appended 0
        self.register_buffer("shared", torch.as_tensor(rows.shared))
        self.actions, self.size = rows.actions, rows.size
        self.mlp = mlp([rows.width, *hidden, 1])

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Each action's score: the MLP on its own values, then the shared ones."""
        padded = torch.cat([obs, obs.new_zeros((*obs.shape[:-1], 1))], dim=-1)
        own = padded[..., self.index]  # (..., actions, own width)
        shared = obs[..., self.shared].unsqueeze(-2).expand(*obs.shape[:-1], self.actions, -1)
        result: torch.Tensor = self.mlp(torch.cat([own, shared], dim=-1)).squeeze(-1)
        return result


class KernelScorer(Scorer):
    """One MLP shared by every action, each action scored from its own row (see the module's notes).

    Parameters
    ----------
    rows
        Where each action's row sits in the observation (the env's declared layout).
    hidden
        Widths of the shared MLP's hidden layers.
    rng
        Draws the initial weights (:func:`~schedlab.training.policy.initial_vector`).
    """

    kind = "kernel"

    def __init__(self, rows: ActionRows, hidden: Sequence[int], rng: np.random.Generator) -> None:
        self.rows = rows
        self.net = RowNet(rows, hidden)
        self.obs_size, self.n_actions, self.hidden = rows.size, rows.actions, tuple(hidden)
        self.set_vector(initial_vector([rows.width, *hidden, 1], rng))


def make_scorer(
    kind: str, env: Any, spaces: tuple[Any, Any], hidden: Sequence[int], rng: np.random.Generator
) -> Scorer:
    """The scorer ``kind`` (:data:`POLICIES`) for ``env``, whose one policy acts on ``spaces`` (observation, action).

    ``spaces`` is :func:`~schedlab.training.episodes.spaces` ``(env)`` (in a Parallel env,
    every agent's). A kernel needs the env's declared rows, for that observation length
    and action count (one line if not).
    """
    observation, action = spaces
    obs_size, n_actions = int(observation.shape[0]), int(action.n)
    if kind == "mlp":
        return MLPPolicy(obs_size, n_actions, hidden, rng)
    if kind != "kernel":
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {kind!r}")
    rows = action_rows(env)
    if (rows.size, rows.actions) != (obs_size, n_actions):
        raise ValueError(
            f"policy=kernel: the env's rows are for {rows.size} values and {rows.actions} actions, "
            f"its spaces have {obs_size} and {n_actions}"
        )
    return KernelScorer(rows, hidden, rng)

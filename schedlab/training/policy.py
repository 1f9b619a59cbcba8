"""A small MLP scorer for any Discrete (optionally masked) action space over a flat Box observation.

The network maps the observation to one score per action; the policy acts greedily:
the highest-scored valid action, the first of equal ones. The mask is the env's
``action_masks()`` where it has one, else ``info["action_mask"]``, else every action.

Float widths. The search moves a flat **float64** vector (:meth:`MLPPolicy.vector`,
``parameters()`` order), so that Adam's small steps are not rounded away; the network
acts in **float32**: the vector is cast once when set, and every action, in the search
and after loading, is the float32 network's. ``model.pt`` stores the float64 vector
itself, so a loaded policy casts the same vector the same way and takes the same
actions; its ``weights sha256`` is the SHA-256 of that vector's bytes.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

__all__ = ["MLPPolicy", "Scorer", "action_mask"]


def action_mask(env: Any, info: dict[str, Any], n: int) -> np.ndarray:
    """The valid actions now: ``env.action_masks()``, else ``info["action_mask"]``, else all ``n``."""
    masks = getattr(env.unwrapped, "action_masks", None)
    if callable(masks):
        return np.asarray(masks(), dtype=bool)
    if "action_mask" in info:
        return np.asarray(info["action_mask"], dtype=bool)
    return np.ones(n, dtype=bool)


class Scorer:
    """What every scorer shares: a float32 torch network ``obs -> score per action`` behind a float64 vector.

    The search, imitation, PPO, the checkpoints and ``model.pt`` see a scorer only
    through this class (the vector, the sha256, :meth:`scores`, :meth:`act`), so a new
    form of network (:class:`MLPPolicy`, :class:`~schedlab.training.kernel.KernelScorer`)
    is a subclass that builds ``net`` and sets the first weights, nothing more.
    """

    net: torch.nn.Module
    obs_size: int
    n_actions: int
    hidden: tuple[int, ...]
    #: the form's name in ``TrainConfig.policy`` and ``model.pt``
    kind = ""

    @property
    def size(self) -> int:
        """Number of weights (the search's dimension)."""
        return int(sum(p.numel() for p in self.net.parameters()))

    def vector(self) -> np.ndarray:
        """The weights as the search's flat float64 vector (the value last set, exactly)."""
        return self._vector.copy()

    def set_vector(self, vector: np.ndarray) -> None:
        """Take ``vector`` (float64) as the weights; the network acts on its float32 cast."""
        vector = np.asarray(vector, dtype=np.float64)
        if vector.shape != (self.size,):
            raise ValueError(f"weights: expected {self.size} values, got shape {vector.shape}")
        self._vector = vector.copy()
        with torch.no_grad():
            torch.nn.utils.vector_to_parameters(torch.from_numpy(vector.astype(np.float32)), self.net.parameters())

    def sync_from_net(self) -> None:
        """After training the network with torch (imitation): its float32 weights become the vector."""
        self._vector = torch.nn.utils.parameters_to_vector(self.net.parameters()).detach().double().numpy().copy()

    def sha256(self) -> str:
        """SHA-256 of the float64 weights' bytes: the model's identity in reports and tests."""
        return hashlib.sha256(np.ascontiguousarray(self._vector, dtype="<f8").tobytes()).hexdigest()

    def scores(self, obs: torch.Tensor) -> torch.Tensor:
        """The network's scores of a batch of observations (float32), with gradients (for imitation)."""
        result: torch.Tensor = self.net(obs)
        return result

    def act(self, obs: np.ndarray, mask: np.ndarray | None = None) -> int:
        """The greedy action: the highest score among the valid actions, the first of equal ones."""
        with torch.no_grad():
            scores = self.net(torch.as_tensor(np.asarray(obs, dtype=np.float32).reshape(-1))).numpy()
        if mask is not None and mask.any():
            scores = np.where(mask, scores, -np.inf)
        return int(np.argmax(scores))


def mlp(sizes: Sequence[int]) -> torch.nn.Sequential:
    """Linear layers of ``sizes`` with a ReLU between each two (none after the last)."""
    layers: list[torch.nn.Module] = []
    for i, (inp, out) in enumerate(itertools.pairwise(sizes)):
        layers.append(torch.nn.Linear(inp, out))
        if i < len(sizes) - 2:
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


def initial_vector(sizes: Sequence[int], rng: np.random.Generator) -> np.ndarray:
    """First weights of :func:`mlp` ``(sizes)``: He-scaled normal, the output layer's scaled by 0.1, zero biases.

    The small output layer makes the first scores near-ties, broken by the search (or
    the imitation), not by chance.
    """
    init = []
    for inp, out in itertools.pairwise(sizes):
        scale = np.sqrt(2.0 / inp) * (0.1 if out == sizes[-1] else 1.0)
        init += [rng.standard_normal(out * inp) * scale, np.zeros(out)]
    return np.concatenate(init)


class MLPPolicy(Scorer):
    """A scorer ``obs -> score per action`` (ReLU MLP over the whole observation, float32), greedy among valid actions.

    Parameters
    ----------
    obs_size
        Length of the flat observation.
    n_actions
        Actions of the Discrete space.
    hidden
        Widths of the hidden layers.
    rng
        Draws the initial weights (:func:`initial_vector`).
    """

    kind = "mlp"

    def __init__(self, obs_size: int, n_actions: int, hidden: Sequence[int], rng: np.random.Generator) -> None:
        sizes = [obs_size, *hidden, n_actions]
        self.net = mlp(sizes)
        self.obs_size, self.n_actions, self.hidden = obs_size, n_actions, tuple(hidden)
        self.set_vector(initial_vector(sizes, rng))

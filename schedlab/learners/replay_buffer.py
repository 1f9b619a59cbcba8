"""The experience replay buffer DQN learns from, and its n-step returns.

A ring buffer of fixed size holds transitions as numpy arrays (one row each), so
sampling a batch is one fancy index per field; observations that are whole bytes
(DeepRM's images) may be stored as ``uint8`` (``compact``), a quarter of the memory.
``store_n_step`` turns a window of pending steps into one n-step transition.
Split out of ``dqn.py`` so that file reads as the learner alone.
"""

from __future__ import annotations

from collections import deque

import numpy as np
import torch

__all__ = ["ReplayBuffer", "store_n_step"]


def _whole_bytes(x: np.ndarray) -> bool:
    return bool(np.all((x >= 0) & (x <= 255) & (x == np.round(x))))


class ReplayBuffer:
    """A ring buffer of transitions ``(obs, action, reward, next_obs, discount, next_mask)``.

    ``discount`` multiplies the bootstrap value of ``next_obs``: ``gamma^n`` for an
    n-step return, 0 when the episode terminated within it. Truncation is not
    termination: a truncated episode's last transitions still bootstrap.
    ``next_mask`` marks the actions valid in ``next_obs`` (all, unless given).
    """

    def __init__(self, size: int, obs_dim: int, *, compact: bool = False, n_actions: int = 1) -> None:
        dtype = np.uint8 if compact else np.float32
        self.obs = np.zeros((size, obs_dim), dtype=dtype)
        self.next_obs = np.zeros((size, obs_dim), dtype=dtype)
        self.actions = np.zeros(size, dtype=np.int64)
        self.rewards = np.zeros(size, dtype=np.float32)
        self.discounts = np.zeros(size, dtype=np.float32)
        self.next_masks = np.ones((size, n_actions), dtype=bool)
        self.size, self.pos, self.full = size, 0, False

    def __len__(self) -> int:
        return self.size if self.full else self.pos

    def add(
        self,
        obs: np.ndarray,
        action: int,
        reward: float,
        next_obs: np.ndarray,
        discount: float,
        next_mask: np.ndarray | None = None,
    ) -> None:
        """Store a transition (its n-step reward and discount), over the oldest once the buffer is full."""
        i = self.pos
        if self.obs.dtype == np.uint8 and not (_whole_bytes(obs) and _whole_bytes(next_obs)):
            raise ValueError(
                "compact replay stores observations as uint8, but this one has values that are not whole numbers "
                "in 0..255: train with DQNConfig(compact=False)"
            )
        self.obs[i], self.next_obs[i] = obs, next_obs
        self.actions[i], self.rewards[i], self.discounts[i] = action, reward, discount
        self.next_masks[i] = True if next_mask is None else next_mask
        self.pos = (i + 1) % self.size
        self.full = self.full or self.pos == 0

    def sample(self, batch_size: int, rng: np.random.Generator) -> tuple[torch.Tensor, ...]:
        """A uniform batch (with replacement), as tensors, drawn from ``rng``."""
        idx = rng.integers(len(self), size=batch_size)
        return (
            torch.from_numpy(self.obs[idx].astype(np.float32)),
            torch.from_numpy(self.actions[idx]),
            torch.from_numpy(self.rewards[idx]),
            torch.from_numpy(self.next_obs[idx].astype(np.float32)),
            torch.from_numpy(self.discounts[idx]),
            torch.from_numpy(self.next_masks[idx]),
        )


def store_n_step(buffer: ReplayBuffer, pending: deque, next_obs: np.ndarray, next_mask, terminated: bool) -> None:
    """Store the oldest pending transition with the discounted sum of the rewards after it.

    Each pending entry carries its own discount (``gamma``, or ``gamma ** elapsed``
    time): a reward is discounted by the product of the discounts of the entries
    before it, the bootstrap by the product of them all.
    """
    ret, scale = 0.0, 1.0
    for _, _, reward, discount in pending:
        ret += scale * reward
        scale *= discount
    obs, action, _, _ = pending.popleft()
    buffer.add(obs, action, ret, next_obs, 0.0 if terminated else scale, next_mask)

"""One generation of evolution strategies, its population scored on an executor.

OpenAI's evolution strategies (Salimans et al., 2017) on a flat weight vector ``w``:

1. ``pairs`` noise vectors ``e`` (:func:`~schedlab.training.episodes.member_noise`, by
   seed, generation and pair) give the members ``w + sigma * e`` and ``w - sigma * e``
   (antithetic pairs), every member scored on the same training episodes;
2. a member's cost is its mean episode cost, relative to the teacher heuristic's on the
   same episodes when there is one (``(cost - heuristic) / |heuristic|``), so that a
   heavy episode weighs as much as a light one;
3. the costs become centred ranks in ``[-0.5, 0.5]``, and ``w`` takes an Adam step
   against the ranks' weighted sum of noise.

The members are independent tasks on ``executor`` (any ``concurrent.futures.Executor``;
``None`` runs them here). Results are gathered in submission order and every draw is
made from the seed and indices, so the step is the same for any number of workers.

References
----------
T. Salimans, J. Ho, X. Chen, S. Sidor, I. Sutskever. Evolution Strategies as a Scalable
Alternative to Reinforcement Learning. arXiv:1703.03864, 2017.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

import numpy as np

from schedlab.training.episodes import EnvSpec, member_costs, member_noise

__all__ = ["Adam", "gather", "generation_step", "relative"]

BETA1, BETA2 = 0.9, 0.999


@dataclass
class Adam:
    """Adam's moments over the weight vector, and its step count."""

    m: np.ndarray
    v: np.ndarray
    steps: int = 0

    def step(self, grad: np.ndarray, rate: float) -> np.ndarray:
        """The change to apply to the weights for the gradient ``grad`` (a descent step)."""
        self.steps += 1
        self.m = BETA1 * self.m + (1 - BETA1) * grad
        self.v = BETA2 * self.v + (1 - BETA2) * grad**2
        m_hat = self.m / (1 - BETA1**self.steps)
        v_hat = self.v / (1 - BETA2**self.steps)
        result: np.ndarray = -rate * m_hat / (np.sqrt(v_hat) + 1e-8)
        return result


def gather(executor: Executor | None, fn: Callable[..., Any], calls: Sequence[tuple[Any, ...]]) -> list[Any]:
    """``fn(*call)`` for every call, on ``executor`` (or here when ``None``), results in the calls' order."""
    if executor is None:
        return [fn(*call) for call in calls]
    futures = [executor.submit(fn, *call) for call in calls]
    return [f.result() for f in futures]


def relative(costs: np.ndarray, baseline: np.ndarray | None) -> np.ndarray:
    """Mean over the last axis (episodes) of the costs, relative to ``baseline``'s on the same episodes."""
    if baseline is None:
        result: np.ndarray = costs.mean(-1)
        return result
    return ((costs - baseline) / np.maximum(np.abs(baseline), 1e-9)).mean(-1)


def generation_step(
    spec: EnvSpec,
    weights: np.ndarray,
    adam: Adam,
    *,
    seed: int,
    generation: int,
    pairs: int,
    sigma: float,
    learning_rate: float,
    seeds: list[int],
    baseline: np.ndarray | None,
    executor: Executor | None,
) -> tuple[np.ndarray, float]:
    """The weights after one generation on the episodes ``seeds``, and the population's mean cost."""
    calls = [
        (spec, weights, sigma, (seed, generation, pair), sign, seeds) for pair in range(pairs) for sign in (1.0, -1.0)
    ]
    costs = relative(np.asarray(gather(executor, member_costs, calls)), baseline).reshape(pairs, 2)
    order = np.argsort(np.argsort(costs.ravel(), kind="stable"), kind="stable").reshape(pairs, 2)
    ranks = order / max(costs.size - 1, 1) - 0.5
    grad = np.zeros_like(weights)
    for pair in range(pairs):  # the noise again, here, from the same indices: nothing is shipped back
        grad += (ranks[pair, 0] - ranks[pair, 1]) * member_noise(seed, generation, pair, weights.size)
    grad /= pairs * sigma
    return weights + adam.step(grad, learning_rate), float(costs.mean())

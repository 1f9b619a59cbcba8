"""Simple Learning Selection (SLS; Galstyan, Czajkowski and Lerman 2005), the independent-learner baseline.

Each agent keeps its own estimate Q^i(j) of how efficient resource j is, learned only
from the final completion signals of its own jobs: when a job of length J submitted at
``submit`` completes at ``end``, ``Q^i(j) <- (1 - alpha) Q^i(j) + alpha J / (end - submit)``,
the job's effective processing rate (tokens per unit of time, waiting included). Agents
share nothing, and nothing is learned about a resource while a job waits there: the
delayed reward Wu et al. (2011, section 4.1) blame for SLS's herd behaviour. A new job
goes to ``argmax Q^i`` (ties at random), or with probability ``epsilon`` to a resource
drawn uniformly (exploration).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from schedlab.learners.osl import greedy_choice
from schedlab.model.contracts.grid import Assign, GridCompletion, GridView

__all__ = ["SimpleLearning"]


class SimpleLearning:
    """Independent learners updated at job completions only: a grid policy.

    Parameters
    ----------
    alpha
        Learning rate.
    epsilon
        Probability of sending a job to a uniformly drawn resource instead of the best.
    rng
        The ``exploration`` stream: epsilon draws and ties.

    Attributes
    ----------
    efficiency
        The N x M estimates, row i agent i's; start at 0 (nothing known).
    """

    #: independent learners: nothing travels on the ring
    shares = False

    def __init__(self, alpha: float = 0.5, epsilon: float = 0.1, *, rng: np.random.Generator) -> None:
        if not (math.isfinite(alpha) and 0 <= alpha <= 1):
            raise ValueError(f"alpha (learning rate) must be in [0, 1], got {alpha!r}")
        if not (math.isfinite(epsilon) and 0 <= epsilon <= 1):
            raise ValueError(f"epsilon (exploration) must be in [0, 1], got {epsilon!r}")
        self.alpha, self.epsilon, self._rng = float(alpha), float(epsilon), rng
        self.efficiency = np.empty((0, 0))

    def bind(self, view: GridView) -> None:
        """Fresh efficiency tables (N x M zeros), and which resources each agent reaches."""
        self.efficiency = np.zeros((view.agents, view.resources))
        self._m = view.resources
        reach = view.topology.reach
        #: the resources each agent may send to, as a mask and as indices (None: all of them, the paper's grid)
        self._reach = None if reach.all() else reach
        self._reachable = None if reach.all() else [np.flatnonzero(row) for row in reach]
        view.completed.connect(self.completed)

    def message(self, agent: int) -> None:
        """Nothing: the learners are independent."""
        return None  # independent learners: nothing travels on the ring

    def receive(self, agent: int, messages: object) -> None:
        """Nothing to read: no message travels."""
        pass

    def assign(self, agent: int, lengths: np.ndarray) -> Iterator[Assign]:
        """Each job to a resource: a random reachable one with probability epsilon, else the most efficient."""
        row, rng, eps, m = self.efficiency[agent], self._rng, self.epsilon, self._m
        reachable = None if self._reachable is None else self._reachable[agent]
        reach = None if self._reach is None else self._reach[agent]
        for pos in range(len(lengths)):
            if eps > 0 and rng.random() < eps:
                j = int(rng.integers(m)) if reachable is None else int(reachable[rng.integers(reachable.size)])
                yield Assign(pos, j)
            else:
                yield Assign(pos, greedy_choice(row, rng, reach))

    def completed(self, event: GridCompletion) -> None:
        """The ``completed`` signal: the job's effective rate updates its agent's estimate of its resource."""
        record = event.record
        q = self.efficiency[event.agent, event.resource]
        self.efficiency[event.agent, event.resource] = q + self.alpha * (
            record.runtime / (record.end - record.submit) - q
        )

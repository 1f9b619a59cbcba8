"""Ordinal Sharing Learning (OSL, Wu et al. 2011, Table 1): utility tables shared along a ring.

Every agent i keeps a utility table U^i over the M resources (the agents' tables are the
rows of one N x M array). In each step, in ring order, agent i

1. shares its predecessor's table: ``U^i <- (1 - beta) U^i + beta U^(i-1)`` (eq. 6);
2. sends each new job to ``argmax_j U^i(j)`` and at once updates that cell with the
   reward -1: ``U^i(j) <- (1 - alpha) U^i(j) - alpha`` (eq. 3);
3. sends a copy of U^i to agent i+1;

then, at the step's end (it subscribes to the grid's ``step_ended`` signal), turns the
completions it heard (the ``completed`` signal) into the reward vector of eqs. 4-5:
for each resource, +1 per job of agent i finished during the step, -1 per job of
agent i still unfinished there (whenever it was submitted), and updates every
cell, ``U^i <- (1 - alpha) U^i + alpha r`` (a resource with none of i's jobs gets r = 0,
so its utility decays towards 0 and becomes attractive again: the exploration).

On a topology where the sharing graph gives an agent several predecessors it mixes in
their mean table; where a broker reaches only some resources, it chooses among those.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Literal

import numpy as np

from schedlab.model.contracts.grid import GridCompletion, GridView

__all__ = ["OrdinalSharing", "greedy_choice"]


def greedy_choice(row: np.ndarray, rng: np.random.Generator | None, reach: np.ndarray | None = None) -> int:
    """Index of the largest value of ``row`` (among ``reach``, if given); ties at random with ``rng`` (or the first)."""
    if reach is not None:
        row = np.where(reach, row, -np.inf)
    j = int(np.argmax(row))
    if rng is not None:
        ties = (row == row[j]).nonzero()[0]
        if ties.size > 1:
            j = int(ties[rng.integers(ties.size)])
    return j


def _rate(name: str, value: float) -> float:
    if not (math.isfinite(value) and 0 <= value <= 1):
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return float(value)


class OrdinalSharing:
    """The OSL learner of every agent of a grid: a :class:`~schedlab.model.contracts.grid.GridPolicy`.

    Parameters
    ----------
    alpha
        Learning rate of eq. 3 (0.5 in the paper).
    beta
        Sharing factor of eq. 6 (0.5 in the paper).
    rng
        Breaks ties between equal utilities at random (the ``exploration`` stream).
    ties
        ``"random"`` (default) or ``"first"`` (the lowest resource index, as a plain
        argmax does; for hand-checked examples).

    Attributes
    ----------
    utility
        The N x M utility tables, row i agent i's (initialised to -1).
    outstanding
        Jobs of agent i submitted to resource j and not finished (the Submitted Jobs List, counted).
    """

    def __init__(
        self,
        alpha: float = 0.5,
        beta: float = 0.5,
        *,
        rng: np.random.Generator | None = None,
        ties: Literal["random", "first"] = "random",
    ) -> None:
        self.alpha = _rate("alpha (learning rate)", alpha)
        self.beta = _rate("beta (sharing factor)", beta)
        if ties not in ("random", "first"):
            raise ValueError(f"ties must be 'random' or 'first', got {ties!r}")
        if ties == "random" and rng is None:
            raise ValueError("ties='random' needs rng= (a numpy Generator)")
        self._rng = rng if ties == "random" else None
        self.utility = np.empty((0, 0))

    #: a broker's turn carries its table to its successors
    shares = True

    def bind(self, view: GridView) -> None:
        """Fresh tables for the grid's N x M: utilities at -1, no job outstanding or finished."""
        n, m = view.agents, view.resources
        self.utility = np.full((n, m), -1.0)
        self.outstanding = np.zeros((n, m))
        self.finished = np.zeros((n, m))
        # Each agent's row as a view made once, not indexed anew three times a turn (measured:
        # benchmarks/README.md). The tables change only in place, so the views stay theirs.
        self._rows: list[np.ndarray] = list(self.utility)
        self._outstanding_rows: list[np.ndarray] = list(self.outstanding)
        self._reach = None if view.topology.reach.all() else view.topology.reach
        view.completed.connect(self.completed)
        view.step_ended.connect(self.end_step)

    def message(self, agent: int) -> np.ndarray:
        """A copy of ``agent``'s utility row: what its turn carries to its successors."""
        return self._rows[agent].copy()

    def receive(self, agent: int, messages: Sequence[np.ndarray]) -> None:
        """Blend the predecessors' rows into ``agent``'s, by the sharing factor beta."""
        row = self._rows[agent]
        row *= 1.0 - self.beta
        if len(messages) == 1:
            # the message is this agent's own copy (see message()): scale it in place, no temporary
            message = messages[0]
            message *= self.beta
            row += message
        else:  # several predecessors on the sharing graph: their mean table
            row += self.beta * np.mean(messages, axis=0)

    def assign(self, agent: int, lengths: np.ndarray) -> Iterator[tuple[int, int]]:
        """Each job to the greedy resource of ``agent``'s row, updating the row at once (eq. 3 with reward -1)."""
        row, outstanding = self._rows[agent], self._outstanding_rows[agent]
        keep, step, rng = 1.0 - self.alpha, self.alpha, self._rng
        reach = None if self._reach is None else self._reach[agent]
        for pos in range(len(lengths)):
            j = greedy_choice(row, rng, reach)
            row[j] = keep * row[j] - step  # eq. 3 with r(j) = -1, at once
            outstanding[j] += 1
            # a plain (job, resource) tuple, which the contract accepts as an Assign: an Assign's
            # __new__ is a Python call, once per job of the run (measured: benchmarks/README.md)
            yield pos, j

    def completed(self, event: GridCompletion) -> None:
        """The ``completed`` signal: one more finished job of that agent at that resource."""
        self.finished[event.agent, event.resource] += 1

    def end_step(self, step: int) -> None:
        """The ``step_ended`` signal: the reward of eqs. 4-5 and the update of every table."""
        # r = (+1) x finished - (-1 x) still unfinished, per (agent, resource): eqs. 4-5
        finished, outstanding, u = self.finished, self.outstanding, self.utility
        outstanding -= finished
        u *= 1.0 - self.alpha
        u += self.alpha * (finished - outstanding)
        finished.fill(0.0)

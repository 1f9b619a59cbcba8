"""Grid selection rules without learning (Wu et al. 2011, section 4): RS, LLS and decentralised Min-Min.

Each is a decider for :class:`~schedlab.processes.agents.GridModel`: every agent applies
it to its new jobs in its turn on the ring. They differ in what they know:

- :class:`RandomSelection` (RS) knows nothing: a resource drawn uniformly per job;
- :class:`LeastLoaded` (LLS) knows every resource's exact load at every decision (an
  ideal, centralised grid information service) and picks the least loaded;
- :class:`DecentralisedMinMin` (DMMS) runs Min-Min (Freund et al. 1998) on the agent's
  new jobs over a picture of the resources that a grid information service refreshes
  only every ``period`` steps, plus the agent's own submissions since: other agents'
  submissions in between are invisible, so their decisions collide.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

import numpy as np

from schedlab.model.records import JobRecord

__all__ = ["DecentralisedMinMin", "LeastLoaded", "RandomSelection"]


class _View(Protocol):
    agents: int
    resources: int
    capacities: np.ndarray
    busy_until: np.ndarray

    @property
    def now(self) -> float: ...

    def lor(self) -> np.ndarray: ...


class _Stateless:
    """No ring message, no learning: the parts of a decider these rules do not use."""

    #: nothing travels on the ring: only agents with new jobs need a turn
    shares = False

    def message(self, agent: int) -> None:
        return None

    def receive(self, agent: int, message: object) -> None:
        pass

    def completed(self, agent: int, resource: int, record: JobRecord) -> None:
        pass

    def end_step(self) -> None:
        pass


class RandomSelection(_Stateless):
    """RS: each job to a resource drawn uniformly at random (the ``routing`` stream)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self._rng = rng

    def bind(self, view: _View) -> None:
        self._m = view.resources

    def assign(self, agent: int, lengths: np.ndarray) -> Iterator[tuple[int, int]]:
        picks = self._rng.integers(self._m, size=len(lengths))
        return enumerate(picks.tolist())


class LeastLoaded(_Stateless):
    """LLS: each job to the resource of least LoR now (exact global information), ties at random."""

    def __init__(self, rng: np.random.Generator) -> None:
        self._rng = rng

    def bind(self, view: _View) -> None:
        self._view = view

    def assign(self, agent: int, lengths: np.ndarray) -> Iterator[tuple[int, int]]:
        view, rng = self._view, self._rng
        for pos in range(len(lengths)):
            lor = view.lor()  # read again for each job: the previous one is already queued
            ties = np.flatnonzero(lor == lor.min())
            yield pos, int(ties[rng.integers(ties.size)]) if ties.size > 1 else int(ties[0])


class DecentralisedMinMin(_Stateless):
    """DMMS: Min-Min on each agent's new jobs over load information refreshed every ``period`` steps.

    Each agent holds, per resource, the time it expects that resource's queue to empty:
    the grid information service's figure (exact busy-until times) at the last refresh,
    pushed back by the agent's own submissions since. Min-Min then repeatedly takes the
    job whose earliest expected completion ``max(ready_j, now) + J / C_j`` is smallest
    and queues it there (Freund et al. 1998; ties to the lowest index).

    Parameters
    ----------
    period
        Steps between refreshes (k); 1 refreshes at every step's start (agents still do
        not see each other's submissions of the same step).
    """

    def __init__(self, period: int = 5) -> None:
        if isinstance(period, bool) or not isinstance(period, int) or period < 1:
            raise ValueError(f"period (DMMS refresh, in steps) must be a whole number >= 1, got {period!r}")
        self.period = period

    def bind(self, view: _View) -> None:
        self._view = view
        self._steps = 0
        self.ready = np.tile(np.asarray(view.busy_until, dtype=float), (view.agents, 1))

    def end_step(self) -> None:
        self._steps += 1
        if self._steps % self.period == 0:
            self.ready[:] = self._view.busy_until  # the information service's refresh, to every agent

    def assign(self, agent: int, lengths: np.ndarray) -> Iterator[tuple[int, int]]:
        view = self._view
        now, caps = view.now, view.capacities
        ready = np.maximum(self.ready[agent], now)
        run = lengths[:, None] / caps[None, :]  # jobs x resources
        ect = ready[None, :] + run
        left = np.ones(len(lengths), dtype=bool)
        for _ in range(len(lengths)):
            best = ect.argmin(axis=1)
            finish = ect[np.arange(len(lengths)), best]
            finish[~left] = np.inf
            pos = int(finish.argmin())
            j = int(best[pos])
            left[pos] = False
            ready[j] += run[pos, j]  # ready is already >= now
            ect[:, j] = ready[j] + run[:, j]
            yield pos, j
        self.ready[agent] = ready

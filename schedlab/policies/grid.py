"""Grid selection rules without learning (Wu et al. 2011, section 4): RS, LLS and decentralised Min-Min.

Each is a :class:`~schedlab.model.contracts.grid.GridPolicy`: every broker applies it to its new
jobs in its turn. They differ in what they know:

- :class:`RandomSelection` (RS) knows nothing: a resource drawn uniformly per job;
- :class:`LeastLoaded` (LLS) knows every resource's exact load at every decision (an
  ideal, centralised grid information service) and picks the least loaded;
- :class:`DecentralisedMinMin` (DMMS) runs Min-Min (Freund et al. 1998) on the agent's
  new jobs over a picture of the resources that a grid information service refreshes
  only every ``period`` steps, plus the agent's own submissions since: other agents'
  submissions in between are invisible, so their decisions collide.

On a topology with link latency LLS sees each load as it was one latency ago
(``view.seen_lor``), and every rule keeps to the resources a broker may reach.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from schedlab.model.contracts.grid import Assign, GridView
from schedlab.model.core.fields import is_int

__all__ = ["DecentralisedMinMin", "LeastLoaded", "RandomSelection"]


class _Stateless:
    """No message on the sharing graph: the hooks of a policy these rules do not use."""

    #: nothing travels between brokers: only agents with new jobs need a turn
    shares = False

    def message(self, agent: int) -> None:
        return None

    def receive(self, agent: int, messages: object) -> None:
        pass


def _reachable(view: GridView) -> list[np.ndarray] | None:
    """Per broker, the resources it may send to; ``None`` when every broker reaches every resource."""
    reach = view.topology.reach
    return None if reach.all() else [np.flatnonzero(row) for row in reach]


class RandomSelection(_Stateless):
    """RS: each job to a resource drawn uniformly at random (the ``routing`` stream)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self._rng = rng

    def bind(self, view: GridView) -> None:
        """Keep how many resources there are, and which ones each agent reaches."""
        self._m = view.resources
        self._reachable = _reachable(view)

    def assign(self, agent: int, lengths: np.ndarray) -> Iterator[Assign]:
        """Each job to a resource drawn uniformly from those ``agent`` reaches."""
        if self._reachable is None:
            picks = self._rng.integers(self._m, size=len(lengths))
            return (Assign(pos, j) for pos, j in enumerate(picks.tolist()))
        mine = self._reachable[agent]
        picks = mine[self._rng.integers(mine.size, size=len(lengths))]
        return (Assign(pos, j) for pos, j in enumerate(picks.tolist()))


class LeastLoaded(_Stateless):
    """LLS: each job to the resource of least LoR as the broker sees it (exact on the paper's grid), ties at random."""

    def __init__(self, rng: np.random.Generator) -> None:
        self._rng = rng

    def bind(self, view: GridView) -> None:
        """Keep the view, whose LoR it reads, and which resources each agent cannot reach."""
        self._view = view
        reach = view.topology.reach
        self._out_of_reach = None if reach.all() else ~reach

    def assign(self, agent: int, lengths: np.ndarray) -> Iterator[Assign]:
        """Each job in turn to a reachable resource of least LoR as ``agent`` sees it (ties drawn at random)."""
        view, rng, hidden = self._view, self._rng, self._out_of_reach
        for pos in range(len(lengths)):
            lor = view.seen_lor(agent)  # read again for each job: the previous one may already be queued
            if hidden is not None:
                lor = np.where(hidden[agent], np.inf, lor)
            ties = np.flatnonzero(lor == lor.min())
            yield Assign(pos, int(ties[rng.integers(ties.size)]) if ties.size > 1 else int(ties[0]))


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
        if not is_int(period, 1):
            raise ValueError(f"period (DMMS refresh, in steps) must be a whole number >= 1, got {period!r}")
        self.period = period

    def bind(self, view: GridView) -> None:
        """Start each agent's ready times from the grid's, and refresh them at the step ends."""
        self._view = view
        self._steps = 0
        self.ready = np.tile(np.asarray(view.busy_until, dtype=float), (view.agents, 1))
        reach = view.topology.reach
        self._out_of_reach = None if reach.all() else ~reach
        view.step_ended.connect(self.end_step)

    def end_step(self, step: int) -> None:
        """The ``step_ended`` signal: every ``period`` steps, the information service refreshes."""
        self._steps += 1
        if self._steps % self.period == 0:
            self.ready[:] = self._view.busy_until  # the information service's refresh, to every agent

    def assign(self, agent: int, lengths: np.ndarray) -> Iterator[Assign]:
        """Min-Min over ``agent``'s jobs: the job of earliest completion goes first, to that resource; repeat."""
        view = self._view
        now, caps = view.now, view.capacities
        ready = np.maximum(self.ready[agent], now)
        run = lengths[:, None] / caps[None, :]  # jobs x resources
        if self._out_of_reach is not None:
            run = np.where(self._out_of_reach[agent][None, :], np.inf, run)
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
            yield Assign(pos, j)
        self.ready[agent] = ready

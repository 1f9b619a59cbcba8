"""Queue-driven DVFS: nodes slow down to a low pstate while the queue is short, and speed up when jobs wait.

An energy policy written against the power contract (:mod:`schedlab.model.contracts.power`,
``SetPstate``), composed with any job policy as
:class:`~schedlab.policies.idle_shutdown.IdleShutdown` is. At each decision event:

- **jobs wait** (more than ``queue`` of them): every node not in pstate 0 goes back to
  it *before* ``inner`` starts jobs, so new jobs start at full speed and running ones
  finish sooner (their work left is rescaled at once);
- **the queue is short** (``queue`` or fewer wait once ``inner`` has started what it
  could): every node goes to pstate ``low``, and the running jobs go on at its speed.

The bet is the one DVFS studies make: a slow pstate draws fewer watts above idle per
unit of work (on Batsim's ``cluster_energy_128.xml``, pstate 12 adds 30.88 W at 0.45 of
the speed, 68.7 J per second of work against pstate 0's 95.7 J), and while nothing
waits, finishing later delays no one. It costs waiting time when jobs arrive to find
the running ones slowed, which is what ``docs/energy.md`` measures. Only nodes whose
type has pstate ``low`` are moved; a decision that would change no node's pstate adds
no action.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schedlab.model.contracts.power import SetPstate
from schedlab.policies.around_jobs import AroundJobs

__all__ = ["QueueDVFS"]


class QueueDVFS(AroundJobs):
    """``inner``'s job decisions, with the nodes at pstate ``low`` while at most ``queue`` jobs wait.

    Needs a :class:`~schedlab.processes.cluster.power.PoweredCluster` (its view has ``power``).

    Parameters
    ----------
    inner
        The job policy (``make_policy("fcfs", "easy")``, ...), called with any view.
    low
        The pstate the nodes run in while the queue is short (an index into their pstates, >= 1).
    queue
        How many waiting jobs still count as a short queue (>= 0).
    """

    def __init__(self, inner: Callable[[Any], Any], low: int, queue: int = 0) -> None:
        for name, value, least in (("low", low, 1), ("queue", queue, 0)):
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ValueError(f"QueueDVFS: {name} must be a whole number >= {least}, got {value!r}")
        self.inner = inner
        self.low = low
        self.queue = queue

    def before(self, view: Any) -> Any | None:
        """Back to pstate 0 when jobs wait: one action, and the machine asks again, now at full speed."""
        if len(view.waiting) > self.queue:
            first = self._moves(view, 0)
            if first:
                return first[0]
        return None

    def after(self, view: Any) -> list[Any]:
        """Slow the nodes down if the queue is short now."""
        return self._moves(view, self.low) if len(view.waiting) <= self.queue else []

    def _moves(self, view: Any, pstate: int) -> list[Any]:
        nodes = [name for name, p in view.power.items() if p.pstate != pstate and pstate < len(p.pstates)]
        return [SetPstate(nodes, pstate)] if nodes else []

    def __repr__(self) -> str:
        return f"QueueDVFS({self.inner!r}, low={self.low}, queue={self.queue})"

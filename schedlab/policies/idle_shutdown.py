"""Idle shutdown: switch a node off after ``timeout`` idle seconds, boot nodes when the queue needs them.

The energy policy of Batsim's energy studies (and of most production clusters' power
savers, e.g. Slurm's ``SuspendTime``), written against the power contract
(:mod:`schedlab.model.contracts.power`), so it composes with any job policy: it first
asks ``inner`` (FCFS, EASY, ...) for its job actions, and only when ``inner`` has none
left decides on power, once per decision event:

- **boot**: the waiting jobs ask for ``demand`` cores; the nodes that are on have
  ``free`` of them free and the nodes booting will bring ``booting``. While
  ``demand > free + booting``, it boots nodes that are off, in the platform's order;
- **switch off**: a node that is on, has run no job for ``timeout`` seconds, and whose
  cores the queue does not need (``free - cores >= demand``) is switched off;
- **wake-up**: if some idle node will reach ``timeout`` later, it asks to be called then
  (``WakeAt``), since no job event may come.

A node is booted only for waiting jobs, so a job that arrives to find too few cores on
waits for the boot (Batsim's ``switch_on`` time). Under EASY, a head job that needs a
node that is off has no reservation until the node is on, so jobs behind it may start
meanwhile (:func:`~schedlab.policies.node_backfilling.node_reservation` sees only the
cores that are on).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from schedlab.model.contracts.power import SwitchOff, SwitchOn, WakeAt
from schedlab.policies.around_jobs import AroundJobs

__all__ = ["IdleShutdown"]


class IdleShutdown(AroundJobs):
    """``inner``'s job decisions, and nodes switched off after ``timeout`` idle seconds.

    Needs a :class:`~schedlab.processes.cluster.power.PoweredCluster` (its view has ``power``).

    Parameters
    ----------
    inner
        The job policy (``make_policy("fcfs", "easy")``, a cluster's ``NodeEASY``, ...): a
        machine's or a cluster's policy, so typed by what it is called with, any view.
    timeout
        Seconds a node stays on and idle before it is switched off (>= 0).
    """

    def __init__(self, inner: Callable[[Any], Any], timeout: float) -> None:
        if not (isinstance(timeout, int | float) and math.isfinite(timeout) and timeout >= 0):
            raise ValueError(f"IdleShutdown: timeout must be a finite number of seconds >= 0, got {timeout!r}")
        self.inner = inner
        self.timeout = float(timeout)

    def after(self, view: Any) -> list[Any]:
        """The power actions after ``inner``'s answer: :meth:`power_actions`."""
        return self.power_actions(view)

    def power_actions(self, view: Any) -> list[Any]:
        """The boots, shutdowns and wake-up this decision event calls for (see the module's docstring)."""
        now, power = view.now, view.power
        demand = sum(job.cpus for job in view.waiting)
        free = view.free
        booting = sum(p.cores for p in power.values() if p.state == "switching_on")
        if demand > free + booting:
            boot = []
            for name, p in power.items():
                if p.state == "off":
                    boot.append(name)
                    booting += p.cores
                    if demand <= free + booting:
                        break
            return [SwitchOn(boot)] if boot else []
        wake, off = math.inf, []
        for name, p in power.items():
            if p.state != "on" or p.idle_since is None or not p.can_switch:
                continue
            due = p.idle_since + self.timeout
            if due > now:
                wake = min(wake, due)
            elif free - p.cores >= demand:
                off.append(name)
                free -= p.cores
        actions: list[Any] = [SwitchOff(off)] if off else []
        if wake < math.inf:
            actions.append(WakeAt(wake))
        return actions

    def __repr__(self) -> str:
        return f"IdleShutdown({self.inner!r}, timeout={self.timeout:g})"

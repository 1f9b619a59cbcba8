"""A machine's CPU-time accounting and elastic capacity: how many CPUs it has, and has had, over time.

:class:`CapacityAccount` keeps two exact integrals over simulated time, updated at
every change rather than sampled: the CPUs allocated to jobs (``busy_time``) and the
CPUs provisioned (``capacity_time``), whose ratio is a utilization. An elastic pool
grows and shrinks the machine with :meth:`~CapacityAccount.set_capacity`.
It is the part of :class:`~schedlab.processes.machine.machine.Machine` that does this (a
mix-in: the machine has the state it reads).
"""

from __future__ import annotations

import simpy

from schedlab.model.core.fields import is_whole
from schedlab.processes.tracing import Tracer

__all__ = ["CapacityAccount"]


class CapacityAccount:
    """The CPUs a machine allocates and has had: a mix-in of :class:`~schedlab.processes.machine.machine.Machine`."""

    env: simpy.Environment
    name: str
    capacity: int
    max_capacity: int
    free: int
    _busy_area: float  # integral of allocated CPUs over time, up to _last_change
    _last_change: float
    _capacity_area: float  # integral of provisioned CPUs over time, up to _capacity_since
    _capacity_since: float
    _trace: Tracer | None

    def _decision_event(self) -> None:
        raise NotImplementedError

    @property
    def busy(self) -> int:
        """CPUs allocated now."""
        return self.capacity - self.free

    def busy_time(self) -> float:
        """Integral of allocated CPUs over time, from the start to now (exact)."""
        return self._busy_area + self.busy * (self.env.now - self._last_change)

    def capacity_time(self) -> float:
        """Integral of provisioned CPUs (``capacity``) over time, from the start to now (exact)."""
        return self._capacity_area + self.capacity * (self.env.now - self._capacity_since)

    def set_capacity(self, cpus: int) -> None:
        """Grow or shrink the pool of CPUs (elastic provisioning).

        Running jobs are never cut: the pool cannot shrink below the CPUs in use, nor
        grow beyond ``max_capacity``. CPUs added are offered to the policy at once.
        """
        if getattr(self, "processors", None) is not None:
            raise ValueError(
                f"machine {self.name!r}: elastic capacity with processor ids (allocation=) "
                "is not modelled: which ids would go?"
            )
        if not is_whole(cpus) or not self.busy <= cpus <= self.max_capacity:
            raise ValueError(
                f"machine {self.name!r} at t={self.env.now}: cannot set capacity to {cpus!r}: "
                f"it must be a whole number from the {self.busy} cpus in use "
                f"to max_capacity={self.max_capacity}"
            )
        cpus = int(cpus)
        if cpus == self.capacity:
            return
        now = self.env.now
        self._account()
        self._capacity_area += self.capacity * (now - self._capacity_since)
        self._capacity_since = now
        grown = cpus > self.capacity
        self.free += cpus - self.capacity
        self.capacity = cpus
        if self._trace is not None:
            self._trace(now, self.name, "capacity", f"{cpus} cpus")
        if grown:
            self._decision_event()

    def _account(self) -> None:
        """Add the CPU-time allocated since the last change; called before every change."""
        now = self.env.now
        self._busy_area += (self.capacity - self.free) * (now - self._last_change)
        self._last_change = now

"""A machine's CPU-time accounting and elastic capacity: how many CPUs it has, and has had, over time.

:class:`CpuTime` keeps two exact integrals over simulated time, updated at every change
rather than sampled: the CPUs allocated to jobs (``busy_time``) and the CPUs provisioned
(``capacity_time``), whose ratio is a utilization. An elastic pool grows and shrinks the
machine with :meth:`CpuTime.set_capacity`; node failures take CPUs down and bring
them back with :meth:`CpuTime.change_capacity`.

It is a part the machine holds (``machine.cpu_time``). The machine's ``start`` and
``_complete`` add to the allocated integral themselves, written out (:meth:`CpuTime.account`
is what they do): once each per job, on the hot path.
"""

from __future__ import annotations

from schedlab.model.core.fields import is_whole
from schedlab.processes.machine.parts_view import PartsView

__all__ = ["CpuTime"]


class CpuTime:
    """The CPUs ``machine`` allocates and has had, integrated over time (its ``cpu_time``)."""

    def __init__(self, machine: PartsView) -> None:
        self.machine = machine
        now = machine.env.now
        #: integral of allocated CPUs over time, up to ``last_change``
        self.busy_area = 0.0
        self.last_change = now
        #: integral of provisioned CPUs over time, up to ``capacity_since``
        self.capacity_area = 0.0
        self.capacity_since = now

    def busy_time(self) -> float:
        """Integral of allocated CPUs over time, from the start to now (exact)."""
        m = self.machine
        return self.busy_area + (m.capacity - m.free) * (m.env.now - self.last_change)

    def capacity_time(self) -> float:
        """Integral of provisioned CPUs (``capacity``) over time, from the start to now (exact)."""
        m = self.machine
        return self.capacity_area + m.capacity * (m.env.now - self.capacity_since)

    def account(self) -> None:
        """Add the CPU-time allocated since the last change; called before every change."""
        m = self.machine
        now = m.env.now
        self.busy_area += (m.capacity - m.free) * (now - self.last_change)
        self.last_change = now

    def change_capacity(self, delta: int, free: int | None = None) -> None:
        """The CPUs provisioned change by ``delta`` (after :meth:`account`), the free ones by ``free``
        (default ``delta``: the CPUs added or taken were all free); the capacity integral stays exact."""
        m = self.machine
        now = m.env.now
        self.capacity_area += m.capacity * (now - self.capacity_since)
        self.capacity_since = now
        m.capacity += delta
        m.free += delta if free is None else free

    def set_capacity(self, cpus: int) -> None:
        """Grow or shrink the pool of CPUs (elastic provisioning).

        Running jobs are never cut: the pool cannot shrink below the CPUs in use, nor
        grow beyond ``max_capacity``. CPUs added are offered to the policy at once.
        """
        m = self.machine
        if m.ids.cpu_map is not None:
            raise ValueError(
                f"machine {m.name!r}: elastic capacity with CPU ids (allocation=) is not modelled: which ids would go?"
            )
        busy = m.capacity - m.free
        if not is_whole(cpus) or not busy <= cpus <= m.max_capacity:
            raise ValueError(
                f"machine {m.name!r} at t={m.env.now}: cannot set capacity to {cpus!r}: "
                f"it must be a whole number from the {busy} cpus in use "
                f"to max_capacity={m.max_capacity}"
            )
        grown = int(cpus) - m.capacity
        if not grown:
            return
        self.account()
        self.change_capacity(grown)
        if m._trace is not None:
            m._trace(m.env.now, m.name, "capacity", f"{m.capacity} cpus")
        if grown > 0:
            m.decisions.event()

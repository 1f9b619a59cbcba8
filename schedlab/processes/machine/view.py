"""The read-only face of a :class:`~schedlab.processes.machine.machine.Machine` that its policy sees.

It implements :class:`schedlab.model.contracts.machine.MachineView`. A policy reads the view at
every decision event, so each property is a C-level ``attrgetter`` and ``fits`` is the
machine's own bound method: no extra Python call between the policy and the machine.

The view is typed against :class:`ViewedMachine`, the few attributes it reads, rather
than against ``Machine`` itself: ``machine.py`` builds the view, so importing ``Machine``
here (even for type checking only) would make the two modules import each other.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from operator import attrgetter
from typing import Protocol

import simpy

from schedlab.model.core.job import Job
from schedlab.processes.machine.running import Running

__all__ = ["PolicyView", "ViewedMachine"]


class ViewedMachine(Protocol):
    """What :class:`PolicyView` reads of the machine it shows (``Machine`` has all of it), read-only."""

    @property
    def name(self) -> str:
        """The machine's name."""
        ...

    @property
    def env(self) -> simpy.Environment:
        """Its SimPy environment (the view's ``now``)."""
        ...

    @property
    def capacity(self) -> int:
        """Its CPUs."""
        ...

    @property
    def free(self) -> int:
        """Its idle CPUs."""
        ...

    @property
    def waiting(self) -> Sequence[Job]:
        """Its queue, in arrival order."""
        ...

    @property
    def running(self) -> Sequence[Running]:
        """Its running jobs."""
        ...

    @property
    def resources(self) -> Mapping[str, float]:
        """Capacities of its other named resources."""
        ...

    @property
    def used(self) -> Mapping[str, float]:
        """How much of each other resource its running jobs hold."""
        ...

    @property
    def _suspended(self) -> Mapping[Job, Running]: ...
    @property
    def fits(self) -> Callable[..., bool]:
        """Whether a job would start now (the view's ``fits``)."""
        ...


class PolicyView:
    """What ``machine.view`` is: live, read-only properties of one machine."""

    __slots__ = ("_m", "fits")

    def __init__(self, machine: ViewedMachine) -> None:
        self._m = machine
        self.fits = machine.fits

    name = property(attrgetter("_m.name"))
    now = property(attrgetter("_m.env.now"))
    capacity = property(attrgetter("_m.capacity"))
    free = property(attrgetter("_m.free"))
    waiting = property(attrgetter("_m.waiting"))
    running = property(attrgetter("_m.running"))
    resources = property(attrgetter("_m.resources"))  # capacities of the other named resources
    used = property(attrgetter("_m.used"))  # how much of each is held now

    def is_suspended(self, job: Job) -> bool:
        """Whether waiting ``job`` was preempted, with work done."""
        return job in self._m._suspended

    def remaining(self, job: Job) -> float:
        """Ideal execution time still to do for waiting ``job`` (all of it unless suspended)."""
        run = self._m._suspended.get(job)
        return job.runtime if run is None else run._remaining

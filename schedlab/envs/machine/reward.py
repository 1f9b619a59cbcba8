"""The reward integral of a :class:`~schedlab.envs.machine.env.MachineEnv`: a weight per job in the system.

The ``"slowdown"`` and ``"response"`` rewards are the change over a step of an
integral over simulated time of a sum over the jobs in the system (waiting or
running): of ``1/runtime`` (each job then costs ``response / runtime``) or of 1
(each job costs its response time). ``"bounded_slowdown"`` integrates
``1 / max(runtime, bound)`` and, when a job completes, adds what lifts its cost to 1
where it was below (a short job that hardly waited): each job then costs exactly its
bounded slowdown, ``max(response / max(runtime, bound), 1)``
(:func:`~schedlab.model.analysis.metrics.bounded_slowdown`). :class:`SystemIntegral` keeps that integral
exactly, sitting between the Source and the Machine; ``JOB_WEIGHTS`` gives each
reward's per-job weight (``"utilization"`` weighs nothing: that reward reads the
machine's busy time instead).

Kept apart from the environment because it is a small exact accounting of its own,
which the environment only reads (``value()``) at each step.
"""

from __future__ import annotations

from collections.abc import Callable

from schedlab.model.core.job import Job
from schedlab.model.records.job_record import JobRecord
from schedlab.processes.machine.machine import Machine

__all__ = ["JOB_WEIGHTS", "SystemIntegral", "job_weight"]


class SystemIntegral:
    """The Source's target, in front of the Machine: integrates a per-job weight over the jobs in the system.

    The weight sum changes only at arrivals and completions, so the integral is exact:
    booked at each change, read at any time as ``area + rate * (now - since)``.
    """

    def __init__(self, machine: Machine, weight: Callable[[float], float], *, floor: bool = False) -> None:
        self.machine, self.weight, self.floor = machine, weight, floor
        self.rate = 0.0
        self.present = 0
        self.area = 0.0
        self.since = machine.env.now
        machine.completed.connect(self._completed)

    def _book(self) -> None:
        now = self.machine.env.now
        self.area += self.rate * (now - self.since)
        self.since = now

    def submit(self, job: Job) -> None:
        """Add ``job``'s weight to the rate (after booking the area so far) and submit it to the Machine."""
        self._book()
        self.rate += self.weight(job.runtime)
        self.present += 1
        self.machine.submit(job)

    def _completed(self, record: JobRecord) -> None:
        self._book()
        if self.floor:  # a job costs at least 1: add what its integral fell short of
            self.area += max(0.0, 1.0 - self.weight(record.runtime) * record.response)
        self.present -= 1
        # an empty system has rate 0 exactly: no float residue carried from one busy period to the next
        self.rate = self.rate - self.weight(record.runtime) if self.present else 0.0

    def value(self) -> float:
        """The integral from its start to now."""
        return self.area + self.rate * (self.machine.env.now - self.since)


#: each reward's weight of a job in the system, from its runtime (see the module's notes);
#: ``"bounded_slowdown"``'s depends on the bound: :func:`job_weight`
JOB_WEIGHTS: dict[str, Callable[[float], float]] = {
    "slowdown": lambda runtime: 1.0 / runtime,
    "response": lambda runtime: 1.0,
    "utilization": lambda runtime: 0.0,
}


def job_weight(reward: str, bound: float) -> Callable[[float], float]:
    """The weight of a job in the system for ``reward`` (``bound``: bounded slowdown's threshold)."""
    if reward == "bounded_slowdown":
        return lambda runtime: 1.0 / max(runtime, bound)
    return JOB_WEIGHTS[reward]

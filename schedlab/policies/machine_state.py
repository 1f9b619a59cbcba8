"""The state of a time-utility machine as seed 000 describes it, and its what-ifs.

A scheduler that weighs preempting or squeezing needs the state the machine would be
in after each candidate action. Here a state is a list of :class:`Slot` (one per
running job: CPUs held, time until it ends, unit utility expected at its end) and a
count of free CPUs; :func:`state_features` turns it into the three inputs of the
value function (section 3.3):

- ``x1``: mean unit utility expected at completion of the running jobs, weighted by
  the CPUs each holds now;
- ``x2``: time until the first running job completes, over ``max_job_length``;
- ``x3``: idle CPUs, over the machine's CPUs.

With nothing running, ``x1 = x2 = 0``: no utility is on its way and no completion
is due. ``x2`` is clipped to 1 (a squeezed job can run longer than any ideal job).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from schedlab.model.decisions import MachineView, RunningView
from schedlab.model.job import Job

__all__ = [
    "Slot",
    "expected_unit",
    "job_slot",
    "preemption_victims",
    "remaining_unit_utility",
    "running_slots",
    "state_features",
]


class Slot(NamedTuple):
    """A running (or would-be running) job as the value function sees it."""

    cpus: int
    time_left: float
    unit: float
    job: Job | None = None


def expected_unit(job: Job, end: float) -> float:
    """Unit utility ``job`` earns if it completes at time ``end`` (0 without a TUF)."""
    return 0.0 if job.utility is None else job.utility.unit(end - job.submit)


def running_slots(view: MachineView) -> list[Slot]:
    """Slots of the jobs running on the machine now."""
    now = view.now
    slots = []
    for run in view.running:
        end = run.expected_end(now)
        slots.append(Slot(run.cpus, end - now, expected_unit(run.job, end), run.job))
    return slots


def job_slot(view: MachineView, job: Job, cpus: int) -> Slot:
    """The slot waiting ``job`` would hold if started now on ``cpus`` CPUs."""
    time_left = view.remaining(job) * job.cpus / cpus
    return Slot(cpus, time_left, expected_unit(job, view.now + time_left), job)


def state_features(slots: Sequence[Slot], free: int, capacity: int, max_job_length: float) -> tuple[float, float, float]:
    """``(x1, x2, x3)`` of seed 000 section 3.3 for a machine running ``slots``."""
    if not slots:
        return 0.0, 0.0, free / capacity
    held = sum(s.cpus for s in slots)
    x1 = sum(s.cpus * s.unit for s in slots) / held
    x2 = min(1.0, min(s.time_left for s in slots) / max_job_length)
    return x1, x2, free / capacity


def remaining_unit_utility(slot: Slot) -> float:
    """Unit utility expected at completion per unit of time still to run (section 4.1, step 4)."""
    return math.inf if slot.time_left <= 0 else slot.unit / slot.time_left


def preemption_victims(slots: Sequence[Slot], free: int, job_slot: Slot, needed: int) -> list[Slot] | None:
    """Running jobs to suspend so that ``needed`` CPUs are free, or None if the job may not.

    Victims are taken in increasing remaining unit utility until enough CPUs are
    free. A job may not preempt one whose remaining unit utility is higher than its
    own (section 4.1, step 4): then it gets None, as it does when even suspending
    every running job would not free enough CPUs.
    """
    own = remaining_unit_utility(job_slot)
    victims: list[Slot] = []
    for slot in sorted(slots, key=remaining_unit_utility):
        if free >= needed:
            break
        if remaining_unit_utility(slot) > own:
            return None
        victims.append(slot)
        free += slot.cpus
    return victims if free >= needed else None

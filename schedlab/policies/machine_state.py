"""The state of a time-utility machine as seed 000 describes it, and its what-ifs.

A scheduler that weighs preempting or squeezing needs the state the machine would be
in after each candidate action. Here a state is a list of :class:`Slot` (one per
running job: CPUs held, time until it ends, unit utility expected at its end) and a
count of free CPUs; :meth:`RunningSet.features` turns it into the three inputs of
the value function (section 3.3):

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

from schedlab.model.contracts.machine import MachineView
from schedlab.model.core.job import Job

__all__ = [
    "RunningSet",
    "Slot",
    "expected_unit",
    "job_slot",
    "remaining_unit_utility",
    "running_slots",
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


def remaining_unit_utility(slot: Slot) -> float:
    """Unit utility expected at completion per unit of time still to run (section 4.1, step 4)."""
    return math.inf if slot.time_left <= 0 else slot.unit / slot.time_left


class RunningSet:
    """The running jobs of one decision point, and the states candidate actions lead to.

    Jobs are kept in increasing remaining unit utility, the order in which they are
    preempted (section 4.1, step 4), so the victims of any preemption are the first
    ``k`` of them and the jobs left running the rest; sums over each such rest are
    made once, and each candidate's state then costs O(1) however long the queue.

    Parameters
    ----------
    slots
        The running jobs (:func:`running_slots`).
    free, capacity
        Idle CPUs now, and the machine's CPUs.
    max_job_length
        The ``MaxJobLength`` that scales ``x2``.
    """

    def __init__(self, slots: Sequence[Slot], free: int, capacity: int, max_job_length: float) -> None:
        self.slots = sorted(slots, key=remaining_unit_utility)
        self.free, self.capacity, self.scale = free, capacity, max_job_length
        n = len(self.slots)
        # over slots[k:]: CPUs held, CPU-weighted unit utility, first completion
        self._held = [0] * (n + 1)
        self._weighted = [0.0] * (n + 1)
        self._first_end = [math.inf] * (n + 1)
        for k in range(n - 1, -1, -1):
            s = self.slots[k]
            self._held[k] = self._held[k + 1] + s.cpus
            self._weighted[k] = self._weighted[k + 1] + s.cpus * s.unit
            self._first_end[k] = min(self._first_end[k + 1], s.time_left)
        self._ru = [remaining_unit_utility(s) for s in self.slots]
        # CPUs free once slots[:k] are preempted
        self._freed = [free]
        for s in self.slots:
            self._freed.append(self._freed[-1] + s.cpus)

    def features(
        self, k: int = 0, cpus: int = 0, time_left: float = math.inf, unit: float = 0.0
    ) -> tuple[float, float, float]:
        """``(x1, x2, x3)`` once the first ``k`` jobs are preempted and a job of ``cpus`` started.

        The started job (none if ``cpus = 0``) runs for ``time_left`` and is expected
        to earn ``unit``; it takes ``cpus`` of the CPUs free after the preemptions.
        """
        held = self._held[k] + cpus
        free = self._freed[k] - cpus
        if held == 0:
            return 0.0, 0.0, free / self.capacity
        x1 = (self._weighted[k] + cpus * unit) / held
        first = min(self._first_end[k], time_left)
        return x1, (1.0 if first >= self.scale else first / self.scale), free / self.capacity

    def victims(self, own: float, needed: int) -> int | None:
        """How many of the first jobs to preempt so that ``needed`` CPUs are free.

        ``own`` is the remaining unit utility of the job that wants the CPUs. None when
        it would have to preempt a job with a higher remaining unit utility than its
        own, or when even preempting every job would not free enough CPUs.
        """
        freed = self._freed
        for k, ru in enumerate(self._ru):
            if freed[k] >= needed:
                return k
            if ru > own:
                return None
        return len(self._ru) if freed[-1] >= needed else None

"""The execution state of a job on a machine: its allocation and the work left.

A :class:`Running` keeps the job's remaining work in *ideal time* (execution time at
the full allocation) and books progress whenever the allocation changes, so work is
conserved exactly across preemptions and resizes. It also counts the wall-clock
time the job has held CPUs (``run_time``), which is what a time limit counts: time
spent suspended after a preemption is not run time. Policies see it as
:class:`~schedlab.model.contracts.machine.RunningView`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import overload

import simpy

from schedlab.model.core.job import Job

__all__ = ["Running", "RunningSet"]


class Running:
    """The execution state of one job on a machine (what a policy sees as running).

    ``remaining`` is kept in *ideal time*: execution time still needed at the full
    allocation. At rate ``r = cpus / job.cpus`` it takes ``remaining / r``.

    ``event`` is the SimPy event that will next move the job, set by the machine at
    each change of allocation: an event that fires for this job but is no longer its
    ``event`` is stale (the job was preempted or resized since) and does nothing.
    ``limit`` is the run time after which the machine kills the job (``inf``: none).
    """

    __slots__ = (
        "_remaining",
        "cpu_time",
        "cpus",
        "event",
        "first_start",
        "job",
        "limit",
        "preemptions",
        "requested_end",
        "resizes",
        "run_time",
        "seq",
        "started",
        "work_done",
    )

    def __init__(self, job: Job, seq: int) -> None:
        self.job = job
        self.seq = seq
        self.cpus = 0
        self._remaining = job.runtime
        self.work_done = 0.0
        self.cpu_time = 0.0
        self.run_time = 0.0
        self.limit = math.inf
        self.first_start = math.nan
        #: when the job ends by its requested (user-estimated) time, set at each (re)start:
        #: what backfilling reasons with, since a scheduler cannot know the real runtime
        self.requested_end = math.inf
        self.started = math.nan
        self.preemptions = 0
        self.resizes = 0
        self.event: simpy.Event | None = None

    @property
    def rate(self) -> float:
        """Work done per unit of time: the share of its requested CPUs the job holds."""
        return self.cpus / self.job.cpus

    def remaining(self, now: float) -> float:
        """Full-allocation work still to do at ``now``."""
        if self.cpus == 0:
            return self._remaining
        return max(0.0, self._remaining - (now - self.started) * self.rate)

    def expected_end(self, now: float) -> float:
        """When it ends at its current rate (``inf`` while suspended, holding no CPU)."""
        if self.cpus == 0:
            return math.inf
        return self.started + self._remaining / self.rate

    def _book(self, now: float, elapsed: float | None = None) -> None:
        """Account for the work done since ``started`` and restart the clock at ``now``.

        ``elapsed`` is ``now - started`` unless the caller knows it exactly (a kill at
        the time limit: ``now - started`` may be an ulp off the stretch planned).
        """
        if elapsed is None:
            elapsed = now - self.started
        done = min(self._remaining, elapsed * self.rate)
        self._remaining -= done
        self.work_done += done
        self.cpu_time += elapsed * self.cpus
        self.run_time += elapsed
        self.started = now

    def __repr__(self) -> str:
        return f"Running({self.job!r}, cpus={self.cpus}, remaining={self._remaining:g})"


class RunningSet(Sequence[Running]):
    """A machine's running jobs in the order they started: a sequence whose add and remove are O(1).

    A list's ``remove`` scans for the job that ends, which on M/M/1000 is hundreds of
    comparisons per completion; here the states are a dict's keys (insertion ordered),
    so a completion costs one dict deletion whatever the machine's size. Policies read
    it as before: iterate it, take its ``len``, compare it with a list; indexing walks
    it (policies that index do so rarely).
    """

    __slots__ = ("_runs",)

    def __init__(self) -> None:
        self._runs: dict[Running, None] = {}

    def append(self, run: Running) -> None:
        """Add a running job, after the others."""
        self._runs[run] = None

    def remove(self, run: Running) -> None:
        """Take a running job out, keeping the others' order."""
        del self._runs[run]

    def last(self) -> Running:
        """The job that started last (the one a machine's ``start`` has just added)."""
        return next(reversed(self._runs))

    def of(self, job: Job) -> Running | None:
        """``job``'s running state, or ``None`` where it is not running (a scan: for actions, not events)."""
        for run in self._runs:
            if run.job is job:
                return run
        return None

    def __iter__(self) -> Iterator[Running]:
        return iter(self._runs)

    def __len__(self) -> int:
        return len(self._runs)

    def __contains__(self, run: object) -> bool:
        return run in self._runs

    @overload
    def __getitem__(self, i: int) -> Running: ...
    @overload
    def __getitem__(self, i: slice) -> list[Running]: ...
    def __getitem__(self, i: int | slice) -> Running | list[Running]:
        return list(self._runs)[i]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RunningSet | list | tuple):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # unhashable, as a list: it compares by content

    def __repr__(self) -> str:
        return f"RunningSet({list(self._runs)!r})"

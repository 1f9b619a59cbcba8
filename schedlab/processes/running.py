"""The execution state of a job on a machine: its allocation and the work left.

A :class:`Running` keeps the job's remaining work in *ideal time* (execution time at
the full allocation) and books progress whenever the allocation changes, so work is
conserved exactly across preemptions and resizes. Policies see it as
:class:`~schedlab.model.decisions.RunningView`.
"""

from __future__ import annotations

import math

import simpy

from schedlab.model.job import Job

__all__ = ["Running"]


class Running:
    """The execution state of one job on a machine (what a policy sees as running).

    ``remaining`` is kept in *ideal time*: execution time still needed at the full
    allocation. At rate ``r = cpus / job.cpus`` it takes ``remaining / r``.
    """

    __slots__ = (
        "_remaining",
        "cpu_time",
        "cpus",
        "first_start",
        "job",
        "preemptions",
        "process",
        "requested_end",
        "resizes",
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
        self.first_start = math.nan
        #: when the job ends by its requested (user-estimated) time, set at each (re)start:
        #: what backfilling reasons with, since a scheduler cannot know the real runtime
        self.requested_end = math.inf
        self.started = math.nan
        self.preemptions = 0
        self.resizes = 0
        self.process: simpy.Process | None = None

    @property
    def rate(self) -> float:
        return self.cpus / self.job.cpus

    def remaining(self, now: float) -> float:
        if self.cpus == 0:
            return self._remaining
        return max(0.0, self._remaining - (now - self.started) * self.rate)

    def expected_end(self, now: float) -> float:
        if self.cpus == 0:
            return math.inf
        return self.started + self._remaining / self.rate

    def _book(self, now: float) -> None:
        """Account for the work done since ``started`` and restart the clock at ``now``."""
        elapsed = now - self.started
        done = min(self._remaining, elapsed * self.rate)
        self._remaining -= done
        self.work_done += done
        self.cpu_time += elapsed * self.cpus
        self.started = now

    def __repr__(self) -> str:
        return f"Running({self.job!r}, cpus={self.cpus}, remaining={self._remaining:g})"

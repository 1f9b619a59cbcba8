"""The source: a process that feeds a workload into a machine (or anything with ``submit``)."""

from __future__ import annotations

from collections.abc import Generator, Iterable
from typing import Protocol

import simpy

from schedlab.model.core.job import Job
from schedlab.processes.tracing import tracer_of

__all__ = ["Source", "Submittable"]


class Submittable(Protocol):
    """Anything a :class:`Source` submits jobs to: a machine, a server, a queue."""

    def submit(self, job: Job) -> None:
        """Take ``job`` at its arrival."""
        ...


class Source:
    """Submits each job of ``workload`` to ``target`` at the job's submit time.

    The workload must be in submission order; a job submitted before the previous
    one is an error naming both. Iteration is lazy, so an infinite workload costs
    only the jobs the run reaches. ``count`` says how many jobs have been submitted.
    """

    def __init__(
        self, env: simpy.Environment, workload: Iterable[Job], target: Submittable, *, name: str = "source"
    ) -> None:
        self.env = env
        self.target = target
        self.name = name
        self.count = 0
        self._trace = tracer_of(env)
        self.process = env.process(self._run(iter(workload)))

    def _run(self, jobs: Iterable[Job]) -> Generator[simpy.Event, object, None]:
        env, submit, trace = self.env, self.target.submit, self._trace
        last = None
        for job in jobs:
            delay = job.submit - env.now
            # order is checked against the previous job's submit time, not the clock: the clock
            # reached it as now + delay, which floating point may leave a hair past it, and a
            # job submitted at the same time must still be in order
            if job.submit < (last.submit if last is not None else env.now):
                before = f"job {last.id} at {last.submit}" if last is not None else f"the clock at {env.now}"
                raise ValueError(
                    f"source {self.name!r}: workload is not in submission order: job {job.id} "
                    f"submits at {job.submit}, after {before}"
                )
            if delay > 0:
                yield env.timeout(delay)
            if trace is not None:
                trace(env.now, self.name, "arrive", f"job {job.id}")
            self.count += 1
            submit(job)
            last = job

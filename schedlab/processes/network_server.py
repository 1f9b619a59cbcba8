"""The servers of seed 004: FIFO, one job at a time, a blocking head job, cleared between runs.

A :class:`NetworkServer` is a :class:`~schedlab.processes.server.Server` whose queue tells
it the moment it hands a job over, which keeps a running sum of the requirements it
holds (the load of section 3.4), serves in whole steps, and can be cleared.
"""

from __future__ import annotations

import math
from collections.abc import Generator, Sequence

import numpy as np
import simpy

from schedlab.model.job import Job
from schedlab.model.records import Status, job_record
from schedlab.processes.server import JobQueue, Server

__all__ = ["NetworkServer"]


class _StartingQueue(JobQueue):
    """A :class:`JobQueue` that tells its server the moment it hands the head job over."""

    def __init__(self, env: simpy.Environment, server: NetworkServer) -> None:
        super().__init__(env, server.fits)
        self.server = server

    def _do_get(self, event):  # type: ignore[no-untyped-def, override]
        items = self.items
        if items and self.server.fits(items[0]):
            job = items.popleft()
            self.server._started(job)  # before the server process resumes: loads and counts see it now
            event.succeed(job)

    def take(self, job: Job) -> None:
        """Remove waiting ``job``; a free server looks at the new head at once."""
        items = self.items
        if items and items[0] is job:  # the agents only ever take the head
            items.popleft()
        else:
            items.remove(job)
        if self.server.running is None:
            self._trigger_get(None)

    def add(self, job: Job, front: bool = False) -> None:
        """Put ``job`` in at once, at the front or the back, and let a waiting server take it.

        What ``put`` does, less the put event: inside a step's phases nothing waits
        on a put (the queue is unbounded), and a step moves tens of jobs.
        """
        items = self.items
        if front:
            items.appendleft(job)
        elif items:
            # Behind others: the head is unchanged. An idle server with a queue is one whose
            # head does not fit (capacities never change), so there is nothing to hand over;
            # not asking again saves a fits() per arrival at a blocked server.
            items.append(job)
            return
        else:
            items.append(job)
        if self.server.running is None:  # a busy server is not waiting on a get
            self._trigger_get(None)


class NetworkServer(Server):
    """A :class:`Server` whose queue and running job can be cleared between runs.

    Parameters
    ----------
    env
        The SimPy environment.
    capacities
        The K integer capacities; ``capacities[0]`` is the speed, the others are the
        resources ``"r2".."rK"`` a job's demands must fit.
    name
        Label for records.
    keep_records
        Keep the record of every completed job (``records``); off by default, since a
        learning experiment completes millions of jobs and only counts them.
    whole_steps
        Serve in whole steps (the default, the paper's time-stepped servers): a job of
        c cycles holds the server for ceil(c / speed) steps, so a server starts at most
        one job per step, at a step boundary. ``False`` serves in continuous time, c / speed.

    Notes
    -----
    ``running`` is set when the queue hands a job over, not when the server process
    resumes a moment later (same simulated time), so phases of the step that follow
    at that instant already see the job as running.
    """

    def __init__(
        self,
        env: simpy.Environment,
        capacities: Sequence[int],
        *,
        name: str = "server",
        keep_records: bool = False,
        whole_steps: bool = True,
    ) -> None:
        caps = [int(c) for c in capacities]
        if not caps or min(caps) < 1:
            raise ValueError(f"server {name!r}: capacities must be K >= 1 whole numbers >= 1, got {list(capacities)}")
        super().__init__(env, caps[0], {f"r{k + 1}": c for k, c in enumerate(caps[1:], start=1)}, name=name)
        self.capacity_vector = np.array(caps, dtype=np.int64)
        self.queue = _StartingQueue(env, self)  # the process has not started yet: it will use this queue
        self.running: Job | None = None
        self.keep_records = keep_records
        #: summed requirements of the jobs held here (waiting and running), per resource
        self.held = [0.0] * len(caps)
        self._caps = [float(c) for c in caps]
        self.whole_steps = whole_steps

    def duration(self, job: Job) -> float:
        """How long ``job`` holds this server: ceil(cycles / speed) steps, or cycles / speed."""
        d = job.runtime / self.speed
        return float(math.ceil(d)) if self.whole_steps else d

    def fits(self, job: Job) -> bool:
        """Capacity >= requirement for resources 2..K (the speed admits any job)."""
        caps = self.capacities
        for name, amount in job.demands.items():  # noqa: SIM110 (a loop is faster than all() on a generator)
            if amount > caps[name]:
                return False
        return True

    def submit(self, job: Job, front: bool = False) -> None:
        """Queue ``job`` at the back (arrivals) or the front (``front=True``: shipped-in jobs)."""
        self.queue.add(job, front)
        held = self.held
        held[0] += job.runtime
        for k, amount in enumerate(job.demands.values(), start=1):
            held[k] += amount

    def take(self, job: Job) -> None:
        """Remove waiting ``job`` from the queue (it is shipped away)."""
        self.queue.take(job)
        self._release(job)

    def _release(self, job: Job) -> None:
        held = self.held
        held[0] -= job.runtime
        for k, amount in enumerate(job.demands.values(), start=1):
            held[k] -= amount

    def load(self) -> float:
        """L_i of section 3.4: the mean over resources of (requirements held here) / capacity."""
        return sum(h / c for h, c in zip(self.held, self._caps, strict=True)) / len(self._caps)

    def _started(self, job: Job) -> None:
        now = self.env.now
        self.running = self.current = job
        self._current_start, self.current_end = now, now + self.duration(job)

    def _serve(self) -> Generator[simpy.Event, Job, None]:
        env = self.env
        while True:
            try:
                job = yield self.queue.get()
                yield env.timeout(self.duration(job))
            except simpy.Interrupt:  # cleared between runs: the job is dropped
                continue
            start = self._current_start
            self._release(job)
            self.running = self.current = None
            self.current_end = math.nan
            record = job_record(job, self.name, Status.COMPLETED, start=start, end=env.now, cpu_time=env.now - start)
            if self.keep_records:
                self.records.append(record)
            self.completed.emit(record)

    def clear(self) -> list[Job]:
        """Drop the queue and the running job (the end of a run); returns the dropped jobs."""
        dropped = list(self.queue.items)
        self.queue.items.clear()
        if self.running is not None:
            dropped.append(self.running)
            self.running = self.current = None
            self.current_end = math.nan
            self.process.interrupt("cleared")
        self.records.clear()
        self.held = [0.0] * len(self.held)
        return dropped

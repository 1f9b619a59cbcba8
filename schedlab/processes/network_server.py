"""The servers of seed 004: FIFO, one job at a time, a blocking head job, cleared between runs.

A :class:`NetworkServer` is a :class:`~schedlab.processes.server.Server` that starts its
head job the moment it is free and the head fits (a free server waits on a plain event
that a new head fires), keeps a running sum of the requirements it holds (the load of
section 3.4), serves in whole steps, and can be cleared.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Sequence

import numpy as np
import simpy

from schedlab.model.core.job import Job
from schedlab.model.records.job_record import Status
from schedlab.model.records.table import job_record
from schedlab.processes.server import JobQueue, Server

__all__ = ["NetworkServer"]


class _StartingQueue(JobQueue):
    """A :class:`JobQueue` whose :meth:`take` lets an idle server look at the new head at once.

    Jobs go in through :meth:`NetworkServer.submit` and the server takes them from
    ``items`` itself, so no put or get event is made: inside a step's phases nothing
    waits on a put (the queue is unbounded), and a step moves tens of jobs.
    """

    def __init__(self, env: simpy.Environment, server: NetworkServer) -> None:
        super().__init__(env, server.fits)
        self.server = server

    def take(self, job: Job) -> None:
        """Remove waiting ``job``; a free server looks at the new head at once."""
        items = self.items
        if items and items[0] is job:  # the agents only ever take the head
            items.popleft()
        else:
            items.remove(job)
        if self.server.running is None:
            self.server._offer()


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
    ``running`` is set when a job is handed to a free server, not when the server
    process resumes a moment later (same simulated time), so phases of the step that
    follow at that instant already see the job as running. Jobs go in through
    :meth:`submit` and out through :meth:`take`; a ``put`` or ``get`` on ``queue``
    itself would bypass the server.
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
        #: what ``held`` returns: None until it is first read (see :attr:`held`)
        self._held: list[float] | None = None
        self._caps = [float(c) for c in caps]
        self.whole_steps = whole_steps
        #: the network's own bookkeeping of a completion, ``(job, start, end)``, before the ``completed`` signal
        self.network_completed: Callable[[Job, float, float], None] | None = None
        #: the event a free server waits on (None while it serves, or before its process starts)
        self._idle: simpy.Event | None = None
        self._duration = math.nan

    def duration(self, job: Job) -> float:
        """How long ``job`` holds this server: ceil(cycles / speed) steps, or cycles / speed."""
        d = job.runtime / self.speed
        return float(math.ceil(d)) if self.whole_steps else d

    def fits(self, job: Job) -> bool:
        """Capacity >= requirement for resources 2..K (the speed admits any job)."""
        caps, demands = self.capacities, job.demands
        # by key, not .items(): 0.19 against 0.32 us for the paper's one demand (timeit)
        for name in demands:  # noqa: SIM110 (a loop is faster than all() on a generator)
            if demands[name] > caps[name]:
                return False
        return True

    def submit(self, job: Job, front: bool = False) -> None:
        """Queue ``job`` at the back (arrivals) or the front (``front=True``: shipped-in jobs)."""
        items = self.queue.items
        if front:
            items.appendleft(job)
            new_head = True
        else:
            # Behind others the head is unchanged. An idle server with a queue is one whose head
            # does not fit (capacities never change), so there is nothing to hand over; not
            # asking again saves a fits() per arrival at a blocked server.
            new_head = not items
            items.append(job)
        if new_head and self.running is None:  # a busy server is not waiting for work
            self._offer()
        held = self._held
        if held is not None:  # written out, not a call: once per job a server receives
            held[0] += job.runtime
            k = 1  # a counter, not enumerate(): 0.34 against 0.70 us for one demand (timeit)
            for amount in job.demands.values():
                held[k] += amount
                k += 1

    def take(self, job: Job) -> None:
        """Remove waiting ``job`` from the queue (it is shipped away)."""
        self.queue.take(job)
        if self._held is not None:
            self._release(job)

    @property
    def held(self) -> list[float]:
        """The summed requirements of the jobs held here (waiting and running), per resource.

        Kept up to date, job by job, from the first read on (load balancing reads it at
        every step); before that nobody needs it, and a run under the agents' vectors
        never reads it. Keeping it from the start (two sums per job per server it visits)
        makes a RAND run of ``benchmarks/collectives.py``'s network 6-18% slower: 0.78-0.90
        against 0.67-0.85 s of CPU for 10 runs (best of 5, the two interleaved in one
        process, five times on the loaded 2-core machine). The first read sums the queue and the running job: the
        network's requirements are whole numbers, so the sums are exact and equal to
        those kept from the start.
        """
        if self._held is None:
            held = [0.0] * len(self._caps)
            for job in [*self.queue.items, *([self.running] if self.running is not None else [])]:
                held[0] += job.runtime
                for k, amount in enumerate(job.demands.values(), start=1):
                    held[k] += amount
            self._held = held
        return self._held

    def _release(self, job: Job) -> None:
        """Take ``job``'s requirements away from ``held`` (it leaves: shipped away or completed)."""
        held = self._held
        held[0] -= job.runtime
        k = 1
        for amount in job.demands.values():
            held[k] -= amount
            k += 1

    def load(self) -> float:
        """L_i of section 3.4: the mean over resources of (requirements held here) / capacity."""
        return sum(h / c for h, c in zip(self.held, self._caps, strict=True)) / len(self._caps)

    def _started(self, job: Job) -> None:
        now = self.env.now
        self.running = self.current = job
        self._duration = duration = self.duration(job)
        self._current_start, self.current_end = now, now + duration

    def _offer(self) -> None:
        """The server is free: hand it the head job if it fits (the process resumes with it at this instant)."""
        idle = self._idle
        if idle is None:  # the process has not started yet: it looks at the queue when it does
            return
        items = self.queue.items
        if items and self.fits(items[0]):
            job = items.popleft()
            self._started(job)  # before the process resumes: loads and counts see it now
            self._idle = None
            idle.succeed(job)

    def _serve(self) -> Generator[simpy.Event, Job, None]:
        # A free server waits on a plain event that _offer() succeeds, not on the queue's get():
        # a StoreGet books itself in the store's queues, and a wake-up through it cost 4.9 us
        # against 0.8 us (a 100,000 hand-over ping-pong, best of 3, the 2-core dev machine);
        # one that finishes a job with a fitting head starts it without any event.
        env, items, fits = self.env, self.queue.items, self.fits
        listeners, emit = self.completed._receivers, self.completed.emit
        while True:
            try:
                if items and fits(items[0]):
                    job = items.popleft()
                    self._started(job)
                else:
                    self._idle = wake = simpy.Event(env)
                    job = yield wake
                yield env.timeout(self._duration)
            except simpy.Interrupt:  # cleared between runs: the job is dropped
                self._idle = None
                continue
            start, end = self._current_start, env.now
            if self._held is not None:
                self._release(job)
            self.running = self.current = None
            self.current_end = math.nan
            if self.network_completed is not None:
                self.network_completed(job, start, end)
            if self.keep_records or listeners:  # most runs keep none and have no listener: no record
                record = job_record(job, self.name, Status.COMPLETED, start=start, end=end, cpu_time=end - start)
                if self.keep_records:
                    self.records.append(record)
                emit(record)

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
        if self._held is not None:
            self._held = [0.0] * len(self._held)
        return dropped

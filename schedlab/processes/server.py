"""The single-job FIFO server, one service loop for every queue of jobs (seeds 003 and 004).

A :class:`Server` serves one job at a time, first come first served; a job shipped in
from a neighbour may be put at the front. Its head job starts the moment the server is
free and the head fits, so a head job that does not fit blocks the server until
something (an agent shipping it away) takes it out. A job of length ``runtime`` takes
``runtime / speed``.

This is the one service loop. The grid's resources
(:class:`~schedlab.processes.grid.resources.GridServer`) and the server network's
servers (:class:`~schedlab.processes.network.server.NetworkServer`) extend it through
the hooks its docstring declares, as SimPy's resources extend ``BaseResource`` through
``_do_put`` and ``_do_get``. :class:`JobQueue` is the SimPy side on its own: a ``Store``
with front insertion and a head-of-line admission test, for ``put`` and ``get``.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Generator, Mapping
from typing import TYPE_CHECKING

import simpy
from simpy.core import BoundClass
from simpy.resources.store import StoreGet, StorePut

from schedlab.model.core.job import Job
from schedlab.model.records.job_record import JobRecord, Status
from schedlab.model.records.table import job_record
from schedlab.processes.signal import Signal
from schedlab.processes.tracing import tracer_of

__all__ = ["JobQueue", "Server", "ServerQueue"]


class QueuePut(StorePut):
    """A put that may go to the front of the queue."""

    def __init__(self, store: JobQueue, item: Job, front: bool = False) -> None:
        self.front = front
        super().__init__(store, item)


class JobQueue(simpy.Store):
    """A FIFO store of jobs with front insertion and a head-of-line admission test.

    ``get()`` succeeds only when the head job passes ``admits(job)``; :meth:`take`
    removes any waiting job (shipping it elsewhere) and lets a blocked getter look at
    the new head. Extends ``simpy.Store`` by overriding ``_do_put`` and ``_do_get``.
    """

    def __init__(self, env: simpy.Environment, admits: Callable[[Job], bool] = lambda job: True) -> None:
        super().__init__(env)
        self.items: deque[Job] = deque()  # type: ignore[assignment]  # simpy's list, as a deque: the head is taken often
        self.admits = admits

    if TYPE_CHECKING:  # what BoundClass makes of QueuePut, as simpy's own Store declares its put

        def put(self, item: Job, front: bool = False) -> QueuePut:  # type: ignore[override]  # as simpy's Store.put
            """Queue ``item`` at the back, or at the front with ``front=True``."""
            ...
    else:
        put = BoundClass(QueuePut)

    def _do_put(self, event: QueuePut) -> None:  # type: ignore[override]  # only QueuePuts reach it (put above)
        if event.front:
            self.items.appendleft(event.item)
        else:
            self.items.append(event.item)
        event.succeed()

    def _do_get(self, event: StoreGet) -> None:
        if self.items and self.admits(self.items[0]):
            event.succeed(self.items.popleft())

    @property
    def head(self) -> Job | None:
        """The first waiting job, or ``None``."""
        return self.items[0] if self.items else None

    def take(self, job: Job) -> None:
        """Remove waiting ``job`` (e.g. to ship it away) and re-check the head."""
        self.items.remove(job)
        self._trigger_get(None)

    def __len__(self) -> int:
        return len(self.items)


class ServerQueue(JobQueue):
    """A :class:`Server`'s queue: its ``put`` and ``take`` go through the server.

    ``queue.put(job)`` (a SimPy put event, through ``_do_put``) and ``queue.take(job)``
    are :meth:`Server.submit` and :meth:`Server.take`, so a free server sees its new
    head at once whichever way a job comes or goes. The server takes its jobs itself:
    ``get()`` is not for use on it.
    """

    def __init__(self, env: simpy.Environment, server: Server) -> None:
        super().__init__(env, server.fits)
        self.server = server

    def _do_put(self, event: QueuePut) -> None:  # type: ignore[override]  # only QueuePuts reach it (put above)
        self.server.submit(event.item, event.front)
        event.succeed()

    def take(self, job: Job) -> None:
        """Remove waiting ``job`` (:meth:`Server.take`)."""
        self.server.take(job)


class Server:
    """One job at a time, first come first served, at ``speed``; ``capacities`` gate admission.

    Parameters
    ----------
    env
        The SimPy environment.
    speed
        Processing speed: a job of length ``runtime`` takes ``runtime / speed``.
    capacities
        Named resource capacities; a job fits if each of its ``demands`` is within
        the capacity of that name (a demand on a resource the server lacks never fits).
    name
        Label for records and traces.

    Attributes
    ----------
    queue
        The waiting jobs, a :class:`ServerQueue` (``queue.items``, head first).
    current
        The job in service, or None; set the instant it is handed to the server.
    completed
        Signal emitted with each completed job's record at its completion time.
    records
        Records of completed jobs.

    Notes
    -----
    Extension points. A subclass changes the service by overriding these, and the one
    loop (``_serve``) calls them at the moments named; it overrides nothing else of it:

    - ``fits(job) -> bool``: may the head job start now (default: each demand within
      the capacity of that name)? Asked when a free server has a new head. A server
      that admits every job sets the class attribute ``admits_all = True`` and is
      never asked.
    - ``duration(job) -> float``: how long ``job`` holds the server (default
      ``job.runtime / speed``), asked as it starts.
    - ``_finish(job, start, end)``: a completion's bookkeeping, at its time, once
      ``current`` is cleared (default: keep the record in ``records``, trace it, emit
      it on ``completed``).
    - ``received``: None, or a callable given each job :meth:`submit` queues or starts
      (a subclass that keeps running sums of what it holds sets it).
    - ``take(job)`` and ``clear()``: a subclass that keeps such sums extends them.

    A free server waits on a plain ``simpy.Event`` that :meth:`submit` or :meth:`take`
    succeeds with the new head, not on the queue's ``get()``: a ``StoreGet`` books
    itself in the store's queues and re-checks them when it fires, several times the
    cost of a hand-over (issue 16). A server that finishes a job with a fitting head
    starts it without any event. Times, order and records are those of a ``get()``
    loop: a job starts the instant the previous one ends or it arrives.
    """

    #: every job fits: the loop never asks ``fits`` (the grid's resources)
    admits_all = False

    def __init__(
        self,
        env: simpy.Environment,
        speed: float = 1.0,
        capacities: Mapping[str, float] | None = None,
        *,
        name: str = "server",
    ) -> None:
        if not (math.isfinite(speed) and speed > 0):
            raise ValueError(f"server {name!r}: speed must be finite and > 0, got {speed!r}")
        self.env = env
        self.speed = float(speed)
        self.capacities = dict(capacities or {})
        self.name = name
        self.queue = ServerQueue(env, self)
        self.current: Job | None = None
        self.current_end = math.nan
        self._current_start = math.nan
        self._duration = math.nan
        #: the event a free server waits on (None while it serves, or before its process starts)
        self._idle: simpy.Event | None = None
        #: the hook given each job submit() queues or starts (see the class's notes)
        self.received: Callable[[Job], object] | None = None
        self.records: list[JobRecord] = []
        self.completed: Signal[JobRecord] = Signal()
        self._trace = tracer_of(env)
        # the base duration is computed in place, one call less per job; a subclass's own is asked
        self._own_duration = type(self).duration is not Server.duration
        self.process = env.process(self._serve())

    def fits(self, job: Job) -> bool:
        """Each of ``job``'s positive demands within the capacity of that name."""
        caps = self.capacities
        return all(a <= caps.get(r, 0.0) for r, a in job.demands.items() if a > 0)

    def duration(self, job: Job) -> float:
        """How long ``job`` holds the server: ``runtime / speed``."""
        return job.runtime / self.speed

    def submit(self, job: Job, front: bool = False) -> None:
        """Queue ``job`` at the back (arrivals) or the front (``front=True``: shipped-in jobs)."""
        if self._trace is not None:
            self._trace(self.env.now, self.name, "submit", f"job {job.id} at the {'front' if front else 'back'}")
        items = self.queue.items
        if front:
            items.appendleft(job)
            new_head = True
        else:
            # Behind others the head is unchanged: a free server with a queue is one whose head does
            # not fit (capacities never change), so there is nothing to hand over.
            new_head = not items
            items.append(job)
        if new_head and self._idle is not None:
            self._offer()
        if self.received is not None:
            self.received(job)

    def take(self, job: Job) -> None:
        """Remove waiting ``job`` (e.g. to ship it away); a free server looks at the new head at once."""
        items = self.queue.items
        if items and items[0] is job:  # the agents only ever take the head
            items.popleft()
        else:
            items.remove(job)
        if self._idle is not None:
            self._offer()

    def clear(self) -> list[Job]:
        """Drop the queue and the job in service (the end of a run); returns the dropped jobs, waiting first."""
        dropped = list(self.queue.items)
        self.queue.items.clear()
        if self.current is not None:
            dropped.append(self.current)
            self.current = None
            self.current_end = math.nan
            self.process.interrupt("cleared")
        return dropped

    def queued_work(self) -> float:
        """Total length of the jobs here, the one in service counted by what is left of it."""
        left = 0.0
        if self.current is not None:
            left = (self.current_end - self.env.now) * self.speed
        return left + sum(j.runtime for j in self.queue.items)

    def load(self) -> float:
        """Load of this resource, LoR = queued length / speed (seed 003 eq. 2)."""
        return self.queued_work() / self.speed

    def _offer(self) -> None:
        """The server is free: hand it the head job if it fits (its process resumes with it at this instant)."""
        items = self.queue.items
        if items and (self.admits_all or self.fits(items[0])):
            job = items.popleft()
            idle, self._idle = self._idle, None
            self._start(job)  # before the process resumes: loads and counts see the job now
            idle.succeed(job)  # type: ignore[union-attr]  # the server is free: its process waits on _idle

    def _start(self, job: Job) -> None:
        now = self.env.now
        self.current, self._current_start = job, now
        self._duration = duration = self.duration(job) if self._own_duration else job.runtime / self.speed
        self.current_end = now + duration
        if self._trace is not None:
            self._trace(now, self.name, "start", f"job {job.id}")

    def _serve(self) -> Generator[simpy.Event, Job, None]:
        env, items, nan = self.env, self.queue.items, math.nan
        fits = None if self.admits_all else self.fits
        start, finish = self._start, self._finish
        while True:
            try:
                if items and (fits is None or fits(items[0])):
                    job = items.popleft()
                    start(job)
                else:
                    self._idle = wake = simpy.Event(env)
                    job = yield wake  # _offer() has started it
                yield env.timeout(self._duration)
            except simpy.Interrupt:  # cleared (clear()): the job is dropped
                self._idle = None
                continue
            begun, end = self._current_start, env.now
            self.current, self.current_end = None, nan
            finish(job, begun, end)

    def _finish(self, job: Job, start: float, end: float) -> None:
        record = job_record(job, self.name, Status.COMPLETED, start=start, end=end, cpu_time=end - start)
        self.records.append(record)
        if self._trace is not None:
            self._trace(end, self.name, "complete", f"job {job.id}")
        self.completed.emit(record)

    def snapshot(self) -> list[JobRecord]:
        """Records of the jobs still here (``RUNNING`` or ``WAITING``), as of now."""
        out = [job_record(j, self.name, Status.WAITING) for j in self.queue.items]
        if self.current is not None:
            start = self._current_start
            out.insert(
                0, job_record(self.current, self.name, Status.RUNNING, start=start, cpu_time=self.env.now - start)
            )
        return out

    def all_records(self) -> list[JobRecord]:
        """The completed jobs' records, then those of the jobs still here."""
        return self.records + self.snapshot()

"""A single-job FIFO server with a speed and a capacity vector (seeds 003 and 004).

Jobs wait in a :class:`JobQueue`, a SimPy ``Store`` whose get only hands over the head
job once it fits the server, so a head job that does not fit blocks the server until
something (an agent shipping it away) takes it out. Jobs shipped in from a neighbour
may be put at the front. A job of length ``runtime`` takes ``runtime / speed``.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Generator, Mapping

import simpy
from simpy.core import BoundClass
from simpy.resources.store import StoreGet, StorePut

from schedlab.model.core.job import Job
from schedlab.model.records.job_record import JobRecord, Status
from schedlab.model.records.table import job_record
from schedlab.processes.signal import Signal
from schedlab.processes.tracing import tracer_of

__all__ = ["JobQueue", "Server"]


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
        self.items: deque[Job] = deque()  # type: ignore[assignment]
        self.admits = admits

    put = BoundClass(QueuePut)  # type: ignore[assignment]

    def _do_put(self, event: QueuePut) -> None:  # type: ignore[override]
        if event.front:
            self.items.appendleft(event.item)
        else:
            self.items.append(event.item)
        event.succeed()

    def _do_get(self, event: StoreGet) -> None:  # type: ignore[override]
        if self.items and self.admits(self.items[0]):
            event.succeed(self.items.popleft())

    @property
    def head(self) -> Job | None:
        return self.items[0] if self.items else None

    def take(self, job: Job) -> None:
        """Remove waiting ``job`` (e.g. to ship it away) and re-check the head."""
        self.items.remove(job)
        self._trigger_get(None)

    def __len__(self) -> int:
        return len(self.items)


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
    completed
        Signal emitted with each completed job's record at its completion time.
    records
        Records of completed jobs.
    """

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
        self.queue = JobQueue(env, self.fits)
        self.current: Job | None = None
        self.current_end = math.nan
        self._current_start = math.nan
        self.records: list[JobRecord] = []
        self.completed: Signal[JobRecord] = Signal()
        self._trace = tracer_of(env)
        self.process = env.process(self._serve())

    def fits(self, job: Job) -> bool:
        caps = self.capacities
        return all(a <= caps.get(r, 0.0) for r, a in job.demands.items() if a > 0)

    def submit(self, job: Job, front: bool = False) -> None:
        """Queue ``job`` at the back (arrivals) or the front (``front=True``: shipped-in jobs)."""
        self.queue.put(job, front)
        if self._trace is not None:
            where = "front" if front else "back"
            self._trace(self.env.now, self.name, "submit", f"job {job.id} at the {where}")

    def queued_work(self) -> float:
        """Total length of the jobs here, the one in service counted by what is left of it."""
        left = 0.0
        if self.current is not None:
            left = (self.current_end - self.env.now) * self.speed
        return left + sum(j.runtime for j in self.queue.items)

    def load(self) -> float:
        """Load of this resource, LoR = queued length / speed (seed 003 eq. 2)."""
        return self.queued_work() / self.speed

    def _serve(self) -> Generator[simpy.Event, Job, None]:
        env = self.env
        while True:
            job = yield self.queue.get()
            self.current, self._current_start = job, env.now
            self.current_end = env.now + job.runtime / self.speed
            if self._trace is not None:
                self._trace(env.now, self.name, "start", f"job {job.id}")
            yield env.timeout(job.runtime / self.speed)
            start, end = self._current_start, env.now
            self.current, self.current_end = None, math.nan
            record = job_record(job, self.name, Status.COMPLETED, start=start, end=end, cpu_time=end - start)
            self.records.append(record)
            if self._trace is not None:
                self._trace(env.now, self.name, "complete", f"job {job.id}")
            self.completed.emit(record)

    def snapshot(self) -> list[JobRecord]:
        """Records of the jobs still here (``RUNNING`` or ``WAITING``), as of now."""
        out = [job_record(j, self.name, Status.WAITING) for j in self.queue.items]
        if self.current is not None:
            start = self._current_start
            out.insert(0, job_record(self.current, self.name, Status.RUNNING, start=start,
                                     cpu_time=self.env.now - start))
        return out

    def all_records(self) -> list[JobRecord]:
        return self.records + self.snapshot()

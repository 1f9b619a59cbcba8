"""The servers of seed 004: FIFO, one job at a time, a blocking head job, cleared between runs.

A :class:`NetworkServer` is a :class:`~schedlab.processes.server.Server` (its one service
loop: the head job starts the moment the server is free and the head fits) that serves in
whole steps, keeps a running sum of the requirements it holds (the load of section 3.4),
and can be cleared.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import simpy

from schedlab.model.core.job import Job
from schedlab.model.records.job_record import Status
from schedlab.model.records.table import job_record
from schedlab.processes.server import Server

__all__ = ["NetworkServer"]


class NetworkServer(Server):
    """A :class:`Server` with a capacity vector, service in whole steps, and the held sums of section 3.4.

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
    It extends :class:`Server` through its hooks: ``fits`` (the capacity vector),
    ``duration`` (whole steps), ``_finish`` (the network's bookkeeping, then the
    record), ``received``, ``take`` and ``clear`` (the held sums). ``running`` is the
    job in service (``current``), set when it is handed to a free server, so phases of
    the step that follow at that instant already see it as running.
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
        self.keep_records = keep_records
        #: what ``held`` returns: None until it is first read (see :attr:`held`)
        self._held: list[float] | None = None
        self._caps = [float(c) for c in caps]
        self.whole_steps = whole_steps
        #: the network's own bookkeeping of a completion, ``(job, start, end)``, before the ``completed`` signal
        self.network_completed: Callable[[Job, float, float], None] | None = None

    @property
    def running(self) -> Job | None:
        """The job in service, or None (the server's ``current``)."""
        return self.current

    def duration(self, job: Job) -> float:
        """How long ``job`` holds this server: ceil(cycles / speed) steps, or cycles / speed."""
        d = job.runtime / self.speed
        return float(math.ceil(d)) if self.whole_steps else d

    def fits(self, job: Job) -> bool:
        """Capacity >= requirement for resources 2..K (the speed admits any job)."""
        caps, demands = self.capacities, job.demands
        # by key, not .items(): cheaper for the paper's one demand (measured: benchmarks/README.md)
        for name in demands:  # noqa: SIM110 (a loop is faster than all() on a generator)
            if demands[name] > caps[name]:
                return False
        return True

    def take(self, job: Job) -> None:
        """Remove waiting ``job`` from the queue (it is shipped away)."""
        super().take(job)
        if self._held is not None:
            self._release(job)

    @property
    def held(self) -> list[float]:
        """The summed requirements of the jobs held here (waiting and running), per resource.

        Kept up to date, job by job, from the first read on (load balancing reads it at
        every step); before that nobody needs it, and a run under the agents' vectors
        never reads it. Keeping it from the start (two sums per job per server it visits)
        makes a RAND run of ``benchmarks/collectives.py``'s network measurably slower
        (measured: benchmarks/README.md). The first read sums the queue and the running job: the
        network's requirements are whole numbers, so the sums are exact and equal to
        those kept from the start.
        """
        if self._held is None:
            held = [0.0] * len(self._caps)
            for job in [*self.queue.items, *([self.current] if self.current is not None else [])]:
                held[0] += job.runtime
                for k, amount in enumerate(job.demands.values(), start=1):
                    held[k] += amount
            self._held = held
            self.received = self._hold  # from now on, each job received is added as it comes
        return self._held

    def _hold(self, job: Job) -> None:
        """Add ``job``'s requirements to ``held`` (it has come: queued or started)."""
        held = self._held
        assert held is not None, "only called while the sums are kept"
        held[0] += job.runtime
        k = 1  # a counter, not enumerate(): cheaper for one demand (measured: benchmarks/README.md)
        for amount in job.demands.values():
            held[k] += amount
            k += 1

    def _release(self, job: Job) -> None:
        """Take ``job``'s requirements away from ``held`` (it leaves: shipped away or completed)."""
        held = self._held
        assert held is not None, "only called while the sums are kept"
        held[0] -= job.runtime
        k = 1
        for amount in job.demands.values():
            held[k] -= amount
            k += 1

    def load(self) -> float:
        """L_i of section 3.4: the mean over resources of (requirements held here) / capacity."""
        return sum(h / c for h, c in zip(self.held, self._caps, strict=True)) / len(self._caps)

    def _finish(self, job: Job, start: float, end: float) -> None:
        if self._held is not None:
            self._release(job)
        if self.network_completed is not None:
            self.network_completed(job, start, end)
        completed = self.completed
        if self.keep_records or completed.receivers:  # most runs keep none and have no listener: no record
            record = job_record(job, self.name, Status.COMPLETED, start=start, end=end, cpu_time=end - start)
            if self.keep_records:
                self.records.append(record)
            completed.emit(record)

    def clear(self) -> list[Job]:
        """Drop the queue and the running job (the end of a run); returns the dropped jobs."""
        dropped = super().clear()
        self.records.clear()
        if self._held is not None:
            self._held = [0.0] * len(self._held)
        return dropped

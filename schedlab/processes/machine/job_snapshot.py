"""The records of a machine's jobs still there: running or waiting, as of now.

A job's :class:`~schedlab.model.records.job_record.JobRecord` is written to the machine's
``records`` when it leaves; :meth:`JobSnapshot.snapshot` makes one for each job still
running (``RUNNING``, its CPU time so far, the ids it holds) or waiting (``WAITING``), so
that a run stopped at a time gives every job's state. :meth:`JobSnapshot.all_records` is
both, the records a :class:`~schedlab.processes.model.Model` collects.

:class:`JobSnapshot` is the part of :class:`~schedlab.processes.machine.machine.Machine` that
makes them (a mix-in: the machine has the state it reads).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import simpy

from schedlab.model.core.job import Job
from schedlab.model.records.job_record import NO_IDS, JobRecord, Status
from schedlab.model.records.log import RecordLog
from schedlab.model.records.table import job_record
from schedlab.processes.machine.running import Running, RunningSet

__all__ = ["JobSnapshot"]


class JobSnapshot:
    """A mix-in of :class:`~schedlab.processes.machine.machine.Machine`: records of the jobs running or waiting."""

    env: simpy.Environment
    name: str
    waiting: list[Job]
    running: RunningSet
    records: RecordLog
    _suspended: dict[Job, Running]

    if TYPE_CHECKING:  # the host's methods (declared for mypy only: a mix-in ahead of them in the MRO)

        def restarts(self, job: Job) -> int:
            """Times ``job`` was killed by a node failure and requeued (NodeFaults')."""
            ...

        def _run_allocation(self, job: Job) -> str: ...  # ProcessorIds'

    def _record(self, job: Job, run: Running | None, status: Status) -> JobRecord:
        # a waiting job holds no ids; a running one those of its current run
        restarts = self.restarts(job)
        if run is None:
            return job_record(job, self.name, status, restarts=restarts)
        cpu_time = run.cpu_time
        allocation = NO_IDS
        if status is Status.RUNNING:
            cpu_time += (self.env.now - run.started) * run.cpus
            allocation = self._run_allocation(job)
        return job_record(
            job,
            self.name,
            status,
            start=run.first_start,
            end=self.env.now if status is Status.COMPLETED else math.nan,
            cpu_time=cpu_time,
            preemptions=run.preemptions,
            resizes=run.resizes,
            restarts=restarts,
            allocation=allocation,
        )

    def snapshot(self) -> list[JobRecord]:
        """Records of the jobs still here (``RUNNING`` or ``WAITING``), as of now."""
        out = [self._record(r.job, r, Status.RUNNING) for r in self.running]
        out += [self._record(j, self._suspended.get(j), Status.WAITING) for j in self.waiting]
        return out

    def all_records(self) -> list[JobRecord]:
        """Completed and rejected jobs, then those still running or waiting."""
        return [*self.records, *self.snapshot()]

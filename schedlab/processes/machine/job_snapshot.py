"""The records of a machine's jobs still there: running or waiting, as of now.

A job's :class:`~schedlab.model.records.job_record.JobRecord` is written to the machine's
``records`` when it leaves; :func:`snapshot` makes one for each job still
running (``RUNNING``, its CPU time so far, the ids it holds) or waiting (``WAITING``), so
that a run stopped at a time gives every job's state: the machine's ``snapshot()``, and
the second half of its ``all_records()``, the records a
:class:`~schedlab.processes.model.Model` collects.
"""

from __future__ import annotations

import math

from schedlab.model.core.job import Job
from schedlab.model.records.job_record import NO_IDS, JobRecord, Status
from schedlab.model.records.table import job_record
from schedlab.processes.machine.parts_view import PartsView
from schedlab.processes.machine.running import Running

__all__ = ["snapshot"]


def _record(machine: PartsView, job: Job, run: Running | None, status: Status) -> JobRecord:
    # a waiting job holds no ids; a running one those of its current run
    restarts = machine.failures.restarts(job)
    if run is None:
        return job_record(job, machine.name, status, restarts=restarts)
    now = machine.env.now
    cpu_time = run.cpu_time
    allocation = NO_IDS
    if status is Status.RUNNING:
        cpu_time += (now - run.started) * run.cpus
        allocation = machine.ids.run_allocation(job)
    return job_record(
        job,
        machine.name,
        status,
        start=run.first_start,
        end=now if status is Status.COMPLETED else math.nan,
        cpu_time=cpu_time,
        preemptions=run.preemptions,
        resizes=run.resizes,
        restarts=restarts,
        allocation=allocation,
    )


def snapshot(machine: PartsView) -> list[JobRecord]:
    """Records of the jobs still on ``machine`` (``RUNNING`` or ``WAITING``), as of now."""
    out = [_record(machine, r.job, r, Status.RUNNING) for r in machine.running]
    out += [_record(machine, j, machine._suspended.get(j), Status.WAITING) for j in machine.waiting]
    return out

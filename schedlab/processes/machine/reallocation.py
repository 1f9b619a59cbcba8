"""Preempting, squeezing and growing a running job: its work so far booked, its end planned again.

A *preempted* job gives all its CPUs back and waits, at its place in arrival order, to
resume where it left off; a *squeezed* job runs on fewer CPUs than it asked for, at rate
``allocated / requested``, so its execution time is ``L * N_I / min(N_A, N_I)`` (seed 000,
section 5); a squeezed job can be *grown* back. At each change the job's
:class:`~schedlab.processes.machine.running.Running` state books the work done so far, and
its old end event becomes stale: a resized job gets a new one at its new rate
(:mod:`~schedlab.processes.machine.job_end`), a preempted one when it starts again. A job
with a process body is interrupted instead (:mod:`~schedlab.processes.machine.job_body`).

:class:`Reallocation` is a part the machine holds (``machine.reallocation``); its
``preempt`` and ``resize`` (and the policy's ``Preempt`` and ``Resize``) call it.
"""

from __future__ import annotations

import bisect

from schedlab.model.core.fields import is_whole
from schedlab.model.core.job import Job
from schedlab.processes.machine.decisions import PolicyError
from schedlab.processes.machine.job_end import _Allocated  # private: the event is no API
from schedlab.processes.machine.parts_view import PartsView

__all__ = ["Reallocation"]


class Reallocation:
    """Preempts, squeezes and grows ``machine``'s running jobs (its ``reallocation``)."""

    def __init__(self, machine: PartsView) -> None:
        self.machine = machine

    def preempt(self, job: Job) -> None:
        """Suspend running ``job``: its CPUs are freed, it waits to resume where it left off."""
        m = self.machine
        run = m._running_state(job)
        now = m.env.now
        m.cpu_time.account()
        run._book(now)
        m._release(run)
        run.cpus = 0
        run.preemptions += 1
        m.bodies.interrupt(run, "preempt")
        m._suspended[job] = run
        # Back to its place in arrival order; the queue is sorted by arrival, so bisect.
        arrival = m._arrival_seq
        m.waiting.insert(bisect.bisect(m.waiting, run.seq, key=arrival.__getitem__), job)
        run.event = None  # its planned end is stale now; start() plans a new one
        if m._trace is not None:
            m._trace(now, m.name, "preempt", f"job {job.id}, {run.remaining(now):.4g} ideal time left")

    def resize(self, job: Job, cpus: int) -> None:
        """Squeeze running ``job`` onto fewer CPUs, or grow it back (at most what it asked for): a new end."""
        m = self.machine
        run = m._running_state(job)
        if not is_whole(cpus, 1) or cpus > job.cpus:
            raise PolicyError(f"machine {m.name!r}: job {job.id} asks for {job.cpus} cpus; cannot resize to {cpus}")
        if cpus - run.cpus > m.free:
            raise PolicyError(
                f"machine {m.name!r}: growing job {job.id} to {cpus} cpus needs {cpus - run.cpus} more, {m.free} free"
            )
        if cpus == run.cpus:
            return
        now = m.env.now
        m.cpu_time.account()
        run._book(now)
        m.free -= cpus - run.cpus
        run.cpus = int(cpus)
        run.resizes += 1
        # re-plan the end at the new rate (a body: a new incarnation on the new allocation)
        run.event = _Allocated(m.env, run, m.ends.plan) if job.__class__ is Job else m.bodies.allocated(run, "resize")
        if m._trace is not None:
            m._trace(now, m.name, "resize", f"job {job.id} to {cpus}/{job.cpus} cpus")

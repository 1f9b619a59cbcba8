"""How a machine ends its running jobs: one SimPy ``Timeout`` per allocation, whose callback completes or kills the job.

A job's end is one SimPy ``Timeout`` whose callback completes the job (or kills it at
its time limit). The job is not a process of its own. Every running job could be a
SimPy process that yields ``timeout(remaining)`` and is interrupted at each change of
its allocation, and until issue 16 each one was. That costs SimPy an ``Initialize``
event, a termination event, a generator and two resumes per job: half the events this
model schedules, for no behaviour the callback lacks. Each change of allocation gives
the job a new end event (``Running.event``). An end event that is no longer the job's
is stale (the job was preempted or resized after it was planned) and does nothing when
it fires.

The order of events is unchanged. A Timeout made inside ``start()`` would be ordered
before the events that the rest of the current callback schedules for the same future
time. One such event is the source's next arrival, and with a log's whole seconds that
tie is common. A process's Timeout, by contrast, was made when SimPy took its urgent
``Initialize`` event. So ``start()`` and ``resize()`` schedule a small urgent event,
:class:`_Allocated`, at the same point of the event list, and its callback makes the
Timeout. Every seed scenario's results were identical, bit for bit (the quick runs'
digests, now ``tools/digests.py``).

Without the process per job, a ``Machine`` keeps up with the plain-SimPy model of
:mod:`schedlab.processes.machine.simpy_machine`; the urgent event is the price of the
unchanged order (both measured: benchmarks/README.md, "Measured choices in the code").

:class:`JobEnding` is the part of :class:`~schedlab.processes.machine.machine.Machine` that
does this (a mix-in: the machine has the state it reads).
"""

from __future__ import annotations

import math

import simpy
from simpy.events import NORMAL, URGENT, EventPriority, Timeout

from schedlab.model.core.job import Job
from schedlab.model.records.job_record import NO_IDS, JobRecord, Status
from schedlab.model.records.log import RecordLog
from schedlab.model.records.table import job_record
from schedlab.processes.machine.running import Running, RunningSet
from schedlab.processes.signal import Signal
from schedlab.processes.tracing import Tracer, step_label

__all__ = ["JobEnding"]

#: priority of a job's end under ``Machine(ends_last=True)``: after the instant's NORMAL events (arrivals)
LATE = EventPriority(NORMAL + 1)

#: relative slack within which a job's end and its time limit count as the same time
_ROUNDING = 1e-9


@step_label("CPUs allocated to {job}")
class _Allocated(simpy.Event):
    """A job got (new) CPUs: due now, urgent; its callback schedules the job's end.

    It stands exactly where SimPy's ``Initialize`` event would stand had the job been
    a process started (or interrupted) at this point, so the end is scheduled at the
    same point of the event order: after everything the current callback schedules.
    Its value is the job's :class:`Running` state.
    """

    def __init__(self, env: simpy.Environment, run: Running, plan: simpy.events.EventCallback) -> None:
        # what Event.__init__ and succeed() would do, inlined as SimPy's own Initialize does
        self.env = env
        self.callbacks = [plan]
        self._value = run
        self._ok = True
        env.schedule(self, URGENT)


class JobEnding:
    """The end of a machine's running jobs: plan it at each allocation, then complete or kill the job.

    A mix-in of :class:`~schedlab.processes.machine.machine.Machine`, which has the state below
    and calls :meth:`_plan_end` through :class:`_Allocated`.
    """

    env: simpy.Environment
    name: str
    capacity: int
    free: int
    used: dict[str, float]
    running: RunningSet
    records: RecordLog
    completed: Signal[JobRecord]
    _arrival_seq: dict[Job, int]
    _busy_area: float
    _last_change: float
    _trace: Tracer | None
    _end_priority: EventPriority

    def decide(self) -> None:
        """Ask the policy for its actions: the host Machine's ``decide``, declared here for the mix-in."""
        raise NotImplementedError

    def _account(self) -> None:  # CapacityAccount's
        raise NotImplementedError

    @step_label("plans the end of {job}")
    def _plan_end(self, event: simpy.Event) -> None:
        """``_Allocated``'s callback: schedule the end of the job's current allocation."""
        run: Running = event._value  # SimPy's field behind .value (a property call)
        if run.event is not event:
            return  # preempted, or resized again, at the instant it got these CPUs
        to_finish = run._remaining * run.job.cpus / run.cpus
        to_limit = run.limit - run.run_time  # inf - x = inf without a limit
        # A job that finishes at its limit completes. "At" allows float rounding: a preempted
        # job's run time and remaining work are sums of booked pieces, an ulp or so apart.
        if to_finish - to_limit > _ROUNDING * to_limit:
            # (max: a job preempted at the very instant of its limit may be an ulp past it)
            delay, then = max(0.0, to_limit), self._kill_at_limit
        else:
            delay, then = to_finish, self._complete
        end: simpy.Event  # a Timeout, or a plain Event scheduled by hand at LATE
        if self._end_priority == NORMAL:
            end = Timeout(self.env, delay, run)
        else:  # what Timeout does, at the later priority: after the instant's arrivals
            end = simpy.Event(self.env)
            end._ok, end._value = True, run
            self.env.schedule(end, self._end_priority, delay)
        end.callbacks.append(then)
        run.event = end

    @step_label("completes {job}")
    def _complete(self, event: simpy.Event) -> None:
        """The job's work is done: it leaves with a ``COMPLETED`` record."""
        run: Running = event._value
        if run.event is not event:
            return  # stale: planned before a preemption or resize
        now = self.env.now
        self._busy_area += (self.capacity - self.free) * (now - self._last_change)  # _account()
        self._last_change = now
        # The final stretch is by definition the rest of the work: no float residue.
        run.work_done += run._remaining
        run.cpu_time += (now - run.started) * run.cpus
        run._remaining = 0.0
        self._leave(run, Status.COMPLETED, now)

    @step_label("kills {job} at its time limit")
    def _kill_at_limit(self, event: simpy.Event) -> None:
        """The job reached its time limit: it is killed, with a ``TIMEOUT`` record of the work it did."""
        run: Running = event._value
        if run.event is not event:
            return
        now = self.env.now
        self._account()
        # the stretch is by definition what was left of the limit: cpu_time is exact
        run._book(now, max(0.0, run.limit - run.run_time))
        self._leave(run, Status.TIMEOUT, now)

    def _leave(self, run: Running, status: Status, now: float, restarts: int = 0, allocation: str = NO_IDS) -> None:
        """The job ends: free its CPUs, record it, tell the listeners, then decide.

        ``restarts`` and ``allocation`` go into its record: a machine with processor ids
        wraps this method to pass them (:mod:`schedlab.processes.machine.processor_ids`); a plain
        machine passes the constants, so its records format nothing.
        """
        job = run.job
        run.event = None
        self._release(run)
        del self._arrival_seq[job]
        if not self.completed and self._trace is None:
            # Nobody listens: log the fields, make no record (a third of the completion's cost).
            self.records.add(
                job,
                self.name,
                status,
                run.first_start,
                now,
                run.cpu_time,
                run.preemptions,
                run.resizes,
                restarts,
                allocation,
            )
        else:
            record = job_record(
                job,
                self.name,
                status,
                start=run.first_start,
                end=now,
                cpu_time=run.cpu_time,
                preemptions=run.preemptions,
                resizes=run.resizes,
                restarts=restarts,
                allocation=allocation,
            )
            self.records.append(record)
            if self._trace is not None:
                if status is Status.COMPLETED:
                    self._trace(now, self.name, "complete", f"job {job.id}, waited {record.wait:.4g}")
                else:
                    self._trace(
                        now,
                        self.name,
                        "timeout",
                        f"job {job.id} killed at its time limit {run.limit:.4g}, waited {record.wait:.4g}",
                    )
            # Learners see the state the completion left, before the policy's next decision.
            self.completed.emit(record)
        self.decide()

    def _release(self, run: Running) -> None:
        """Give back the CPUs and other resources ``run`` holds (at its end, or when it is preempted)."""
        self.free += run.cpus
        self.running.remove(run)
        demands = run.job.demands
        if demands:
            # re-add what is still held rather than subtract: no float residue builds up
            used = self.used
            for r, a in demands.items():
                if a > 0:
                    used[r] = math.fsum(x.job.demands.get(r, 0.0) for x in self.running)

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

:class:`JobEnds` is the part of a :class:`~schedlab.processes.machine.machine.Machine` that
plans each end and kills a job at its time limit (``machine.ends``; a kill one priority after
the ends, so that every end due at the same instant comes first, as a job process's limit
does in :mod:`~schedlab.processes.machine.job_body`); the machine's own
``_complete``, ``_leave`` and ``_release`` then end the job, and :meth:`JobEnds.record`
writes its record for the machine's listeners and tracer.
"""

from __future__ import annotations

import simpy
from simpy.events import NORMAL, URGENT, EventPriority, Timeout

from schedlab.model.records.job_record import Status
from schedlab.model.records.table import job_record
from schedlab.processes.machine.parts_view import PartsView
from schedlab.processes.machine.running import Running
from schedlab.processes.tracing import step_label

__all__ = ["JobEnds", "LaterTimeout"]

#: priority of a job's end under ``Machine(ends_last=True)``: after the instant's NORMAL events (arrivals)
LATE = EventPriority(NORMAL + 1)

#: relative slack within which a job's end and its time limit count as the same time
_ROUNDING = 1e-9


class LaterTimeout(Timeout):
    """A ``Timeout`` at a later priority than SimPy's (which always schedules at ``NORMAL``).

    Planned where a ``Timeout`` would be, but processed after the ``NORMAL`` events of its
    instant: a machine's ends after the instant's arrivals (``ends_last``), a kill at a time
    limit after the instant's ends. It is still a ``Timeout`` (step-through shows its delay).
    """

    def __init__(self, env: simpy.Environment, delay: float, value: object, priority: EventPriority) -> None:
        # what Timeout.__init__ does, at ``priority`` instead of NORMAL
        self.env, self.callbacks, self._value, self._delay, self._ok = env, [], value, delay, True
        env.schedule(self, priority, delay)


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


class JobEnds:
    """How a machine's running jobs end: plan the end at each allocation, kill a job at its limit, record it.

    Parameters
    ----------
    machine
        The machine whose jobs end here.
    ends_last
        Whether a job's end is processed after the instant's arrivals (the machine's parameter).
    """

    def __init__(self, machine: PartsView, ends_last: bool) -> None:
        self.machine = machine
        self.env = machine.env
        #: the priority of a job's end event: NORMAL, or LATE (after the instant's arrivals)
        self.priority = LATE if ends_last else NORMAL

    @property
    def name(self) -> str:
        """The machine's name (the step-through names a callback by its object's ``name``)."""
        return self.machine.name

    @step_label("plans the end of {job}")
    def plan(self, event: simpy.Event) -> None:
        """``_Allocated``'s callback: schedule the end of the job's current allocation."""
        run: Running = event._value  # SimPy's field behind .value (a property call)
        if run.event is not event:
            return  # preempted, or resized again, at the instant it got these CPUs
        to_finish = run._remaining * run.job.cpus / run.cpus
        to_limit = run.limit - run.run_time  # inf - x = inf without a limit
        # A job that finishes at its limit completes. "At" allows float rounding: a preempted
        # job's run time and remaining work are sums of booked pieces, an ulp or so apart.
        priority = self.priority
        if to_finish - to_limit > _ROUNDING * to_limit:
            # (max: a job preempted at the very instant of its limit may be an ulp past it)
            delay, then = max(0.0, to_limit), self.kill_at_limit
            priority = EventPriority(priority + 1)  # after every end due at the same instant, as job_body's limit
        else:
            delay, then = to_finish, self.machine._complete
        end = Timeout(self.env, delay, run) if priority == NORMAL else LaterTimeout(self.env, delay, run, priority)
        end.callbacks.append(then)
        run.event = end

    @step_label("kills {job} at its time limit")
    def kill_at_limit(self, event: simpy.Event) -> None:
        """The job reached its time limit: it is killed, with a ``TIMEOUT`` record of the work it did."""
        run: Running = event._value
        if run.event is not event:
            return
        m = self.machine
        now = self.env.now
        m.cpu_time.account()
        # the stretch is by definition what was left of the limit: cpu_time is exact
        run._book(now, max(0.0, run.limit - run.run_time))
        m._leave(run, Status.TIMEOUT, now)

    def record(self, run: Running, status: Status, now: float, restarts: int, allocation: str) -> None:
        """Write the record of ``run``'s job, which leaves now, and tell the machine's listeners and tracer.

        The machine's ``_leave`` calls this only when someone listens (``completed``, or a
        tracer); otherwise it logs the record's fields itself, making no record.
        """
        m = self.machine
        job = run.job
        record = job_record(
            job,
            m.name,
            status,
            start=run.first_start,
            end=now,
            cpu_time=run.cpu_time,
            preemptions=run.preemptions,
            resizes=run.resizes,
            restarts=restarts,
            allocation=allocation,
        )
        m.records.append(record)
        if m._trace is not None:
            if status is Status.COMPLETED:
                m._trace(now, m.name, "complete", f"job {job.id}, waited {record.wait:.4g}")
            else:
                m._trace(
                    now,
                    m.name,
                    "timeout",
                    f"job {job.id} killed at its time limit {run.limit:.4g}, waited {record.wait:.4g}",
                )
        # Learners see the state the completion left, before the policy's next decision.
        m.completed.emit(record)

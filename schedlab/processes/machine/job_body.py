"""Jobs as SimPy processes: a job's process body, run on its allocation and interrupted when it changes.

A :class:`~schedlab.model.core.job.ProcessJob` carries a *body*, a generator function
``body(env, alloc)`` saying what the job does on the CPUs it holds: phases, I/O,
checkpoints. When the job gets CPUs, the machine runs the body as a SimPy process;
when the body returns, the job completes. Plain jobs keep the machine's fast end
event (:mod:`schedlab.processes.machine.job_end`): the only cost to them is one class test per
start and resize.

Each stretch of CPUs the job holds runs one *incarnation* of the body. Whatever ends
the stretch interrupts it with a ``simpy.Interrupt`` whose ``cause`` says why:

- ``"preempt"``: the job was preempted; it waits for its CPUs;
- ``"resize"``: it was squeezed or grown; a new incarnation starts at once on the new
  allocation;
- ``"walltime"``: it reached its time limit and was killed (``TIMEOUT`` record);
- ``"node_fail"``: a node it ran on failed (:mod:`schedlab.processes.machine.node_failures`); the
  job is requeued, and a new incarnation starts when it runs again, or dropped.

An interrupted incarnation is over. It may catch the interrupt to note how far it got,
and must then return: a return after an interrupt does not complete the job. The next
incarnation is called with a new :class:`Allocation` whose :attr:`~Allocation.state`
is the same dict, so a body can resume where its last checkpoint left it. The machine
books the job's CPU-time and ideal work as for a plain job; :attr:`Allocation.time_left`
is the run time the machine's accounting has left at this allocation's rate, so the
body ``yield env.timeout(alloc.time_left)`` is the plain job, record for record
(``tests/test_job_body.py``).

A body's completion is handled inside the SimPy event that ended its last ``yield``,
as a plain job's end is inside its Timeout's callback, and its first event is made
where a plain job's end is planned (the process's ``Initialize`` stands where
``_Allocated`` stands). A time limit is an event after every job end at the same
instant, so a body that finishes at its limit completes, as a plain job does.
"""

from __future__ import annotations

import math
from collections.abc import Generator
from typing import Any

import simpy
from simpy.events import NORMAL, EventPriority, Process

from schedlab.model.core.job import Job
from schedlab.model.records.job_record import Status
from schedlab.processes.machine.job_end import _Allocated  # private: the event is no API
from schedlab.processes.machine.parts_view import PartsView
from schedlab.processes.machine.running import Running

__all__ = ["Allocation", "JobBodies"]

#: why a body was interrupted (the ``simpy.Interrupt``'s cause)
CAUSES = ("preempt", "resize", "walltime", "node_fail")
#: a time limit is processed after the job ends due at the same instant
_AFTER_ENDS = EventPriority(NORMAL + 1)


class Allocation:
    """What a job's body is given: the job, the CPUs it holds now, and a state dict kept across incarnations.

    Attributes
    ----------
    job
        The job.
    machine
        The machine's name.
    cpus
        CPUs held (fewer than ``job.cpus`` when squeezed).
    ids
        The CPU ids held (empty on a machine without ids).
    start
        When this incarnation started.
    attempt
        1 for the first run; one more after each node failure that requeued the job.
    incarnation
        1 for the first stretch of CPUs; one more after each preemption, resize or requeue.
    work_left
        Ideal time (at all ``job.cpus``) that the machine's accounting says is left.
    state
        A dict the body may write, kept for the job's next incarnations (a checkpoint).
    """

    __slots__ = ("attempt", "cpus", "ids", "incarnation", "job", "machine", "start", "state", "work_left")

    def __init__(
        self,
        job: Job,
        machine: str,
        cpus: int,
        ids: list[int],
        start: float,
        attempt: int,
        incarnation: int,
        work_left: float,
        state: dict[str, Any],
    ) -> None:
        self.job = job
        self.machine = machine
        self.cpus = cpus
        self.ids = ids
        self.start = start
        self.attempt = attempt
        self.incarnation = incarnation
        self.work_left = work_left
        self.state = state

    @property
    def rate(self) -> float:
        """The fraction of its CPUs the job holds: work progresses at this rate."""
        return self.cpus / self.job.cpus

    @property
    def time_left(self) -> float:
        """The run time :attr:`work_left` takes at this allocation's rate."""
        return self.work_left * self.job.cpus / self.cpus

    def __repr__(self) -> str:
        return (
            f"Allocation(job {self.job.id} on {self.cpus} cpus of {self.machine!r}, attempt {self.attempt}, "
            f"incarnation {self.incarnation})"
        )


def _defuse_interrupt(event: simpy.Event) -> None:
    """An incarnation that let the machine's Interrupt through ended as it should: not an error."""
    if not event._ok and isinstance(event._value, simpy.Interrupt):
        event._defused = True


class JobBodies:
    """The process bodies of a machine's :class:`~schedlab.model.core.job.ProcessJob` jobs (its ``bodies``).

    A part the machine holds and calls: :meth:`allocated` when a body job gets CPUs,
    :meth:`interrupt` when its allocation ends, :meth:`forget` when it leaves.
    """

    def __init__(self, machine: PartsView) -> None:
        self.machine = machine
        self.env = machine.env
        self._body_state: dict[Job, dict[str, Any]] = {}  # per body job still here
        self._incarnations: dict[Job, int] = {}
        self._limits: dict[Running, simpy.Event] = {}  # a body job's time-limit event

    @property
    def name(self) -> str:
        """The machine's name (the step-through names a callback by its object's ``name``)."""
        return self.machine.name

    def allocated(self, run: Running, interrupted: str | None = None) -> simpy.Event:
        """The event that moves ``run`` next: a plain job's end is planned, a body job's body is started."""
        body = getattr(run.job, "body", None)
        if body is None:
            return _Allocated(self.env, run, self.machine.ends.plan)
        if interrupted is not None:
            self.interrupt(run, interrupted)
        proc = Process(self.env, self._drive(run, body))
        proc.callbacks.append(_defuse_interrupt)
        return proc

    def _drive(self, run: Running, body: Any) -> Generator[simpy.Event, Any, None]:
        """One incarnation: plan the time limit, run the body, complete the job if it is still this one's."""
        env, m = self.env, self.machine
        me = env.active_process
        if run.event is not me:
            return  # preempted or resized at the very instant it got these CPUs
        job = run.job
        n = self._incarnations.get(job, 0) + 1
        self._incarnations[job] = n
        # made here, not in start(): the CPU ids are given once start() has returned
        alloc = Allocation(
            job,
            m.name,
            run.cpus,
            m.ids.held_ids(job),
            float(env.now),
            m.failures.restarts(job) + 1,
            n,
            run._remaining,
            self._body_state.setdefault(job, {}),
        )
        if run.limit < math.inf:  # here, where a plain job's end would be planned
            limit = simpy.Event(env)
            limit._ok, limit._value = True, run
            limit.callbacks = [self._body_limit]
            env.schedule(limit, _AFTER_ENDS, max(0.0, run.limit - run.run_time))
            self._limits[run] = limit
        try:
            yield from body(env, alloc)
        except simpy.Interrupt:
            return
        if run.event is not me:
            return  # interrupted, and the body returned anyway: this stretch is over
        now = env.now
        m.cpu_time.account()
        run._book(now)
        self._limits.pop(run, None)
        self.forget(run.job)
        m._leave(run, Status.COMPLETED, now)

    def _body_limit(self, event: simpy.Event) -> None:
        """A body job reached its time limit: interrupt the body and kill the job (``TIMEOUT``)."""
        run: Running = event._value
        if self._limits.get(run) is not event:
            return  # stale: the stretch it was planned for is over
        m = self.machine
        now = self.env.now
        self.interrupt(run, "walltime")
        self.forget(run.job)
        m.cpu_time.account()
        run._book(now, max(0.0, run.limit - run.run_time))
        m._leave(run, Status.TIMEOUT, now)

    def interrupt(self, run: Running, cause: str) -> None:
        """End ``run``'s current incarnation (if it has a body) with ``Interrupt(cause)``."""
        proc = run.event
        self._limits.pop(run, None)
        if type(proc) is Process and proc.is_alive and proc is not self.env.active_process:
            proc.interrupt(cause)
        run.event = None

    def forget(self, job: Job) -> None:
        """``job`` left the machine: its body's state and count of incarnations go."""
        self._body_state.pop(job, None)
        self._incarnations.pop(job, None)

"""A multi-CPU machine whose jobs can be preempted, squeezed, grown back and killed at a time limit.

Jobs wait in the machine's queue until its policy starts them. A started job runs on
an allocation of CPUs, and the allocation can change while it runs:

- a *preempted* job gives all its CPUs back and waits to resume where it left off;
- a *squeezed* job runs on fewer CPUs than it asked for, at rate
  ``allocated / requested``, so its execution time is ``L * N_I / min(N_A, N_I)``
  (seed 000, section 5);
- a squeezed job can be *grown* back.

At each change the machine books the work done so far in the job's
:class:`~schedlab.processes.running.Running` state. It then plans the job's end again,
at the new rate. Under ``walltime="kill"`` the end is the earlier of two events: the
job's work is done, or its time limit is reached.

**How a job's end is simulated.** A job's end is one SimPy ``Timeout`` whose callback
completes the job (or kills it). The job is not a process of its own. Every running job
could be a SimPy process that yields ``timeout(remaining)`` and is interrupted at each
change, and until issue 16 each one was. That costs SimPy an ``Initialize`` event, a
termination event, a generator and two resumes per job: half the events this model
schedules, for no behaviour the callback lacks. Each change of allocation gives the job
a new end event (``Running.event``). An end event that is no longer the job's is stale
(the job was preempted or resized after it was planned) and does nothing when it fires.

The order of events is unchanged. A Timeout made inside ``start()`` would be ordered
before the events that the rest of the current callback schedules for the same future
time. One such event is the source's next arrival, and with a log's whole seconds that
tie is common. A process's Timeout, by contrast, was made when SimPy took its urgent
``Initialize`` event. So ``start()`` and ``resize()`` schedule a small urgent event,
``_Allocated``, at the same point of the event list, and its callback makes the
Timeout. Every seed scenario's results are identical, bit for bit
(``tests/test_digests.py``).

Measured with ``benchmarks/engine.py --before 6a1c50a``: M/M/50 at rho 0.9, 200,000
customers, one process, best of 3, on the loaded 2-core dev machine. Against the
hand-written SimPy model (``simpy.Resource`` and a process per customer), schedlab
runs at 0.99x-1.01x its throughput in CPU time, in two runs. With a process per job it
ran at 0.83x. At 1,000,000 customers the figures are 1.01x against 0.80x.
The urgent event is the price of the unchanged order. A scratch variant that made the
``Timeout`` at once, in ``start()``, took about 9% less time, but it reorders
same-time events. See ``benchmarks/README.md``.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping
from typing import Literal

import simpy
from simpy.events import URGENT, Timeout

from schedlab.model.decisions import Action, Policy, Preempt, Resize, Start
from schedlab.model.job import Job
from schedlab.model.records import JobRecord, RecordLog, Status, job_record
from schedlab.processes.machine_view import PolicyView
from schedlab.processes.running import Running, RunningSet
from schedlab.processes.signal import Signal
from schedlab.processes.tracing import tracer_of

__all__ = ["Machine", "PolicyError", "Running"]  # Running re-exported: policies see it

#: answers decide() applies as one action (an iterable of any other kind is a batch);
#: a tuple, built once: ``A | B | ...`` in the loop would build a union at every answer
_ONE_ANSWER = (Start, Preempt, Resize, str, bytes)


#: relative slack within which a job's end and its time limit count as the same time
_ROUNDING = 1e-9


class PolicyError(RuntimeError):
    """A policy asked for something the machine cannot do."""


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


class Machine:
    """``capacity`` CPUs (and optional other resources) shared by jobs, run by a policy.

    Parameters
    ----------
    env
        The SimPy environment.
    capacity
        Number of CPUs.
    policy
        Called at each decision event with a :class:`~schedlab.model.decisions.MachineView`;
        returns the next :data:`~schedlab.model.decisions.Action` (the machine applies
        it and asks again, until ``None``), or an iterable of actions: the whole answer
        for this decision event, applied one by one as it is produced, so a generator
        sees the effect of each action before making the next.
    name
        Label used in records and traces.
    resources
        Capacities of other named resources (``{"memory": 64}``); a job's
        ``demands`` of them are held whole while it runs, squeezed or not.
    oversize
        What to do with a job that can never fit (more CPUs or other resources than
        the machine has): ``"reject"`` it with a ``REJECTED`` record (counted in
        :attr:`rejected`), or ``"raise"`` a ValueError at submission.
    batch_decisions
        Decide once per instant instead of at every event: arrivals and completions
        at the same simulated time are all taken in before the policy is asked (as
        RLScheduler's simulator does). By default the policy is asked at each event.
    walltime
        What happens to a job that reaches its time limit (:meth:`time_limit`):
        ``"run-on"`` (the default) lets it run to its end; ``"kill"`` kills it there,
        as Slurm, PBS and OAR do, with a ``TIMEOUT`` record (``end`` the kill time,
        ``cpu_time`` the CPU-time it held). Under ``"kill"`` a job's limit is its
        ``estimate`` (the log's requested time), if it has one.

    Attributes
    ----------
    completed
        :class:`~schedlab.processes.signal.Signal` emitted with the
        :class:`~schedlab.model.records.JobRecord` of each job that ends here, when it
        ends: ``COMPLETED``, or ``TIMEOUT`` for one killed at its time limit.
    records
        Records of completed and rejected jobs, in the order they happened (a
        :class:`~schedlab.model.records.RecordLog`: read it as a sequence of records).
    waiting
        Jobs in the queue, in the order they reached the machine.
    running
        Running jobs' :class:`Running` states, in the order they started (a
        :class:`~schedlab.processes.running.RunningSet`: a sequence with O(1) removal).
    """

    def __init__(
        self,
        env: simpy.Environment,
        capacity: int,
        policy: Policy,
        *,
        name: str = "machine",
        resources: Mapping[str, float] | None = None,
        oversize: Literal["reject", "raise"] = "reject",
        batch_decisions: bool = False,
        walltime: Literal["run-on", "kill"] = "run-on",
    ) -> None:
        if not isinstance(capacity, int | float) or not math.isfinite(capacity) or int(capacity) != capacity \
                or capacity < 1:
            raise ValueError(f"machine {name!r}: capacity must be a whole number >= 1, got {capacity!r}")
        if oversize not in ("reject", "raise"):
            raise ValueError(f"machine {name!r}: oversize must be 'reject' or 'raise', got {oversize!r}")
        if walltime not in ("run-on", "kill"):
            raise ValueError(f"machine {name!r}: walltime must be 'run-on' or 'kill', got {walltime!r}")
        self.env = env
        self.name = name
        self.capacity = int(capacity)
        #: the most CPUs the machine can ever have (its capacity at construction): jobs wider
        #: than this are rejected; :meth:`set_capacity` moves ``capacity`` below it
        self.max_capacity = self.capacity
        self.free = self.capacity
        self.policy = policy
        self.resources: dict[str, float] = dict(resources or {})
        self.used: dict[str, float] = dict.fromkeys(self.resources, 0.0)
        self.oversize = oversize
        #: "run-on" or "kill" (see the parameter); read at each job's first start
        self.walltime = walltime
        self.waiting: list[Job] = []
        self.running = RunningSet()
        # Columns, not a list of JobRecord tuples: on M/M/50 with a million customers the
        # tuples made most of the peak memory and of the garbage collector's time.
        self.records = RecordLog()
        self.completed: Signal[JobRecord] = Signal()
        self.rejected = 0
        self.view = PolicyView(self)
        # keyed by the Job itself (identity), so two sources' jobs with equal ids never mix
        self._suspended: dict[Job, Running] = {}
        self._arrival_seq: dict[Job, int] = {}  # order of arrival, while the job is here
        self._seq = 0
        self._deciding = False
        self._batch = batch_decisions
        self._decision_pending = False
        self._busy_area = 0.0  # integral of allocated CPUs over time
        self._last_change = env.now
        self._capacity_area = 0.0  # integral of provisioned CPUs over time, up to _capacity_since
        self._capacity_since = env.now
        self._trace = tracer_of(env)

    # ------------------------------------------------------------------ queries
    def fits(self, job: Job, cpus: int | None = None) -> bool:
        """Could ``job`` start now on ``cpus`` CPUs (default: all it asked for)?"""
        if (job.cpus if cpus is None else cpus) > self.free:
            return False
        demands = job.demands
        if not demands:  # CPUs only, the common case: no generator to build
            return True
        used, resources = self.used, self.resources
        # a relative tolerance: 0.1 + 0.2 of memory must fit a capacity of 0.3
        return all(a <= 0 or used.get(r, 0.0) + a <= resources.get(r, 0.0) * (1 + 1e-9) for r, a in demands.items())

    def can_ever_fit(self, job: Job) -> bool:
        """Does ``job`` fit the empty machine at its largest?"""
        if job.cpus > self.max_capacity:
            return False
        demands = job.demands
        if not demands:
            return True
        resources = self.resources
        return all(a <= 0 or a <= resources.get(r, 0.0) * (1 + 1e-9) for r, a in demands.items())

    def time_limit(self, job: Job) -> float | None:
        """The run time after which ``job`` is killed, or ``None`` for no limit; asked once, at its first start.

        Under ``walltime="kill"``: the job's ``estimate`` (SWF's requested time), if it
        has one. Run time is wall-clock time holding CPUs, squeezed or not; time spent
        suspended after a preemption does not count. A subclass may impose other
        limits (a queue's, say) by overriding this.
        """
        return job.estimate if self.walltime == "kill" else None

    @property
    def busy(self) -> int:
        """CPUs allocated now."""
        return self.capacity - self.free

    def busy_time(self) -> float:
        """Integral of allocated CPUs over time, from the start to now (exact)."""
        return self._busy_area + self.busy * (self.env.now - self._last_change)

    def capacity_time(self) -> float:
        """Integral of provisioned CPUs (``capacity``) over time, from the start to now (exact)."""
        return self._capacity_area + self.capacity * (self.env.now - self._capacity_since)

    def set_capacity(self, cpus: int) -> None:
        """Grow or shrink the pool of CPUs (elastic provisioning).

        Running jobs are never cut: the pool cannot shrink below the CPUs in use, nor
        grow beyond ``max_capacity``. CPUs added are offered to the policy at once.
        """
        if isinstance(cpus, bool) or int(cpus) != cpus or not self.busy <= cpus <= self.max_capacity:
            raise ValueError(f"machine {self.name!r} at t={self.env.now}: cannot set capacity to {cpus!r}: "
                             f"it must be a whole number from the {self.busy} cpus in use "
                             f"to max_capacity={self.max_capacity}")
        cpus = int(cpus)
        if cpus == self.capacity:
            return
        now = self.env.now
        self._account()
        self._capacity_area += self.capacity * (now - self._capacity_since)
        self._capacity_since = now
        grown = cpus > self.capacity
        self.free += cpus - self.capacity
        self.capacity = cpus
        if self._trace is not None:
            self._trace(now, self.name, "capacity", f"{cpus} cpus")
        if grown:
            self._decision_event()

    # ------------------------------------------------------------------ arrivals
    def submit(self, job: Job) -> None:
        """A job reaches the machine: queue it (or reject it) and let the policy decide."""
        # CPUs first: can_ever_fit() (a call) only for jobs that also need other resources
        if job.cpus > self.max_capacity or (job.demands and not self.can_ever_fit(job)):
            self._reject(job)
            return
        self._seq = seq = self._seq + 1
        # A Running state is only made when the job starts; the queue holds the Job.
        self._arrival_seq[job] = seq
        self.waiting.append(job)
        if self._trace is not None:
            self._trace(self.env.now, self.name, "submit", f"job {job.id} ({job.cpus} cpus, {job.runtime:.4g})")
        if self._batch:
            self._decision_event()
        else:
            self.decide()  # what _decision_event() does unbatched, one call less per arrival

    def _reject(self, job: Job) -> None:
        reason = (f"job {job.id} needs {job.cpus} cpus and {dict(job.demands)}; machine {self.name!r} "
                  f"has {self.capacity} cpus and {self.resources}")
        if self.oversize == "raise":
            raise ValueError(f"{reason}: it can never run here")
        self.rejected += 1
        self.records.add(job, self.name, Status.REJECTED, math.nan, math.nan, 0.0)
        if self._trace is not None:
            self._trace(self.env.now, self.name, "reject", reason)

    # ------------------------------------------------------------------ decisions
    def _decision_event(self) -> None:
        if not self._batch:
            self.decide()
        elif not self._decision_pending:
            # A zero-delay timeout runs after the events already due now: same-time
            # arrivals (a Source submits them in one go) and completions come first.
            self._decision_pending = True
            self.env.timeout(0).callbacks.append(self._batched_decision)

    def _batched_decision(self, _event: simpy.Event) -> None:
        self._decision_pending = False
        self.decide()

    def decide(self) -> None:
        """Ask the policy for actions until it has none; called at every decision event.

        Call it after acting on the machine from outside the policy (a preemption by a
        tick process, say): freed CPUs are otherwise offered only at the next event.
        """
        if self._deciding:  # an action's side effects never re-enter the policy
            return
        self._deciding = True
        try:
            # every job here is waiting or running, and in _arrival_seq: one C-level len()
            budget = 4 * len(self._arrival_seq) + 16
            policy, view, apply = self.policy, self.view, self.apply
            while (answer := policy(view)) is not None:
                if type(answer) is Start:  # the common answer, dispatched without apply()
                    budget -= 1
                    self.start(answer.job, answer.cpus)
                elif isinstance(answer, _ONE_ANSWER) or not hasattr(answer, "__iter__"):
                    budget -= 1
                    apply(answer)  # an action, or something that is not: apply() names it
                else:
                    for action in answer:  # lazily: a generator sees each action's effect
                        apply(action)
                        budget -= 1
                        if budget < 0:
                            break
                    else:
                        break  # an iterable is the policy's whole answer for this event
                if budget < 0:
                    raise PolicyError(
                        f"policy {policy!r} on machine {self.name!r} kept returning actions "
                        f"at t={self.env.now}: it must return None (or nothing) when done"
                    )
        finally:
            self._deciding = False

    def apply(self, action: Action) -> None:
        """Carry out one action (users may call this directly, e.g. from a tick process)."""
        if type(action) is Start:
            self.start(action.job, action.cpus)
        elif type(action) is Preempt:
            self.preempt(action.job)
        elif type(action) is Resize:
            self.resize(action.job, action.cpus)
        else:
            raise PolicyError(f"policy on machine {self.name!r} returned {action!r}, not an Action or None")

    # ------------------------------------------------------------------ actions
    def start(self, job: Job, cpus: int | None = None) -> None:
        """Start (or resume) waiting ``job`` on ``cpus`` CPUs (default: all it asked for)."""
        if cpus is None:
            n = job.cpus  # a whole number >= 1: Job checked it
        else:
            if int(cpus) != cpus or not 1 <= cpus <= job.cpus:
                raise PolicyError(
                    f"machine {self.name!r}: job {job.id} asks for {job.cpus} cpus; cannot start it on {cpus}"
                )
            n = int(cpus)
        try:
            place = self.waiting.index(job)  # jobs compare by identity: a C-level scan
        except ValueError:
            raise PolicyError(f"machine {self.name!r}: job {job.id} is not waiting here") from None
        if n > self.free or (job.demands and not self.fits(job, n)):  # fits(), its call only for other resources
            raise PolicyError(
                f"machine {self.name!r} at t={self.env.now}: job {job.id} does not fit on {n} cpus "
                f"({self.free} free, resources used {self.used} of {self.resources})"
            )
        del self.waiting[place]
        env = self.env
        now = env.now
        run = self._suspended.pop(job, None) if self._suspended else None
        resumed = run is not None
        if run is None:
            run = Running(job, self._arrival_seq[job])
            run.first_start = now
            limit = self.time_limit(job)
            if limit is None:
                run.requested_end = now + job.requested_time
            else:
                run.limit = limit
                run.requested_end = now + min(job.requested_time, limit)
        else:  # expected to end by what is left of its request, or of its time limit
            run.requested_end = now + min(max(0.0, job.requested_time - run.work_done), run.limit - run.run_time)
        # _account(), written out here and in _complete (once each per job): 2% of M/M/50's time
        self._busy_area += (self.capacity - self.free) * (now - self._last_change)
        self._last_change = now
        run.cpus = n
        run.started = now
        self.free -= n
        if job.demands:
            used = self.used
            for r, a in job.demands.items():
                if a > 0:
                    used[r] += a
        self.running.append(run)
        run.event = _Allocated(env, run, self._plan_end)
        if self._trace is not None:
            verb = "resume" if resumed else "start"
            self._trace(now, self.name, verb, f"job {job.id} on {n}/{job.cpus} cpus")

    def preempt(self, job: Job) -> None:
        """Suspend running ``job``: its CPUs are freed, it waits to resume where it left off."""
        run = self._running_state(job)
        now = self.env.now
        self._account()
        run._book(now)
        self._release(run)
        run.cpus = 0
        run.preemptions += 1
        self._suspended[job] = run
        # Back to its place in arrival order; the queue is sorted by arrival, so bisect.
        arrival = self._arrival_seq
        self.waiting.insert(bisect.bisect(self.waiting, run.seq, key=arrival.__getitem__), job)
        run.event = None  # its planned end is stale now; start() plans a new one
        if self._trace is not None:
            self._trace(now, self.name, "preempt", f"job {job.id}, {run.remaining(now):.4g} ideal time left")

    def resize(self, job: Job, cpus: int) -> None:
        """Squeeze running ``job`` onto fewer CPUs, or grow it back (at most what it asked for)."""
        run = self._running_state(job)
        if int(cpus) != cpus or not 1 <= cpus <= job.cpus:
            raise PolicyError(f"machine {self.name!r}: job {job.id} asks for {job.cpus} cpus; cannot resize to {cpus}")
        if cpus - run.cpus > self.free:
            raise PolicyError(f"machine {self.name!r}: growing job {job.id} to {cpus} cpus needs "
                              f"{cpus - run.cpus} more, {self.free} free")
        if cpus == run.cpus:
            return
        now = self.env.now
        self._account()
        run._book(now)
        self.free -= cpus - run.cpus
        run.cpus = int(cpus)
        run.resizes += 1
        run.event = _Allocated(self.env, run, self._plan_end)  # re-plan the end at the new rate
        if self._trace is not None:
            self._trace(now, self.name, "resize", f"job {job.id} to {cpus}/{job.cpus} cpus")

    # ------------------------------------------------------------------ internals
    def _running_state(self, job: Job) -> Running:
        for run in self.running:
            if run.job is job:
                return run
        raise PolicyError(f"machine {self.name!r}: job {job.id} is not running here")

    def _account(self) -> None:
        """Add the CPU-time allocated since the last change; called before every change."""
        now = self.env.now
        self._busy_area += (self.capacity - self.free) * (now - self._last_change)
        self._last_change = now

    def _release(self, run: Running) -> None:
        self.free += run.cpus
        self.running.remove(run)
        demands = run.job.demands
        if demands:
            # re-add what is still held rather than subtract: no float residue builds up
            used = self.used
            for r, a in demands.items():
                if a > 0:
                    used[r] = math.fsum(x.job.demands.get(r, 0.0) for x in self.running)

    # ------------------------------------------------------------------ a job's end
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
            end = Timeout(self.env, max(0.0, to_limit), run)
            end.callbacks.append(self._kill_at_limit)
        else:
            end = Timeout(self.env, to_finish, run)
            end.callbacks.append(self._complete)
        run.event = end

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

    def _leave(self, run: Running, status: Status, now: float) -> None:
        """The job ends: free its CPUs, record it, tell the listeners, then decide."""
        job = run.job
        run.event = None
        self._release(run)
        del self._arrival_seq[job]
        if not self.completed and self._trace is None:
            # Nobody listens: log the fields, make no record (a third of the completion's cost).
            self.records.add(job, self.name, status, run.first_start, now, run.cpu_time,
                             run.preemptions, run.resizes)
        else:
            record = job_record(job, self.name, status, start=run.first_start, end=now,
                                cpu_time=run.cpu_time, preemptions=run.preemptions, resizes=run.resizes)
            self.records.append(record)
            if self._trace is not None:
                if status is Status.COMPLETED:
                    self._trace(now, self.name, "complete", f"job {job.id}, waited {record.wait:.4g}")
                else:
                    self._trace(now, self.name, "timeout",
                                f"job {job.id} killed at its time limit {run.limit:.4g}, waited {record.wait:.4g}")
            # Learners see the state the completion left, before the policy's next decision.
            self.completed.emit(record)
        self.decide()

    def _record(self, job: Job, run: Running | None, status: Status) -> JobRecord:
        if run is None:
            return job_record(job, self.name, status)
        cpu_time = run.cpu_time
        if status is Status.RUNNING:
            cpu_time += (self.env.now - run.started) * run.cpus
        return job_record(
            job, self.name, status, start=run.first_start,
            end=self.env.now if status is Status.COMPLETED else math.nan,
            cpu_time=cpu_time, preemptions=run.preemptions, resizes=run.resizes,
        )

    def snapshot(self) -> list[JobRecord]:
        """Records of the jobs still here (``RUNNING`` or ``WAITING``), as of now."""
        out = [self._record(r.job, r, Status.RUNNING) for r in self.running]
        out += [self._record(j, self._suspended.get(j), Status.WAITING) for j in self.waiting]
        return out

    def all_records(self) -> list[JobRecord]:
        """Completed and rejected jobs, then those still running or waiting."""
        return [*self.records, *self.snapshot()]

    def __repr__(self) -> str:
        return (f"Machine({self.name!r}, capacity={self.capacity}, free={self.free}, "
                f"waiting={len(self.waiting)}, running={len(self.running)})")

"""A multi-CPU machine whose jobs can be preempted, squeezed, grown back and killed at a time limit.

Jobs wait in the queue until the policy starts them on an allocation of CPUs, which can
change while they run (preempted, squeezed at rate ``allocated / requested``, grown back:
:mod:`~schedlab.processes.machine.reallocation`).

This module is what runs: the queue, the actions and a job's end are :class:`Machine`'s
own methods. The rest are parts it holds and calls, one module each (docs/architecture.md,
"The Machine"): ``decisions`` (asking the policy), ``cpu_time`` (the CPU-time integrals,
elastic capacity), ``ends`` (a job's end event, its time limit, its record), ``reallocation``
(preempting, squeezing, growing), ``bodies`` (process bodies), ``ids`` (CPU ids) and
``failures`` (node failures). A machine that gives CPU ids is a
:class:`~schedlab.processes.machine.with_ids.MachineWithIds`, the class chosen when it is built.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, ClassVar, Literal

import simpy

from schedlab.model.contracts.cpu_map import AllocationRule
from schedlab.model.contracts.machine import Action, Policy, Preempt, Resize, Start
from schedlab.model.core.fields import is_whole
from schedlab.model.core.job import Job
from schedlab.model.records.job_record import NO_IDS, JobRecord, Status
from schedlab.model.records.log import RecordLog
from schedlab.processes.machine.capacity import CpuTime
from schedlab.processes.machine.cpu_ids import CpuIds
from schedlab.processes.machine.decisions import Decisions, PolicyError
from schedlab.processes.machine.job_body import JobBodies
from schedlab.processes.machine.job_end import JobEnds, _Allocated  # private: the event is no API
from schedlab.processes.machine.job_snapshot import snapshot
from schedlab.processes.machine.node_failures import NodeFailures, OnNodeFail, node_starts
from schedlab.processes.machine.reallocation import Reallocation
from schedlab.processes.machine.running import Running, RunningSet
from schedlab.processes.machine.view import PolicyView
from schedlab.processes.signal import Signal
from schedlab.processes.tracing import step_label, tracer_of

__all__ = ["Machine", "PolicyError"]


class Machine:
    """``capacity`` CPUs (and optional other resources) shared by jobs, run by a policy.

    Parameters
    ----------
    env
        The SimPy environment.
    capacity
        Number of CPUs.
    policy
        Called at each decision event with a :class:`~schedlab.model.contracts.machine.MachineView`;
        returns the next :data:`~schedlab.model.contracts.machine.Action`, ``None``, or an
        iterable of actions (:mod:`~schedlab.processes.machine.decisions`).
    name
        Label used in records and traces.
    resources
        Capacities of other named resources (``{"memory": 64}``); a job's
        ``demands`` of them are held whole while it runs, squeezed or not.
    oversize
        A job that can never fit (more CPUs or other resources than the machine has) is
        ``"reject"``-ed with a ``REJECTED`` record (counted in :attr:`rejected`), or
        ``"raise"``-s a ValueError at submission.
    batch_decisions
        Decide once per instant, after its arrivals and completions (as RLScheduler's
        simulator does), instead of at every event.
    ends_last
        At an instant, jobs end after every arrival of that instant is queued (by default
        the events keep the order they were scheduled in): with decisions at every event,
        RLScheduler's loop (``compat="rlscheduler"``).
    walltime
        A job that reaches its time limit (:meth:`time_limit`: its ``estimate``, the log's
        requested time, if it has one) ``"run-on"``-s (the default) to its end, or is
        ``"kill"``-ed there, as Slurm, PBS and OAR do, with a ``TIMEOUT`` record.
    allocation
        Give each job CPU ids (:mod:`~schedlab.processes.machine.cpu_ids`):
        ``"first-fit"``, ``"lowest"``, or a rule function ``(CpuMap, n) -> ids``.
        Default ``None``: CPUs are counted, not named.
    node_size, on_node_fail
        Node failures (:mod:`~schedlab.processes.machine.node_failures`; they need
        ``allocation``): node ``k`` is CPUs ``k * node_size`` onwards; a job a
        failure kills is ``"requeue"``-d (same id, started over) or ``"drop"``-ped.

    Attributes
    ----------
    completed
        :class:`~schedlab.processes.signal.Signal` emitted with the
        :class:`~schedlab.model.records.job_record.JobRecord` of each job that ends here, when it
        ends: ``COMPLETED``, or ``TIMEOUT`` for one killed at its time limit.
    records
        Records of completed and rejected jobs, in the order they happened (a
        :class:`~schedlab.model.records.log.RecordLog`: read it as a sequence of records).
    waiting
        Jobs in the queue, in the order they reached the machine.
    running
        Running jobs' :class:`Running` states, in the order they started (a
        :class:`~schedlab.processes.machine.running.RunningSet`: a sequence with O(1) removal).
    decisions, cpu_time, ends, reallocation, bodies, ids, failures
        Its parts (the module's docstring).
    """

    #: whether this class gives CPU ids (a MachineWithIds does; ``allocation=`` needs it)
    gives_ids = False
    #: the class ``Machine(..., allocation=...)`` builds: MachineWithIds, set by with_ids.py where
    #: it is defined (a subclass, which this module cannot import without a cycle); the package's
    #: ``__init__`` imports with_ids.py, so it is set before Machine can be reached
    builds_with_ids: ClassVar[type[Machine]]

    def __new__(cls, *args: Any, allocation: str | AllocationRule | None = None, **kwargs: Any) -> Machine:
        if allocation is not None and cls is Machine:  # the feature set is chosen here, once
            cls = Machine.builds_with_ids
        return super().__new__(cls)

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
        allocation: str | AllocationRule | None = None,
        ends_last: bool = False,
        node_size: int = 1,
        on_node_fail: OnNodeFail = "requeue",
    ) -> None:
        if not is_whole(capacity, 1):
            raise ValueError(f"machine {name!r}: capacity must be a whole number >= 1, got {capacity!r}")
        if oversize not in ("reject", "raise"):
            raise ValueError(f"machine {name!r}: oversize must be 'reject' or 'raise', got {oversize!r}")
        if walltime not in ("run-on", "kill"):
            raise ValueError(f"machine {name!r}: walltime must be 'run-on' or 'kill', got {walltime!r}")
        self.env = env
        self.name = name
        self.capacity = int(capacity)
        #: the most CPUs it can ever have (its capacity when built): wider jobs are rejected; set_capacity keeps to it
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
        # by columns, not JobRecord tuples: on long runs the tuples made most of the memory and the GC's time
        self.records = RecordLog()
        self.completed: Signal[JobRecord] = Signal()
        self.rejected = 0
        self.view = PolicyView(self)
        # keyed by the Job itself (identity), so two sources' jobs with equal ids never mix
        self._suspended: dict[Job, Running] = {}
        self._arrival_seq: dict[Job, int] = {}  # order of arrival, while the job is here
        self._seq = 0
        self._trace = tracer_of(env)
        # the parts: each a module of its own, called from the methods below
        self.decisions = Decisions(self, batch_decisions)
        self.cpu_time = CpuTime(self)
        self.ends = JobEnds(self, ends_last)
        self.reallocation = Reallocation(self)
        self.bodies = JobBodies(self)
        self.ids = CpuIds.of(self, allocation)  # empty unless a MachineWithIds gives ids
        starts = node_starts(name, self.capacity, node_size)
        self.failures = NodeFailures(self, starts, f", node_size {node_size}", on_node_fail, failable=bool(allocation))

    # ------------------------------------------------------------------ arrivals
    def submit(self, job: Job) -> None:
        """A job reaches the machine: queue it (or reject it) and let the policy decide."""
        # CPUs first: can_ever_fit() (a call) only for jobs that also need other resources
        if job.cpus > self.max_capacity or (job.demands and not self.can_ever_fit(job)):
            self._reject(job)
            return
        self._seq = seq = self._seq + 1
        self._arrival_seq[job] = seq  # a Running state is only made when the job starts; the queue holds the Job
        self.waiting.append(job)
        if self._trace is not None:
            self._trace(self.env.now, self.name, "submit", f"job {job.id} ({job.cpus} cpus, {job.runtime:.4g})")
        decisions = self.decisions
        if decisions.batch:
            decisions.event()
        else:
            decisions.decide()  # what event() does unbatched, one call less per arrival

    def _reject(self, job: Job) -> None:
        reason = (
            f"job {job.id} needs {job.cpus} cpus and {dict(job.demands)}; machine {self.name!r} "
            f"has {self.capacity} cpus and {self.resources}"
        )
        if self.oversize == "raise":
            raise ValueError(f"{reason}: it can never run here")
        self.rejected += 1
        self.records.add(job, self.name, Status.REJECTED, math.nan, math.nan, 0.0)
        if self._trace is not None:
            self._trace(self.env.now, self.name, "reject", reason)

    # ------------------------------------------------------------------ decisions (decisions.py)
    def decide(self) -> None:
        """Ask the policy for actions until it has none; called at every decision event.

        Call it after acting on the machine from outside the policy (a preemption by a
        tick process, say): freed CPUs are otherwise offered only at the next event.
        """
        self.decisions.decide()

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
            if not is_whole(cpus, 1) or cpus > job.cpus:
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
        # cpu_time.account(), written out here and in _complete: once each per job, on the hot path
        account = self.cpu_time
        account.busy_area += (self.capacity - self.free) * (now - account.last_change)
        account.last_change = now
        run.cpus = n
        run.started = now
        self.free -= n
        if job.demands:
            for r, a in job.demands.items():
                if a > 0:
                    self.used[r] += a
        self.running.append(run)
        # a plain job's end is one Timeout (job_end.py); a ProcessJob's body runs as a process (job_body.py)
        run.event = _Allocated(env, run, self.ends.plan) if job.__class__ is Job else self.bodies.allocated(run)
        if self._trace is not None:
            self._trace(now, self.name, "resume" if resumed else "start", f"job {job.id} on {n}/{job.cpus} cpus")

    def preempt(self, job: Job) -> None:
        """Suspend running ``job``: its CPUs are freed, it waits to resume where it left off (``reallocation``)."""
        self.reallocation.preempt(job)

    def resize(self, job: Job, cpus: int) -> None:
        """Squeeze running ``job`` onto fewer CPUs, or grow it back, at most to what it asked for (``reallocation``)."""
        self.reallocation.resize(job, cpus)

    # ------------------------------------------------------------------ a job's end
    @step_label("completes {job}")
    def _complete(self, event: simpy.Event) -> None:
        """The job's work is done (its end event, planned by ``ends``, fired): it leaves, ``COMPLETED``."""
        run: Running = event._value  # SimPy's field behind .value (a property call)
        if run.event is not event:
            return  # stale: planned before a preemption or resize
        now = self.env.now
        account = self.cpu_time  # cpu_time.account(), written out
        account.busy_area += (self.capacity - self.free) * (now - account.last_change)
        account.last_change = now
        # The final stretch is by definition the rest of the work: no float residue.
        run.work_done += run._remaining
        run.cpu_time += (now - run.started) * run.cpus
        run._remaining = 0.0
        self._leave(run, Status.COMPLETED, now)

    def _leave(self, run: Running, status: Status, now: float, restarts: int = 0, allocation: str = NO_IDS) -> None:
        """The job ends: free its CPUs, record it (with its node-failure ``restarts`` and the ``allocation``
        of ids it ran on, which a MachineWithIds passes), tell the listeners, then decide."""
        job = run.job
        run.event = None
        self._release(run)
        del self._arrival_seq[job]
        if not self.completed and self._trace is None:
            # Nobody listens: log the fields, make no record (a third of the completion's cost).
            self.records.add(
                job, self.name, status, run.first_start, now, run.cpu_time, run.preemptions, run.resizes,
                restarts, allocation,
            )  # fmt: skip
        else:
            self.ends.record(run, status, now, restarts, allocation)
        self.decisions.decide()

    def _release(self, run: Running) -> None:
        """Give back the CPUs and other resources ``run`` holds (at its end, or when it is preempted)."""
        self.free += run.cpus
        self.running.remove(run)
        demands = run.job.demands
        if demands:  # re-add what is still held rather than subtract: no float residue builds up
            for r, a in demands.items():
                if a > 0:
                    self.used[r] = math.fsum(x.job.demands.get(r, 0.0) for x in self.running)

    # ------------------------------------------------------------------ CPUs had over time (cpu_time)
    @property
    def busy(self) -> int:
        """CPUs allocated now."""
        return self.capacity - self.free

    def busy_time(self) -> float:
        """Integral of allocated CPUs over time, from the start to now (exact)."""
        return self.cpu_time.busy_time()

    def capacity_time(self) -> float:
        """Integral of provisioned CPUs (``capacity``) over time, from the start to now (exact)."""
        return self.cpu_time.capacity_time()

    def set_capacity(self, cpus: int) -> None:
        """Grow or shrink the pool of CPUs, never below the CPUs in use (``cpu_time``)."""
        self.cpu_time.set_capacity(cpus)

    # ------------------------------------------------------------------ what a job may have
    def fits(self, job: Job, cpus: int | None = None) -> bool:
        """Could ``job`` start now on ``cpus`` CPUs (default: all it asked for)?"""
        if (job.cpus if cpus is None else cpus) > self.free:
            return False
        if not job.demands:  # CPUs only, the common case: no generator to build
            return True
        used, resources = self.used, self.resources
        # a relative tolerance: 0.1 + 0.2 of memory must fit a capacity of 0.3
        return all(a <= 0 or used.get(r, 0.0) + a <= resources.get(r, 0.0) * (1 + 1e-9) for r, a in job.demands.items())

    def can_ever_fit(self, job: Job) -> bool:
        """Does ``job`` fit the empty machine at its largest?"""
        if job.cpus > self.max_capacity:
            return False
        resources = self.resources
        return all(a <= 0 or a <= resources.get(r, 0.0) * (1 + 1e-9) for r, a in job.demands.items())

    def time_limit(self, job: Job) -> float | None:
        """The run time (holding CPUs, squeezed or not) after which ``job`` is killed, or ``None``.

        Asked once, at its first start. Under ``walltime="kill"``: the job's ``estimate``
        (SWF's requested time), if it has one; a cluster adds its queues' limits.
        """
        return job.estimate if self.walltime == "kill" else None

    # ------------------------------------------------------------------ records
    def snapshot(self) -> list[JobRecord]:
        """Records of the jobs still here (``RUNNING`` or ``WAITING``), as of now."""
        return snapshot(self)

    def all_records(self) -> list[JobRecord]:
        """Completed and rejected jobs, then those still running or waiting."""
        return [*self.records, *snapshot(self)]

    # ------------------------------------------------------------------ internals
    def _running_state(self, job: Job) -> Running:
        if (run := self.running.of(job)) is not None:
            return run
        raise PolicyError(f"machine {self.name!r}: job {job.id} is not running here")

    def __repr__(self) -> str:
        state = f"capacity={self.capacity}, free={self.free}, waiting={len(self.waiting)}, running={len(self.running)}"
        return f"{type(self).__name__}({self.name!r}, {state})"

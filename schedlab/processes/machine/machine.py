"""A multi-CPU machine whose jobs can be preempted, squeezed, grown back and killed at a time limit.

Jobs wait in the machine's queue until its policy starts them. A started job runs on
an allocation of CPUs, and the allocation can change while it runs:

- a *preempted* job gives all its CPUs back and waits to resume where it left off;
- a *squeezed* job runs on fewer CPUs than it asked for, at rate
  ``allocated / requested``, so its execution time is ``L * N_I / min(N_A, N_I)``
  (seed 000, section 5);
- a squeezed job can be *grown* back.

At each change the machine books the work done so far in the job's
:class:`~schedlab.processes.machine.running.Running` state. It then plans the job's end again,
at the new rate. Under ``walltime="kill"`` the end is the earlier of two events: the
job's work is done, or its time limit is reached.

A plain job's end is one SimPy ``Timeout`` whose callback completes (or kills) the job;
the job is not a SimPy process. :mod:`schedlab.processes.machine.job_end` explains how, why,
and what it bought, measured (``JobEnding``, which ``Machine`` mixes in). A
:class:`~schedlab.model.core.job.ProcessJob` carries a process body, which the machine
runs as a SimPy process and interrupts when the job's allocation changes
(:mod:`schedlab.processes.machine.job_body`).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping
from typing import Any, Literal

import simpy

from schedlab.model.contracts.machine import Action, Policy, Preempt, Resize, Start
from schedlab.model.contracts.processor_map import AllocationRule
from schedlab.model.core.fields import is_whole
from schedlab.model.core.job import Job
from schedlab.model.records.job_record import JobRecord, Status
from schedlab.model.records.log import RecordLog
from schedlab.processes.machine.capacity import CapacityAccount
from schedlab.processes.machine.fitting import Fitting
from schedlab.processes.machine.job_body import JobBodies
from schedlab.processes.machine.job_end import LATE, NORMAL, JobEnding, _Allocated  # private: the event is no API
from schedlab.processes.machine.job_snapshot import JobSnapshot
from schedlab.processes.machine.node_faults import NodeFaults, OnNodeFail
from schedlab.processes.machine.processor_ids import GivesIds, ProcessorIds
from schedlab.processes.machine.running import Running, RunningSet
from schedlab.processes.machine.view import PolicyView
from schedlab.processes.signal import Signal
from schedlab.processes.tracing import step_label, tracer_of

__all__ = ["Machine", "MachineWithIds", "PolicyError"]

#: answers decide() applies as one action (an iterable of any other kind is a batch);
#: a tuple, built once: ``A | B | ...`` in the loop would build a union at every answer
_ONE_ANSWER = (Start, Preempt, Resize, str, bytes)


class PolicyError(RuntimeError):
    """A policy asked for something the machine cannot do."""


class Machine(CapacityAccount, JobEnding, ProcessorIds, JobBodies, NodeFaults, Fitting, JobSnapshot):
    """``capacity`` CPUs (and optional other resources) shared by jobs, run by a policy.

    Parameters
    ----------
    env
        The SimPy environment.
    capacity
        Number of CPUs.
    policy
        Called at each decision event with a :class:`~schedlab.model.contracts.machine.MachineView`;
        returns the next :data:`~schedlab.model.contracts.machine.Action` (the machine applies
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
    ends_last
        At an instant, jobs end after every arrival of that instant is queued (by
        default the events keep the order they were scheduled in). With decisions at
        every event this is RLScheduler's loop (``compat="rlscheduler"``): a job
        submitted when another ends joins the queue before the CPUs come back.
    walltime
        What happens to a job that reaches its time limit
        (:meth:`~schedlab.processes.machine.fitting.Fitting.time_limit`):
        ``"run-on"`` (the default) lets it run to its end; ``"kill"`` kills it there,
        as Slurm, PBS and OAR do, with a ``TIMEOUT`` record (``end`` the kill time,
        ``cpu_time`` the CPU-time it held). Under ``"kill"`` a job's limit is its
        ``estimate`` (the log's requested time), if it has one.
    allocation
        Give each job specific processor ids (:mod:`schedlab.processes.machine.processor_ids`):
        ``"first-fit"`` (the lowest contiguous block, else the lowest free ids),
        ``"lowest"``, or a rule function ``(ProcessorMap, n) -> ids``. Default ``None``:
        CPUs are counted, not named.
    node_size, on_node_fail
        Node failures (:mod:`schedlab.processes.machine.node_faults`; they need ``allocation``):
        node ``k`` is processors ``k * node_size`` onwards; a job a failure kills is
        requeued (``"requeue"``: same id, started over) or dropped (``"drop"``: a
        ``NODE_FAIL`` record). Failures come from :meth:`inject_failures` or :meth:`fail_nodes`.

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
    """

    def __new__(cls, *args: Any, allocation: str | AllocationRule | None = None, **kwargs: Any) -> Machine:
        # the feature set is chosen here, once: a machine that gives processor ids is a MachineWithIds
        return super().__new__(MachineWithIds if allocation is not None and cls is Machine else cls)

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
        self._end_priority = LATE if ends_last else NORMAL  # read by JobEnding._plan_end
        self._decision_pending = False
        self._busy_area = 0.0  # CapacityAccount's integrals
        self._last_change = env.now
        self._capacity_area = 0.0
        self._capacity_since = env.now
        self._trace = tracer_of(env)
        self._init_ids(allocation)
        self._init_faults(node_size, on_node_fail)
        self._init_bodies()

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

    # ------------------------------------------------------------------ decisions
    def _decision_event(self) -> None:
        if not self._batch:
            self.decide()
        elif not self._decision_pending:
            # A zero-delay timeout runs after the events already due now: same-time
            # arrivals (a Source submits them in one go) and completions come first.
            self._decision_pending = True
            self.env.timeout(0).callbacks.append(self._batched_decision)

    @step_label("decides")
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
                    apply(answer)  # type: ignore[arg-type]  # an action, or something that is not: apply() names it
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
        # _account(), written out here and in _complete: once each per job, on the hot path
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
        # a plain job's end is one Timeout (job_end.py); a ProcessJob's body runs as a process (job_body.py)
        run.event = _Allocated(env, run, self._plan_end) if job.__class__ is Job else self._allocated(run)
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
        self._interrupt_body(run, "preempt")
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
        if not is_whole(cpus, 1) or cpus > job.cpus:
            raise PolicyError(f"machine {self.name!r}: job {job.id} asks for {job.cpus} cpus; cannot resize to {cpus}")
        if cpus - run.cpus > self.free:
            raise PolicyError(
                f"machine {self.name!r}: growing job {job.id} to {cpus} cpus needs "
                f"{cpus - run.cpus} more, {self.free} free"
            )
        if cpus == run.cpus:
            return
        now = self.env.now
        self._account()
        run._book(now)
        self.free -= cpus - run.cpus
        run.cpus = int(cpus)
        run.resizes += 1
        # re-plan the end at the new rate (a body: a new incarnation on the new allocation)
        run.event = (
            _Allocated(self.env, run, self._plan_end) if job.__class__ is Job else self._allocated(run, "resize")
        )
        if self._trace is not None:
            self._trace(now, self.name, "resize", f"job {job.id} to {cpus}/{job.cpus} cpus")

    # ------------------------------------------------------------------ elsewhere
    # A job's end (_plan_end, _complete, _kill_at_limit, _leave, _release): JobEnding, in
    # job_end.py. The CPUs had over time (busy, busy_time, capacity_time, set_capacity,
    # _account): CapacityAccount, in capacity.py. Processor ids (allocation_rows, allocated):
    # ProcessorIds, in processor_ids.py. Node failures (fail_nodes, repair_nodes, inject_failures):
    # NodeFaults, in node_faults.py. Whether a job fits now or ever, and its time limit (fits,
    # can_ever_fit, time_limit): Fitting, in fitting.py. The records of the jobs still here
    # (snapshot, all_records): JobSnapshot, in job_snapshot.py.

    # ------------------------------------------------------------------ internals
    def _running_state(self, job: Job) -> Running:
        for run in self.running:
            if run.job is job:
                return run
        raise PolicyError(f"machine {self.name!r}: job {job.id} is not running here")

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.name!r}, capacity={self.capacity}, free={self.free}, "
            f"waiting={len(self.waiting)}, running={len(self.running)})"
        )


class MachineWithIds(GivesIds, Machine):
    """A :class:`Machine` that gives each job processor ids: what ``Machine(..., allocation=...)`` builds.

    Its ``start``, ``resize``, ``_release`` and ``_leave`` are Machine's with the ids
    taken and given back around them (:class:`~schedlab.processes.machine.processor_ids.GivesIds`).
    """

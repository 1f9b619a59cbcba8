"""Brokers taking turns, and the clock of the time-stepped grid (seed 003).

N scheduler agents (brokers) share M resources (:class:`~schedlab.processes.grid.resources.GridResources`),
placed on a topology (:class:`~schedlab.model.contracts.grid.GridTopology`: the resources'
capacities, latency, reach, the sharing graph). Time advances in unit steps; inside step t the phases are explicit
and ordered:

1. *arrivals* (the clock): each agent's new jobs of the step land in its job buffer;
2. *decisions* (the agents, in the topology's turn order): agent i reads the messages
   its predecessors left (OSL's utility tables), submits each new job where the
   policy says, and leaves a message for each of its successors. A job sent to a
   resource L away (the link latency) reaches its queue L later;
3. *execution*: the resources serve their queues in continuous time until t + 1;
   each completion is emitted on the ``completed`` signal;
4. *step end* (the clock, at t + 1, after every completion at t + 1): the
   ``step_ended`` signal (OSL's reward of eqs. 4-5 subscribes to it) and a sample of
   the load time series.

A policy is any object with the hooks of :class:`~schedlab.model.contracts.grid.GridPolicy`:
the learners (:mod:`schedlab.learners.osl`, :mod:`schedlab.learners.sls`) and the
baselines (:mod:`schedlab.policies.grid`). Learners subscribe to the signals in their
``bind``; the model never calls a learner by name.

How the turn passes (two schemes, on purpose). The turn is a token in the agents'
:class:`Mailbox` (a ``simpy.Store``), so each turn is one SimPy event and a teacher can
step through it. With a policy that shares (``shares = True``, OSL) every agent has
work in every step, so the token makes the full round: agent k waits for agent k-1's
post, and the first agent waits for the step to start. With a policy that shares
nothing (the baselines, SLS), an agent without new jobs would neither decide nor send:
the clock lists the agents with new jobs at arrival and the token visits only them
(:meth:`GridModel.pass_turn`). Same decisions and draws, far fewer process switches:
on the paper's (300, 1000) grid at 70% load about a third of the agents have a job in
a given step.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator
from typing import Any

import numpy as np
import simpy

from schedlab.model.analysis import metrics
from schedlab.model.contracts.grid import GridPolicy, GridTopology, JobSource
from schedlab.model.core.fields import is_int, whole
from schedlab.model.core.job import Job, new_job, trusted_job
from schedlab.model.records.job_record import JobRecord
from schedlab.processes.grid.resources import GridModelView, GridResources, GridSeries
from schedlab.processes.signal import Signal

__all__ = ["GridModel", "Mailbox", "SchedulerAgent"]


class Mailbox(simpy.Store):
    """An agent's inbox: a ``simpy.Store`` with one reader, whose turn tokens cost one plain event.

    A sender never waits (the store is unbounded), so :meth:`post` skips the put event
    a plain ``put`` schedules, which no one waits on. The one reader waits with
    :meth:`wait`: a plain ``simpy.Event`` that :meth:`post` succeeds with the item, the
    turn still one SimPy event a teacher can step through. Why not ``get()``: a
    ``StoreGet`` books itself in the store's get queue and re-checks the put queue when
    it fires; a post-and-resume through it costs several times the plain event
    (measured: benchmarks/README.md), and the grid passes N tokens per step (OSL on
    (300, 1000): 300). ``get()`` still works for any other reader.
    """

    def __init__(self, env: simpy.Environment) -> None:
        super().__init__(env)
        self._reader: simpy.Event | None = None

    def wait(self) -> simpy.Event:
        """The next item, as an event: already triggered if one is here, else fired by the next post."""
        event = simpy.Event(self._env)
        if self.items:
            event.succeed(self.items.pop(0))
        else:
            self._reader = event
        return event

    def post(self, item: object) -> None:
        """Deliver ``item``: to the waiting reader at once, else into the box."""
        reader = self._reader
        if reader is not None:  # the reader is waiting: hand the item over at once, as a get would
            self._reader = None
            reader.succeed(item)
            return
        self.items.append(item)
        if self.get_queue:
            self._trigger_get(None)


class SchedulerAgent:
    """One broker: a SimPy process taking its turn once per step (see the module's note on turns)."""

    def __init__(self, model: GridModel, index: int, inbox: Mailbox, outbox: Mailbox, first: bool) -> None:
        self.model = model
        self.index = index
        self.inbox = inbox
        self.outbox = outbox
        self.first = first
        #: the job buffer: jobs that arrived this step, not yet submitted
        self.buffer: list[Job] = []
        self.process = model.env.process(self._run())

    def _run(self) -> Generator[simpy.Event, Any, None]:
        model, i = self.model, self.index
        policy, submit = model.policy, model.submitter(i)
        inbox, inbox_wait, outbox_post = self.inbox.items, self.inbox.wait, self.outbox.post
        shares, board = model.shares, model.board
        reads = [(p, i) for p in model.topology.predecessors[i]]
        # on a ring (OSL's sharing graph) one message in: read it without building a list comprehension
        read = reads[0] if len(reads) == 1 else None
        writes = [(i, s) for s in model.successors[i]]
        while True:
            if self.first:
                yield model.step_started
            # the turn: the first agent's token has waited since the last step, take it without an event
            if inbox:
                inbox.pop(0)
            else:
                yield inbox_wait()
            if shares:
                # A message is taken off the board as it is read (each is read once, in its receiver's next
                # turn), so its copy is freed at once and the allocator hands the next copy that same block,
                # still in cache. Left on the board until the sender's next write, 300 copies (2.4 MB on
                # (300, 1000)) were alive and each new one was written to memory that was not: the OSL
                # benchmark took more CPU time (measured: benchmarks/README.md).
                policy.receive(i, [board.pop(read)] if read is not None else [board.pop(edge) for edge in reads])
            jobs = self.buffer
            if jobs:
                self.buffer = []
                # from a list, not np.fromiter over a generator: cheaper for two jobs (measured: benchmarks/README.md)
                lengths = np.array([job.runtime for job in jobs])
                for pos, resource in policy.assign(i, lengths):
                    submit(resource, jobs[pos])
            if shares:
                for edge in writes:  # one copy per successor: a reader may change what it was given
                    board[edge] = policy.message(i)
                outbox_post(None)
            else:
                model.pass_turn()


class GridModel:
    """N brokers and M FIFO resources on a topology, a policy, stepped ``steps`` times.

    Parameters
    ----------
    env
        The SimPy environment.
    topology
        The grid: N brokers, M resources and their capacities, latency, reach and the
        sharing graph. :meth:`GridTopology.complete(agents, capacities, sharing=ring)
        <schedlab.model.contracts.grid.GridTopology.complete>` is the paper's grid (no
        latency; sharing by default along the ring 0 -> 1 -> ... -> N-1 -> 0);
        :func:`schedlab.topologies.grid_topology` reduces any NetworkX graph to one.
    policy
        The agents' decision rule (a :class:`~schedlab.model.contracts.grid.GridPolicy`).
    jobs
        Where each step's new jobs come from (:class:`~schedlab.model.core.workloads.PoissonJobs`).
    steps
        The horizon: how many steps to run; ``None`` runs for ever, which needs a
        system load (eq. 7) below 1.
    record_every
        Sample ALoR, max/std LoR and ATPT every this many steps (and at the last).
    keep_records
        Keep every completed job's record for :meth:`all_records` (default). ``False``
        keeps none: a run that reads only the series and the signals saves their
        memory and the garbage collector's time (:class:`~schedlab.processes.grid.resources.GridServer`).

    Attributes
    ----------
    completed
        Signal: a :class:`~schedlab.model.contracts.grid.GridCompletion` at each completion.
    step_ended
        Signal: the step's index at its end, after every completion up to and including it.
    in_transit
        Jobs sent and still on a link (always 0 without latency).
    """

    def __init__(
        self,
        env: simpy.Environment,
        topology: GridTopology,
        policy: GridPolicy,
        jobs: JobSource,
        *,
        steps: int | None,
        record_every: int = 1,
        keep_records: bool = True,
    ) -> None:
        if not isinstance(topology, GridTopology):
            raise TypeError(
                f"topology must be a GridTopology (GridTopology.complete(agents, capacities) or "
                f"topologies.grid_topology(graph)), got {type(topology).__name__}"
            )
        if steps is not None and not is_int(steps, 1):
            raise ValueError(f"steps: the horizon must be a whole number >= 1 (or None), got {steps!r}")
        whole("record_every", record_every, 1)
        self.env = env
        self.agents = topology.agents
        self.topology = topology
        latency = float(topology.latency.max())
        self.resources = GridResources(
            env, topology.capacities, keep_history=latency if latency > 0 else None, keep_records=keep_records
        )
        self.steps = steps
        self.jobs = jobs
        mean = getattr(jobs, "mean_length", None)
        rate = getattr(jobs, "rate", None)
        #: the expected system load of eq. 7, with the actual capacities (nan if the source has no rate)
        self.load = (
            metrics.system_load([rate] * self.agents, mean, self.resources.capacities)
            if mean is not None and rate is not None
            else math.nan
        )
        if steps is None and not self.load < 1:
            raise ValueError(
                f"system load (eq. 7) = {self.load:.4g} >= 1 with no horizon: the queues grow without end; "
                "lower xi, add resources, or give steps="
            )
        self.policy = policy
        self.step_ended: Signal[int] = Signal()
        self.completed = self.resources.completed
        self.view = GridModelView(env, self.resources, self.agents, topology, self.step_ended)
        policy.bind(self.view)  # learners subscribe here, before the series: they hear completions first
        self.series = GridSeries(self.resources)
        self.record_every = record_every
        self.order = list(topology.order)
        self.step = 0
        self.in_transit = 0
        self.step_started = env.event()
        self.shares = bool(getattr(policy, "shares", True))
        self._turns: list[int] = []
        self._start_agents()
        self._next_id = 0
        self.clock = env.process(self._clock())

    def _start_agents(self) -> None:
        """The brokers' processes, their turn mailboxes and the sharing graph's message board."""
        env, topology, policy = self.env, self.topology, self.policy
        self.successors: list[list[int]] = [[] for _ in range(self.agents)]
        for i, preds in enumerate(topology.predecessors):
            for p in preds:
                self.successors[p].append(i)
        #: the messages on the sharing graph's edges not read yet: (sender, receiver) -> the sender's latest
        #: message, taken off when the receiver reads it
        self.board: dict[tuple[int, int], object] = {}
        boxes = [Mailbox(env) for _ in range(self.agents)]  # boxes[k]: the inbox of order[k]
        self.agent_list: list[SchedulerAgent] = [None] * self.agents  # type: ignore[list-item]  # each filled in just below
        for k, i in enumerate(self.order):
            nxt = (k + 1) % self.agents
            self.agent_list[i] = SchedulerAgent(self, i, boxes[k], boxes[nxt], first=k == 0 and self.shares)
        if self.shares:
            # a message from a broker later in the turn order is read in the next step: its first read
            # is of the broker's initial state ("the previous step"); on a ring, only the last agent's
            place = {i: k for k, i in enumerate(self.order)}
            for i, preds in enumerate(topology.predecessors):
                for p in preds:
                    if place[p] >= place[i]:
                        self.board[p, i] = policy.message(p)
            boxes[0].post(None)  # the first agent's first turn

    def submitter(self, agent: int) -> Callable[[int, Job], None]:
        """How broker ``agent`` sends a job: at once on a complete grid, else checked and over its links."""
        if self.topology.is_complete:
            return self.resources.submit  # the paper's grid: nothing to check, nothing in flight
        reach, latency = self.topology.reach[agent], self.topology.latency[agent].tolist()
        resources, env = self.resources, self.env

        def submit(resource: int, job: Job) -> None:
            if not 0 <= resource < len(latency) or not reach[resource]:
                raise ValueError(
                    f"broker {agent} sent job {job.id} to resource {resource!r}, "
                    "which its topology does not let it reach"
                )
            delay = latency[resource]
            if delay > 0:
                self.in_transit += 1
                env.timeout(delay).callbacks.append(lambda _event: self._arrive_at(resource, job))
            else:
                resources.submit(resource, job)

        return submit

    def _arrive_at(self, resource: int, job: Job) -> None:
        self.in_transit -= 1
        self.resources.submit(resource, job)

    def _arrive(self, step: int) -> None:
        now, next_id = float(self.env.now), self._next_id
        # A source whose lengths are known valid (PoissonJobs: drawn between checked bounds) gets jobs
        # without the per-job checks: trusted_job costs less than new_job (measured: benchmarks/README.md), once
        # per job of the run. Any other source's lengths are checked, job by job.
        make = trusted_job if getattr(self.jobs, "lengths_checked", False) else new_job
        for i, lengths in enumerate(self.jobs.lengths(step, self.agents)):
            if len(lengths):
                buffer = self.agent_list[i].buffer
                for length in lengths:
                    buffer.append(make(next_id, now, float(length), origin=i))
                    next_id += 1
        self._next_id = next_id
        if not self.shares:
            agents = self.agent_list
            self._turns = [i for i in reversed(self.order) if agents[i].buffer]
            self.pass_turn()

    def pass_turn(self) -> None:
        """Wake the next agent with new jobs, in turn order (policies that share nothing)."""
        if self._turns:
            self.agent_list[self._turns.pop()].inbox.post(None)

    def _clock(self) -> Generator[simpy.Event, Any, None]:
        env, emit, series, every = self.env, self.step_ended.emit, self.series, self.record_every
        series.sample()
        step = 0
        while self.steps is None or step < self.steps:
            self._arrive(step)
            started, self.step_started = self.step_started, env.event()
            started.succeed(step)
            yield env.timeout(1)
            # A zero delay puts the step's end after every completion at exactly t + 1:
            # their events were all scheduled before this one.
            yield env.timeout(0)
            emit(step)
            step += 1
            self.step = step
            if step % every == 0 or step == self.steps:
                series.sample()

    @property
    def done(self) -> simpy.Process:
        """The clock process: it ends after the last step's end (the model's ``until``)."""
        return self.clock

    def all_records(self) -> list[JobRecord]:
        """Every resource's records, completed and not."""
        return self.resources.all_records()

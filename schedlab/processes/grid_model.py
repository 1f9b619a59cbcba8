"""Scheduler agents on an ordinal ring, and the clock of the time-stepped grid (seed 003).

N scheduler agents share M resources (:class:`~schedlab.processes.grid.GridResources`).
Time advances in unit steps; inside step t the phases are explicit and ordered:

1. *arrivals* (the clock): each agent's new jobs of the step land in its job buffer;
2. *decisions* (the agents, in ring order): agent i takes the message agent i-1 left
   in its mailbox (a :class:`simpy.Store`), lets its decider read it (OSL shares the
   utility table), submits each new job where the decider says, and leaves its own
   message in agent i+1's mailbox. The first agent of the ring also waits for the
   step to start; its mailbox holds the last agent's message of the previous step.
   With a decider that shares nothing (``shares = False``) the turn skips the agents
   without new jobs: they would neither decide nor send anything;
3. *execution*: the resources serve their queues in continuous time until t + 1;
   each completion reaches the decider through the completion signal;
4. *step end* (the clock, at t + 1, after every completion at t + 1): the decider's
   per-step update (OSL's reward of eqs. 4-5) and a sample of the load time series.

A decider is any object with the methods of :class:`GridDecider`: the learners
(:mod:`schedlab.learners.osl`, :mod:`schedlab.learners.sls`) and the baselines
(:mod:`schedlab.policies.grid`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Protocol

import networkx as nx
import numpy as np
import simpy

from schedlab.model import metrics
from schedlab.model.job import Job
from schedlab.model.records import JobRecord
from schedlab.processes.grid import GridResources, GridSeries, GridView

__all__ = ["GridDecider", "GridModel", "Mailbox", "PoissonJobs", "SchedulerAgent", "ring_order"]


class GridDecider(Protocol):
    """How every agent of a grid decides; agents' state may live in rows of one array."""

    def bind(self, view: GridView) -> None:
        """Called once, before the run: the grid's view (sizes, capacities, loads)."""

    def message(self, agent: int) -> object:
        """What ``agent`` sends to its successor on the ring (a copy: later updates must not leak)."""

    def receive(self, agent: int, message: object) -> None:
        """``agent`` reads its predecessor's message at the start of its turn."""

    def assign(self, agent: int, lengths: np.ndarray) -> Iterable[tuple[int, int]]:
        """``(job position, resource)`` for each new job, in submission order.

        Each pair is submitted before the next is asked for, so a rule reading loads
        sees its own earlier submissions.
        """

    def completed(self, agent: int, resource: int, record: JobRecord) -> None:
        """The completion signal of a job ``agent`` submitted to ``resource``."""

    def end_step(self) -> None:
        """The step's end, after every completion up to and including it."""


class JobSource(Protocol):
    def lengths(self, step: int, agents: int) -> Sequence[Sequence[float]]:
        """The lengths of each agent's new jobs in ``step``, one sequence per agent."""


class PoissonJobs:
    """Poisson(``rate``) jobs per agent per step, lengths uniform in ``[low, high]``.

    Counts come from the ``arrivals`` Generator, lengths from ``lengths``, all agents
    of a step in one draw each, so every decider sees the same jobs for the same seeds.
    """

    def __init__(
        self, rate: float, low: float, high: float, arrivals: np.random.Generator, lengths: np.random.Generator
    ) -> None:
        if not (math.isfinite(rate) and rate >= 0):
            raise ValueError(f"arrival rate xi must be finite and >= 0, got {rate!r}")
        if not (math.isfinite(low) and low > 0):
            raise ValueError(f"job length range: Jmin must be finite and > 0, got {low!r}")
        if not (math.isfinite(high) and high >= low):
            raise ValueError(f"job length range [Jmin, Jmax] = [{low!r}, {high!r}] is empty")
        self.rate, self.low, self.high = float(rate), float(low), float(high)
        self._arrivals, self._lengths = arrivals, lengths

    @property
    def mean_length(self) -> float:
        return (self.low + self.high) / 2

    def lengths(self, step: int, agents: int) -> list[list[float]]:
        counts = self._arrivals.poisson(self.rate, agents).tolist()
        drawn = self._lengths.uniform(self.low, self.high, sum(counts)).tolist()
        out, k = [], 0
        for c in counts:  # plain slices: np.split into N arrays costs more than the whole step's draws
            out.append(drawn[k : k + c])
            k += c
        return out


def ring_order(ring: nx.DiGraph, agents: int) -> list[int]:
    """The agents in ring order from agent 0, checking ``ring`` is one directed cycle over them all."""
    if agents < 1:
        raise ValueError(f"agents: need N >= 1 scheduler agents, got {agents}")
    if set(ring.nodes) != set(range(agents)):
        raise ValueError(f"ring: nodes must be the agents 0..{agents - 1}, got {sorted(ring.nodes)[:10]}...")
    order = [0]
    for _ in range(agents):
        succ = list(ring.successors(order[-1]))
        if len(succ) != 1:
            raise ValueError(f"ring: agent {order[-1]} must have exactly one successor, has {len(succ)}")
        if succ[0] == 0:
            break
        order.append(succ[0])
    if len(order) != agents or len(set(order)) != agents:
        raise ValueError(f"ring: not one cycle through all {agents} agents (cycle from 0 has {len(order)})")
    return order


class Mailbox(simpy.Store):
    """An agent's inbox: a ``simpy.Store`` whose :meth:`post` puts without a put event.

    Agents read with ``get()``; a sender never waits (the store is unbounded), so the
    put event a plain ``put`` schedules, which no one waits on, is skipped: the item is
    appended and a waiting reader woken at once, as ``put`` would do.
    """

    def post(self, item: object) -> None:
        self.items.append(item)
        if self.get_queue:
            self._trigger_get(None)


class SchedulerAgent:
    """One scheduler: a SimPy process taking its turn on the ring once per step."""

    def __init__(self, model: GridModel, index: int, inbox: Mailbox, outbox: Mailbox, first: bool) -> None:
        self.model = model
        self.index = index
        self.inbox = inbox
        self.outbox = outbox
        self.first = first
        #: the job buffer: jobs that arrived this step, not yet submitted
        self.buffer: list[Job] = []
        self.process = model.env.process(self._run())

    def _run(self):  # type: ignore[no-untyped-def]
        model, i = self.model, self.index
        decider, submit = model.decider, model.resources.submit
        inbox, inbox_get, outbox_post = self.inbox.items, self.inbox.get, self.outbox.post
        shares = model.shares
        while True:
            if self.first:
                yield model.step_started
            # the first agent's message has waited since the last step: take it without an event
            message = inbox.pop(0) if inbox else (yield inbox_get())
            decider.receive(i, message)
            jobs = self.buffer
            if jobs:
                self.buffer = []
                lengths = np.fromiter((job.runtime for job in jobs), float, len(jobs))
                for pos, resource in decider.assign(i, lengths):
                    submit(resource, jobs[pos])
            if shares:
                outbox_post(decider.message(i))
            else:
                model.pass_turn()


class GridModel:
    """N agents on a ring, M FIFO resources, a decider, stepped ``steps`` times.

    Parameters
    ----------
    env
        The SimPy environment.
    capacities
        Capacity of each resource (M of them).
    agents
        Number of scheduler agents N.
    decider
        The agents' decision rule (a :class:`GridDecider`).
    jobs
        Where each step's new jobs come from (:class:`PoissonJobs`).
    steps
        The horizon: how many steps to run; ``None`` runs for ever, which needs a
        system load (eq. 7) below 1.
    ring
        Directed cycle over the agents (default 0 -> 1 -> ... -> N-1 -> 0).
    record_every
        Sample ALoR, max/std LoR and ATPT every this many steps (and at the last).
    """

    def __init__(
        self,
        env: simpy.Environment,
        capacities: Sequence[float] | np.ndarray,
        agents: int,
        decider: GridDecider,
        jobs: JobSource,
        *,
        steps: int | None,
        ring: nx.DiGraph | None = None,
        record_every: int = 1,
    ) -> None:
        if isinstance(agents, bool) or not isinstance(agents, int | np.integer) or agents < 1:
            raise ValueError(f"agents: need N >= 1 scheduler agents, got {agents!r}")
        if steps is not None and (isinstance(steps, bool) or not isinstance(steps, int | np.integer) or steps < 1):
            raise ValueError(f"steps: the horizon must be a whole number >= 1 (or None), got {steps!r}")
        if isinstance(record_every, bool) or not isinstance(record_every, int) or record_every < 1:
            raise ValueError(f"record_every must be a whole number >= 1, got {record_every!r}")
        self.env = env
        self.resources = GridResources(env, capacities)
        self.agents = int(agents)
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
        self.decider = decider
        self.view = GridView(env, self.resources, self.agents)
        decider.bind(self.view)
        self.resources.connect(self._completed)
        self.series = GridSeries(self.resources)
        self.record_every = record_every
        self.order = list(range(self.agents)) if ring is None else ring_order(ring, self.agents)
        self.step = 0
        self.step_started = env.event()
        # A decider that shares nothing (``shares = False``: the baselines, SLS) needs no message on the
        # ring, and an agent without new jobs has nothing to do in its turn: the turn then goes, in ring
        # order, only to the agents with new jobs (the same decisions and draws, fewer process switches).
        self.shares = bool(getattr(decider, "shares", True))
        self._turns: list[int] = []
        boxes = [Mailbox(env) for _ in range(self.agents)]  # boxes[k]: the inbox of order[k]
        self.agent_list: list[SchedulerAgent] = [None] * self.agents  # type: ignore[list-item]
        for k, i in enumerate(self.order):
            nxt = (k + 1) % self.agents
            self.agent_list[i] = SchedulerAgent(self, i, boxes[k], boxes[nxt], first=k == 0 and self.shares)
        if self.shares:
            # the first agent's first turn reads the last agent's (initial) table: "the previous step"
            boxes[0].post(decider.message(self.order[-1]))
        self._next_id = 0
        self.clock = env.process(self._clock())

    def _completed(self, resource: int, record: JobRecord) -> None:
        self.decider.completed(record.origin, resource, record)  # type: ignore[arg-type]

    def _arrive(self, step: int) -> None:
        now, next_id = float(self.env.now), self._next_id
        for i, lengths in enumerate(self.jobs.lengths(step, self.agents)):
            if len(lengths):
                buffer = self.agent_list[i].buffer
                for length in lengths:
                    buffer.append(Job(next_id, now, float(length), origin=i))
                    next_id += 1
        self._next_id = next_id
        if not self.shares:
            agents = self.agent_list
            self._turns = [i for i in reversed(self.order) if agents[i].buffer]
            self.pass_turn()

    def pass_turn(self) -> None:
        """Wake the next agent with new jobs, in ring order (deciders that share nothing)."""
        if self._turns:
            self.agent_list[self._turns.pop()].inbox.post(None)

    def _clock(self):  # type: ignore[no-untyped-def]
        env, decider, series, every = self.env, self.decider, self.series, self.record_every
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
            decider.end_step()
            step += 1
            self.step = step
            if step % every == 0 or step == self.steps:
                series.sample()

    @property
    def done(self) -> simpy.Process:
        """The clock process: it ends after the last step's end (the model's ``until``)."""
        return self.clock

    def all_records(self) -> list[JobRecord]:
        return self.resources.all_records()

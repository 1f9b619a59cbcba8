"""Servers on a small-world ring that ship jobs to their neighbours (seed 004, Tumer and Lawson).

N servers with K integer resources each (resource 1 is the speed, 2..K gate
admission) run one job at a time, first in first out, and block while their head job
does not fit (:class:`RingServer`, a :class:`~schedlab.processes.server.Server`).
Time advances in unit steps tau; inside step t the phases are explicit and ordered:

1. *deliveries*: jobs shipped during step t-1 leave the links (a :class:`simpy.Store`
   mailbox holding each step's batch of shipments, one put and one get per step)
   and go to the front of their server's queue, in the order they were shipped, or
   on to the next hop when they travel further (load balancing);
2. *arrivals*: each server receives a new job with probability r, at the back;
3. *decisions*: the shipping rule looks at the servers and ships jobs out of their
   queues onto the links (the agents of section 3.2 decide on each head job; load
   balancing on the job of highest load);
4. *service*: servers work in continuous time until t + 1 (a job of c cycles takes
   c / speed); a free server starts its head job the moment it fits, so a put, a
   shipment or a completion can start a job at once. Completions reach the network
   through each server's completion signal.

A *run* is ``steps`` such steps with the rule's vectors fixed; at its end the network
scores it (:class:`RunOutcome`: which jobs were executed, which agents touched which
jobs), clears every queue, link and running job, and hands the outcome to the rule
(where learners update) and to :attr:`ServerNetwork.run_ended`.
"""

from __future__ import annotations

import math
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import Protocol

import networkx as nx
import numpy as np
import simpy

from schedlab.model.job import Job
from schedlab.model.records import JobRecord, Status, job_record
from schedlab.processes.server import JobQueue, Server
from schedlab.processes.signal import Signal

__all__ = [
    "RingServer",
    "RunOutcome",
    "ServerNetwork",
    "ShippingAgents",
    "ShippingRule",
    "job_classes",
    "random_vectors",
]


def _whole(name: str, value: int, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
        raise ValueError(f"{name} must be a whole number >= {low}, got {value!r}")
    return int(value)


def job_classes(requirements: np.ndarray, m: int) -> np.ndarray:
    """The agent class of each job: bit k set where requirement k is in the upper half ``[M/2 + 1, M]``.

    With K resources there are 2^K classes; class 0 holds the jobs whose requirements
    are all in the lower half ``[1, M/2]`` (section 3.2). ``M/2`` is rounded down.
    """
    req = np.atleast_2d(np.asarray(requirements))
    bits = (req > m // 2).astype(np.int64)
    return (bits << np.arange(req.shape[1])).sum(axis=1)


def random_vectors(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One probability vector per row, uniform on the simplex of that row's allowed actions.

    ``mask[a, k]`` says whether agent ``a`` has action ``k``; the vectors are zero
    elsewhere. Uniform on the simplex = normalised unit exponentials (Dirichlet(1, ..., 1)).
    """
    draws = rng.exponential(1.0, mask.shape) * mask
    return draws / draws.sum(axis=1, keepdims=True)


class _StartingQueue(JobQueue):
    """A :class:`JobQueue` that tells its server the moment it hands the head job over."""

    def __init__(self, env: simpy.Environment, server: RingServer) -> None:
        super().__init__(env, server.fits)
        self.server = server

    def _do_get(self, event):  # type: ignore[no-untyped-def, override]
        items = self.items
        if items and self.server.fits(items[0]):
            job = items.popleft()
            self.server._started(job)  # before the server process resumes: loads and counts see it now
            event.succeed(job)

    def take(self, job: Job) -> None:
        """Remove waiting ``job``; a free server looks at the new head at once."""
        items = self.items
        if items and items[0] is job:  # the agents only ever take the head
            items.popleft()
        else:
            items.remove(job)
        if self.server.running is None:
            self._trigger_get(None)

    def add(self, job: Job, front: bool = False) -> None:
        """Put ``job`` in at once, at the front or the back, and let a waiting server take it.

        What ``put`` does, less the put event: inside a step's phases nothing waits
        on a put (the queue is unbounded), and a step moves tens of jobs.
        """
        if front:
            self.items.appendleft(job)
        else:
            self.items.append(job)
        if self.server.running is None:  # a busy server is not waiting on a get
            self._trigger_get(None)


class RingServer(Server):
    """A :class:`Server` whose queue and running job can be cleared between runs.

    Parameters
    ----------
    env
        The SimPy environment.
    capacities
        The K integer capacities; ``capacities[0]`` is the speed, the others are the
        resources ``"r2".."rK"`` a job's demands must fit.
    name
        Label for records.
    keep_records
        Keep the record of every completed job (``records``); off by default, since a
        learning experiment completes millions of jobs and only counts them.
    whole_steps
        Serve in whole steps (the default, the paper's time-stepped servers): a job of
        c cycles holds the server for ceil(c / speed) steps, so a server starts at most
        one job per step, at a step boundary. ``False`` serves in continuous time, c / speed.

    Notes
    -----
    ``running`` is set when the queue hands a job over, not when the server process
    resumes a moment later (same simulated time), so phases of the step that follow
    at that instant already see the job as running.
    """

    def __init__(
        self,
        env: simpy.Environment,
        capacities: Sequence[int],
        *,
        name: str = "server",
        keep_records: bool = False,
        whole_steps: bool = True,
    ) -> None:
        caps = [int(c) for c in capacities]
        if not caps or min(caps) < 1:
            raise ValueError(f"server {name!r}: capacities must be K >= 1 whole numbers >= 1, got {list(capacities)}")
        super().__init__(env, caps[0], {f"r{k + 1}": c for k, c in enumerate(caps[1:], start=1)}, name=name)
        self.capacity_vector = np.array(caps, dtype=np.int64)
        self.queue = _StartingQueue(env, self)  # the process has not started yet: it will use this queue
        self.running: Job | None = None
        self.keep_records = keep_records
        #: summed requirements of the jobs held here (waiting and running), per resource
        self.held = [0.0] * len(caps)
        self._caps = [float(c) for c in caps]
        self.whole_steps = whole_steps

    def duration(self, job: Job) -> float:
        """How long ``job`` holds this server: ceil(cycles / speed) steps, or cycles / speed."""
        d = job.runtime / self.speed
        return float(math.ceil(d)) if self.whole_steps else d

    def fits(self, job: Job) -> bool:
        """Capacity >= requirement for resources 2..K (the speed admits any job)."""
        caps = self.capacities
        for name, amount in job.demands.items():  # noqa: SIM110 (a loop is faster than all() on a generator)
            if amount > caps[name]:
                return False
        return True

    def submit(self, job: Job, front: bool = False) -> None:
        """Queue ``job`` at the back (arrivals) or the front (``front=True``: shipped-in jobs)."""
        self.queue.add(job, front)
        held = self.held
        held[0] += job.runtime
        for k, amount in enumerate(job.demands.values(), start=1):
            held[k] += amount

    def take(self, job: Job) -> None:
        """Remove waiting ``job`` from the queue (it is shipped away)."""
        self.queue.take(job)
        self._release(job)

    def _release(self, job: Job) -> None:
        held = self.held
        held[0] -= job.runtime
        for k, amount in enumerate(job.demands.values(), start=1):
            held[k] -= amount

    def load(self) -> float:
        """L_i of section 3.4: the mean over resources of (requirements held here) / capacity."""
        return sum(h / c for h, c in zip(self.held, self._caps, strict=True)) / len(self._caps)

    def _started(self, job: Job) -> None:
        now = self.env.now
        self.running = self.current = job
        self._current_start, self.current_end = now, now + self.duration(job)

    def _serve(self) -> Generator[simpy.Event, Job, None]:
        env = self.env
        while True:
            try:
                job = yield self.queue.get()
                yield env.timeout(self.duration(job))
            except simpy.Interrupt:  # cleared between runs: the job is dropped
                continue
            start = self._current_start
            self._release(job)
            self.running = self.current = None
            self.current_end = math.nan
            record = job_record(job, self.name, Status.COMPLETED, start=start, end=env.now, cpu_time=env.now - start)
            if self.keep_records:
                self.records.append(record)
            self.completed.emit(record)

    def clear(self) -> list[Job]:
        """Drop the queue and the running job (the end of a run); returns the dropped jobs."""
        dropped = list(self.queue.items)
        self.queue.items.clear()
        if self.running is not None:
            dropped.append(self.running)
            self.running = self.current = None
            self.current_end = math.nan
            self.process.interrupt("cleared")
        self.records.clear()
        self.held = [0.0] * len(self.held)
        return dropped


@dataclass(frozen=True)
class RunOutcome:
    """What one run did: per job of the run (index = job id minus the run's first id), and the touches.

    Attributes
    ----------
    run
        Index of the run (t in the paper).
    weights
        w_k of each job that entered during the run.
    executed
        e_k: whether the job completed within the run.
    touch_agent, touch_job
        Each (agent, job) pair where the agent decided on the job during the run, once per pair.
    agents
        Number of agents (N * 2^K).
    """

    run: int
    weights: np.ndarray
    executed: np.ndarray
    touch_agent: np.ndarray
    touch_job: np.ndarray
    agents: int

    @property
    def efficiency(self) -> float:
        """G of eq. 6: the weighted fraction of the run's jobs that were executed within it."""
        total = float(self.weights.sum())
        return float(self.weights @ self.executed) / total if total > 0 else math.nan


class ShippingRule(Protocol):
    """What ships jobs: the agents of section 3.2 under a learner or RAND, or load balancing."""

    def bind(self, network: ServerNetwork) -> None:
        """Called once before the first run."""

    def begin_run(self, run: int) -> None:
        """A run starts: fix the vectors it will use."""

    def decide(self, network: ServerNetwork) -> list[tuple[int, Job, int]]:
        """The decisions phase: ``(server, job, destination)`` for each job to ship now."""

    def end_run(self, outcome: RunOutcome) -> None:
        """A run ended (the system is already cleared): score and learn."""


class ShippingAgents:
    """2^K agents per server, one per job class, each with a probability vector over {keep, each neighbour}.

    Agent ``a = server * classes + class``. Action 0 keeps the head job, action
    ``k >= 1`` ships it to the server's k-th neighbour (in increasing order). At each
    step, for every server with a waiting job, the agent owning the head job's class
    draws an action from its vector (one uniform number per server per step from
    ``rng``, drawn for all servers at once) and the decision is recorded as a touch.

    Parameters
    ----------
    neighbours
        Each server's neighbours, in action order.
    classes
        Agents per server (2^K).
    rng
        The stream the decisions draw from (e.g. ``streams["routing"]``).
    """

    def __init__(self, neighbours: Sequence[Sequence[int]], classes: int, rng: np.random.Generator) -> None:
        self.neighbours = [list(map(int, nb)) for nb in neighbours]
        self.servers = len(self.neighbours)
        self.classes = _whole("classes (agents per server)", classes, 1)
        self.agents = self.servers * self.classes
        width = 1 + max(len(nb) for nb in self.neighbours)
        degree = np.repeat([len(nb) for nb in self.neighbours], self.classes)
        #: mask[a, k]: agent a has action k (keep, then one per neighbour)
        self.mask = np.arange(width)[None, :] <= degree[:, None]
        #: destination of each action: the server itself for keep, then its neighbours
        self.targets = np.full((self.agents, width), -1, dtype=np.int64)
        for a in range(self.agents):
            s = a // self.classes
            self.targets[a, : 1 + len(self.neighbours[s])] = [s, *self.neighbours[s]]
        self.rng = rng
        self.vectors = self.mask / self.mask.sum(axis=1, keepdims=True)
        self._cumulative: list[list[float]] = []
        self.set_vectors(self.vectors)

    def set_vectors(self, vectors: np.ndarray) -> None:
        """Fix every agent's probability vector (rows sum to 1, zero outside the agent's actions)."""
        vectors = np.asarray(vectors, dtype=float)
        if vectors.shape != self.mask.shape:
            raise ValueError(f"vectors: need shape {self.mask.shape}, got {vectors.shape}")
        if (vectors < 0).any() or (vectors[~self.mask] != 0).any():
            raise ValueError("vectors: probabilities must be >= 0 and 0 on actions an agent does not have")
        if not np.allclose(vectors.sum(axis=1), 1.0):
            raise ValueError("vectors: each agent's probabilities must sum to 1")
        self.vectors = vectors
        cumulative = np.cumsum(vectors, axis=1)
        cumulative[:, -1] = 2.0  # past any uniform draw, whatever the rounding of the sum
        self._cumulative = cumulative.tolist()  # Python floats: the per-decision scan is a few comparisons
        self._targets = self.targets.tolist()

    def decide(self, network: ServerNetwork) -> list[tuple[int, Job, int]]:
        """Draw each head job's fate; record every decision as a touch of the job by its agent."""
        heads = network.heads()
        if not heads:
            return []
        draws = self.rng.random(self.servers).tolist()
        classes, cumulative, targets = self.classes, self._cumulative, self._targets
        touch = network.touch
        job_class = network.job_class
        out = []
        for s, job in heads:
            a = s * classes + job_class(job)
            touch(a, job)
            u, row = draws[s], cumulative[a]
            k = 0
            while u >= row[k]:
                k += 1
            if k:
                out.append((s, job, targets[a][k]))
        return out


class ServerNetwork:
    """N :class:`RingServer` on a graph, external arrivals, links, a shipping rule, run after run.

    Parameters
    ----------
    env
        The SimPy environment.
    graph
        Connected graph over servers ``0..N-1`` (e.g. :func:`~schedlab.topologies.small_world_ring`).
    capacities
        ``(N, K)`` integer capacities, column 0 the speeds.
    arrival_prob
        r: each server's probability of a new job per step, in [0, 1].
    max_requirement
        M: job requirements are uniform on ``{1..M}``, M >= 1.
    rule
        The :class:`ShippingRule`.
    arrivals, requirements
        The streams of the arrival coin flips and of the job requirements.
    steps
        Steps per run (400 in the paper).
    runs
        Runs (t = 0..runs-1); the model ends after the last.
    keep_records
        Keep the servers' job records of the current run.
    whole_steps
        Servers work in whole steps (ceil(c / speed) per job, the default) or in
        continuous time (c / speed); see :class:`RingServer`.

    Attributes
    ----------
    curve
        G of each run so far.
    run_ended
        Signal emitted with each run's :class:`RunOutcome`, after the rule's ``end_run``.
    """

    def __init__(
        self,
        env: simpy.Environment,
        graph: nx.Graph,
        capacities: np.ndarray,
        arrival_prob: float,
        max_requirement: int,
        rule: ShippingRule,
        arrivals: np.random.Generator,
        requirements: np.random.Generator,
        *,
        steps: int = 400,
        runs: int = 400,
        keep_records: bool = False,
        whole_steps: bool = True,
    ) -> None:
        if not (isinstance(arrival_prob, int | float) and 0 <= arrival_prob <= 1):
            raise ValueError(f"r (arrival probability per server per step) must be in [0, 1], got {arrival_prob!r}")
        self.m = _whole("M (largest requirement/capacity)", max_requirement, 1)
        self.steps = _whole("steps (per run)", steps, 1)
        self.runs = _whole("runs", runs, 1)
        caps = np.asarray(capacities)
        n = graph.number_of_nodes()
        if caps.ndim != 2 or caps.shape[0] != n or caps.shape[1] < 1:
            raise ValueError(f"capacities: need shape (N={n}, K >= 1), got {caps.shape}")
        if sorted(graph.nodes) != list(range(n)) or not nx.is_connected(graph):
            raise ValueError("graph: need a connected graph over servers 0..N-1")
        self.env = env
        self.graph = graph
        self.n, self.k = n, int(caps.shape[1])
        self.classes = 2**self.k
        self.capacities = caps.astype(np.int64)
        self.r = float(arrival_prob)
        self._names = [f"r{k + 1}" for k in range(1, self.k)]
        self.rule = rule
        self._arrivals, self._requirements = arrivals, requirements
        self.servers = [
            RingServer(env, row, name=f"server{i}", keep_records=keep_records, whole_steps=whole_steps)
            for i, row in enumerate(caps)
        ]
        for server in self.servers:
            server.completed.connect(self._completed)
        #: the links: one batch of (next server, job, destination) per step, delivered the next step
        self.links = simpy.Store(env)
        self._outgoing: list[tuple[int, Job, int]] = []
        from schedlab.topologies.small_world import next_hops  # topologies import nothing of processes

        self.next_hop = next_hops(graph).tolist()
        self.run = 0
        self.curve: list[float] = []
        self.run_ended: Signal[RunOutcome] = Signal()
        self.arrived = 0  # jobs of the current run so far
        self._first_id = 0
        self._next_id = 0
        self._weights: list[float] = []
        self._classes: list[int] = []
        self._executed = bytearray()
        self._touched: set[tuple[int, int]] = set()
        rule.bind(self)
        self.clock = env.process(self._clock())

    # ------------------------------------------------------------------ bookkeeping
    def job_class(self, job: Job) -> int:
        """The agent class of a job of the current run."""
        return self._classes[job.id - self._first_id]

    def touch(self, agent: int, job: Job) -> None:
        """Record that ``agent`` decided on ``job`` in this run (I_k = 1 for that agent)."""
        self._touched.add((agent, job.id - self._first_id))

    def _completed(self, record: JobRecord) -> None:
        self._executed[record.id - self._first_id] = 1

    def heads(self) -> list[tuple[int, Job]]:
        """``(server, head job)`` for every server with a waiting job, in server order."""
        return [(i, s.queue.items[0]) for i, s in enumerate(self.servers) if s.queue.items]

    def in_transit(self) -> int:
        return sum(len(batch) for batch in self.links.items) + len(self._outgoing)

    def queued(self) -> int:
        return sum(len(s.queue.items) for s in self.servers)

    def running(self) -> int:
        return sum(s.running is not None for s in self.servers)

    def executed(self) -> int:
        """Jobs of the current run executed so far."""
        return sum(self._executed)

    # ------------------------------------------------------------------ phases
    def _deliver(self) -> None:
        if not self.links.items:
            return
        batch = self.links.get().value  # a get on a non-empty store succeeds at once
        servers, outgoing, next_hop = self.servers, self._outgoing, self.next_hop
        for i, job, dest in batch:
            if dest == i:
                servers[i].submit(job, front=True)
            else:  # load balancing: the job travels on, one link per step
                outgoing.append((next_hop[i][dest], job, dest))

    def _arrive(self) -> None:
        coins = self._arrivals.random(self.n)
        where = np.flatnonzero(coins < self.r)
        if where.size == 0:
            return
        req = self._requirements.integers(1, self.m + 1, size=(where.size, self.k)).tolist()
        half = self.m // 2
        classes = [sum(1 << k for k, v in enumerate(row) if v > half) for row in req]  # as job_classes()
        now = float(self.env.now)
        names, servers, next_id = self._names, self.servers, self._next_id
        for i, row in zip(where.tolist(), req, strict=True):
            job = Job(next_id, now, float(row[0]), demands=dict(zip(names, row[1:], strict=True)), origin=i)
            next_id += 1
            servers[i].submit(job)
        count = where.size
        self._next_id = next_id
        self._weights.extend([1.0] * count)  # the jobs' default weight w_k = 1
        self._classes.extend(classes)
        self._executed.extend(bytes(count))
        self.arrived += count

    def add_job(self, server: int, requirements: Sequence[int], weight: float = 1.0) -> Job:
        """An external arrival by hand: a job with these K requirements joins the back of ``server``'s queue.

        The arrivals phase does the same for its random jobs; this is for examples,
        tests and scripted workloads (call it from a rule's ``decide`` or before the run).
        """
        req = [int(v) for v in requirements]
        if len(req) != self.k or min(req) < 1:
            raise ValueError(f"requirements: need K = {self.k} whole numbers >= 1, got {list(requirements)}")
        demands = dict(zip(self._names, req[1:], strict=True))
        job = Job(self._next_id, float(self.env.now), float(req[0]), demands=demands, weight=weight, origin=server)
        self._next_id += 1
        self._weights.append(float(weight))
        self._classes.append(int(job_classes(np.array([req]), self.m)[0]))
        self._executed.append(0)
        self.arrived += 1
        self.servers[server].submit(job)
        return job

    def ship(self, server: int, job: Job, destination: int) -> None:
        """Take ``job`` out of ``server``'s queue onto the link towards ``destination``."""
        self.servers[server].take(job)
        self._outgoing.append((self.next_hop[server][destination], job, destination))

    def _outcome(self) -> RunOutcome:
        if self._touched:
            pairs = np.array(sorted(self._touched), dtype=np.int64)
            agents, jobs = pairs[:, 0], pairs[:, 1]
        else:
            agents = jobs = np.zeros(0, dtype=np.int64)
        return RunOutcome(
            self.run,
            np.array(self._weights, dtype=float),
            np.frombuffer(bytes(self._executed), dtype=np.uint8).astype(bool),
            agents,
            jobs,
            self.n * self.classes,
        )

    def _clear(self) -> None:
        for server in self.servers:
            server.clear()
        self.links.items.clear()
        self._outgoing = []
        self._first_id = self._next_id
        self.arrived = 0
        self._weights, self._classes, self._executed = [], [], bytearray()
        self._touched = set()

    def _clock(self):  # type: ignore[no-untyped-def]
        env, rule = self.env, self.rule
        for run in range(self.runs):
            self.run = run
            rule.begin_run(run)
            for _ in range(self.steps):
                self._deliver()
                self._arrive()
                for server, job, destination in rule.decide(self):
                    self.ship(server, job, destination)
                if self._outgoing:
                    self.links.put(self._outgoing)
                    self._outgoing = []
                yield env.timeout(1)
                # Zero delays put the next phases after every completion at t + 1 and
                # after the server processes that resumed from them.
                yield env.timeout(0)
                yield env.timeout(0)
            outcome = self._outcome()
            self.curve.append(outcome.efficiency)
            self._clear()
            yield env.timeout(0)  # let the cleared servers' processes take their interrupts
            rule.end_run(outcome)
            self.run_ended.emit(outcome)

    @property
    def done(self) -> simpy.Process:
        """The clock process: it ends after the last run (the model's ``until``)."""
        return self.clock

    def all_records(self) -> list[JobRecord]:
        out: list[JobRecord] = []
        for server in self.servers:
            out.extend(server.all_records())
        return out

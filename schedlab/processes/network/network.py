"""Servers on a graph that ship jobs to each other (seed 004, Tumer and Lawson: a small-world ring).

N servers with K integer resources each (resource 1 is the speed, 2..K gate
admission) sit on any connected graph, run one job at a time, first in first out, and
block while their head job does not fit (:class:`~schedlab.processes.network.server.NetworkServer`).
Time advances in unit steps tau; inside step t the phases are explicit and ordered:

1. *deliveries*: jobs shipped during step t-1 leave the links (a :class:`simpy.Store`
   mailbox holding each step's batch of shipments; the clock puts one batch in and
   takes one out per step, through its ``items``: nothing ever waits on the links)
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

A *run* is ``steps`` such steps with the rule's vectors fixed; at its start the rule's
``begin_run`` hook and the :attr:`~ServerNetwork.run_started` signal (where a learner
sets the vectors); at its end the network scores it
(:class:`~schedlab.model.contracts.network.RunOutcome`: which jobs were executed, which agents
touched which jobs; :class:`~schedlab.processes.network.outcome.RunScoring`, mixed in),
clears every queue, link and running job, and emits the outcome on
:attr:`~ServerNetwork.run_ended`, where learners (WLU, TG, SU) record their rewards.
The contract a rule is written against is :mod:`schedlab.model.contracts.network`; the network
itself is the :class:`~schedlab.model.contracts.network.NetworkView` the rule reads.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping, Sequence
from typing import Any

import networkx as nx
import numpy as np
import simpy

from schedlab.model.contracts.network import TOUCHES, RunOutcome, ShippingRule, job_classes
from schedlab.model.contracts.routing import next_hops
from schedlab.model.core.fields import whole
from schedlab.model.core.job import Job, frozen_demands, trusted_job
from schedlab.model.records.job_record import JobRecord, Status
from schedlab.model.records.table import job_record
from schedlab.processes.network.outcome import RunScoring
from schedlab.processes.network.server import NetworkServer
from schedlab.processes.signal import Signal

__all__ = ["ServerNetwork"]


class ServerNetwork(RunScoring):
    """N :class:`NetworkServer` on a graph, external arrivals, links, a shipping rule, run after run.

    Parameters
    ----------
    env
        The SimPy environment.
    graph
        Connected graph over servers ``0..N-1`` (e.g. :func:`~schedlab.topologies.small_world_ring`,
        or any connected NetworkX graph relabelled to ``0..N-1``).
    capacities
        ``(N, K)`` integer capacities, column 0 the speeds.
    arrival_prob
        r: each server's probability of a new job per step, in [0, 1].
    max_requirement
        M: job requirements are uniform on ``{1..M}``, M >= 1.
    rule
        The :class:`~schedlab.model.contracts.network.ShippingRule` (e.g. :class:`~schedlab.policies.ShippingAgents`).
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
        continuous time (c / speed); see :class:`NetworkServer`.
    touches
        What sets I_k^eta (an agent "touched" job k): ``"visit"`` (the default) when the
        job entered the queue of the agent's server, by arrival or delivery, whether or
        not it ever reached the head; ``"decision"`` only when the agent decided on it
        (kept or shipped it as the head job). See ``docs/collectives.md``.

    Attributes
    ----------
    curve
        G of each run so far.
    completed
        Signal emitted with ``(server, record)`` at each completion.
    step_ended
        Signal emitted with the step's index (within the run) after its last phase.
    run_started
        Signal emitted with the run's index as it starts, after the rule's ``begin_run``.
    run_ended
        Signal emitted with each run's :class:`~schedlab.model.contracts.network.RunOutcome`, the system
        already cleared.
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
        touches: str = "visit",
    ) -> None:
        if touches not in TOUCHES:
            raise ValueError(f"touches: unknown {touches!r}; choose from {', '.join(TOUCHES)}")
        if not (isinstance(arrival_prob, int | float) and 0 <= arrival_prob <= 1):
            raise ValueError(f"r (arrival probability per server per step) must be in [0, 1], got {arrival_prob!r}")
        self.m = whole("M (largest requirement/capacity)", max_requirement, 1)
        self.steps = whole("steps (per run)", steps, 1)
        self.runs = whole("runs", runs, 1)
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
        #: the jobs' demands, one read-only mapping per distinct (r2..rK) requirements, shared by the jobs
        self._shared_demands: dict[tuple[int, ...], Mapping[str, float]] = {}
        self.rule = rule
        self._arrivals, self._requirements = arrivals, requirements
        self.servers = [
            NetworkServer(env, row, name=f"server{i}", keep_records=keep_records, whole_steps=whole_steps)
            for i, row in enumerate(caps)
        ]
        self.completed: Signal[tuple[int, JobRecord]] = Signal()
        self.step_ended: Signal[int] = Signal()
        for i, server in enumerate(self.servers):
            server.network_completed = self._completion_receiver(i)
        #: each server's queue (the deque itself: it is cleared in place, never replaced), for heads()
        self._queues = [server.queue.items for server in self.servers]
        self.touches = touches
        self._visits = touches == "visit"
        #: the links: one batch of (next server, job, destination) per step, delivered the next step
        self.links = simpy.Store(env)
        self._outgoing: list[tuple[int, Job, int]] = []
        self.next_hop = next_hops(graph).tolist()
        self.run = 0
        self.curve: list[float] = []
        self.run_started: Signal[int] = Signal()
        self.run_ended: Signal[RunOutcome] = Signal()
        self.arrived = 0  # jobs of the current run so far
        self._first_id = 0
        self._next_id = 0
        self._weights: list[float] = []
        self._classes: list[int] = []
        self._executed = bytearray()
        self._where: list[int] = []  # server where each job of the run completed, -1 if not
        # the run's requirements, one (jobs, K) array per arrival phase: no list per job kept for the whole run
        # for the garbage collector to walk (16,000 a run at (0.8, 8))
        self._reqs: list[np.ndarray] = []
        # The touches, as plain lists of small ints turned into the run's sorted (agent, job) pairs at its end
        # (_outcome). A job's arrival touch follows from where it arrived; a delivery is kept as (server,
        # job id), a decision as (agent, job id): ids, not indices, so that no int is made per touch. A set
        # of agent << 32 | job ints made two large ints and a set insertion per touch: 0.85-0.90 -> 0.78-0.84 s
        # CPU for 10 runs of benchmarks/collectives.py's network (best of 3, four interleaved pairs of processes).
        self._origins: list[int] = []  # server where each job of the run arrived
        self._delivered_to: list[int] = []
        self._delivered_ids: list[int] = []
        self._decided_agents: list[int] = []
        self._decided_ids: list[int] = []
        rule.bind(self)
        self.clock = env.process(self._clock())

    # ------------------------------------------------------------------ bookkeeping
    def _completion_receiver(self, server: int) -> Callable[[Job, float, float], None]:
        signal, name = self.completed, self.servers[server].name

        def completed(job: Job, start: float, end: float) -> None:
            index = job.id - self._first_id
            self._executed[index] = 1
            self._where[index] = server
            if signal.receivers:  # most runs have none: a learning experiment completes millions of jobs
                record = job_record(job, name, Status.COMPLETED, start=start, end=end, cpu_time=end - start)
                signal.emit((server, record))

        return completed

    def heads(self) -> list[tuple[int, Job]]:
        """``(server, head job)`` for every server with a waiting job, in server order."""
        return [(i, queue[0]) for i, queue in enumerate(self._queues) if queue]

    def waiting(self, server: int) -> Sequence[Job]:
        """The jobs waiting at ``server``, head first (do not mutate)."""
        return self.servers[server].queue.items

    def loads(self) -> np.ndarray:
        """L_i of section 3.4 for every server: O(N), each server keeping its held sums from the first call on."""
        return np.array([server.load() for server in self.servers])

    def in_transit(self) -> int:
        """Jobs on the links or about to leave: shipped, not yet arrived."""
        return sum(len(batch) for batch in self.links.items) + len(self._outgoing)

    def queued(self) -> int:
        """Jobs waiting in the servers' queues."""
        return sum(len(s.queue.items) for s in self.servers)

    def running(self) -> int:
        """Servers running a job now."""
        return sum(s.running is not None for s in self.servers)

    # ------------------------------------------------------------------ phases
    def _deliver(self) -> None:
        if not self.links.items:
            return
        # what the links' get() would hand over at once, without the get event nobody waits on
        batch = self.links.items.pop(0)
        servers, outgoing, next_hop = self.servers, self._outgoing, self.next_hop
        visits, delivered_to, delivered_ids = self._visits, self._delivered_to, self._delivered_ids
        for i, job, dest in batch:
            if dest == i:
                if visits:
                    delivered_to.append(i)
                    delivered_ids.append(job.id)
                servers[i].submit(job, front=True)
            else:  # load balancing: the job travels on, one link per step
                outgoing.append((next_hop[i][dest], job, dest))

    def _arrive(self) -> None:
        coins = self._arrivals.random(self.n)
        where = np.flatnonzero(coins < self.r)
        if where.size == 0:
            return
        drawn = self._requirements.integers(1, self.m + 1, size=(where.size, self.k))
        classes = job_classes(drawn, self.m).tolist()  # one array operation for the step's jobs
        req = drawn.tolist()
        now = float(self.env.now)
        servers, next_id, shared = self.servers, self._next_id, self._shared_demands
        origins = where.tolist()
        for i, row in zip(origins, req, strict=True):
            # The requirements are whole numbers in 1..M, checked when the network was built, so
            # the job needs no checks, and its demands are one read-only mapping per distinct value
            # (M^(K-1) of them) shared by every job that asks for it: no dict and no proxy per job.
            key = tuple(row[1:])
            demands = shared.get(key)
            if demands is None:
                demands = shared[key] = frozen_demands(dict(zip(self._names, key, strict=True)))
            job = trusted_job(next_id, now, float(row[0]), 1, demands, origin=i)
            next_id += 1
            servers[i].submit(job)
        count = where.size
        self._next_id = next_id
        self._weights.extend([1.0] * count)  # the jobs' default weight w_k = 1
        self._classes.extend(classes)
        self._executed.extend(bytes(count))
        self._where.extend([-1] * count)
        self._reqs.append(drawn)
        self._origins.extend(origins)
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
        self._where.append(-1)
        self._reqs.append(np.array([req], dtype=np.int64))
        self._origins.append(server)
        self.arrived += 1
        self.servers[server].submit(job)
        return job

    def ship(self, server: int, job: Job, destination: int) -> None:
        """Take ``job`` out of ``server``'s queue onto the link towards ``destination``."""
        self.servers[server].take(job)
        self._outgoing.append((self.next_hop[server][destination], job, destination))

    def _clear(self) -> None:
        for server in self.servers:
            server.clear()
        self.links.items.clear()
        self._outgoing = []
        self._first_id = self._next_id
        self.arrived = 0
        self._weights, self._classes, self._executed = [], [], bytearray()
        self._where, self._reqs, self._origins = [], [], []
        self._delivered_to, self._delivered_ids, self._decided_agents, self._decided_ids = [], [], [], []

    def decision_point(self) -> simpy.Event | None:
        """Called at each step's decisions phase, before the rule decides: ``None`` goes on at once.

        A subclass that must pause there (an RL environment choosing for the agents)
        returns an event; the phase resumes, at the same simulated time, when it fires.
        """
        return None

    def _clock(self) -> Generator[simpy.Event, Any, None]:
        env, rule, step_ended = self.env, self.rule, self.step_ended
        for run in range(self.runs):
            self.run = run
            rule.begin_run(run)
            self.run_started.emit(run)
            for step in range(self.steps):
                self._deliver()
                self._arrive()
                pause = self.decision_point()
                if pause is not None:  # an environment (schedlab.envs) decides for the rule: wait for it
                    yield pause
                for server, job, destination in rule.decide(self):
                    self.ship(server, job, destination)
                if self._outgoing:
                    # what put() does on an unbounded store, without the put event nobody waits on
                    self.links.items.append(self._outgoing)
                    self._outgoing = []
                yield env.timeout(1)
                # Zero delays put the next phases after every completion at t + 1 and
                # after the server processes that resumed from them.
                yield env.timeout(0)
                yield env.timeout(0)
                if step_ended:
                    step_ended.emit(step)
            outcome = self._outcome()
            self.curve.append(outcome.efficiency)
            self._clear()
            yield env.timeout(0)  # let the cleared servers' processes take their interrupts
            self.run_ended.emit(outcome)

    @property
    def done(self) -> simpy.Process:
        """The clock process: it ends after the last run (the model's ``until``)."""
        return self.clock

    def all_records(self) -> list[JobRecord]:
        """Every server's records, completed and not, server by server."""
        out: list[JobRecord] = []
        for server in self.servers:
            out.extend(server.all_records())
        return out

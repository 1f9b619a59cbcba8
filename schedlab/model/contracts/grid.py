"""The grid's decision contract (seed 003): what a broker sees, what it decides, what it hears.

N brokers (scheduler agents) send jobs to M resources. In each time step the brokers
take turns (the *sharing order*); in its turn a broker reads the messages its
predecessors left (OSL's utility tables), assigns each of its new jobs to a resource,
and leaves a message of its own. The process side (:class:`schedlab.processes.grid.grid.GridModel`)
runs the turns, the resources and the clock; this module holds, as plain data:

- :class:`GridView`: the read-only state a policy gets (sizes, capacities, the clock,
  loads as a broker sees them, the topology's reach and latency);
- :class:`Assign`: the action, one per new job;
- :class:`GridPolicy`: the decision hooks a rule or learner implements;
- :class:`GridCompletion` and the model's signals (``completed``, ``step_ended``):
  what learners subscribe to, in :meth:`GridPolicy.bind`;
- :class:`GridTopology`: a topology reduced to what a run needs (the resources'
  capacities, latency, reach, the sharing graph), built from any NetworkX graph by
  :mod:`schedlab.topologies.grid`;
- :class:`JobSource`: where a step's new jobs come from (the paper's workload,
  :class:`~schedlab.model.core.workloads.PoissonJobs`, is a core workload).

A policy or learner written against these types runs on any grid, on any topology.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

import networkx as nx
import numpy as np

from schedlab.model.contracts.signals import Subscribable
from schedlab.model.core.fields import is_int
from schedlab.model.core.job import Job
from schedlab.model.records.job_record import JobRecord, Status
from schedlab.model.records.table import job_record

__all__ = [
    "SERIES_COLUMNS",
    "Assign",
    "GridCompletion",
    "GridPolicy",
    "GridTopology",
    "GridView",
    "JobSource",
    "checked_capacities",
    "resource_name",
    "ring_order",
]

#: the columns of a grid's load time series (eqs. 1-2), sampled at step ends
SERIES_COLUMNS = ("time", "alor", "lor_max", "lor_std", "atpt", "completed", "submitted")


class Assign(NamedTuple):
    """Send new job number ``job`` (its position in the broker's batch) to ``resource``."""

    job: int
    resource: int


def resource_name(resource: int) -> str:
    """The name resource ``resource`` has in records: ``r<j>``."""
    return f"r{resource}"


class GridCompletion(NamedTuple):
    """A job finished: whose it was (``agent``), where it ran (``resource``), the job, when it ran.

    Its :attr:`record` is made when a receiver reads it: a grid completes hundreds of
    thousands of jobs, and most receivers (OSL, the load series) read only who, where
    and when; this tuple costs less than half a record (measured: benchmarks/README.md).
    """

    agent: int
    resource: int
    job: Job
    start: float
    end: float

    @property
    def record(self) -> JobRecord:
        """The job's completed record, as the resource that ran it would write it."""
        start, end = self.start, self.end
        return job_record(
            self.job, resource_name(self.resource), Status.COMPLETED, start=start, end=end, cpu_time=end - start
        )


class GridView(Protocol):
    """What a grid policy may read.

    Decentralised learners (OSL, SLS) read only the sizes and their own signals; the
    least-loaded rule reads :meth:`seen_lor` (a grid information service);
    decentralised Min-Min reads :attr:`busy_until` when its service refreshes.
    """

    @property
    def agents(self) -> int:
        """Number of brokers (N)."""
        ...

    @property
    def resources(self) -> int:
        """Number of resources (M)."""
        ...

    @property
    def capacities(self) -> np.ndarray:
        """Each resource's capacity (length processed per unit of time), read-only."""
        ...

    @property
    def busy_until(self) -> np.ndarray:
        """When each resource's queue empties, counting the jobs that reached it (read-only)."""
        ...

    @property
    def now(self) -> float:
        """The simulated time."""
        ...

    @property
    def topology(self) -> GridTopology:
        """Who reaches which resource, with what latency, and who shares with whom."""
        ...

    @property
    def completed(self) -> Subscribable[GridCompletion]:
        """Emitted at each completion, at its time."""
        ...

    @property
    def step_ended(self) -> Subscribable[int]:
        """Emitted with the step's index at its end, after every completion up to and including it."""
        ...

    def lor(self) -> np.ndarray:
        """LoR of every resource now (eq. 2), exact: an ideal, global information service."""
        ...

    def seen_lor(self, agent: int) -> np.ndarray:
        """LoR of every resource as broker ``agent`` sees it: as it was one link latency ago."""
        ...


class GridPolicy(Protocol):
    """How every broker of a grid decides; brokers' state may live in rows of one array.

    A policy that keeps learning subscribes in :meth:`bind` to the view's signals
    (``view.completed.connect(...)``, ``view.step_ended.connect(...)``): the model
    calls only the hooks below, never a learner by name.
    """

    #: does a broker's turn carry a message to its successors? ``False`` lets the model
    #: skip the brokers without new jobs (nothing to decide, nothing to send)
    shares: bool

    def bind(self, view: GridView) -> None:
        """Called once, before the run: the grid's view; subscribe to its signals here."""

    def message(self, agent: int) -> object:
        """What ``agent`` leaves for its successors (a copy: later updates must not leak)."""

    def receive(self, agent: int, messages: Sequence[object]) -> None:
        """``agent`` reads its predecessors' latest messages at the start of its turn (one on a ring)."""

    def assign(self, agent: int, lengths: np.ndarray) -> Iterable[Assign | tuple[int, int]]:
        """An :class:`Assign` for each new job of ``agent``, in submission order.

        Each is submitted before the next is asked for, so a rule reading loads
        sees its own earlier submissions (where the topology lets it see them).
        Resources outside ``view.topology.reach[agent]`` are refused.
        """


class JobSource(Protocol):
    """Where a grid's new jobs come from, step by step.

    A source may also set ``lengths_checked = True`` when every length it gives is
    already known to be a finite float > 0 (:class:`~schedlab.model.core.workloads.PoissonJobs`
    draws them between bounds it checked): the model then makes its jobs without
    checking each one.
    """

    def lengths(self, step: int, agents: int) -> Sequence[Sequence[float]]:
        """The lengths of each agent's new jobs in ``step``, one sequence per agent."""


def checked_capacities(capacities: Sequence[float] | np.ndarray) -> np.ndarray:
    """``capacities`` as a float array, checked: M >= 1 of them, each finite and > 0 (a one-line error)."""
    caps = np.array(capacities, dtype=float)
    if caps.ndim != 1 or caps.size < 1:
        raise ValueError(f"resources: need at least one resource (M >= 1), got {caps.size} capacities")
    good = np.isfinite(caps) & (caps > 0)
    if not good.all():
        bad = int(np.flatnonzero(~good)[0])
        raise ValueError(f"resources: capacity of resource {bad} must be finite and > 0, got {float(caps[bad])!r}")
    return caps


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


def _sharing_order(sharing: nx.DiGraph, agents: int) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """Turn order and predecessors of a sharing graph: a ring's own order, else breadth-first from agent 0."""
    if set(sharing.nodes) != set(range(agents)):
        raise ValueError(f"sharing: nodes must be the agents 0..{agents - 1}, got {sorted(sharing.nodes)[:10]}...")
    if all(sharing.out_degree(i) == 1 and sharing.in_degree(i) == 1 for i in range(agents)):
        try:
            ring: list[int] = ring_order(sharing, agents)
        except ValueError:
            ring = []
        if ring:
            before: list[tuple[int, ...]] = [()] * agents
            for k, i in enumerate(ring):
                before[i] = (ring[k - 1],)
            return tuple(ring), tuple(before)
    if not nx.is_weakly_connected(sharing):
        raise ValueError("sharing: the graph must connect every agent (weakly connected)")
    seen = dict.fromkeys(nx.bfs_tree(sharing.to_undirected(as_view=True), 0))
    order = tuple(seen)
    preds = tuple(tuple(sorted(sharing.predecessors(i))) for i in range(agents))
    return order, preds


@dataclass(frozen=True, eq=False)  # arrays inside: compare topologies with is_same_as
class GridTopology:
    """Where brokers and resources sit, as a run needs it.

    Build one with :func:`GridTopology.complete` (every broker reaches every resource
    at once: the paper's grid) or from any NetworkX graph with
    :func:`schedlab.topologies.grid_topology`.

    Attributes
    ----------
    agents, resources
        N brokers and M resources.
    capacities
        ``(M,)`` processing capacity of each resource (length processed per unit of
        time), finite and > 0: what a grid graph's resource nodes carry as ``capacity``.
    latency
        ``(N, M)`` time a job sent by broker b takes to reach resource r (the
        shortest path over the links' ``latency``); a broker also sees a
        resource's load as it was this long ago. All zeros: no delay anywhere.
    reach
        ``(N, M)`` booleans: the resources broker b may send to (e.g. within k hops).
    order
        The brokers' turn order within a step.
    predecessors
        For each broker, the brokers whose messages it reads in its turn (OSL's
        sharing graph; one predecessor each on a ring).
    """

    agents: int
    resources: int
    latency: np.ndarray
    reach: np.ndarray
    order: tuple[int, ...]
    predecessors: tuple[tuple[int, ...], ...]
    capacities: np.ndarray
    #: any extra description a builder wants to keep (e.g. the graph's name)
    name: str = field(default="complete")

    def __post_init__(self) -> None:
        n, m = self.agents, self.resources
        if not is_int(n, 1):
            raise ValueError(f"agents: need N >= 1 scheduler agents, got {n!r}")
        caps = checked_capacities(self.capacities)
        if caps.size != m:
            raise ValueError(f"topology: {m} resources, but {caps.size} capacities")
        object.__setattr__(self, "capacities", caps)
        if self.latency.shape != (n, m) or self.reach.shape != (n, m):
            raise ValueError(
                f"topology: latency and reach need shape (N={n}, M={m}), "
                f"got {self.latency.shape} and {self.reach.shape}"
            )
        if not np.all(np.isfinite(self.latency) & (self.latency >= 0)):
            raise ValueError("topology: every latency must be finite and >= 0 (a broker reaches its resources)")
        lonely = np.flatnonzero(~self.reach.any(axis=1))
        if lonely.size:
            raise ValueError(f"topology: broker {int(lonely[0])} reaches no resource")
        if sorted(self.order) != list(range(n)) or len(self.predecessors) != n:
            raise ValueError(f"topology: the turn order must name each of the {n} brokers once")
        for array in (self.latency, self.reach, caps):
            array.flags.writeable = False

    def is_same_as(self, other: GridTopology) -> bool:
        """Same sizes, capacities, latencies, reach, turn order and sharing graph."""
        return (
            (self.agents, self.resources, self.order, self.predecessors)
            == (other.agents, other.resources, other.order, other.predecessors)
            and np.array_equal(self.capacities, other.capacities)
            and np.array_equal(self.latency, other.latency)
            and np.array_equal(self.reach, other.reach)
        )

    @property
    def is_complete(self) -> bool:
        """Every broker reaches every resource with no delay (the fast path)."""
        return bool(self.reach.all() and not self.latency.any())

    @property
    def is_ring(self) -> bool:
        """Each broker reads exactly its predecessor in the turn order (OSL's ordinal ring)."""
        order = self.order
        return all(self.predecessors[i] == (order[k - 1],) for k, i in enumerate(order))

    @classmethod
    def complete(
        cls, agents: int, capacities: Sequence[float] | np.ndarray, sharing: nx.DiGraph | None = None
    ) -> GridTopology:
        """N brokers, each reaching every resource at once (the paper's grid); they share along ``sharing``.

        ``capacities`` are the M resources'; ``sharing`` defaults to the ring 0 -> 1 -> ... -> N-1 -> 0.
        """
        if not is_int(agents, 1):
            raise ValueError(f"agents: need N >= 1 scheduler agents, got {agents!r}")
        caps = checked_capacities(capacities)
        resources = caps.size
        if sharing is None:
            order: tuple[int, ...] = tuple(range(agents))
            preds: tuple[tuple[int, ...], ...] = tuple((order[k - 1],) for k in range(agents))
        else:
            order, preds = _sharing_order(sharing, agents)
        return cls(
            agents,
            resources,
            np.zeros((agents, resources)),
            np.ones((agents, resources), dtype=bool),
            order,
            preds,
            caps,
        )

    @classmethod
    def with_sharing(cls, base: GridTopology, sharing: nx.DiGraph) -> GridTopology:
        """``base`` with brokers sharing along ``sharing`` instead."""
        order, preds = _sharing_order(sharing, base.agents)
        return cls(base.agents, base.resources, base.latency, base.reach, order, preds, base.capacities, base.name)


def __getattr__(name: str) -> object:
    # PoissonJobs, a workload generator, moved to model/core/workloads.py (issue 34); tutorial 5 imported it here
    if name == "PoissonJobs":
        import warnings

        from schedlab.model.core.workloads import PoissonJobs

        warnings.warn(
            "schedlab.model.contracts.grid.PoissonJobs moved to schedlab.model.core.workloads.PoissonJobs",
            DeprecationWarning,
            stacklevel=2,
        )
        return PoissonJobs
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

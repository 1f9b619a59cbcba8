"""The server network's decision contract (seed 004): what a shipping rule sees, decides and hears.

N servers with K integer resources each sit on a connected graph. Time advances in
unit steps, grouped into *runs*; in each step a shipping rule looks at the servers and
ships waiting jobs towards other servers, one link per step. The process side
(:class:`schedlab.processes.network.network.ServerNetwork`) runs the steps, servers and links;
this module holds, as plain data:

- :class:`NetworkView`: the read-only state a rule gets (graph, capacities, heads of
  queues, loads, the touch bookkeeping of eqs. 4-5);
- :class:`Ship`: the action;
- :class:`ShippingRule`: the decision hooks;
- :class:`RunOutcome` (with :data:`TOUCHES`, :func:`job_classes`,
  :func:`random_vectors`): what a run did, which the model's ``run_ended`` signal
  carries to the learners (WLU, TG, SU) that subscribe to it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

import networkx as nx
import numpy as np

from schedlab.model.core.job import Job

__all__ = [
    "TOUCHES",
    "NetworkView",
    "RunOutcome",
    "Ship",
    "ShippingRule",
    "job_classes",
    "random_vectors",
]

#: what makes an agent "touch" a job (I_k^eta = 1), see :class:`~schedlab.processes.network.network.ServerNetwork`
TOUCHES = ("visit", "decision")


class Ship(NamedTuple):
    """Take waiting ``job`` out of ``server``'s queue and send it towards ``destination``."""

    server: int
    job: Job
    destination: int


class NetworkView(Protocol):
    """What a shipping rule may read of the network, and the one bookkeeping hook it may call."""

    @property
    def graph(self) -> nx.Graph:
        """The servers' graph (nodes ``0..N-1``), connected."""
        ...

    @property
    def n(self) -> int:
        """Number of servers N."""
        ...

    @property
    def k(self) -> int:
        """Resources per server K (column 0 the speed)."""
        ...

    @property
    def classes(self) -> int:
        """Agent classes per server, 2^K."""
        ...

    @property
    def capacities(self) -> np.ndarray:
        """``(N, K)`` integer capacities."""
        ...

    @property
    def touches(self) -> str:
        """The reading of I_k^eta: one of :data:`TOUCHES`."""
        ...

    def heads(self) -> list[tuple[int, Job]]:
        """``(server, head job)`` for every server with a waiting job, in server order."""
        ...

    def waiting(self, server: int) -> Sequence[Job]:
        """The jobs waiting at ``server``, head first (do not mutate)."""
        ...

    def loads(self) -> np.ndarray:
        """L_i of section 3.4 for every server: mean over resources of held requirements / capacity."""
        ...

    def job_class(self, job: Job) -> int:
        """The agent class of a job of the current run."""
        ...

    def touch(self, agent: int, job: Job) -> None:
        """Record that ``agent`` decided on ``job`` in this run (I_k = 1; the ``"decision"`` reading)."""
        ...


class ShippingRule(Protocol):
    """What ships jobs: agents' probability vectors (RAND, or under a learner), or load balancing.

    A learner does not implement this: it subscribes to the network's ``run_started`` and
    ``run_ended`` signals and changes the rule's parameters (e.g. the agents' vectors).
    """

    def bind(self, network: NetworkView) -> None:
        """Called once before the first run."""

    def begin_run(self, run: int) -> None:
        """A run starts (before the network's ``run_started`` signal)."""

    def decide(self, network: NetworkView) -> Sequence[Ship | tuple[int, Job, int]]:
        """The decisions phase: a :class:`Ship` for each job to ship now."""


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
        Each (agent, job) pair with I_k^eta = 1 in the run, once per pair.
    agents
        Number of agents (N * 2^K).
    executed_agent
        The agent at whose server the job completed (server * 2^K + the job's class),
        -1 when it did not complete; e_k^{eta,t} of eq. 4 is ``executed_agent[k] == eta``.
        Empty when not recorded.
    requirements
        ``(jobs, K)`` integer requirements (column 0 the cycles); empty when not recorded.
    """

    run: int
    weights: np.ndarray
    executed: np.ndarray
    touch_agent: np.ndarray
    touch_job: np.ndarray
    agents: int
    executed_agent: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    requirements: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))

    @property
    def efficiency(self) -> float:
        """G of eq. 6: the weighted fraction of the run's jobs that were executed within it."""
        total = float(self.weights.sum())
        # A masked sum, not ``weights @ executed``: a run's dot product goes to OpenBLAS, whose threads
        # cost far more CPU than the sum and spin on into the code that follows (measured:
        # benchmarks/README.md). The network's weights are 1.0 (add_job aside), so both give the same
        # count, bit for bit.
        return float(self.weights[self.executed].sum()) / total if total > 0 else math.nan


#: a private utility: one reward per agent from a run's outcome
Utility = Callable[[RunOutcome], np.ndarray]

"""The shipping agents of seed 004 (section 3.2) and RAND: a :class:`~schedlab.model.contracts.network.ShippingRule`.

2^K agents per server, one per job class, each with a probability vector over
{keep, each neighbour}. RAND draws every vector at random at the start of every run;
a learner (:class:`schedlab.learners.CollectiveLearner`) subscribes to the network's
signals and sets the vectors instead.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from schedlab.model.contracts.network import NetworkView, Ship, random_vectors
from schedlab.model.core.fields import whole
from schedlab.model.core.job import Job

__all__ = ["RandomVectors", "ShippingAgents"]


class ShippingAgents:
    """2^K agents per server, one per job class, each with a probability vector over {keep, each neighbour}.

    Agent ``a = server * classes + class``. Action 0 keeps the head job, action
    ``k >= 1`` ships it to the server's k-th neighbour (in increasing order). At each
    step, for every server with a waiting job, the agent owning the head job's class
    draws an action from its vector (one uniform number per server per step from
    ``rng``, drawn for all servers at once). Under the network's ``touches="decision"``
    reading the decision is recorded as a touch (under ``"visit"`` the network has
    already recorded it when the job entered the queue).

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
        self.classes = whole("classes (agents per server)", classes, 1)
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

    def bind(self, network: NetworkView) -> None:
        """Check the agents were built for this network's servers."""
        if len(self.neighbours) != network.n:
            raise ValueError(f"agents: built for {len(self.neighbours)} servers, the network has {network.n}")

    def begin_run(self, run: int) -> None:
        """Nothing: the vectors stay as set (by ``set_vectors``, a learner or RAND)."""
        pass  # the vectors stay as set (by set_vectors, a learner or RAND)

    def decide(self, network: NetworkView) -> list[Ship | tuple[int, Job, int]]:
        """Draw each head job's fate; under ``touches="decision"`` record it as a touch of the job by its agent."""
        heads = network.heads()
        if not heads:
            return []
        draws = self.rng.random(self.servers).tolist()
        classes, cumulative, targets = self.classes, self._cumulative, self._targets
        touch = network.touch if network.touches == "decision" else None
        job_class = network.job_class
        out = []
        for s, job in heads:
            a = s * classes + job_class(job)
            if touch is not None:
                touch(a, job)
            u, row = draws[s], cumulative[a]
            k = 0
            while u >= row[k]:
                k += 1
            if k:
                # a plain (server, job, destination) tuple, which the contract accepts as a Ship: a NamedTuple's
                # __new__ is a Python call, at tens of shipments a step (measured: benchmarks/README.md)
                out.append((s, job, targets[a][k]))
        return out


class RandomVectors:
    """RAND: the shipping agents with every vector drawn uniformly from its simplex at the start of every run.

    Parameters
    ----------
    agents
        The network's :class:`ShippingAgents` (RAND decides through them).
    rng
        The stream the vectors are drawn from (``streams["exploration"]``).
    """

    def __init__(self, agents: ShippingAgents, rng: np.random.Generator) -> None:
        self.agents = agents
        self.rng = rng

    def bind(self, network: NetworkView) -> None:
        """Bind the agents RAND decides through."""
        self.agents.bind(network)

    def begin_run(self, run: int) -> None:
        """Draw every agent's vector uniformly from its simplex for the run."""
        self.agents.set_vectors(random_vectors(self.agents.mask, self.rng))

    def decide(self, network: NetworkView) -> list[Ship | tuple[int, Job, int]]:
        """The agents' ships, by the run's random vectors."""
        return self.agents.decide(network)

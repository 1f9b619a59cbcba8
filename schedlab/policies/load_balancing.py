"""Seed 004's load-balancing baseline (LB, section 3.4): a :class:`~schedlab.model.contracts.network.ShippingRule`.

It reads only the :class:`~schedlab.model.contracts.network.NetworkView` (loads, waiting jobs,
the graph), so it runs on any connected graph of servers. RAND is
:class:`~schedlab.policies.shipping.RandomVectors`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from schedlab.model.contracts.network import NetworkView, Ship
from schedlab.model.contracts.routing import hop_distances
from schedlab.model.core.job import Job

__all__ = ["LoadBalancing", "job_load", "server_loads"]


def job_load(job: Job, capacities: np.ndarray | list[int]) -> float:
    """A job's load on a server: the mean over resources of requirement / capacity (section 3.4)."""
    total = job.runtime / capacities[0]
    for k, amount in enumerate(job.demands.values(), start=1):
        total += amount / capacities[k]
    return float(total / len(capacities))


def heaviest(waiting: Iterable[Job], capacities: list[int]) -> Job | None:
    """The first waiting job of highest :func:`job_load`: ``max(waiting, key=lambda j: job_load(j, capacities))``.

    Written out, with the same arithmetic in the same order, so the same job: LB scans
    every overloaded server's whole queue at every step (about 95 jobs a scan at
    (0.8, 8)), and ``max`` with a key makes two calls per job (measured:
    benchmarks/README.md; the same G). ``None`` for no job.
    """
    first, n = capacities[0], len(capacities)
    best, most = None, -math.inf
    for job in waiting:
        total = job.runtime / first
        k = 1
        for amount in job.demands.values():
            total += amount / capacities[k]
            k += 1
        if total / n > most:  # strictly greater: the first of equal loads stays, as max() keeps it
            best, most = job, total / n
    return best


def server_loads(network: NetworkView) -> np.ndarray:
    """L_i = Avg_k(l_k), l_k = sum over the server's jobs (waiting and running) of j_k / s_k.

    Each server keeps its summed requirements up to date as jobs come and go
    (:meth:`~schedlab.processes.network.server.NetworkServer.load`), so this costs O(N), not O(jobs).
    """
    return network.loads()


class LoadBalancing:
    """Ship the highest-load waiting job of every overloaded server towards the least-loaded server.

    At each step every server computes its load L_i (:func:`server_loads`) and the
    global mean L_avg. A server with ``L_i > (1 + tolerance) * L_avg`` and a waiting
    job ships the waiting job of highest :func:`job_load` towards the server of least
    load, through the neighbour on a shortest path; the job travels one link per step
    and joins the front of the destination's queue.

    Parameters
    ----------
    tolerance
        Relative margin above the mean load before a server sheds a job, >= 0.
    rng
        Breaks ties between equally loaded destinations at equal distance (``streams["routing"]``).

    Notes
    -----
    Decisions are simultaneous: every server reads the loads as they stand at the
    start of the decisions phase (global information, as in the paper), so several
    servers may pick the same destination in one step. Among the least-loaded servers
    the nearest is chosen. Jobs on the links count towards no server's load. LB, like
    the paper's, never checks whether a job fits where it sends it, and never moves a
    running job.
    """

    def __init__(self, tolerance: float = 0.1, rng: np.random.Generator | None = None) -> None:
        if not tolerance >= 0:
            raise ValueError(f"tolerance must be >= 0, got {tolerance!r}")
        self.tolerance = float(tolerance)
        self.rng = rng if rng is not None else np.random.default_rng(0)
        self._distance = np.zeros((0, 0))

    def bind(self, network: NetworkView) -> None:
        """Keep the hop distances of the network's graph: jobs go to the nearest least-loaded server."""
        self._distance = hop_distances(network.graph)

    def begin_run(self, run: int) -> None:
        """Nothing: the rule keeps no state between runs."""
        pass

    def decide(self, network: NetworkView) -> list[Ship]:
        """Each server loaded above the mean (by the tolerance) ships its heaviest job to a nearest least-loaded one."""
        loads = network.loads()
        mean = loads.mean()
        if mean <= 0:
            return []
        low = np.flatnonzero(loads == loads.min())
        out = []
        for i in np.flatnonzero(loads > (1 + self.tolerance) * mean).tolist():
            waiting = network.waiting(i)
            if not waiting:
                continue
            job = heaviest(waiting, network.capacities[i].tolist())
            assert job is not None  # waiting is not empty
            others = low[low != i]
            if others.size == 0:
                continue
            d = self._distance[i, others]
            nearest = others[d == d.min()]
            dest = int(nearest[self.rng.integers(nearest.size)]) if nearest.size > 1 else int(nearest[0])
            out.append(Ship(i, job, dest))
        return out

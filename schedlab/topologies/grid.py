"""The two graphs of a multi-agent grid (seed 003): the agents' ordinal ring and the agent x resource grid."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np

from schedlab.model.core.fields import whole
from schedlab.model.core.workloads import as_generator

__all__ = ["bipartite_grid", "grid_capacities", "ordinal_ring", "resource_capacities"]


def _count(name: str, value: int) -> int:
    return whole(name, value, 1)


def ordinal_ring(n: int) -> nx.DiGraph:
    """The ordinal ring of ``n`` scheduler agents: the directed cycle 0 -> 1 -> ... -> n-1 -> 0.

    Parameters
    ----------
    n
        Number of agents, >= 1 (one agent is a ring onto itself).

    Returns
    -------
    networkx.DiGraph
        Nodes ``0..n-1`` with attribute ``order`` (their place in the ring); edge
        ``(i, i+1)`` carries agent i's utility table to agent i+1 within a step, and the
        closing edge ``(n-1, 0)`` carries the last agent's table to the first agent's
        next step.

    Notes
    -----
    OSL (Wu et al. 2011, section 3.2.2) sorts the agents g_1..g_N and lets each share
    its predecessor's table, ``U^i <- (1 - beta) U^i + beta U^(i-1)``, "ordinally and
    iteratively": information from every agent reaches every other within one lap, at a
    cost of one table (M numbers) per edge per step.

    References
    ----------
    .. [1] J. Wu, X. Xu, P. Zhang, C. Liu, "A novel multi-agent reinforcement learning
       approach for job scheduling in Grid computing", Future Generation Computer
       Systems 27 (2011) 430-439.

    Examples
    --------
    >>> sorted(ordinal_ring(3).edges)
    [(0, 1), (1, 2), (2, 0)]
    """
    n = _count("n (agents)", n)
    ring = nx.DiGraph()
    ring.add_nodes_from((i, {"order": i}) for i in range(n))
    ring.add_edges_from((i, (i + 1) % n) for i in range(n))
    return ring


def resource_capacities(
    resources: int, capacity_range: tuple[float, float], seed: int | np.random.Generator | None = None
) -> np.ndarray:
    """M capacities drawn uniformly from ``capacity_range = (C_min, C_max)``: the draw :func:`bipartite_grid` makes.

    For models that need only the capacities of a complete grid (every agent reaches
    every resource), without building its N x M edges.

    Examples
    --------
    >>> caps = resource_capacities(3, (50, 350), seed=1)
    >>> bool(((caps >= 50) & (caps <= 350)).all())
    True
    """
    m = _count("resources (M)", resources)
    low, high = capacity_range
    if not (math.isfinite(low) and low > 0):
        raise ValueError(f"capacity range: C_min must be finite and > 0, got {low!r}")
    if not (math.isfinite(high) and high >= low):
        raise ValueError(f"capacity range [C_min, C_max] = [{low!r}, {high!r}] is empty")
    return as_generator(seed).uniform(low, high, m)


def bipartite_grid(
    agents: int,
    resources: int,
    *,
    capacity_range: tuple[float, float] | None = None,
    capacities: np.ndarray | list[float] | None = None,
    seed: int | np.random.Generator | None = None,
) -> nx.Graph:
    """The complete bipartite graph of ``agents`` schedulers and ``resources`` resources.

    Parameters
    ----------
    agents, resources
        N and M, each >= 1.
    capacity_range
        ``(C_min, C_max)``: each resource's capacity is drawn uniformly from it.
    capacities
        The M capacities, given instead of a range.
    seed
        An int, a numpy Generator (e.g. a scenario's ``streams["capacities"]``) or None,
        for the capacity draw.

    Returns
    -------
    networkx.Graph
        Agent nodes ``("agent", i)`` with ``bipartite=0``; resource nodes
        ``("resource", j)`` with ``bipartite=1`` and ``capacity``; an edge wherever an
        agent may submit to a resource (every pair: any scheduler reaches any resource).

    Notes
    -----
    The grid model of Wu et al. (section 2.1, figure 2, after Brugnoli et al.):
    schedulers are brokers that submit to any resource; a resource's capacity C is the
    inverse of the time it needs for a job of unit length. Capacities uniform in
    ``[C_min, C_max]`` as in section 4.

    References
    ----------
    .. [1] J. Wu, X. Xu, P. Zhang, C. Liu, Future Generation Computer Systems 27 (2011) 430-439.
    .. [2] M. Brugnoli, E. Heymann, M. A. Senar, "Grid scheduling based on collaborative
       random early detection strategies", PDP 2010, 35-42.

    Examples
    --------
    >>> g = bipartite_grid(2, 3, capacity_range=(50, 350), seed=1)
    >>> g.number_of_edges(), len(grid_capacities(g))
    (6, 3)
    """
    n = _count("agents (N)", agents)
    m = _count("resources (M)", resources)
    if (capacities is None) == (capacity_range is None):
        raise ValueError("give exactly one of capacity_range=(C_min, C_max) or capacities=")
    if capacity_range is not None:
        caps = resource_capacities(m, capacity_range, seed)
    else:
        caps = np.asarray(capacities, dtype=float)
        if caps.shape != (m,):
            raise ValueError(f"capacities: need {m} values, got shape {caps.shape}")
        if not np.all(np.isfinite(caps) & (caps > 0)):
            raise ValueError("capacities must all be finite and > 0")
    grid = nx.Graph()
    grid.add_nodes_from((("agent", i), {"bipartite": 0}) for i in range(n))
    grid.add_nodes_from((("resource", j), {"bipartite": 1, "capacity": float(c)}) for j, c in enumerate(caps))
    grid.add_edges_from((("agent", i), ("resource", j)) for i in range(n) for j in range(m))
    return grid


def grid_capacities(grid: nx.Graph) -> np.ndarray:
    """The resources' capacities of any grid graph, in resource order.

    Reads the ``capacity`` attribute of the nodes ``("resource", 0)`` ..
    ``("resource", M-1)``; every other node (brokers, sites, routers) is ignored, so
    it serves :func:`bipartite_grid`, :func:`~schedlab.topologies.hierarchical_grid`,
    :func:`~schedlab.topologies.small_world_grid` and hand-built graphs alike.

    Examples
    --------
    >>> g = nx.Graph([(("agent", 0), "router"), ("router", ("resource", 0))])
    >>> g.nodes["resource", 0]["capacity"] = 120.0
    >>> grid_capacities(g).tolist()
    [120.0]
    """
    nodes = sorted(node[1] for node in grid.nodes if _is_resource(node))
    if nodes != list(range(len(nodes))) or not nodes:
        raise ValueError(f"grid: resources must be ('resource', 0..M-1), got {len(nodes)} resource nodes")
    caps = []
    for j in nodes:
        c = grid.nodes["resource", j].get("capacity")
        if (
            c is None
            or isinstance(c, bool)
            or not isinstance(c, int | float | np.number)
            or not (math.isfinite(c) and c > 0)
        ):
            raise ValueError(f"grid: node ('resource', {j}) needs a 'capacity' attribute > 0, got {c!r}")
        caps.append(float(c))
    return np.array(caps, dtype=float)


def _is_resource(node: object) -> bool:
    return (
        isinstance(node, tuple) and len(node) == 2 and node[0] == "resource" and isinstance(node[1], int | np.integer)
    )

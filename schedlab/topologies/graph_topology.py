"""From any NetworkX graph of brokers and resources to the ``GridTopology`` a grid runs on.

The topology is the grid contract's :class:`~schedlab.model.contracts.grid.GridTopology`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import networkx as nx
import numpy as np

from schedlab.model.contracts.grid import GridTopology
from schedlab.model.core.fields import is_int
from schedlab.topologies.grid import grid_capacities

__all__ = ["grid_endpoints", "grid_topology"]


def _indices(graph: nx.Graph, kind: str) -> int:
    """How many ``(kind, i)`` nodes the graph has, checking they are numbered 0..n-1."""
    found: list[int] = sorted(
        int(node[1])
        for node in graph.nodes
        if isinstance(node, tuple) and len(node) == 2 and node[0] == kind and isinstance(node[1], int | np.integer)
    )
    if not found:
        raise ValueError(f"graph: no ({kind!r}, i) nodes; a grid needs brokers ('agent', i), resources ('resource', j)")
    if found != list(range(len(found))):
        missing = min(set(range(len(found))) - set(found))
        raise ValueError(f"graph: {kind} nodes must be numbered from 0 without gaps: ({kind!r}, {missing}) is missing")
    return len(found)


def grid_endpoints(graph: nx.Graph) -> tuple[int, int]:
    """N and M: how many ``("agent", i)`` and ``("resource", j)`` nodes ``graph`` holds (each numbered from 0).

    Examples
    --------
    >>> from schedlab.topologies import bipartite_grid
    >>> grid_endpoints(bipartite_grid(2, 5, capacities=[1.0] * 5))
    (2, 5)
    """
    return _indices(graph, "agent"), _indices(graph, "resource")


def _link_latency(graph: nx.Graph) -> Callable[[object, object, dict], float]:
    """The Dijkstra weight: a link's ``latency`` (default 0), the least of parallel links; checked first."""
    for u, v, value in graph.edges(data="latency", default=0.0):
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float | np.number)
            or not (math.isfinite(value) and value >= 0)
        ):
            raise ValueError(f"graph: link {u!r} - {v!r} has latency={value!r}; need a finite number >= 0")
    if graph.is_multigraph():
        return lambda u, v, links: min(float(d.get("latency", 0.0)) for d in links.values())
    return lambda u, v, d: float(d.get("latency", 0.0))


def _direct(graph: nx.Graph, agent: object, m: int) -> bool:
    """Does ``agent`` have a zero-latency link to every resource? Then its row needs no search.

    The fast path of the paper's complete grid: N Dijkstra searches over its N x M
    links would take minutes at (300, 1000); N x M edge look-ups take a fraction of a second.
    """
    adj = graph.adj[agent]
    for j in range(m):
        links = adj.get(("resource", j))
        if links is None:
            return False
        values = links.values() if graph.is_multigraph() else (links,)
        if min(float(d.get("latency", 0.0)) for d in values) != 0:
            return False
    return True


def grid_topology(
    graph: nx.Graph,
    *,
    hops: int | None = None,
    sharing: nx.Graph | None = None,
    name: str | None = None,
    capacities: Sequence[float] | np.ndarray | None = None,
) -> GridTopology:
    """The capacities, latency, reach and sharing graph of brokers and resources placed on ``graph``.

    Parameters
    ----------
    graph
        Any NetworkX graph (directed or not, multigraphs too) whose nodes include the
        brokers ``("agent", i)``, i = 0..N-1, and the resources ``("resource", j)``,
        j = 0..M-1; any other nodes (sites, routers, regional brokers) are places a
        job passes through. A link's ``latency`` edge attribute (default 0) is the
        time a job takes to cross it. On a directed graph jobs follow the links'
        direction.
    hops
        If given (>= 1), a broker may send only to the resources within this many
        links of it; ``None``: to every resource it is connected to.
    sharing
        Whose messages each broker reads (OSL's utility tables): a DiGraph over the
        agents 0..N-1, an edge ``p -> i`` meaning i reads p. Any directed cycle
        through all agents sets the turn order; any other weakly connected graph
        gives breadth-first turns from agent 0, each agent mixing in the mean of its
        predecessors' tables. An undirected graph shares both ways along each edge.
        Default: the ordinal ring 0 -> 1 -> ... -> N-1 -> 0.
    name
        A label kept on the topology (default the graph's ``name``, else ``"graph"``).
    capacities
        The resources' capacities, in resource order; default: the ``capacity``
        attribute of each resource node (:func:`~schedlab.topologies.grid_capacities`).

    Returns
    -------
    GridTopology
        ``latency[b, r]``: the shortest-path latency from broker b to resource r
        (``weight="latency"``); ``reach[b, r]``: r is connected to b (and within
        ``hops`` links); ``capacities``. A ``GridModel`` runs on it: ``GridModel(env, topology, ...)``.

    Raises
    ------
    ValueError
        A broker reaching no resource (naming it), a negative or non-finite
        latency (naming the link), missing or misnumbered agent or resource nodes,
        ``hops < 1``, or a sharing graph that is not over the agents or does not
        connect them.

    Notes
    -----
    A job sent by broker b at time t reaches resource r at ``t + latency[b, r]``, and
    b sees r's load as it was ``latency[b, r]`` ago: the grid information service's
    delay of Wu et al. (section 2.1) made explicit, one figure per route. With
    ``hops`` the route is still the fastest one, which may take more links than
    ``hops`` allows a broker to look: ``hops`` says which resources a broker may use
    (it knows of, or is allowed on), the latency how the job gets there. Where b and r
    are not connected, ``reach`` is False and ``latency`` 0 (never used).

    On a graph where every broker has a zero-latency link to every resource (the
    paper's complete grid, :func:`~schedlab.topologies.bipartite_grid`) the result is
    :meth:`GridTopology.complete` with the same capacities, and a ``GridModel`` on it
    gives the same records, bit for bit.

    References
    ----------
    .. [1] J. Wu, X. Xu, P. Zhang, C. Liu, "A novel multi-agent reinforcement learning
       approach for job scheduling in Grid computing", Future Generation Computer
       Systems 27 (2011) 430-439.
    .. [2] E. W. Dijkstra, "A note on two problems in connexion with graphs",
       Numerische Mathematik 1 (1959) 269-271.

    Examples
    --------
    One broker, two resources: one in its own site, one across a slow link.

    >>> g = nx.Graph()
    >>> g.add_edge(("agent", 0), "site", latency=0.5)
    >>> g.add_edge("site", ("resource", 0), latency=0.0)
    >>> g.add_edge("site", ("resource", 1), latency=2.0)
    >>> topo = grid_topology(g, capacities=[100.0, 400.0])
    >>> topo.latency.tolist(), topo.reach.tolist()
    ([[0.5, 2.5]], [[True, True]])
    >>> grid_topology(g, hops=1, capacities=[100.0, 400.0])
    Traceback (most recent call last):
    ...
    ValueError: graph: broker ('agent', 0) reaches no resource within hops=1
    """
    if not isinstance(graph, nx.Graph):
        raise TypeError(f"graph must be a networkx graph, got {type(graph).__name__}")
    if hops is not None and not is_int(hops, 1):
        raise ValueError(f"hops must be a whole number >= 1 (or None: no limit), got {hops!r}")
    n, m = grid_endpoints(graph)
    weight = _link_latency(graph)
    latency = np.zeros((n, m))
    reach = np.zeros((n, m), dtype=bool)
    for i in range(n):
        agent = ("agent", i)
        if _direct(graph, agent, m):  # every resource one zero-latency link away: nothing can be nearer
            reach[i] = True
            continue
        dist = nx.single_source_dijkstra_path_length(graph, agent, weight=weight)
        near = None if hops is None else nx.single_source_shortest_path_length(graph, agent, cutoff=int(hops))
        for j in range(m):
            node = ("resource", j)
            if node in dist:
                latency[i, j] = dist[node]
                reach[i, j] = near is None or node in near
        if not reach[i].any():
            limit = "" if hops is None else f" within hops={hops}"
            raise ValueError(f"graph: broker ('agent', {i}) reaches no resource{limit}")
    base = GridTopology.complete(n, grid_capacities(graph) if capacities is None else capacities)
    if base.resources != m:
        raise ValueError(f"capacities: the graph has {m} resources, got {base.resources} capacities")
    label = name if name is not None else (graph.name or "graph")
    if sharing is None:
        order, preds = base.order, base.predecessors
    else:
        if not isinstance(sharing, nx.Graph):
            raise TypeError(f"sharing must be a networkx DiGraph over agents 0..{n - 1}, got {type(sharing).__name__}")
        directed = sharing if sharing.is_directed() else sharing.to_directed()
        shared = GridTopology.with_sharing(base, directed)
        order, preds = shared.order, shared.predecessors
    return GridTopology(n, m, latency, reach, order, preds, base.capacities, label)

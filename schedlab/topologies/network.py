"""The server network's graphs (seed 004): the small-world ring, a 2-D torus, a scale-free graph.

Every builder gives what the network model needs: a connected simple graph on the nodes
0..n-1 (the servers' indices), so any of its rules (WLU, TG, SU, RAND, LB) runs on any of
them. :func:`small_world_ring` is the paper's ring with shortcuts; :func:`torus_network`
and :func:`scale_free_network` are thin wrappers over NetworkX's generators. The routing
tables over these graphs live in :mod:`schedlab.model.contracts.routing`, with the
model that routes (processes may not import topologies).
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from schedlab.model.core.fields import is_int, whole
from schedlab.model.core.workloads import as_generator

__all__ = ["scale_free_network", "small_world_ring", "torus_network"]


def small_world_ring(
    n: int,
    shortcut_prob: float = 0.5,
    *,
    max_degree: int = 4,
    seed: int | np.random.Generator | None = None,
) -> nx.Graph:
    """A ring of ``n`` servers plus random shortcuts, every degree between 2 and ``max_degree``.

    Parameters
    ----------
    n
        Number of servers, >= 3 (a ring needs three nodes to give each two neighbours).
    shortcut_prob
        Probability, in [0, 1], that a server (taken in a random order) opens one
        shortcut to a uniformly drawn server that is not already a neighbour and still
        has fewer than ``max_degree`` neighbours.
    max_degree
        Largest number of neighbours, >= 2 (the paper's servers have 2-4).
    seed
        An int, a numpy Generator (e.g. a scenario's ``streams["topology"]``) or None.

    Returns
    -------
    networkx.Graph
        Nodes ``0..n-1``; the ring edges ``(i, i+1 mod n)`` with ``kind="ring"`` and
        the shortcuts with ``kind="shortcut"``.

    Notes
    -----
    Tumer and Lawson (section 4) connect their 50 servers "into a network having a
    ring configuration with random connections added in the spirit of small world's
    networks", each server with 2-4 neighbours. This is the Newman-Watts variant of
    Watts-Strogatz: shortcuts are added, ring edges are never rewired, so the graph is
    connected by construction and the ring distance bounds every shortest path. With
    the default ``shortcut_prob = 0.5`` about half the servers open a shortcut (one
    only while the server and some partner are below ``max_degree``): about 23
    shortcuts on 50 servers, a mean degree of about 2.9, and a mean shortest path
    of about 3.9 links instead of the plain ring's 12.8.

    References
    ----------
    .. [1] K. Tumer, J. Lawson, "Collectives for multiple resource job scheduling
       across heterogeneous servers", AAMAS 2003.
    .. [2] D. J. Watts, S. H. Strogatz, "Collective dynamics of 'small-world'
       networks", Nature 393 (1998) 440-442.
    .. [3] M. E. J. Newman, D. J. Watts, "Renormalization group analysis of the
       small-world network model", Physics Letters A 263 (1999) 341-346.

    Examples
    --------
    >>> g = small_world_ring(50, seed=1)
    >>> nx.is_connected(g), min(d for _, d in g.degree) >= 2, max(d for _, d in g.degree) <= 4
    (True, True, True)
    """
    if not is_int(n, 3):
        raise ValueError(f"n (servers) must be a whole number >= 3, got {n!r}")
    if not 0 <= shortcut_prob <= 1:
        raise ValueError(f"shortcut_prob must be in [0, 1], got {shortcut_prob!r}")
    whole("max_degree", max_degree, 2)
    rng = as_generator(seed)
    n = int(n)
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from(((i, (i + 1) % n) for i in range(n)), kind="ring")
    opens = rng.random(n) < shortcut_prob  # one draw per server, whatever the degrees, so the draws stay aligned
    for i in rng.permutation(n).tolist():
        if not opens[i] or graph.degree[i] >= max_degree:
            continue
        free = [j for j in range(n) if j != i and graph.degree[j] < max_degree and not graph.has_edge(i, j)]
        if free:
            graph.add_edge(i, free[int(rng.integers(len(free)))], kind="shortcut")
    return graph


def torus_network(rows: int, cols: int) -> nx.Graph:
    """A ``rows`` x ``cols`` 2-D torus of servers: every server linked to its four grid neighbours, edges wrapping.

    Parameters
    ----------
    rows, cols
        The torus's sides, each >= 3 (with 2, the two wrap-around neighbours of a
        server would be the same one and it would have fewer than four).

    Returns
    -------
    networkx.Graph
        Nodes ``0..rows*cols-1``, server ``r * cols + c`` at grid position ``(r, c)``
        (node attribute ``pos``); every degree is 4.

    Notes
    -----
    The interconnect of many parallel machines (Cray T3D/T3E, IBM Blue Gene's 3-D
    version) and the usual regular counterpart of a small world: every server has the
    same degree, and shortest paths are long, about (rows + cols) / 4 links on
    average, against the small-world ring's 3.9 on 50 servers. Built with
    :func:`networkx.grid_2d_graph` (``periodic=True``) and relabelled row by row.

    References
    ----------
    .. [1] W. J. Dally, B. Towles, Principles and Practices of Interconnection
       Networks, Morgan Kaufmann, 2004, chapter 5 (tori).

    Examples
    --------
    >>> g = torus_network(5, 10)
    >>> g.number_of_nodes(), sorted({d for _, d in g.degree}), g.nodes[12]["pos"]
    (50, [4], (1, 2))
    """
    r = whole("rows", rows, 3)
    c = whole("cols", cols, 3)
    grid = nx.grid_2d_graph(r, c, periodic=True)
    graph = nx.Graph(name=f"torus({r}x{c})")
    graph.add_nodes_from((i * c + j, {"pos": (i, j)}) for i in range(r) for j in range(c))
    graph.add_edges_from(((a * c + b), (x * c + y)) for (a, b), (x, y) in grid.edges)
    return graph


def scale_free_network(n: int, m: int = 2, *, seed: int | np.random.Generator | None = None) -> nx.Graph:
    """A Barabási-Albert scale-free graph of ``n`` servers, each new one linked to ``m`` existing ones.

    Parameters
    ----------
    n
        Number of servers, > ``m``.
    m
        Links each newly added server makes to existing servers, chosen with
        probability proportional to their degree; >= 1. The mean degree is about 2 m;
        every server added after the first m + 1 has at least m links, while the
        starting star's m leaves may keep only one.
    seed
        An int, a numpy Generator (e.g. a scenario's ``streams["topology"]``) or None.

    Returns
    -------
    networkx.Graph
        Nodes ``0..n-1``, connected (every new server links to the existing,
        connected graph). Servers are numbered in the order they joined, so the low
        numbers are the hubs.

    Notes
    -----
    Preferential attachment gives a power-law degree distribution: a few hubs with
    many links and many servers with only ``m``. Shortest paths are short (about
    log n / log log n) but run through the hubs, the opposite of a torus's uniform
    degrees; a rule that ships jobs to neighbours sees hubs with many choices and
    leaves with few. A thin wrapper over :func:`networkx.barabasi_albert_graph`
    (whose nodes are already 0..n-1), from its default start, a star on m + 1 servers.

    References
    ----------
    .. [1] A.-L. Barabási, R. Albert, "Emergence of scaling in random networks",
       Science 286 (1999) 509-512.

    Examples
    --------
    >>> g = scale_free_network(50, 2, seed=1)
    >>> nx.is_connected(g), sorted(g.nodes) == list(range(50)), min(d for _, d in list(g.degree)[3:])
    (True, True, 2)
    """
    size = whole("n (servers)", n, 2)
    links = whole("m (links per new server)", m, 1)
    if links >= size:
        raise ValueError(f"m (links per new server) must be below n = {size}, got {m!r}")
    graph = nx.barabasi_albert_graph(size, links, seed=as_generator(seed))
    graph.name = f"scale_free(n={size}, m={links})"
    return graph

"""Other graphs for the server network of seed 004: a 2-D torus and a scale-free (Barabási-Albert) graph.

Thin wrappers over NetworkX's generators that give what the network model needs:
a connected simple graph on the nodes 0..n-1 (the servers' indices), so any of its
rules (WLU, TG, SU, RAND, LB) runs on it as on :func:`~schedlab.topologies.small_world_ring`.
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from schedlab.model.workloads import as_generator

__all__ = ["scale_free_network", "torus_network"]


def _whole(name: str, value: int, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
        raise ValueError(f"{name} must be a whole number >= {low}, got {value!r}")
    return int(value)


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
    r = _whole("rows", rows, 3)
    c = _whole("cols", cols, 3)
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
    size = _whole("n (servers)", n, 2)
    links = _whole("m (links per new server)", m, 1)
    if links >= size:
        raise ValueError(f"m (links per new server) must be below n = {size}, got {m!r}")
    graph = nx.barabasi_albert_graph(size, links, seed=as_generator(seed))
    graph.name = f"scale_free(n={size}, m={links})"
    return graph

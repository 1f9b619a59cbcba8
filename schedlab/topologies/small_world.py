"""A small-world ring of servers (seed 004) and shortest-path routing over it."""

from __future__ import annotations

import networkx as nx
import numpy as np

# the routing helpers live with the model that routes (processes may not import topologies)
from schedlab.model.routing import hop_distances, neighbour_lists, next_hops
from schedlab.model.workloads import as_generator

__all__ = ["hop_distances", "neighbour_lists", "next_hops", "small_world_ring"]


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
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 3:
        raise ValueError(f"n (servers) must be a whole number >= 3, got {n!r}")
    if not 0 <= shortcut_prob <= 1:
        raise ValueError(f"shortcut_prob must be in [0, 1], got {shortcut_prob!r}")
    if isinstance(max_degree, bool) or not isinstance(max_degree, int | np.integer) or max_degree < 2:
        raise ValueError(f"max_degree must be a whole number >= 2, got {max_degree!r}")
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

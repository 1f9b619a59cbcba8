"""Shortest-path routing over a graph of servers: neighbour lists, hop distances, next hops.

Plain data: the network model (:mod:`schedlab.processes.network.network`) routes shipped jobs
with :func:`next_hops`, and load balancing picks the nearest destination with
:func:`hop_distances`. Breadth-first search from every node, neighbours in increasing
order, so ties between equally short paths always go the same way.
"""

from __future__ import annotations

from collections import deque

import networkx as nx
import numpy as np

__all__ = ["hop_distances", "neighbour_lists", "next_hops"]


def neighbour_lists(graph: nx.Graph) -> list[list[int]]:
    """Each node's neighbours in increasing order (the order of an agent's actions 1..d)."""
    return [sorted(graph.neighbors(i)) for i in range(graph.number_of_nodes())]


def _bfs(adjacency: list[list[int]], source: int) -> tuple[np.ndarray, np.ndarray]:
    n = len(adjacency)
    dist = np.full(n, -1, dtype=np.int64)
    first = np.full(n, -1, dtype=np.int64)  # the first hop from source on a shortest path
    dist[source], first[source] = 0, source
    todo = deque([source])
    while todo:
        u = todo.popleft()
        for v in adjacency[u]:  # neighbours in increasing order: ties go to the lower-numbered first hop
            if dist[v] < 0:
                dist[v] = dist[u] + 1
                first[v] = v if u == source else first[u]
                todo.append(v)
    return dist, first


def hop_distances(graph: nx.Graph) -> np.ndarray:
    """``d[i, j]``: the number of links on a shortest path from ``i`` to ``j`` (-1 if unreachable)."""
    adjacency = neighbour_lists(graph)
    return np.stack([_bfs(adjacency, s)[0] for s in range(len(adjacency))])


def next_hops(graph: nx.Graph) -> np.ndarray:
    """``h[i, j]``: the neighbour of ``i`` on a shortest path to ``j`` (``i`` itself when ``j == i``).

    Ties between equally short paths go to the lowest-numbered neighbour, so routing is
    deterministic. Raises if the graph is not connected (some pair has no route).

    Examples
    --------
    >>> ring = nx.cycle_graph(6)
    >>> next_hops(ring)[0].tolist()
    [0, 1, 1, 1, 5, 5]
    """
    adjacency = neighbour_lists(graph)
    if sorted(graph.nodes) != list(range(len(adjacency))):
        raise ValueError("graph: nodes must be 0..n-1")
    hops = np.stack([_bfs(adjacency, s)[1] for s in range(len(adjacency))])
    if (hops < 0).any():
        raise ValueError("graph is not connected: some servers cannot reach others")
    return hops

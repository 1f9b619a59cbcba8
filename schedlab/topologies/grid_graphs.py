"""Grids shaped like real ones: a tree of brokers over sites, and brokers and resources on a small-world network.

Both return plain NetworkX graphs in the node convention of
:func:`~schedlab.topologies.grid_topology`: brokers ``("agent", i)``, resources
``("resource", j)`` with a ``capacity``, links with a ``latency``. Pass them through
:func:`~schedlab.topologies.grid_topology` for a ``GridModel``, and read the
capacities with :func:`~schedlab.topologies.grid_capacities`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import networkx as nx
import numpy as np

from schedlab.model.core.fields import is_int
from schedlab.model.core.workloads import as_generator
from schedlab.topologies.grid import _count, resource_capacities

__all__ = ["hierarchical_grid", "small_world_grid"]


def _range(name: str, bounds: tuple[float, float]) -> tuple[float, float]:
    try:
        low, high = (float(x) for x in bounds)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a pair (low, high), got {bounds!r}") from None
    if not (math.isfinite(low) and math.isfinite(high) and 0 <= low <= high):
        raise ValueError(f"{name} = ({low!r}, {high!r}) must be finite with 0 <= low <= high")
    return low, high


def _capacities(
    m: int,
    capacity_range: tuple[float, float],
    capacities: Sequence[float] | np.ndarray | None,
    seed: int | np.random.Generator | None,
) -> np.ndarray:
    if capacities is None:
        return resource_capacities(m, capacity_range, seed)
    caps = np.asarray(capacities, dtype=float)
    if caps.shape != (m,):
        raise ValueError(f"capacities: need {m} values (one per resource), got shape {caps.shape}")
    if not np.all(np.isfinite(caps) & (caps > 0)):
        raise ValueError("capacities must all be finite and > 0")
    return caps


def hierarchical_grid(
    fanout: Sequence[int] = (3, 2),
    resources_per_site: int | Sequence[int] = 4,
    *,
    capacity_range: tuple[float, float] = (50.0, 350.0),
    capacities: Sequence[float] | np.ndarray | None = None,
    latency: float | Sequence[float] | None = None,
    agent_level: int | None = None,
    seed: int | np.random.Generator | None = None,
) -> nx.Graph:
    """A tree of brokers over sites, each site holding resources: the shape of production grids.

    Parameters
    ----------
    fanout
        Children per node, level by level from the top broker: ``fanout[k]`` brokers
        under each broker of level k, and the last entry the sites under each broker
        of the lowest broker level. ``(3, 2)``: a top broker, 3 regional brokers, 2
        sites under each (6 sites). Each entry >= 1.
    resources_per_site
        Resources in each site, >= 1; or one count per site, site by site (a grid
        whose M does not divide evenly among its sites, e.g. 25 resources on 20 sites).
    capacity_range
        ``(C_min, C_max)``: each resource's capacity is drawn uniformly from it.
    capacities
        The M capacities, given instead of drawn (``capacity_range`` is then not
        used): e.g. the same capacities on several topologies.
    latency
        Link latency per level, one value per link level from the top (broker to
        broker, ..., lowest broker to site, site to resource): ``len(fanout) + 1``
        values; or one number for every link. Default: 1 on every link between
        brokers and from a broker to a site, 0 from a site to its resources (a site's
        own network).
    agent_level
        The level whose brokers are the agents (0: the top broker alone); default
        the lowest broker level, ``len(fanout) - 1``.
    seed
        An int, a numpy Generator (e.g. a scenario's ``streams["capacities"]``) or
        None, for the capacity draw (one draw of M values, site by site).

    Returns
    -------
    networkx.Graph
        A tree. Brokers at ``agent_level`` are ``("agent", i)``, the others
        ``("broker", level, k)``, both with ``kind="broker"``; sites ``("site", s)``
        with ``kind="site"``; resources ``("resource", j)`` with ``kind="resource"``
        and ``capacity``. Every node has its ``level`` (the top broker 0), every link
        its ``latency``. Numbering is breadth-first, so agent i's sites and resources
        are consecutive.

    Notes
    -----
    The shape, for ``fanout=(3, 2)``, ``resources_per_site=4`` (agents: the regional
    brokers)::

                          top broker                level 0
                  /           |           \\          latency[0]
           agent 0         agent 1         agent 2  level 1
           /     \\         /     \\         /     \\    latency[1]
        site 0  site 1  site 2  site 3  site 4  site 5  level 2
        ||||    ||||    ||||    ||||    ||||    ||||    latency[2]
        resources 0..3, 4..7, ...                    level 3

    Grids such as EGEE/WLCG and NorduGrid are trees like this: a top-level
    (meta-)scheduler, regional or national brokers, and sites whose local resource
    managers run the jobs. Through :func:`~schedlab.topologies.grid_topology` a broker
    reaches its own sites over its own links and every other site through the
    broker above, so the latency grows with the distance in the tree: in the example,
    ``latency[1] + latency[2]`` to its own resources and ``2 latency[0] + latency[1] +
    latency[2]`` to another region's. ``hops=2`` keeps each regional broker to its
    own sites.

    References
    ----------
    .. [1] K. Krauter, R. Buyya, M. Maheswaran, "A taxonomy and survey of grid resource
       management systems for distributed computing", Software: Practice and
       Experience 32 (2002) 135-164 (hierarchical scheduler organisation).
    .. [2] J. Wu, X. Xu, P. Zhang, C. Liu, Future Generation Computer Systems 27
       (2011) 430-439.

    Examples
    --------
    >>> from schedlab.topologies import grid_capacities, grid_topology
    >>> g = hierarchical_grid((3, 2), 4, latency=(2.0, 1.0, 0.0), seed=1)
    >>> topo = grid_topology(g)
    >>> topo.agents, topo.resources, len(grid_capacities(g))
    (3, 24, 24)
    >>> sorted(set(topo.latency[0].tolist()))  # own sites, then the other regions'
    [1.0, 5.0]
    """
    levels = tuple(_count(f"fanout[{k}]", f) for k, f in enumerate(fanout))
    if not levels:
        raise ValueError("fanout: need at least one level (the top broker's sites)")
    if latency is None:
        lat = (1.0,) * len(levels) + (0.0,)
    elif isinstance(latency, bool):
        raise ValueError(f"latency must be a number or one per level, got {latency!r}")
    elif isinstance(latency, int | float | np.number):
        lat = (float(latency),) * (len(levels) + 1)
    else:
        lat = tuple(float(x) for x in latency)
    if len(lat) != len(levels) + 1:
        raise ValueError(f"latency: need one value per link level, len(fanout) + 1 = {len(levels) + 1}, got {len(lat)}")
    if not all(math.isfinite(x) and x >= 0 for x in lat):
        raise ValueError(f"latency: every value must be finite and >= 0, got {lat}")
    lowest = len(levels) - 1  # the lowest broker level
    agents_at = lowest if agent_level is None else agent_level
    if not is_int(agents_at, 0) or agents_at > lowest:
        raise ValueError(f"agent_level must be a broker level in 0..{lowest}, got {agent_level!r}")
    sites = math.prod(levels)
    if isinstance(resources_per_site, Sequence):
        if len(resources_per_site) != sites:
            raise ValueError(f"resources_per_site: need one count per site ({sites}), got {len(resources_per_site)}")
        counts = [_count(f"resources_per_site[{s}]", c) for s, c in enumerate(resources_per_site)]
    else:
        counts = [_count("resources_per_site", resources_per_site)] * sites
    caps = _capacities(sum(counts), capacity_range, capacities, seed).tolist()

    shape = counts[0] if len(set(counts)) == 1 else sum(counts)
    graph = nx.Graph(name=f"hierarchical{tuple(levels)}x{shape}")

    def broker(level: int, k: int) -> tuple:
        return ("agent", k) if level == agents_at else ("broker", level, k)

    graph.add_node(broker(0, 0), kind="broker", level=0)
    width = 1
    for level, f in enumerate(levels):
        for k in range(width):
            for c in range(f):
                child = k * f + c
                node = ("site", child) if level == lowest else broker(level + 1, child)
                kind = "site" if level == lowest else "broker"
                graph.add_node(node, kind=kind, level=level + 1)
                graph.add_edge(broker(level, k), node, latency=lat[level])
        width *= f
    first = np.cumsum([0, *counts])
    for s in range(sites):
        for j in range(int(first[s]), int(first[s + 1])):
            graph.add_node(("resource", j), kind="resource", level=len(levels) + 1, capacity=float(caps[j]))
            graph.add_edge(("site", s), ("resource", j), latency=lat[-1])
    return graph


def small_world_grid(
    agents: int,
    resources: int,
    *,
    neighbours: int = 4,
    shortcut_prob: float = 0.1,
    capacity_range: tuple[float, float] = (50.0, 350.0),
    capacities: Sequence[float] | np.ndarray | None = None,
    latency_range: tuple[float, float] = (0.5, 2.0),
    seed: int | np.random.Generator | None = None,
) -> nx.Graph:
    """Brokers and resources as hosts of a Newman-Watts small-world network, each link with its own latency.

    Parameters
    ----------
    agents, resources
        N brokers and M resources, each >= 1; N + M > ``neighbours``.
    neighbours
        Each host's links to its nearest hosts on the ring (k of Watts-Strogatz),
        an even number >= 2.
    shortcut_prob
        For each ring link, the probability, in [0, 1], of one extra link from its
        first end to a uniformly drawn host (Newman-Watts: links are added, never
        rewired, so the graph stays connected).
    capacity_range
        ``(C_min, C_max)``: each resource's capacity is drawn uniformly from it.
    capacities
        The M capacities, given instead of drawn (then nothing is drawn for them).
    latency_range
        ``(low, high)``, low >= 0: each link's latency is drawn uniformly from it.
    seed
        An int or a numpy Generator (e.g. a scenario's ``streams["topology"]``), or
        None. Three draws, in this order: the M capacities (unless given), the
        graph, one latency per link (links in sorted order).

    Returns
    -------
    networkx.Graph
        Nodes ``("agent", i)`` (``kind="broker"``) and ``("resource", j)``
        (``kind="resource"``, ``capacity``), each with its ``position`` on the ring;
        links with ``latency`` and ``kind`` (``"ring"`` or ``"shortcut"``).

    Notes
    -----
    The N + M hosts sit on a ring, the brokers spread evenly among the resources
    (broker i at position ``floor(i (N + M) / N)``), so each broker starts with
    about ``neighbours`` resources one link away and reaches the rest through other
    hosts, the shortcuts cutting the mean path from about (N + M) / (2 k) links to a
    few. A job crosses the fastest route (the least total latency, which may take
    more links than the fewest), and the broker sees each resource's load that long
    ago: near resources are seen fresh, far ones stale. This is the wide-area case
    Wu et al. leave out ("the design issues for real implementation, such as network
    topology, are not considered in detail").

    References
    ----------
    .. [1] D. J. Watts, S. H. Strogatz, "Collective dynamics of 'small-world'
       networks", Nature 393 (1998) 440-442.
    .. [2] M. E. J. Newman, D. J. Watts, "Renormalization group analysis of the
       small-world network model", Physics Letters A 263 (1999) 341-346.
    .. [3] J. Wu, X. Xu, P. Zhang, C. Liu, Future Generation Computer Systems 27
       (2011) 430-439.

    Examples
    --------
    >>> from schedlab.topologies import grid_topology
    >>> g = small_world_grid(4, 20, seed=1)
    >>> nx.is_connected(g), g.nodes["agent", 1]["position"]
    (True, 6)
    >>> topo = grid_topology(g)
    >>> bool(topo.reach.all()), bool((topo.latency > 0).all())
    (True, True)
    """
    n = _count("agents (N)", agents)
    m = _count("resources (M)", resources)
    k = _count("neighbours", neighbours)
    if k % 2 or k >= n + m:
        raise ValueError(f"neighbours must be even and below N + M = {n + m}, got {neighbours!r}")
    if not 0 <= shortcut_prob <= 1:
        raise ValueError(f"shortcut_prob must be in [0, 1], got {shortcut_prob!r}")
    low, high = _range("latency_range", latency_range)
    rng = as_generator(seed)
    caps = _capacities(m, capacity_range, capacities, rng)
    total = n + m
    ring = nx.newman_watts_strogatz_graph(total, k, shortcut_prob, seed=rng)
    broker_at = {(i * total) // n: i for i in range(n)}
    labels, j = {}, 0
    for pos in range(total):
        if pos in broker_at:
            labels[pos] = ("agent", broker_at[pos])
        else:
            labels[pos] = ("resource", j)
            j += 1
    graph = nx.Graph(name=f"small_world({n}x{m}, k={k}, p={shortcut_prob:g})")
    for pos, node in labels.items():
        attrs: dict[str, object] = (
            {"kind": "broker"} if node[0] == "agent" else {"kind": "resource", "capacity": float(caps[node[1]])}
        )
        graph.add_node(node, position=pos, **attrs)
    edges = sorted((min(u, v), max(u, v)) for u, v in ring.edges)
    delays = rng.uniform(low, high, len(edges))
    for (u, v), delay in zip(edges, delays.tolist(), strict=True):
        gap = min(v - u, total - (v - u))  # ring distance: links within k/2 positions are the lattice's own
        kind = "ring" if gap <= k // 2 else "shortcut"
        graph.add_edge(labels[u], labels[v], latency=delay, kind=kind)
    return graph

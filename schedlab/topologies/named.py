"""The grids of ``docs/grid.md`` ("Topologies") by name: one builder for the scenario and the environment.

:func:`named_topology` builds

- ``complete``: the paper's grid (:func:`~schedlab.topologies.bipartite_grid`), every
  broker reaching every resource at once;
- ``tree``: a top broker over the N brokers (the agents), each over ``tree_sites`` sites
  (:func:`~schedlab.topologies.hierarchical_grid`); link latency per level
  ``tree_latency``, by default 2 from the top to a broker, 0.5 from a broker to a site,
  0 inside a site. The M resources are spread over the brokers as evenly as they go
  (25 over 10 brokers of 2 sites: 3 under each of the first five, 2 under the others),
  each broker's over its sites;
- ``small_world``: brokers and resources as the hosts of a Newman-Watts ring
  (:func:`~schedlab.topologies.small_world_grid`; by default k = 4, p = 0.1), each
  link's latency uniform in ``sw_latency`` (by default [0.5, 1.5]);

each turned into latency and reach by :func:`~schedlab.topologies.grid_topology`.
``scenarios/osl_topologies.py`` builds its grids with it (its own settings and
capacities); :func:`schedlab.envs.grid.named.grid_parallel_env` (``GridParallel-v0``)
with the defaults here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from schedlab.model.contracts.grid import GridTopology
from schedlab.topologies.graph_topology import grid_topology
from schedlab.topologies.grid import bipartite_grid
from schedlab.topologies.grid_graphs import hierarchical_grid, small_world_grid

__all__ = ["SW_LATENCY", "SW_NEIGHBOURS", "SW_SHORTCUT", "TOPOLOGIES", "TREE_LATENCY", "TREE_SITES", "named_topology"]

TOPOLOGIES = ("complete", "tree", "small_world")
#: docs/grid.md's tree: latency top -> broker, broker -> site, site -> resource; sites per broker
TREE_LATENCY, TREE_SITES = (2.0, 0.5, 0.0), 2
#: docs/grid.md's small world: ring neighbours k, shortcut probability p, each link's latency range
SW_NEIGHBOURS, SW_SHORTCUT, SW_LATENCY = 4, 0.1, (0.5, 1.5)


def _tree_counts(agents: int, resources: int, sites: int) -> list[int]:
    """Resources per site: M spread over the N brokers as evenly as it goes, each broker's over its sites."""
    if resources < agents * sites:
        raise ValueError(f"topology: a tree needs M >= {sites} N = {agents * sites} resources, got {resources}")
    counts = []
    for share in np.array_split(np.arange(resources), agents):
        counts += [len(part) for part in np.array_split(share, sites)]
    return counts


def named_topology(
    name: str,
    agents: int,
    resources: int,
    *,
    capacities: Sequence[float] | np.ndarray | None = None,
    latency_scale: float = 1.0,
    hops: int = 0,
    rng: np.random.Generator,
    tree_sites: int = TREE_SITES,
    tree_latency: Sequence[float] = TREE_LATENCY,
    sw_neighbours: int = SW_NEIGHBOURS,
    sw_shortcut: float = SW_SHORTCUT,
    sw_latency: Sequence[float] = SW_LATENCY,
) -> GridTopology:
    """The grid ``name`` (:data:`TOPOLOGIES`) of ``agents`` brokers and ``resources`` resources (module notes).

    Parameters
    ----------
    capacities
        The M capacities; default all 1 (an environment that draws each episode's own).
    latency_scale
        Every link latency times this, >= 0 (0: the complete grid's latencies on the same graph).
    hops
        A broker reaches only the resources within this many links (0: all it is connected to).
    rng
        The small world's graph and latencies are drawn from it (the other two draw nothing).
    tree_sites, tree_latency
        The tree's sites per broker and link latency per level (top -> broker -> site -> resource).
    sw_neighbours, sw_shortcut, sw_latency
        The small world's ring neighbours k, shortcut probability p and link latency range.
    """
    if name not in TOPOLOGIES:
        raise ValueError(f"topology: unknown {name!r}; choose from {', '.join(TOPOLOGIES)}")
    if not latency_scale >= 0:
        raise ValueError(f"latency_scale must be >= 0, got {latency_scale!r}")
    caps = np.ones(resources) if capacities is None else np.asarray(capacities, dtype=float)
    if name == "complete":
        graph = bipartite_grid(agents, resources, capacities=caps)
    elif name == "tree":
        graph = hierarchical_grid(
            (agents, tree_sites),
            _tree_counts(agents, resources, tree_sites),
            capacities=caps,
            latency=tuple(latency_scale * x for x in tree_latency),
        )
    else:
        low, high = sw_latency
        graph = small_world_grid(
            agents,
            resources,
            neighbours=sw_neighbours,
            shortcut_prob=sw_shortcut,
            capacities=caps,
            latency_range=(latency_scale * low, latency_scale * high),
            seed=rng,
        )
    return grid_topology(graph, hops=hops or None)

"""NetworkX builders for the structures models run on.

- grids of brokers and resources (seed 003): :func:`bipartite_grid` (the paper's
  complete grid), :func:`hierarchical_grid` (a tree of brokers over sites),
  :func:`small_world_grid` (hosts of a small-world network, links with latency), and
  :func:`grid_topology`, which turns any such graph into the latency, reach and
  sharing graph a ``GridModel`` runs on; :func:`ordinal_ring`, OSL's sharing ring;
  :func:`named_topology`, docs/grid.md's complete grid, tree and small world by name;
- server networks (seed 004), all in :mod:`.network`: :func:`small_world_ring`,
  :func:`torus_network`, :func:`scale_free_network`. Their routing tables are computed
  in :mod:`schedlab.model.contracts.routing` (processes may not import topologies).
"""

from schedlab.topologies.graph_topology import grid_endpoints, grid_topology
from schedlab.topologies.grid import bipartite_grid, grid_capacities, ordinal_ring, resource_capacities
from schedlab.topologies.grid_graphs import hierarchical_grid, small_world_grid
from schedlab.topologies.named import named_topology
from schedlab.topologies.network import scale_free_network, small_world_ring, torus_network

__all__ = [
    "bipartite_grid",
    "grid_capacities",
    "grid_endpoints",
    "grid_topology",
    "hierarchical_grid",
    "named_topology",
    "ordinal_ring",
    "resource_capacities",
    "scale_free_network",
    "small_world_grid",
    "small_world_ring",
    "torus_network",
]

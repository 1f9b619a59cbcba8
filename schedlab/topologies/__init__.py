"""NetworkX builders for the structures models run on.

- grids of brokers and resources (seed 003): :func:`bipartite_grid` (the paper's
  complete grid), :func:`hierarchical_grid` (a tree of brokers over sites),
  :func:`small_world_grid` (hosts of a small-world network, links with latency), and
  :func:`grid_topology`, which turns any such graph into the latency, reach and
  sharing graph a ``GridModel`` runs on; :func:`ordinal_ring`, OSL's sharing ring;
- server networks (seed 004): :func:`small_world_ring`, :func:`torus_network`,
  :func:`scale_free_network`, and the routing helpers.
"""

from schedlab.topologies.graph_topology import grid_endpoints, grid_topology
from schedlab.topologies.grid import bipartite_grid, grid_capacities, ordinal_ring, resource_capacities
from schedlab.topologies.grid_graphs import hierarchical_grid, small_world_grid
from schedlab.topologies.networks import scale_free_network, torus_network
from schedlab.topologies.small_world import hop_distances, neighbour_lists, next_hops, small_world_ring

__all__ = [
    "bipartite_grid",
    "grid_capacities",
    "grid_endpoints",
    "grid_topology",
    "hierarchical_grid",
    "hop_distances",
    "neighbour_lists",
    "next_hops",
    "ordinal_ring",
    "resource_capacities",
    "scale_free_network",
    "small_world_grid",
    "small_world_ring",
    "torus_network",
]

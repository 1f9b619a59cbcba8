"""NetworkX builders for the structures models run on: ordinal rings, agent x resource grids, small-world rings."""

from schedlab.topologies.grid import bipartite_grid, grid_capacities, ordinal_ring, resource_capacities
from schedlab.topologies.small_world import hop_distances, neighbour_lists, next_hops, small_world_ring

__all__ = [
    "bipartite_grid",
    "grid_capacities",
    "hop_distances",
    "neighbour_lists",
    "next_hops",
    "ordinal_ring",
    "resource_capacities",
    "small_world_ring",
]

"""Topology builders: the ordinal ring of agents and the agent x resource bipartite grid."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from schedlab.processes.grid_model import ring_order
from schedlab.topologies import bipartite_grid, grid_capacities, ordinal_ring


def test_ordinal_ring_is_one_directed_cycle_in_agent_order():
    ring = ordinal_ring(5)
    assert sorted(ring.edges) == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)]
    assert [ring.nodes[i]["order"] for i in range(5)] == list(range(5))
    assert nx.is_strongly_connected(ring) and all(ring.out_degree(i) == 1 for i in ring)
    assert ring_order(ring, 5) == [0, 1, 2, 3, 4]
    assert list(ordinal_ring(1).edges) == [(0, 0)]


def test_bipartite_grid_links_every_agent_to_every_resource():
    grid = bipartite_grid(3, 4, capacity_range=(50, 350), seed=np.random.default_rng(2))
    assert nx.is_bipartite(grid) and grid.number_of_edges() == 12
    agents = {n for n, d in grid.nodes(data=True) if d["bipartite"] == 0}
    assert agents == {("agent", i) for i in range(3)}
    caps = grid_capacities(grid)
    assert caps.shape == (4,) and np.all((caps >= 50) & (caps <= 350))
    np.testing.assert_array_equal(caps, np.random.default_rng(2).uniform(50, 350, 4))  # one draw from the stream


def test_seed_int_or_generator_give_the_same_capacities():
    a = grid_capacities(bipartite_grid(1, 6, capacity_range=(1, 2), seed=9))
    b = grid_capacities(bipartite_grid(1, 6, capacity_range=(1, 2), seed=np.random.default_rng(9)))
    np.testing.assert_array_equal(a, b)
    given = grid_capacities(bipartite_grid(2, 2, capacities=[3.0, 4.0]))
    assert given.tolist() == [3.0, 4.0]


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: ordinal_ring(0), r"n \(agents\) must be a whole number >= 1, got 0"),
        (lambda: bipartite_grid(0, 3, capacity_range=(1, 2)), r"agents \(N\) must be a whole number >= 1, got 0"),
        (lambda: bipartite_grid(2, 0, capacity_range=(1, 2)), r"resources \(M\) must be a whole number >= 1, got 0"),
        (lambda: bipartite_grid(2, 2, capacity_range=(350, 50)), r"\[C_min, C_max\] = \[350, 50\] is empty"),
        (lambda: bipartite_grid(2, 2, capacity_range=(0, 50)), "C_min must be finite and > 0, got 0"),
        (lambda: bipartite_grid(2, 2), "give exactly one of capacity_range"),
        (lambda: bipartite_grid(2, 2, capacities=[1.0]), r"need 2 values, got shape \(1,\)"),
        (lambda: bipartite_grid(2, 2, capacity_range=(1, 2), seed=-1), "seed must be a whole number >= 0"),
    ],
)
def test_bad_sizes_and_ranges_are_named(call, match):
    with pytest.raises(ValueError, match=match):
        call()

"""Topology builders: the ordinal ring of agents, the agent x resource bipartite grid, and the server networks."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from schedlab.model.contracts.grid import ring_order
from schedlab.model.contracts.routing import neighbour_lists, next_hops
from schedlab.topologies import (
    bipartite_grid,
    grid_capacities,
    hierarchical_grid,
    ordinal_ring,
    resource_capacities,
    scale_free_network,
    small_world_grid,
    torus_network,
)


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


# --- server networks for seed 004's rules beyond the small-world ring -------------------------------------


def test_a_torus_gives_every_server_four_neighbours_on_nodes_0_to_n():
    g = torus_network(5, 10)
    assert sorted(g.nodes) == list(range(50)) and nx.is_connected(g)
    assert {d for _, d in g.degree} == {4} and g.number_of_edges() == 100
    assert g.nodes[12]["pos"] == (1, 2) and g.has_edge(12, 13) and g.has_edge(12, 22) and g.has_edge(0, 9)
    assert neighbour_lists(g)[0] == [1, 9, 10, 40]  # right, wrap left, down, wrap up
    assert nx.diameter(g) == 2 + 5  # half of each side


def test_a_scale_free_network_is_connected_with_hubs_and_seeded():
    g = scale_free_network(50, 2, seed=3)
    assert sorted(g.nodes) == list(range(50)) and nx.is_connected(g)
    degrees = sorted(d for _, d in g.degree)
    assert degrees[0] >= 1 and degrees[-1] >= 8 and g.number_of_edges() == 2 * (50 - 2)
    assert min(d for node, d in g.degree if node > 2) >= 2  # every server after the starting star: m links
    again = scale_free_network(50, 2, seed=np.random.default_rng(3))
    assert sorted(g.edges) == sorted(again.edges) != sorted(scale_free_network(50, 2, seed=4).edges)
    assert next_hops(g).shape == (50, 50)  # the network model's routing works on it


def test_grid_capacities_reads_any_graph_with_resource_nodes():
    g = nx.Graph([("top", ("agent", 0)), (("agent", 0), ("site", 0)), (("site", 0), ("resource", 0))])
    g.add_node(("resource", 1), capacity=2.0)
    g.nodes["resource", 0]["capacity"] = 1.0
    assert grid_capacities(g).tolist() == [1.0, 2.0]
    del g.nodes["resource", 1]["capacity"]
    with pytest.raises(ValueError, match=r"node \('resource', 1\) needs a 'capacity' attribute > 0, got None"):
        grid_capacities(g)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: torus_network(2, 5), "rows must be a whole number >= 3, got 2"),
        (lambda: torus_network(3, 2.5), "cols must be a whole number >= 3"),
        (lambda: scale_free_network(3, 3), "m \\(links per new server\\) must be below n = 3"),
        (lambda: scale_free_network(10, 0), "m \\(links per new server\\) must be a whole number >= 1"),
        (lambda: hierarchical_grid((2, 0)), r"fanout\[1\] must be a whole number >= 1, got 0"),
        (lambda: hierarchical_grid((2, 2), latency=(1.0, 2.0)), "latency: need one value per link level"),
        (lambda: hierarchical_grid((2, 2), agent_level=2), "agent_level must be a broker level in 0..1"),
        (lambda: small_world_grid(2, 3, neighbours=3), "neighbours must be even and below N \\+ M = 5"),
        (lambda: small_world_grid(2, 8, latency_range=(2, 1)), "latency_range = \\(2.0, 1.0\\) must be finite"),
        (lambda: small_world_grid(2, 8, capacity_range=(0, 1)), "C_min must be finite and > 0"),
    ],
)
def test_bad_builder_arguments_are_named(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_grid_builders_take_given_capacities_so_topologies_can_share_them():
    caps = resource_capacities(12, (50, 350), seed=4)
    tree = hierarchical_grid((2, 3), 2, capacities=caps)
    world = small_world_grid(3, 12, capacities=caps, seed=1)
    assert np.array_equal(grid_capacities(tree), caps) and np.array_equal(grid_capacities(world), caps)
    with pytest.raises(ValueError, match=r"capacities: need 12 values \(one per resource\), got shape \(3,\)"):
        hierarchical_grid((2, 3), 2, capacities=[1.0, 2.0, 3.0])

"""The small-world ring of seed 004: connected, degrees 2-4, seeded; shortest-path routing."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.model.contracts.routing import hop_distances, neighbour_lists, next_hops
from schedlab.topologies import small_world_ring


@settings(max_examples=40, deadline=None)
@given(n=st.integers(3, 80), p=st.floats(0, 1), seed=st.integers(0, 2**32 - 1))
def test_connected_with_every_degree_between_2_and_4(n, p, seed):
    g = small_world_ring(n, p, seed=seed)
    assert sorted(g.nodes) == list(range(n)) and nx.is_connected(g)
    assert all(2 <= d <= 4 for _, d in g.degree)
    assert all(g.has_edge(i, (i + 1) % n) for i in range(n))  # the ring is never rewired


def test_the_same_seed_gives_the_same_graph_and_a_generator_works_as_a_seed():
    a, b = small_world_ring(50, seed=7), small_world_ring(50, seed=np.random.default_rng(7))
    assert sorted(a.edges) == sorted(b.edges)
    assert sorted(a.edges) != sorted(small_world_ring(50, seed=8).edges)
    kinds = nx.get_edge_attributes(a, "kind")
    assert sum(k == "ring" for k in kinds.values()) == 50 and any(k == "shortcut" for k in kinds.values())


def test_shortcuts_make_it_small_world_and_p0_is_the_plain_ring():
    assert small_world_ring(10, 0.0, seed=1).number_of_edges() == 10
    ring = nx.average_shortest_path_length(small_world_ring(50, 0.0, seed=1))
    sw = np.mean([nx.average_shortest_path_length(small_world_ring(50, seed=s)) for s in range(5)])
    assert sw < 0.4 * ring  # 12.8 hops on the ring of 50; shortcuts cut it to about 3.9
    degrees = [d for s in range(5) for _, d in small_world_ring(50, seed=s).degree]
    assert 2.5 < np.mean(degrees) < 3.3


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_next_hop_lies_on_a_shortest_path(seed):
    g = small_world_ring(30, seed=seed)
    hops, dist = next_hops(g), hop_distances(g)
    expected = dict(nx.all_pairs_shortest_path_length(g))
    for i in range(30):
        for j in range(30):
            assert dist[i, j] == expected[i][j]
            if i == j:
                assert hops[i, j] == i
            else:
                h = hops[i, j]
                assert g.has_edge(i, h) and dist[h, j] == dist[i, j] - 1


def test_neighbour_lists_are_sorted_and_ties_go_to_the_lowest_neighbour():
    g = small_world_ring(6, 0.0)
    assert neighbour_lists(g)[0] == [1, 5]
    assert next_hops(g)[0, 3] == 1  # 0-1-2-3 and 0-5-4-3 are equally short


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(n=2), "n \\(servers\\)"),
        (dict(n=10, shortcut_prob=1.5), "shortcut_prob"),
        (dict(n=10, max_degree=1), "max_degree"),
        (dict(n=10, seed=-1), "seed"),
    ],
)
def test_bad_input_names_the_field(kwargs, message):
    with pytest.raises(ValueError, match=message):
        small_world_ring(**kwargs)


def test_a_disconnected_graph_has_no_routes():
    g = nx.Graph([(0, 1), (2, 3)])
    with pytest.raises(ValueError, match="not connected"):
        next_hops(g)

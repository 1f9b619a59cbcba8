"""Grids on graphs: link latency delays jobs and ages what brokers see, k hops limit reach, trees and sharing graphs.

Each test is also a small demo of the API: build a NetworkX graph (by hand or with a
builder), turn it into a topology with ``grid_topology``, and hand that to ``GridModel``.
"""

from __future__ import annotations

import doctest
from collections import Counter

import networkx as nx
import numpy as np
import pytest
import simpy

from schedlab.learners import OrdinalSharing
from schedlab.model.contracts.grid import GridTopology
from schedlab.model.core.streams import Streams
from schedlab.model.core.workloads import PoissonJobs
from schedlab.policies import LeastLoaded, RandomSelection
from schedlab.processes.grid.grid import GridModel
from schedlab.topologies import (
    bipartite_grid,
    grid_capacities,
    grid_endpoints,
    grid_topology,
    hierarchical_grid,
    small_world_grid,
)
from schedlab.topologies import graph_topology as graph_topology_module
from schedlab.topologies import grid_graphs as grid_graphs_module
from schedlab.topologies import network as network_module


class Script:
    """A job source for hand-checked examples: ``plan[(step, agent)]`` is that agent's job lengths in that step."""

    def __init__(self, plan: dict[tuple[int, int], list[float]]) -> None:
        self.plan = plan

    def lengths(self, step, agents):
        return [self.plan.get((step, i), []) for i in range(agents)]


def resource_of(record) -> int:
    return int(record.machine[1:])  # resource j's server is named "r<j>"


# --- the paper's grid, through a graph, is the paper's grid -------------------------------------------------


def _records_and_series(policy: str, topology: bool, seed: int = 3, agents: int = 6, resources: int = 10):
    streams = Streams(seed)
    grid = bipartite_grid(agents, resources, capacity_range=(50, 350), seed=streams["capacities"])
    jobs = PoissonJobs(0.5, 5.0, 995.0, streams["arrivals"], streams["lengths"])  # load about 0.75
    grid_policy = OrdinalSharing(rng=streams["exploration"]) if policy == "osl" else LeastLoaded(streams["routing"])
    env = simpy.Environment()
    grid_of = grid_topology(grid) if topology else GridTopology.complete(agents, grid_capacities(grid))
    model = GridModel(env, grid_of, grid_policy, jobs, steps=300, record_every=7)
    env.run(until=model.done)
    # repr: the shortest string that reads back as the same float, so equal text is equal bits (and nan == nan)
    return [repr(r) for r in sorted(model.all_records())], model.series.as_dict()


@pytest.mark.parametrize("policy", ["osl", "lls"])
def test_the_complete_zero_latency_graph_gives_the_same_run_bit_for_bit(policy):
    before, series_before = _records_and_series(policy, topology=False)
    after, series_after = _records_and_series(policy, topology=True)
    assert len(before) > 800 and before == after  # every field of every record, exactly
    for name, column in series_before.items():
        assert np.array_equal(column, series_after[name], equal_nan=True), name


def test_a_complete_graph_becomes_the_complete_topology():
    topo = grid_topology(bipartite_grid(3, 4, capacity_range=(1, 2), seed=0))
    complete = GridTopology.complete(3, topo.capacities)
    assert topo.is_complete and topo.is_ring
    assert (topo.order, topo.predecessors) == (complete.order, complete.predecessors)
    assert np.array_equal(topo.latency, complete.latency) and np.array_equal(topo.reach, complete.reach)
    assert topo.is_same_as(complete)  # the same, in one call
    assert not topo.is_same_as(GridTopology.complete(3, [1.0] * 5))
    assert not topo.is_same_as(GridTopology.complete(3, topo.capacities + 1))  # same places, other capacities


# --- latency ------------------------------------------------------------------------------------------------


def test_a_job_reaches_its_resource_one_latency_after_it_was_sent():
    graph = nx.Graph()
    graph.add_edge(("agent", 0), "router", latency=1.5)
    graph.add_edge("router", ("resource", 0), latency=1.0)
    topo = grid_topology(graph, capacities=[100.0])  # a hand-built graph without capacity attributes
    assert topo.latency.tolist() == [[2.5]]
    env = simpy.Environment()
    jobs = Script({(0, 0): [100.0], (4, 0): [50.0]})
    model = GridModel(env, topo, RandomSelection(np.random.default_rng(0)), jobs, steps=10)
    env.run(until=model.done)
    first, second = sorted(model.all_records())
    assert (first.submit, first.start, first.end) == (0.0, 2.5, 3.5)  # sent at 0, 2.5 on the links, 1 to run
    assert (second.submit, second.start) == (4.0, 6.5)
    assert model.in_transit == 0


class Watching(LeastLoaded):
    """LLS that also notes, at each decision, the loads its broker saw and the true ones."""

    def bind(self, view):
        super().bind(view)
        self.view, self.seen = view, []

    def assign(self, agent, lengths):
        self.seen.append((self.view.now, agent, self.view.seen_lor(agent).tolist(), self.view.lor().tolist()))
        return super().assign(agent, lengths)


def test_a_broker_sees_the_loads_as_they_were_one_latency_ago():
    """Broker 0 sits next to resource 0 (no latency, and within 2 hops only it); broker 1 is 2 away from both."""
    graph = nx.Graph()
    graph.add_edge(("agent", 0), ("resource", 0), latency=0.0)
    graph.add_edge(("agent", 1), "hub", latency=2.0)
    graph.add_edge("hub", ("resource", 0), latency=0.0)
    graph.add_edge("hub", ("resource", 1), latency=0.0)
    # broker 0 -> resource 0 -> hub -> resource 1 is 3 hops
    topo = grid_topology(graph, hops=2, capacities=[100.0, 100.0])
    assert topo.reach.tolist() == [[True, False], [True, True]]
    assert topo.latency.tolist() == [[0.0, 0.0], [2.0, 2.0]]
    lls = Watching(np.random.default_rng(1))
    jobs = Script({(0, 0): [1000.0], (1, 1): [10.0], (3, 1): [10.0]})
    env = simpy.Environment()
    model = GridModel(env, topo, lls, jobs, steps=6)
    env.run(until=model.done)
    (t0, a0, seen0, true0), (t1, a1, seen1, true1), (t3, a3, seen3, true3) = lls.seen
    assert (t0, a0, seen0, true0) == (0, 0, [0.0, 0.0], [0.0, 0.0])
    # at t = 1 resource 0 has 9 left, but broker 1 sees t = -1: nothing yet
    assert (t1, a1, seen1, true1) == (1, 1, [0.0, 0.0], [9.0, 0.0])
    # at t = 3 broker 1 sees t = 1 (9 left on resource 0) where 7 are left, plus its step-1 job (a tie at
    # t = 1, broken at random) if that went there: it has just landed
    _, tied, last = sorted(model.all_records(), key=lambda r: r.id)
    assert (t3, a3, seen3) == (3, 1, [9.0, 0.0])
    assert true3 == ([7.1, 0.0] if resource_of(tied) == 0 else [7.0, 0.1])
    assert resource_of(last) == 1 and last.start == 5.0  # least loaded as seen: resource 1, two steps away


# --- reach --------------------------------------------------------------------------------------------------


def test_k_hops_keep_each_broker_to_its_own_sites():
    streams = Streams(5)
    graph = hierarchical_grid((3, 2), 4, latency=(1.0, 0.5, 0.0), seed=streams["capacities"])
    everywhere, own_sites = grid_topology(graph), grid_topology(graph, hops=2)
    assert everywhere.reach.all()
    assert own_sites.reach.sum(axis=1).tolist() == [8, 8, 8]  # 2 sites x 4 resources each
    assert own_sites.reach[1].nonzero()[0].tolist() == list(range(8, 16))
    assert np.array_equal(own_sites.latency, everywhere.latency)  # the route is the same, only the choice shrinks
    used = []
    for topo in (everywhere, own_sites):
        jobs = PoissonJobs(1.0, 5.0, 995.0, streams["arrivals"], streams["lengths"])
        env = simpy.Environment()
        model = GridModel(env, topo, RandomSelection(streams["routing"]), jobs, steps=60)
        env.run(until=model.done)
        used.append({(r.origin, resource_of(r)) for r in model.all_records()})
        assert all(topo.reach[i, j] for i, j in used[-1])
    assert any(not own_sites.reach[i, j] for i, j in used[0])  # without the limit, RS leaves its region


def test_a_broker_that_reaches_nothing_is_named():
    graph = nx.Graph([(("agent", 0), ("resource", 0))])
    graph.add_node(("agent", 1))
    with pytest.raises(ValueError, match=r"broker \('agent', 1\) reaches no resource$"):
        grid_topology(graph)


@pytest.mark.parametrize(
    "graph, kwargs, match",
    [
        (nx.Graph([(("agent", 0), ("resource", 0))]), dict(hops=0), "hops must be a whole number >= 1"),
        (nx.Graph([(("agent", 1), ("resource", 0))]), {}, r"\('agent', 0\) is missing"),
        (nx.Graph([(("agent", 0), "x")]), {}, r"no \('resource', i\) nodes"),
        (nx.Graph([(("agent", 0), ("resource", 0), {"latency": -1})]), {}, "latency=-1; need a finite number >= 0"),
        (
            nx.Graph([(("agent", 0), ("resource", 0))]),
            dict(sharing=nx.DiGraph([(0, 1)]), capacities=[1.0]),
            "sharing: nodes must be",
        ),
        (nx.Graph([(("agent", 0), ("resource", 0))]), {}, r"node \('resource', 0\) needs a 'capacity' attribute > 0"),
        (nx.Graph([(("agent", 0), ("resource", 0))]), dict(capacities=[1.0, 2.0]), "the graph has 1 resources"),
    ],
)
def test_bad_graphs_are_named(graph, kwargs, match):
    with pytest.raises(ValueError, match=match):
        grid_topology(graph, **kwargs)


def test_directed_links_carry_jobs_one_way_only():
    graph = nx.DiGraph([(("agent", 0), ("resource", 0)), (("resource", 1), ("agent", 0))])
    assert grid_topology(graph, capacities=[1.0, 1.0]).reach.tolist() == [[True, False]]


# --- the builders -------------------------------------------------------------------------------------------


def test_a_hierarchical_grid_is_a_tree_of_brokers_over_sites():
    g = hierarchical_grid((2, 3, 2), 5, capacity_range=(100, 200), latency=(4.0, 2.0, 1.0, 0.5), seed=7)
    assert nx.is_tree(g) and grid_endpoints(g) == (6, 60)  # the 2 x 3 lowest brokers are the agents
    by_kind = Counter(kind for _, kind in g.nodes(data="kind"))
    assert by_kind == {"broker": 1 + 2 + 6, "site": 12, "resource": 60}
    assert [g.nodes["agent", i]["level"] for i in range(6)] == [2] * 6
    assert all(g.degree["site", s] == 1 + 5 for s in range(12))
    caps = grid_capacities(g)
    assert np.array_equal(caps, np.random.default_rng(7).uniform(100, 200, 60))  # one draw, site by site
    topo = grid_topology(g)
    # own sites: 1 + 0.5; a sibling's (same region): 2 + 2 + 1 + 0.5; another region's: 2 (4 + 2) + 1 + 0.5
    assert sorted(set(topo.latency[0].tolist())) == [1.5, 5.5, 13.5]
    assert topo.latency[0, :10].tolist() == [1.5] * 10 and topo.latency[0, 10:20].tolist() == [5.5] * 10
    top = hierarchical_grid((2, 3, 2), 5, agent_level=0, seed=7)
    assert grid_endpoints(top) == (1, 60) and ("broker", 2, 5) in top


def test_a_small_world_grid_spreads_brokers_and_draws_every_link_latency():
    g = small_world_grid(5, 45, neighbours=4, shortcut_prob=0.2, latency_range=(1.0, 3.0), seed=11)
    assert nx.is_connected(g) and grid_endpoints(g) == (5, 45)
    assert [g.nodes["agent", i]["position"] for i in range(5)] == [0, 10, 20, 30, 40]
    delays = [d for _, _, d in g.edges(data="latency")]
    assert all(1.0 <= d <= 3.0 for d in delays)
    kinds = [k for _, _, k in g.edges(data="kind")]
    assert kinds.count("ring") == 50 * 2 and kinds.count("shortcut") > 0
    again = small_world_grid(
        5, 45, neighbours=4, shortcut_prob=0.2, latency_range=(1.0, 3.0), seed=np.random.default_rng(11)
    )
    assert sorted(g.edges(data="latency")) == sorted(again.edges(data="latency"))
    near = grid_topology(g, hops=1)
    assert near.reach.sum(axis=1).tolist() == [g.degree["agent", i] - _broker_neighbours(g, i) for i in range(5)]


def _broker_neighbours(g, i):
    return sum(1 for v in g.neighbors(("agent", i)) if v[0] == "agent")


# --- the sharing graph --------------------------------------------------------------------------------------


class Mixing(OrdinalSharing):
    """OSL that notes what each broker read in its turn, and its table before and after."""

    def bind(self, view):
        super().bind(view)
        self.reads = []

    def receive(self, agent, messages):
        copies = [np.array(m) for m in messages]
        before = self.utility[agent].copy()
        super().receive(agent, messages)
        self.reads.append((agent, copies, before, self.utility[agent].copy()))


def test_every_agent_mixes_in_the_mean_of_its_predecessors_tables():
    # 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3, 3 -> 0: agent 3 reads two tables, agent 0 reads agent 3's last one
    sharing = nx.DiGraph([(0, 1), (0, 2), (1, 3), (2, 3), (3, 0)])
    streams = Streams(2)
    graph = bipartite_grid(4, 6, capacity_range=(50, 350), seed=streams["capacities"])
    topo = grid_topology(graph, sharing=sharing)
    assert topo.order == (0, 1, 2, 3) and topo.predecessors == ((3,), (0,), (0,), (1, 2))
    osl = Mixing(0.5, 0.5, rng=streams["exploration"])
    jobs = PoissonJobs(0.8, 5.0, 995.0, streams["arrivals"], streams["lengths"])
    env = simpy.Environment()
    model = GridModel(env, topo, osl, jobs, steps=30)
    env.run(until=model.done)
    assert [agent for agent, *_ in osl.reads[:8]] == [0, 1, 2, 3] * 2  # every agent, every step, in turn order
    tables_sent = {}
    for agent, messages, before, after in osl.reads:
        assert len(messages) == len(topo.predecessors[agent])
        np.testing.assert_allclose(after, 0.5 * before + 0.5 * np.mean(messages, axis=0))
        tables_sent[agent] = after
    # within a step, what agent 3 read is what agents 1 and 2 left after their own turns
    step = osl.reads[-4:]
    assert [a for a, *_ in step] == [0, 1, 2, 3]
    assert len(step[3][1]) == 2
    assert len(model.all_records()) > 50


def test_an_undirected_sharing_graph_shares_both_ways():
    topo = grid_topology(bipartite_grid(3, 2, capacities=[1.0, 1.0]), sharing=nx.path_graph(3))
    assert topo.predecessors == ((1,), (0, 2), (1,)) and topo.order == (0, 1, 2)


def test_the_builders_docstring_examples_run():
    for module in (graph_topology_module, grid_graphs_module, network_module):
        failed, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert tried > 0 and failed == 0, module.__name__


def test_parallel_links_take_the_fastest_and_a_cycle_sets_the_turn_order():
    graph = nx.MultiGraph()
    graph.add_edge(("agent", 0), ("resource", 0), latency=3.0)
    graph.add_edge(("agent", 0), ("resource", 0), latency=1.0)
    graph.add_edge(("agent", 1), ("resource", 0))  # no latency attribute: 0
    graph.add_edge(("agent", 2), ("resource", 0), latency=0.5)
    topo = grid_topology(graph, sharing=nx.DiGraph([(0, 2), (2, 1), (1, 0)]), capacities=[1.0])
    assert topo.latency.tolist() == [[1.0], [0.0], [0.5]]
    assert topo.order == (0, 2, 1) and topo.is_ring and topo.predecessors == ((1,), (2,), (0,))

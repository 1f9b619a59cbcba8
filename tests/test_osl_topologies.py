"""Smoke test of scenarios/osl_topologies.py: OSL, LLS and RS on the complete grid, a broker tree and a small world."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from schedlab.experiment import run
from schedlab.experiment.runner import build_model
from schedlab.experiment.scenario import load_scenario
from schedlab.experiment.seeding import replication_seeds

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "osl_topologies.py"
TINY = {"steps": 40, "agents": 3, "sites_per_broker": 2, "resources_per_site": 2, "record_every": 5}


def test_every_topology_and_policy_gives_its_row():
    results = run(SCENARIO, overrides=TINY, reps=1, quick=True, executor="serial", keep_records=False)
    rows = {(r["topology"], r["policy"]): r for r in results.rows}
    assert set(rows) == {(t, p) for t in ("complete", "tree", "small_world") for p in ("osl", "lls", "rs")}
    for (topology, _), row in rows.items():
        assert math.isfinite(row["alor"]) and row["alor"] >= 0 and row["atpt"] > 0
        assert (row["route_latency"] == 0) == (topology == "complete")
    # the tree: 0.5 to a broker's own 4 resources, 2 + 2 + 0.5 to the other 8; RS picks among all 12
    assert rows["tree", "rs"]["mean_latency"] == pytest.approx((4 * 0.5 + 8 * 4.5) / 12)


def _run_one(cfg_overrides: dict, cell: dict):
    scenario = load_scenario(SCENARIO)
    cfg = scenario.config(cfg_overrides)
    model = build_model(scenario, cfg, cell, replication_seeds(0, 1)[0], rep=0).run()
    return [repr(r) for r in sorted(model["grid"].all_records())]


@pytest.mark.parametrize("topology", ["tree", "small_world"])
def test_without_latency_every_topology_is_the_complete_grid_bit_for_bit(topology):
    flat = {**TINY, "latency_scale": 0.0}
    complete = _run_one(flat, {"topology": "complete", "policy": "lls"})
    assert _run_one(flat, {"topology": topology, "policy": "lls"}) == complete and len(complete) > 100


def test_hops_keep_the_trees_brokers_to_their_own_sites():
    scenario = load_scenario(SCENARIO)
    cfg = scenario.config({**TINY, "hops": 2})
    model = build_model(scenario, cfg, {"topology": "tree", "policy": "rs"}, replication_seeds(0, 1)[0], rep=0)
    records = model.run()["grid"].all_records()
    # broker i's own sites hold resources 4i .. 4i + 3
    assert records and all(int(r.machine[1:]) // 4 == r.origin for r in records)


def test_bad_settings_are_named():
    scenario = load_scenario(SCENARIO)
    with pytest.raises(ValueError, match="topologies: unknown 'ring'"):
        scenario.config({"topologies": ("ring",)})
    with pytest.raises(ValueError, match="sw_neighbours must be even"):
        scenario.config({"sw_neighbours": 3})
    with pytest.raises(ValueError, match="tree_latency must be three"):
        scenario.config({"tree_latency": (1.0, 2.0)})


MESH = '''
import networkx as nx


def mesh(agents, resources, capacities, rng):
    """A 2 x 2 mesh of brokers, 1 time unit a link; each resource one free link from a broker."""
    graph = nx.relabel_nodes(nx.grid_2d_graph(2, 2), {(r, c): ("agent", 2 * r + c) for r in range(2) for c in range(2)})
    nx.set_edge_attributes(graph, 1.0, "latency")
    for j in range(resources):
        graph.add_edge(("agent", j % agents), ("resource", j), latency=0.0)
    return graph
'''


def test_a_topology_of_your_own_runs_from_its_file_with_no_edit(tmp_path, monkeypatch):
    (tmp_path / "mesh.py").write_text(MESH)
    monkeypatch.chdir(tmp_path)
    overrides = {**TINY, "agents": 4, "topologies": ("complete", "mesh.py:mesh"), "policies": ("osl",)}
    results = run(SCENARIO, overrides=overrides, reps=1, quick=True, executor="serial", keep_records=False)
    rows = {r["topology"]: r for r in results.rows}
    assert set(rows) == {"complete", "mesh.py:mesh"}
    # on the mesh a broker reaches its own resources at 0 and the others across 1 or 2 links (mean 1 over 4 brokers)
    assert rows["mesh.py:mesh"]["mean_latency"] == pytest.approx((4 * 0 + 4 * 1 + 4 * 1 + 4 * 2) / 16)
    assert rows["complete"]["mean_latency"] == 0


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("nope.py:mesh", "no file nope.py"),
        ("mesh.py:mash", "mesh.py defines no function 'mash'"),
        ("mesh", "unknown 'mesh'; choose from complete, tree, small_world, or FILE.py:FUNCTION"),
    ],
)
def test_a_bad_topology_is_named_before_any_cell_runs(tmp_path, monkeypatch, spec, says):
    (tmp_path / "mesh.py").write_text(MESH)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=says):
        load_scenario(SCENARIO).config({"topologies": (spec,)})

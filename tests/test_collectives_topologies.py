"""Seed 004's rules beyond the small-world ring: scenarios/collectives.py's ``topology`` field, tiny budgets."""

from __future__ import annotations

import math
from pathlib import Path

import networkx as nx
import pytest

from schedlab.experiment import run
from schedlab.experiment.runner import build_model
from schedlab.experiment.scenario import load_scenario
from schedlab.experiment.seeding import replication_seeds

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "collectives.py"
TINY = {
    "servers": 12,
    "runs": 3,
    "warmup": 1,
    "steps": 15,
    "arrival_probs": "0.5",
    "max_requirements": "3",
    "curves_dir": "",
}


@pytest.mark.parametrize("topology, degrees", [("torus", {4}), ("scale_free", None)])
def test_every_rule_runs_on_the_torus_and_the_scale_free_graph(topology, degrees):
    results = run(SCENARIO, overrides={**TINY, "topology": topology}, reps=1, executor="serial", keep_records=False)
    rows = {row["algorithm"]: row for row in results.rows}
    assert set(rows) == {"rand", "su", "tg", "wlu", "lb"}
    for row in rows.values():
        assert 0 <= row["efficiency"] <= 1 and math.isfinite(row["lp_bound"])
    scenario = load_scenario(SCENARIO)
    cfg = scenario.config({**TINY, "topology": topology})
    model = build_model(scenario, cfg, {"r": 0.5, "M": 3, "algorithm": "lb"}, replication_seeds(0, 1)[0])
    graph = model["network"].graph
    assert sorted(graph.nodes) == list(range(12)) and nx.is_connected(graph)
    if degrees is not None:
        assert {d for _, d in graph.degree} == degrees and rows["lb"]["mean_degree"] == 4.0


def test_the_default_is_the_papers_small_world_ring_and_bad_values_are_named():
    scenario = load_scenario(SCENARIO)
    assert scenario.config().topology == "small_world"
    with pytest.raises(ValueError, match="topology: unknown 'ring'"):
        scenario.config({"topology": "ring"})
    with pytest.raises(ValueError, match="servers = 13 is not rows x cols with both >= 3"):
        scenario.config({"servers": 13, "topology": "torus"})

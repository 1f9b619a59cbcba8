"""``scenarios/energy_failures.py`` (issue 25 item 8): FCFS and EASY, always on, idle shutdown or DVFS, failures."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest

from schedlab.experiment import load_scenario, run
from schedlab.experiment.seeding import replication_seeds
from schedlab.model.core.streams import Streams
from schedlab.model.formats.batsim_platform import batsim_node_power

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scenarios" / "energy_failures.py"


def _run(**options):
    here = os.getcwd()
    os.chdir(ROOT)  # the log is found in ../shared/traces, relative to the repository root
    try:
        return run(SCRIPT, executor="serial", progress=False, **options)
    finally:
        os.chdir(here)


@pytest.fixture(scope="module")
def quick():
    """``schedlab run scenarios/energy_failures.py --quick``: 3 windows of 256 SDSC-SP2 jobs."""
    return _run(quick=True)


def test_the_platform_is_batsims_cluster_energy_128():
    """The scenario's node power is what Batsim's file gives (transcribed in tests/data)."""
    module = load_scenario(SCRIPT).module
    batsim = batsim_node_power(ROOT / "tests" / "data" / "batsim_energy_cluster.xml")
    assert module.POWER.idle == batsim.idle and module.POWER.full == batsim.full and module.POWER.off == batsim.off
    for ours, theirs in ((module.POWER.switch_off, batsim.switch_off), (module.POWER.switch_on, batsim.switch_on)):
        assert ours.seconds == pytest.approx(theirs.seconds, rel=1e-9)
        assert ours.joules == pytest.approx(theirs.joules, rel=1e-9)


def test_one_row_per_policy_power_setting_and_failures(quick):
    assert [(r["policy"], r["power"], r["failures"]) for r in quick.rows] == [
        (p, s, f) for p in ("fcfs", "easy") for s in ("always on", "idle shutdown", "dvfs") for f in ("none", "weibull")
    ]
    for r in quick.replications:
        if r["failures"] == "none":
            assert r["jobs_hit"] == r["kills"] == r["lost_cpu_h"] == 0 and r["availability"] == 1
        else:  # seed 0's quick windows: 90-day node MTBF, 128 nodes, a few days a window
            assert r["jobs_hit"] >= 1 and r["kills"] >= r["jobs_hit"] and 0 < r["availability"] < 1


def test_every_cell_of_a_window_has_the_same_failures():
    """The failures come from the ``failures`` stream: every policy and power setting of a
    replication replays the same window with the same node outages."""
    import simpy

    module = load_scenario(SCRIPT).module
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        cfg = module.Config(length=64)
        seed = replication_seeds(0, 2)[1]
        runs = {
            tuple(cell.values()): module.build(simpy.Environment(), cfg, cell, Streams(seed, 0)).run()
            for cell in module.cells(cfg)
        }
    finally:
        os.chdir(here)
    windows = {tuple(sorted(r.id for r in m.records())) for m in runs.values()}
    outages = {tuple(m["cluster"].node_outages) for key, m in runs.items() if key[2] == "weibull"}
    assert len(runs) == 12 and len(windows) == 1 and len(outages) == 1 and len(next(iter(outages))) > 0
    assert all(m["cluster"].node_outages == [] for key, m in runs.items() if key[2] == "none")


def test_always_on_energy_is_the_utilization_read_in_watts(quick):
    """With every node on, 128 one-core nodes draw 128 x (95 + 95.738 x U) W on average over
    the span the utilization U is taken over (first submission to last end): the energy
    metric and the utilization metric, computed apart, agree. With failures, a node down
    draws its 9.75 off watts, and the work the kills lost was drawn too (U counts only
    the attempts that completed): 128 x (95 A + 9.75 (1 - A)) + 95.738 x (128 U + lost / span),
    A the availability."""
    for r in quick.replications:
        if r["power"] != "always on":
            continue
        assert r["boots"] == 0
        if r["failures"] == "none":
            expected = 128 * (95.0 + (190.738 - 95.0) * r["utilization"]) / 1e3
        else:
            span = r["energy_mj"] * 1e6 / (r["mean_power_kw"] * 1e3)
            a = r["availability"]
            work = 128 * r["utilization"] + r["lost_cpu_h"] * 3600 / span
            expected = (128 * (95.0 * a + 9.75 * (1 - a)) + (190.738 - 95.0) * work) / 1e3
        assert r["mean_power_kw"] == pytest.approx(expected, rel=1e-9), r


def test_idle_shutdown_saves_energy_and_keeps_the_work(quick):
    """What seed 0's quick windows show without failures (not a theorem: a boot costs 18,966 J,
    the idle power of 200 s, so a policy that boots too often could lose): each window uses
    less energy with idle shutdown, runs the same CPU-time, and its nodes boot at least once."""
    by = {}
    for r in quick.replications:
        if r["failures"] == "none":
            by.setdefault((r["policy"], r["rep"]), {})[r["power"]] = r
    for (policy, rep), cells in by.items():
        on, off = cells["always on"], cells["idle shutdown"]
        assert off["energy_mj"] < on["energy_mj"], (policy, rep, on["energy_mj"], off["energy_mj"])
        assert off["boots"] >= 1
        # the same jobs ran: CPU-time = utilization x 128 x span; the span may move by the boots' waits
        assert off["utilization"] == pytest.approx(on["utilization"], rel=0.05)


def test_dvfs_slows_the_nodes_while_nothing_waits(quick):
    """The dvfs cells run QueueDVFS at pstate 12 (speed 0.45, 125.88 W full) on the same hosts:
    window 0 under EASY spends node-time in pstate 12 and none in another pstate but 0, and in
    every window of seed 0's quick run without failures the mean power is below always on's
    (what these windows show, not a theorem: a slowed machine is busy longer)."""
    import simpy

    module = load_scenario(SCRIPT).module
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        cfg = module.Config(**module.QUICK)
        streams = Streams(replication_seeds(0, 1)[0], 0)
        cell = {"policy": "easy", "power": "dvfs", "failures": "none"}
        model = module.build(simpy.Environment(), cfg, cell, streams).run()
    finally:
        os.chdir(here)
    rows = model["cluster"].pstate_rows()
    assert rows and {pstate for _, pstate, _, _ in rows} == {12}
    assert model["platform"].node_types[0].power.levels[12].full == 125.88
    by = {}
    for r in quick.replications:
        if r["failures"] == "none":
            by.setdefault((r["policy"], r["rep"]), {})[r["power"]] = r
    for (policy, rep), cells in by.items():
        on, slowed = cells["always on"], cells["dvfs"]
        assert slowed["mean_power_kw"] < on["mean_power_kw"], (policy, rep, on, slowed)


def test_without_failure_cells_the_table_is_the_six_power_cells():
    module = load_scenario(SCRIPT).module
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        cells = module.cells(module.Config(with_failures=False))
    finally:
        os.chdir(here)
    assert [c["failures"] for c in cells] == ["none"] * 6


def test_the_machine_state_chart_adds_up(quick):
    """The chart of window 0 under EASY with idle shutdown and failures: at every time the states
    sum to at most the 128 nodes, and the time-average of nodes computing over 128 is the run's
    utilization (one core per node) plus the CPU-time the failures' kills lost (the chart
    draws every attempt; the utilization counts the attempts that completed)."""
    pytest.importorskip("matplotlib")
    module = load_scenario(SCRIPT).module
    from schedlab.plots.machine_states import state_counts

    cfg = module.Config(**{**{k: v for k, v in quick.config.items() if k in module.Config.__dataclass_fields__}})
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        fig = module.machine_states_figure(cfg, quick.seed)
    finally:
        os.chdir(here)
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == [
        "computing",
        "switching",
        "switched off",
        "down",
        "idle",
    ]
    ax = fig.axes[0]
    top = ax.collections[-1]  # idle: from the stacked states up to 128
    assert np.allclose(top.get_paths()[0].vertices[:, 1].max(), 128)
    # the numbers behind it: rebuilt from the same run
    import simpy

    from schedlab.experiment.seeding import replication_seeds
    from schedlab.model.core.streams import Streams

    os.chdir(ROOT)
    try:
        model = module.build(
            simpy.Environment(),
            cfg,
            {"policy": "easy", "power": "idle shutdown", "failures": "weibull"},
            Streams(replication_seeds(quick.seed, 1)[0], 0),
        ).run()
    finally:
        os.chdir(here)
    cluster = model["cluster"]
    busy = [(r[2], r[5], r[6]) for r in cluster.placement_rows()]
    t, counts = state_counts(busy, cluster.power_rows())
    end = max(r.end for r in model.records() if r.start == r.start)
    assert (sum(counts.values()) <= 128).all()
    inside = t < end
    widths = np.diff(np.append(t[inside], end))
    utilization = float((counts["computing"][inside] * widths).sum() / (128 * end))
    rep0 = next(
        r
        for r in quick.replications
        if (r["policy"], r["power"], r["failures"], r["rep"]) == ("easy", "idle shutdown", "weibull", 0)
    )
    lost = rep0["lost_cpu_h"] * 3600 / (128 * end)
    assert lost > 0 and utilization == pytest.approx(rep0["utilization"] + lost, rel=1e-9)


def test_report_prints_the_savings_and_draws_the_chart(quick, capsys, tmp_path):
    pytest.importorskip("matplotlib")
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        written = load_scenario(SCRIPT).module.report(quick, tmp_path)
    finally:
        os.chdir(here)
    assert written == [
        tmp_path / name for name in ("machine_states.png", "machine_states_boot.png", "machine_states_dvfs.png")
    ]
    assert all(path.stat().st_size > 0 for path in written)
    out = capsys.readouterr().out
    assert "easy: idle shutdown saves" in out and "fcfs: idle shutdown saves" in out
    assert "easy with failures: idle shutdown saves" in out and "easy, idle shutdown: failures hit" in out
    assert re.search(r"^easy: dvfs \(pstate 12\) (saves|costs) \d+\.\d% (more )?of the mean energy", out, re.M)
    assert "fcfs, dvfs: failures hit" in out
    assert "saves -" not in out  # a cost is said as a cost


@pytest.mark.slow
def test_the_full_run():
    """The default run: 10 windows of 1,024 jobs per cell (the docs page's table)."""
    full = _run()
    assert len(full.replications) == 12 * 10
    for r in full.rows:
        assert np.isfinite(r["energy_mj"]) and (r["jobs_hit"] > 0) == (r["failures"] == "weibull")

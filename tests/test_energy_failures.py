"""``scenarios/energy_failures.py`` (issue 25 item 8): FCFS and EASY, with and without idle shutdown, on a real log."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from schedlab.experiment import load_scenario, run
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


def test_one_row_per_policy_and_power_setting(quick):
    assert [(r["policy"], r["power"]) for r in quick.rows] == [
        ("fcfs", "always on"),
        ("fcfs", "idle shutdown"),
        ("easy", "always on"),
        ("easy", "idle shutdown"),
    ]
    assert all(
        r["jobs_hit"] == 0 for r in quick.replications
    )  # failures are off (they do not run on a powered cluster yet)


def test_always_on_energy_is_the_utilization_read_in_watts(quick):
    """With every node on, 128 one-core nodes draw 128 x (95 + 95.738 x U) W on average over
    the span the utilization U is taken over (first submission to last end): the energy
    metric and the utilization metric, computed apart, agree."""
    for r in quick.replications:
        if r["power"] == "always on":
            expected = 128 * (95.0 + (190.738 - 95.0) * r["utilization"]) / 1e3
            assert r["mean_power_kw"] == pytest.approx(expected, rel=1e-9), r
            assert r["boots"] == 0


def test_idle_shutdown_saves_energy_and_keeps_the_work(quick):
    """What seed 0's quick windows show (not a theorem: a boot costs 18,966 J, the idle power
    of 200 s, so a policy that boots too often could lose): each window uses less energy with
    idle shutdown, runs the same CPU-time, and its nodes boot at least once."""
    by = {}
    for r in quick.replications:
        by.setdefault((r["policy"], r["rep"]), {})[r["power"]] = r
    for (policy, rep), cells in by.items():
        on, off = cells["always on"], cells["idle shutdown"]
        assert off["energy_mj"] < on["energy_mj"], (policy, rep, on["energy_mj"], off["energy_mj"])
        assert off["boots"] >= 1
        # the same jobs ran: CPU-time = utilization x 128 x span; the span may move by the boots' waits
        assert off["utilization"] == pytest.approx(on["utilization"], rel=0.05)


def test_failures_are_a_setting_that_is_off_and_says_why():
    with pytest.raises(
        Exception, match=r"failures=true: node failures are replayed on one machine of the log's processors"
    ):
        _run(quick=True, overrides={"failures": True})


def test_the_machine_state_chart_adds_up(quick):
    """The chart of window 0 under EASY with idle shutdown: at every time the four states sum to
    the 128 nodes, and the time-average of nodes computing over 128 is the run's utilization
    (one core per node)."""
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
            {"policy": "easy", "power": "idle shutdown"},
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
    rep0 = next(r for r in quick.replications if (r["policy"], r["power"], r["rep"]) == ("easy", "idle shutdown", 0))
    assert utilization == pytest.approx(rep0["utilization"], rel=1e-9)


def test_report_prints_the_savings_and_draws_the_chart(quick, capsys, tmp_path):
    pytest.importorskip("matplotlib")
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        written = load_scenario(SCRIPT).module.report(quick, tmp_path)
    finally:
        os.chdir(here)
    assert written == [tmp_path / "machine_states.png", tmp_path / "machine_states_boot.png"]
    assert all(path.stat().st_size > 0 for path in written)
    out = capsys.readouterr().out
    assert "easy: idle shutdown saves" in out and "fcfs: idle shutdown saves" in out


@pytest.mark.slow
def test_the_full_run():
    """The default run: 10 windows of 1,024 jobs per cell (the docs page's table)."""
    full = _run()
    assert len(full.replications) == 4 * 10
    for r in full.rows:
        assert np.isfinite(r["energy_mj"]) and r["jobs_hit"] == 0

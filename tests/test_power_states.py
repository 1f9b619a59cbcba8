"""Power states (issue 25 item 3): nodes switched off and on by an energy policy, their energy to the joule."""

from __future__ import annotations

import math

import pytest
import simpy
from conftest import first_row, replay_args, tiny_swf

from schedlab.model.analysis.energy import energy
from schedlab.model.contracts.power import SwitchOff, SwitchOn, WakeAt
from schedlab.model.core.job import Job
from schedlab.model.formats.batsim_platform import BatsimPlatformError, batsim_node_power
from schedlab.model.formats.platform_file import PlatformError, parse_platform
from schedlab.policies.batch import make_policy
from schedlab.policies.idle_shutdown import IdleShutdown
from schedlab.policies.placement import FirstFitPlacement
from schedlab.processes.cluster.power import PoweredCluster, powered_cluster_model
from schedlab.processes.machine.machine import PolicyError

#: two nodes of 4 cores: 100 W idle, 200 W full, 10 W off; 5 s and 600 J to switch off, 20 s and 3,000 J to boot
PLATFORM = parse_platform(
    {
        "nodes": {
            "n": {
                "count": 2,
                "cores": 4,
                "power": {
                    "idle": 100,
                    "full": 200,
                    "off": 10,
                    "switch_off": {"seconds": 5, "joules": 600},
                    "switch_on": {"seconds": 20, "joules": 3000},
                },
            }
        }
    }
)
JOBS = [Job(1, 0.0, 10.0, cpus=3), Job(2, 5.0, 20.0, cpus=2), Job(3, 60.0, 10.0, cpus=5)]


def _run(backfill: str = "none", timeout: float = 10.0):
    policy = IdleShutdown(make_policy("fcfs", backfill), timeout)
    return powered_cluster_model(simpy.Environment(), JOBS, PLATFORM, policy, FirstFitPlacement()).run()


@pytest.mark.parametrize("backfill", ["none", "easy"])
def test_idle_shutdown_computed_by_hand_to_the_joule(backfill):
    """Job 1 (3 cores, 0-10 s) on n-0, job 2 (2 cores, 5-25 s) on n-1, as without power states.
    With a 10 s idle timeout n-0, idle from 10, switches off over 20-25 and is off from 25;
    n-1, idle from 25, switches off over 35-40. Job 3 (5 cores) arrives at 60 to find no
    core on: both nodes boot over 60-80, and it runs 80-90 (a 20 s wait, the boot).

    Over the span 0-90 (first submit to last end):
    n-0: on 90 - 5 - 35 - 20 = 30 s -> 100 W x 30 = 3,000 J; its jobs held 3 x 10 + 4 x 10
         = 70 core-s -> 25 W x 70 = 1,750 J; switch off 600 J; off 35 s x 10 W = 350 J;
         boot 3,000 J. Total 8,700 J.
    n-1: on 90 - 5 - 20 - 20 = 45 s -> 4,500 J; 2 x 20 + 1 x 10 = 50 core-s -> 1,250 J;
         600 J; off 20 s -> 200 J; 3,000 J. Total 9,550 J.
    Total 18,250 J; mean power 18,250 / 90 = 202.78 W; EDP 18,250 x 90 = 1,642,500 J s.
    Jobs draw what they drew without power states: 1,500, 2,000 and 2,500 J."""
    model = _run(backfill)
    cluster = model["cluster"]
    # idle again from 90, both switch off after the run's last job
    assert set(cluster.power_rows(running=False)) == {
        ("n-0", "switching_off", 20.0, 25.0),
        ("n-0", "off", 25.0, 60.0),
        ("n-0", "switching_on", 60.0, 80.0),
        ("n-0", "switching_off", 100.0, 105.0),
        ("n-1", "switching_off", 35.0, 40.0),
        ("n-1", "off", 40.0, 60.0),
        ("n-1", "switching_on", 60.0, 80.0),
        ("n-1", "switching_off", 100.0, 105.0),
    }
    job3 = next(r for r in model.records() if r.id == 3)
    assert (job3.start, job3.wait) == (80.0, 20.0)
    report = energy(cluster.placement_rows(), PLATFORM, 0.0, 90.0, cluster.power_rows())
    assert report.per_node == pytest.approx({"n-0": 8700.0, "n-1": 9550.0}, abs=1e-9)
    assert report.total == pytest.approx(18250.0, abs=1e-9)
    assert report.mean_power == pytest.approx(18250.0 / 90.0) and report.edp == pytest.approx(1642500.0)
    assert report.per_job == {1: 1500.0, 2: 2000.0, 3: 2500.0}


def test_a_switch_cut_by_the_span_counts_in_part():
    """n-0 boots over 60-80 at 3,000 J / 20 s = 150 W: a span ending at 70 holds half of it."""
    states = [("n-0", "off", 0.0, 60.0), ("n-0", "switching_on", 60.0, 80.0)]
    report = energy([], PLATFORM, 0.0, 70.0, states)
    assert report.per_node["n-0"] == pytest.approx(60 * 10.0 + 1500.0)
    assert report.per_node["n-1"] == pytest.approx(70 * 100.0)


def test_an_off_node_runs_nothing_and_nothing_is_lost():
    """A longer stream of jobs: no job runs on a node while it is off or switching; every job runs once."""
    # three bursts of 20 jobs, 200 s apart
    jobs = [Job(i, 6.0 * i + 200.0 * (i // 20), 5.0 + (i * 13) % 30, cpus=1 + (i * 5) % 8) for i in range(60)]
    policy = IdleShutdown(make_policy("fcfs", "easy"), 15.0)
    model = powered_cluster_model(simpy.Environment(), jobs, PLATFORM, policy, FirstFitPlacement()).run()
    cluster = model["cluster"]
    away = cluster.power_rows()
    assert away, "the idle timeout never switched a node off: the test would show nothing"
    for _job, _q, node, _k, _c, t0, t1 in cluster.placement_rows():
        for other, _state, a, b in away:
            assert other != node or t1 <= a or t0 >= b, f"a job ran on {node} over {t0}-{t1} while it was away {a}-{b}"
    records = model.records()
    assert sorted(r.id for r in records) == list(range(60)) and all(r.status.value == "completed" for r in records)


def test_the_policy_that_switches_must_ask_what_the_contract_allows():
    env = simpy.Environment()
    busy = PoweredCluster(env, PLATFORM, make_policy("fcfs"), FirstFitPlacement())
    busy.submit(Job(1, 0.0, 10.0, cpus=2))
    with pytest.raises(PolicyError, match=r"node 'n-0' is on with 1 job\(s\)"):
        busy.apply(SwitchOff("n-0"))
    with pytest.raises(PolicyError, match=r"node 'n-1' is on; only a node that is off can be switched on"):
        busy.apply(SwitchOn("n-1"))
    with pytest.raises(PolicyError, match=r"cannot switch off 'x-9': no such node"):
        busy.apply(SwitchOff("x-9"))
    with pytest.raises(PolicyError, match=r"WakeAt\(-1\) is in the past"):
        busy.apply(WakeAt(-1))
    always_on = parse_platform({"nodes": {"n": {"count": 1, "cores": 4, "power": {"idle": 1, "full": 2}}}})
    plain = PoweredCluster(simpy.Environment(), always_on, make_policy("fcfs"), FirstFitPlacement())
    with pytest.raises(PolicyError, match=r"gives no power\.off"):
        plain.apply(SwitchOff("n-0"))
    with pytest.raises(ValueError, match="timeout must be a finite number"):
        IdleShutdown(make_policy("fcfs"), math.inf)


def test_an_energy_policy_of_ones_own_through_the_view():
    """The extension point: any callable reading ``view.power`` and returning power actions.
    This one switches n-1 off at its first decision (job 1, t = 1) and never boots it; jobs run on n-0 alone."""

    def n1_stays_off(view):
        if view.power["n-1"].state == "on" and view.power["n-1"].jobs == 0:
            return SwitchOff("n-1")
        return make_policy("fcfs")(view)

    jobs = [Job(1, 1.0, 10.0, cpus=4), Job(2, 2.0, 10.0, cpus=4)]
    model = powered_cluster_model(simpy.Environment(), jobs, PLATFORM, n1_stays_off, FirstFitPlacement()).run()
    assert [(r.id, r.start) for r in model.records()] == [(1, 1.0), (2, 11.0)]
    assert model["cluster"].power_rows(running=False) == [("n-1", "switching_off", 1.0, 6.0)]


def test_switching_needs_off_watts_in_the_platform_file():
    with pytest.raises(PlatformError, match=r"nodes\.n\.power\.switch_on: needs power\.off"):
        parse_platform({"nodes": {"n": {"cores": 4, "power": {"idle": 1, "full": 2, "switch_on": {"seconds": 1}}}}})
    with pytest.raises(PlatformError, match=r"nodes\.n\.power\.switch_off\.watts: unknown key"):
        parse_platform(
            {"nodes": {"n": {"cores": 4, "power": {"idle": 1, "full": 2, "off": 0, "switch_off": {"watts": 1}}}}}
        )
    with pytest.raises(PlatformError, match=r"nodes\.n\.power\.switch_off\.seconds: must be a finite number >= 0"):
        parse_platform(
            {"nodes": {"n": {"cores": 4, "power": {"idle": 1, "full": 2, "off": 0, "switch_off": {"seconds": -6.1}}}}}
        )


def test_batsims_cluster_energy_128_values_load(tmp_path):
    """Batsim's platforms/cluster_energy_128.xml (its energy properties, transcribed in tests/data):
    6.1 s to shut down and 151.52 s to boot, as its comment says; 100.99672131147543 W over
    6.1 s = 616.08 J, 125.1743848996832 W over 151.52 s = 18,966.42 J."""
    power = batsim_node_power("tests/data/batsim_energy_cluster.xml")
    assert (power.idle, power.full, power.off) == (95.0, 190.738, 9.75)
    assert power.switch_off.seconds == pytest.approx(6.1, rel=1e-12)
    assert power.switch_on.seconds == pytest.approx(151.52, rel=1e-9)
    assert power.switch_off.joules == pytest.approx(616.08, rel=1e-9)
    assert power.switch_on.joules == pytest.approx(18966.4228, rel=1e-9)
    bad = tmp_path / "bad.xml"
    bad.write_text(
        '<platform><cluster id="c" speed="1Mf, 1f"><prop id="watt_per_state" value="1:2, 3:3"/>'
        '<prop id="sleep_pstates" value="1:1:1"/></cluster></platform>'
    )
    with pytest.raises(BatsimPlatformError, match=r"bad\.xml: cluster 'c': property watt_off is missing"):
        batsim_node_power(bad)
    bad.write_text("<platform><cluster")
    with pytest.raises(BatsimPlatformError, match=r"bad\.xml: not a readable XML platform"):
        batsim_node_power(bad)


def test_machine_states_with_power_states():
    """The hand case's chart: off and switching (and down: none here) counted per node and time, idle what is left."""
    pytest.importorskip("matplotlib")
    from schedlab.plots.machine_states import machine_states, state_counts

    cluster = _run()["cluster"]
    busy = [(r[2], r[5], r[6]) for r in cluster.placement_rows()]
    t, counts = state_counts(busy, cluster.power_rows())
    at = {float(x): {k: int(v[i]) for k, v in counts.items()} for i, x in enumerate(t)}
    assert at[25.0] == {"computing": 0, "switching": 0, "switched off": 1, "down": 0}  # n-0 off, n-1 idle
    assert at[35.0] == {"computing": 0, "switching": 1, "switched off": 1, "down": 0}  # n-1 shuts down
    assert at[40.0] == {"computing": 0, "switching": 0, "switched off": 2, "down": 0}
    assert at[60.0] == {"computing": 0, "switching": 2, "switched off": 0, "down": 0}  # both boot
    assert at[80.0] == {"computing": 2, "switching": 0, "switched off": 0, "down": 0}
    fig = machine_states(busy, ["n-0", "n-1"], start=0.0, end=105.0, states=cluster.power_rows())
    assert [x.get_text() for x in fig.axes[0].get_legend().get_texts()] == [
        "computing",
        "switching",
        "switched off",
        "idle",
    ]


def test_schedlab_replay_with_idle_shutdown_gives_the_same_joules(tmp_path, capsys):
    """The hand-worked case as a log on a platform file, through ``schedlab replay --idle-shutdown 10``:
    18,250 J over 0-90 s, both nodes booted once, job 3's 20 s wait."""

    from schedlab.experiment.cli import main

    log = tiny_swf(tmp_path / "three.swf", [(1, 0, 10, 3), (2, 5, 20, 2), (3, 60, 10, 5)])
    platform = tmp_path / "powered.toml"
    platform.write_text(
        "[nodes.n]\ncount = 2\ncores = 4\npower = { idle = 100, full = 200, off = 10, "
        "switch_off = { seconds = 5, joules = 600 }, switch_on = { seconds = 20, joules = 3000 } }\n"
    )
    out = tmp_path / "out"
    assert main([*replay_args(log, platform, 3), "--out", str(out), "--idle-shutdown", "10"]) == 0
    capsys.readouterr()
    row = first_row(out)
    assert float(row["energy_j"]) == pytest.approx(18250.0) and float(row["boots"]) == 2.0
    assert float(row["wait"]) == pytest.approx(20.0 / 3)
    pytest.importorskip("matplotlib")
    from schedlab.plots.results import plot_results

    assert (out / "series" / "cell0-rep0-power.csv").read_text().splitlines()[:2] == [
        "node,state,start,end",
        "n-0,switching_off,20.0,25.0",
    ]
    drawn = plot_results(out)
    assert any(p.name == "machine_states.png" for p in drawn)  # computing, switching, switched off, idle
    assert (
        main(
            [
                "replay",
                str(log),
                "--start",
                "0",
                "--length",
                "3",
                "--executor",
                "serial",
                "--out",
                str(tmp_path / "none"),
                "--idle-shutdown",
                "10",
            ]
        )
        != 0
    )  # no platform: nothing to switch off
    assert "idle_shutdown switches a platform's nodes off" in capsys.readouterr().err

"""Energy on a platform whose nodes give their power (issue 25 item 3, first part): a case computed by hand."""

from __future__ import annotations

import pytest
import simpy
from conftest import first_row, replay_args, tiny_swf

from schedlab.model.analysis.energy import energy
from schedlab.model.core.job import Job
from schedlab.model.formats.platform_file import PlatformError, parse_platform
from schedlab.policies.batch import make_policy
from schedlab.policies.placement import FirstFitPlacement
from schedlab.processes.cluster.cluster import cluster_model

#: two nodes of 4 cores, 100 W idle and 200 W with all 4 cores busy (25 W more per busy core)
PLATFORM = parse_platform({"nodes": {"n": {"count": 2, "cores": 4, "power": {"idle": 100, "full": 200}}}})


def test_a_run_computed_by_hand_to_the_joule():
    """Job 1: 3 cores, 0-10 s, on n-0. Job 2: 2 cores, 5-25 s: n-0 has 1 core left, so n-1.
    Job 3: 5 cores, 30-40 s: first fit takes n-0's 4 cores and 1 of n-1's. Span 0-40 s.

    n-0 held 3 x 10 + 4 x 10 = 70 core-seconds: 100 W x 40 s + 25 W x 70 = 5,750 J.
    n-1 held 2 x 20 + 1 x 10 = 50 core-seconds: 4,000 + 25 x 50 = 5,250 J. Total 11,000 J,
    mean power 11,000 / 40 = 275 W, EDP 11,000 x 40 = 440,000 J s. Each job draws its cores'
    full power (200 W / 4 = 50 W a core): job 1 50 x 30 = 1,500 J, job 2 50 x 40 = 2,000 J,
    job 3 50 x 50 = 2,500 J; the other 5,000 J are the idle cores' 25 W each."""
    jobs = [Job(1, 0.0, 10.0, cpus=3), Job(2, 5.0, 20.0, cpus=2), Job(3, 30.0, 10.0, cpus=5)]
    model = cluster_model(simpy.Environment(), jobs, PLATFORM, make_policy("fcfs"), FirstFitPlacement()).run()
    rows = model["cluster"].placement_rows()
    assert sorted((r[0], r[2], r[4], r[5], r[6]) for r in rows) == [
        (1, "n-0", 3, 0.0, 10.0),
        (2, "n-1", 2, 5.0, 25.0),
        (3, "n-0", 4, 30.0, 40.0),
        (3, "n-1", 1, 30.0, 40.0),
    ]
    report = energy(rows, PLATFORM, 0.0, 40.0)
    assert report.per_node == {"n-0": 5750.0, "n-1": 5250.0}
    assert report.total == 11000.0 and report.mean_power == 275.0 and report.edp == 440000.0
    assert report.per_job == {1: 1500.0, 2: 2000.0, 3: 2500.0}


def test_stretches_are_cut_to_the_span_and_a_node_without_power_is_named():
    report = energy([(1, "", "n-0", "n", 4, -10.0, 10.0)], PLATFORM, 0.0, 10.0)
    assert report.per_job == {1: 2000.0} and report.total == 2000.0 + 1000.0  # n-0 full; n-1 idle
    bare = parse_platform({"nodes": {"n": {"cores": 4}}})
    with pytest.raises(ValueError, match=r"node type\(s\) n give no power"):
        energy([], bare, 0.0, 1.0)
    with pytest.raises(PlatformError, match=r"nodes\.n\.power\.full: must be >= idle \(100 W\), got 50"):
        parse_platform({"nodes": {"n": {"cores": 4, "power": {"idle": 100, "full": 50}}}})
    with pytest.raises(PlatformError, match=r"nodes\.n\.power\.idle: is missing"):
        parse_platform({"nodes": {"n": {"cores": 4, "power": {"full": 50}}}})
    with pytest.raises(PlatformError, match=r"nodes\.n\.power\.sleep: unknown key"):
        parse_platform({"nodes": {"n": {"cores": 4, "power": {"idle": 1, "full": 2, "sleep": 0}}}})


def test_schedlab_replay_on_a_platform_with_power_reports_the_same_joules(tmp_path, capsys):
    """The case above as a log on a platform file: the replay's energy metrics, and each job's
    joules in Batsim's jobs.csv (consumed_energy)."""
    import csv

    from schedlab.experiment.cli import main

    log = tiny_swf(tmp_path / "three.swf", [(1, 0, 10, 3), (2, 5, 20, 2), (3, 30, 10, 5)])
    platform = tmp_path / "powered.toml"
    platform.write_text("[nodes.n]\ncount = 2\ncores = 4\npower = { idle = 100, full = 200 }\n")
    out = tmp_path / "out"
    assert main([*replay_args(log, platform, 3), "--out", str(out), "--batsim-jobs"]) == 0
    capsys.readouterr()
    row = first_row(out)
    assert (float(row["energy_j"]), float(row["mean_power_w"]), float(row["edp_js"])) == (11000.0, 275.0, 440000.0)
    with (out / "batsim" / "cell0-rep0-jobs.csv").open() as stream:
        jobs = {r["job_id"]: r for r in csv.DictReader(stream)}
    assert {k: r["consumed_energy"] for k, r in jobs.items()} == {
        "1": "1500.000000",
        "2": "2000.000000",
        "3": "2500.000000",
    }
    assert jobs["3"]["allocated_resources"] == "0-4"  # n-0's cores 0-3 and n-1's first core, id 4


def test_machine_states_per_node_of_the_case_above():
    """n-0 computes over 0-10 and 30-40, n-1 over 5-25 and 30-40 (job 3 on both): 1 node from 0,
    2 from 5, 1 from 10, none from 25, both from 30 to 40."""
    pytest.importorskip("matplotlib")
    from schedlab.plots.machine_states import computing_count, machine_states

    rows = [("n-0", 0.0, 10.0), ("n-1", 5.0, 25.0), ("n-0", 30.0, 40.0), ("n-1", 30.0, 40.0)]
    t, count = computing_count(rows)
    assert list(zip(t, count, strict=True)) == [(0, 1), (5, 2), (10, 1), (25, 0), (30, 2), (40, 0)]
    assert list(computing_count([("n-0", 0.0, 10.0), ("n-0", 5.0, 20.0)])[1]) == [1, 1, 1, 0]  # one node, once
    fig = machine_states(rows, ["n-0", "n-1"], start=0.0, end=40.0)
    assert fig.axes[0].get_ylim() == (0, 2)
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["computing", "idle"]

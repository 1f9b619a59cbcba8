"""What a DVFS run leaves behind: its pstate stretches in series/, drawn in the machine-state chart,
and the one change it refuses (a pstate under a job with a process body)."""

from __future__ import annotations

import csv

import pytest
from test_dvfs import SlowDownAt, platform, run

from schedlab.model.core.job import Job, with_body
from schedlab.policies.batch import make_policy
from schedlab.policies.dvfs import QueueDVFS
from schedlab.processes.machine.machine import PolicyError


def queue_dvfs_case():
    """tests/test_dvfs.py's QueueDVFS hand case: both nodes at pstate 1 over 0-5 s and 12.5-32.5 s;
    job 1 on n-0 over 0-12.5 s, job 2 on both over 12.5-32.5 s."""
    jobs = [Job(1, 0.0, 10.0, cpus=4), Job(2, 5.0, 10.0, cpus=8)]
    return run(jobs, QueueDVFS(make_policy("fcfs"), low=1), platform())


def test_pstate_csv_gives_each_stretch_with_its_speed():
    cluster = queue_dvfs_case()
    assert cluster.pstate_csv().splitlines() == [
        "node,pstate,speed,start,end",
        "n-0,1,0.5,0.0,5.0",
        "n-1,1,0.5,0.0,5.0",
        "n-0,1,0.5,12.5,32.5",
        "n-1,1,0.5,12.5,32.5",
    ]
    # a run whose nodes never leave pstate 0 has no stretch
    assert (
        run([Job(1, 0.0, 10.0, cpus=4)], make_policy("fcfs"), platform()).pstate_csv()
        == "node,pstate,speed,start,end\n"
    )


def test_pstate_counts_split_computing_and_idle_by_pstate():
    """Over 0-5 n-0 computes at pstate 1 and n-1 idles at pstate 1; over 5-12.5 both are at pstate 0;
    from 12.5 both compute at pstate 1."""
    from schedlab.plots.machine_states import pstate_counts

    cluster = queue_dvfs_case()
    busy = [(r[2], r[5], r[6]) for r in cluster.placement_rows()]
    t, counts = pstate_counts(busy, cluster.power_rows(), cluster.pstate_rows())
    computing, idle = counts[1]
    at = {float(x): (int(computing[i]), int(idle[i])) for i, x in enumerate(t)}
    assert at == {0.0: (1, 1), 5.0: (0, 0), 12.5: (2, 0), 32.5: (0, 0)}
    # a node switched off while in pstate 1 is drawn off, not idle at pstate 1
    t, counts = pstate_counts([("a", 0.0, 4.0)], [("b", "off", 2.0, 6.0)], [("a", 1, 0.0, 8.0), ("b", 1, 0.0, 8.0)])
    computing, idle = counts[1]
    assert [(float(x), int(c), int(i)) for x, c, i in zip(t, computing, idle, strict=True)] == [
        (0.0, 1, 1),
        (2.0, 1, 0),
        (4.0, 0, 1),
        (6.0, 0, 2),
        (8.0, 0, 0),
    ]


def test_the_machine_state_chart_draws_pstates_only_where_they_were_used():
    pytest.importorskip("matplotlib")
    from schedlab.plots.machine_states import machine_states

    cluster = queue_dvfs_case()
    busy = [(r[2], r[5], r[6]) for r in cluster.placement_rows()]
    fig = machine_states(
        busy, ["n-0", "n-1"], states=cluster.power_rows(), pstates=cluster.pstate_rows(), speeds={1: 0.5}
    )
    legend = [x.get_text() for x in fig.axes[0].get_legend().get_texts()]
    assert legend == [
        "computing, pstate 0",
        "computing, pstate 1 (speed 0.5)",
        "switching",
        "switched off",
        "idle, pstate 1 (speed 0.5)",
        "idle, pstate 0",
    ]
    plain = machine_states(busy, ["n-0", "n-1"], states=cluster.power_rows())
    legend = [x.get_text() for x in plain.axes[0].get_legend().get_texts()]
    assert legend == ["computing", "switching", "switched off", "idle"]


def test_schedlab_replay_dvfs_saves_pstates_and_plot_draws_them(dvfs_replays):
    """``schedlab replay --dvfs 1`` writes series/cell0-rep0-pstates.csv; ``schedlab plot`` reads it
    for machine_states.png. Without ``--dvfs`` no pstate file is written."""
    tmp_path = dvfs_replays
    with (tmp_path / "dvfs" / "series" / "cell0-rep0-pstates.csv").open() as stream:
        rows = list(csv.DictReader(stream))
    assert [(r["node"], r["pstate"], r["speed"], r["start"], r["end"]) for r in rows] == [
        ("n-0", "1", "0.5", "0.0", "5.0"),
        ("n-1", "1", "0.5", "0.0", "5.0"),
        ("n-0", "1", "0.5", "12.5", "32.5"),
        ("n-1", "1", "0.5", "12.5", "32.5"),
    ]
    assert not list((tmp_path / "fast" / "series").glob("*pstates.csv"))
    pytest.importorskip("matplotlib")
    from schedlab.plots.results import plot_results

    assert any(p.name == "machine_states.png" for p in plot_results(tmp_path / "dvfs"))


def _body(env, alloc):
    """Runs what the machine's accounting has left, as a plain job would."""
    yield env.timeout(alloc.time_left)


def test_a_pstate_change_under_a_process_body_is_refused_in_one_line():
    """A body decides how long it runs, so its work left cannot be rescaled: the change is refused.
    A body started on a slowed node reads its time left at that speed (10 s of work at half speed: 20 s)."""
    job = with_body(Job(1, 0.0, 10.0, cpus=4), _body)
    with pytest.raises(PolicyError) as refused:
        run([job], SlowDownAt(5.0, 1), platform())
    assert str(refused.value) == (
        "cluster 'cluster' at t=5.0: cannot set node 'n-0' to pstate 1: "
        "job 1 runs a process body on it, whose work cannot be rescaled"
    )
    (record,) = run([job], make_policy("fcfs"), platform(start=1)).records
    assert (record.start, record.end) == (0.0, 20.0)

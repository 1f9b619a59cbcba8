"""RLScheduler's loop under ``compat="rlscheduler"``: its order of same-instant events, its scores, its window draw."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import simpy

from schedlab.model.core.job import Job
from schedlab.model.formats.window_draw import legacy_gym_rng, rlscheduler_starts
from schedlab.papers.rlscheduler_published import PUBLISHED_BSLD, best_heuristic
from schedlab.policies.backfilling import Committed
from schedlab.policies.batch import make_policy
from schedlab.policies.scoring import unicep_rlscheduler, wfp3, wfp3_rlscheduler
from schedlab.processes.machine.replay import replay_model

TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces"


def _starts(jobs: list[Job], procs: int, policy, compat: str = "rlscheduler") -> dict[int, float]:
    records = replay_model(simpy.Environment(), jobs, procs, policy, compat=compat).run().records()
    return {r.id: r.start for r in records}


def test_a_job_submitted_as_another_ends_joins_the_queue_before_the_cpus_come_back():
    """4 CPUs. J1 (4 CPUs) runs 0-10; J2 (4 CPUs, asks 100 s) waits. At t=10 J1 ends and
    J3 (4 CPUs, asks 5 s) arrives. RLScheduler takes J3 in first, so SJF commits to J2 (its
    head since t=1), starts it, then picks J3 next: J3 starts at 110. The release first
    (no compat, deciding at each event) would start J2 at 10 as well: the head is the same,
    and what differs is which jobs the next choice sees."""
    jobs = [
        Job(id=1, submit=0, runtime=10, cpus=4),
        Job(id=2, submit=1, runtime=100, cpus=4),
        Job(id=3, submit=10, runtime=5, cpus=4),
    ]
    assert _starts(jobs, 4, make_policy("sjf", "none", "rlscheduler")) == {1: 0, 2: 10, 3: 110}


def test_same_instant_arrivals_to_an_empty_queue_are_taken_one_at_a_time():
    """4 CPUs; J1..J3 all submitted at t=0, 2 CPUs each; J2 and J3 ask less time than J1.
    RLScheduler takes J1 alone and starts it, then J2 alone and starts it; J3 waits for the
    first to end. Deciding once for the whole instant, SJF would have started J2 and J3."""
    jobs = [
        Job(id=1, submit=0, runtime=50, cpus=2),
        Job(id=2, submit=0, runtime=20, cpus=2),
        Job(id=3, submit=0, runtime=30, cpus=2),
    ]
    assert _starts(jobs, 4, make_policy("sjf", "none", "rlscheduler")) == {1: 0, 2: 0, 3: 20}
    batched = replay_model(simpy.Environment(), jobs, 4, make_policy("sjf"), batch_decisions=True).run()
    assert {r.id: r.start for r in batched.records()} == {2: 0, 3: 0, 1: 20}


def test_rlscheduler_wfp3_and_unicep_read_the_unset_scheduled_time():
    """Its code takes the wait as scheduled_time - submit with scheduled_time still -1."""
    job = Job(id=1, submit=100.0, runtime=50.0, cpus=4, estimate=200.0)
    assert wfp3_rlscheduler(job, 1e6) == pytest.approx(-((-101 / 200) ** 3) * 4)
    assert unicep_rlscheduler(job, 1e6) == pytest.approx(-(-101 + 1e-15) / (math.log2(4 + 1e-15) * 200))
    assert wfp3(job, 300.0) != wfp3_rlscheduler(job, 300.0)  # the textbook one reads the clock
    assert Committed("wfp3").reading == "rlscheduler"
    assert "reading='textbook'" in repr(Committed("wfp3", reading="textbook"))
    with pytest.raises(ValueError, match="unknown score reading 'paper'"):
        Committed("wfp3", reading="paper")


def test_the_window_draw_is_gyms_2019_seeding():
    """The published windows: seed 1, 10 windows of 1024 jobs within 10,000 (its README's table)."""
    assert rlscheduler_starts(10000, 1024, 10, 1) == [1981, 2756, 4299, 8850, 3316, 2714, 5228, 7762, 4022, 7085]
    assert rlscheduler_starts(202871, 1024, 10, 1, within=10000) == rlscheduler_starts(10000, 1024, 10, 1)
    assert legacy_gym_rng(0).randint(1000) == legacy_gym_rng(0).randint(1000)
    with pytest.raises(ValueError, match="needs more than 2049 jobs"):
        rlscheduler_starts(2000, 1024, 1, 1)
    with pytest.raises(ValueError, match="seed >= 0"):
        legacy_gym_rng(-1)


def test_best_published_heuristic():
    assert best_heuristic("none", "SDSC-SP2-1998-4.2-cln") == ("f1", 1232.06)
    assert best_heuristic("easy", "lublin_256") == ("sjf", 73.31)
    assert PUBLISHED_BSLD["easy"]["HPC2N-2002-2.2-cln"]["rl"] == 86.14


def _replay_published(policies: tuple[str, ...], traces: tuple[str, ...], tmp_path) -> list[str]:
    import contextlib
    import io

    from schedlab.experiment.cli import main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        main(
            [
                "replay",
                *traces,
                "--compat",
                "rlscheduler",
                "--draw",
                "rlscheduler",
                "--draw-within",
                "10000",
                "--seed",
                "1",
                "--windows",
                "10",
                "--length",
                "1024",
                "--no-native",
                "--executor",
                "serial",
                "--out",
                str(tmp_path / "out"),
                *[a for p in policies for a in ("--policy", p)],
            ]
        )
    lines = buf.getvalue().splitlines()
    first = lines.index(next(x for x in lines if x.startswith("RLScheduler's published")))
    last = lines.index(next(x for x in lines if x.endswith("cells the same")))
    return lines[first : last + 1]


def test_lublin_fcfs_and_sjf_match_the_published_cells(tmp_path):
    """The quick version of the 16-cell check: one log, 4 cells, to 2 decimals."""
    if not (TRACES / "lublin_256.swf.gz").exists():
        pytest.skip("needs ../shared/traces")
    lines = _replay_published(("fcfs", "sjf"), ("lublin_256",), tmp_path)
    print("\n".join(lines))
    assert lines[-1] == "4 of 4 cells the same", "\n".join(lines)


@pytest.mark.slow
def test_all_sixteen_fcfs_sjf_cells_and_the_other_heuristics_match_the_published_table(tmp_path):
    """16 of 16 FCFS/SJF cells; with WFP3, UNICEP and F1, 38 of 40 (the two others: see docs/rl.md)."""
    traces = ("lublin_256", "SDSC-SP2-1998-4.2-cln", "HPC2N-2002-2.2-cln", "lublin_256_new2")
    if not all((TRACES / f"{t}.swf.gz").exists() for t in traces):
        pytest.skip("needs ../shared/traces")
    lines = _replay_published(("fcfs", "sjf", "wfp3", "unicep", "f1"), traces, tmp_path)
    print("\n".join(lines))
    different = [x for x in lines if x.endswith("DIFFERENT")]
    assert all(" fcfs " not in x and " sjf " not in x for x in different), "\n".join(lines)
    assert [x.split()[:3] for x in different] == [
        ["SDSC-SP2-1998-4.2-cln", "wfp3", "none:"],
        ["SDSC-SP2-1998-4.2-cln", "unicep", "none:"],
    ], "\n".join(lines)

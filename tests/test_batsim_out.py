"""Batsim's outputs: jobs.csv a row per run (a requeued job's killed runs as resubmitted jobs),
machine_states.csv and schedule.csv, read back by evalys."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from schedlab.experiment.cli import main
from schedlab.model.formats.batsim import jobs_csv
from schedlab.model.formats.batsim_machine_states import machine_states_csv, machine_timeline
from schedlab.model.formats.batsim_schedule import SCHEDULE_COLUMNS
from schedlab.model.records.job_record import JobRecord, Status
from schedlab.model.records.node_fail import NodeKill

DATA = Path(__file__).resolve().parent / "data"


def record(i, submit, start, end, *, restarts=0, allocation="0"):
    return JobRecord(
        i, "p", "", None, "m", submit, start, end, start - submit, end - start, 10.0, 10.0, 1, 10.0, 1.0, 0, 0, 0.0,
        Status.COMPLETED, restarts, allocation,
    )  # fmt: skip


def rows_of(text):
    return list(csv.DictReader(text.splitlines()))


def test_a_requeued_job_is_written_as_batsim_writes_resubmitted_jobs():
    """Job 1, submitted at 0, runs 2-6 on CPU 0 and is killed there; requeued at once, it
    runs 8-18 on CPU 1. Batsim sees a killed job 1 and a job 1#1 submitted at its kill."""
    kill = NodeKill(6.0, 0, 1, 1, 2.0, 4.0, "requeued", 1)
    allocations = [(1, "0", 2.0, 6.0), (1, "1", 8.0, 18.0)]
    text, left_out = jobs_csv(
        [record(1, 0.0, 8.0, 18.0, restarts=1, allocation="1")],
        kills=[kill],
        allocations=allocations,
        energy={1: 2800.0},
    )
    shown = ("job_id", "final_state", "success", "submission_time", "starting_time", "finish_time")
    shown += ("waiting_time", "allocated_resources", "consumed_energy")
    got = [tuple(r[c] for c in shown) for r in rows_of(text)]
    assert left_out == 0
    assert got == [
        ("1", "COMPLETED_KILLED", "0", "0.000000", "2.000000", "6.000000", "2.000000", "0", "800.000000"),
        # its wait is 8 - 6 (since its resubmission), not 8 - 0; the joules split 4 s : 10 s
        ("1#1", "COMPLETED_SUCCESSFULLY", "1", "6.000000", "8.000000", "18.000000", "2.000000", "1", "2000.000000"),
    ]


def test_a_record_whose_kills_are_missing_is_an_error_naming_the_job():
    with pytest.raises(ValueError, match=r"job 4: its record says 2 restarts, but .* has 0 requeued kills"):
        jobs_csv([record(4, 0.0, 8.0, 18.0, restarts=2)])


def test_machine_states_count_each_state_and_its_seconds():
    """Two nodes from 0 to 10: a computes 0-4; b is off 0-2, boots 2-5, computes 5-8, fails 8-10."""
    timeline = machine_timeline(
        ["a", "b"],
        busy=[("a", 0.0, 4.0), ("b", 5.0, 8.0)],
        power=[("b", "off", 0.0, 2.0), ("b", "switching_on", 2.0, 5.0), ("b", "down", 8.0, float("nan"))],
        start=0.0,
        end=10.0,
    )
    assert machine_states_csv(timeline).splitlines() == [
        "time,nb_sleeping,nb_switching_on,nb_switching_off,nb_idle,nb_computing",
        "0,1,0,0,0,1",
        "2,0,1,0,0,1",
        "4,0,1,0,1,0",
        "5,0,0,0,1,1",
        "8,1,0,0,1,0",  # b down: no column of its own, counted as sleeping
    ]
    # machine-seconds: a computes 4 and idles 6; b sleeps 2, boots 3, computes 3, is down 2
    assert timeline.seconds == {
        "sleeping": 2.0,
        "switching_on": 3.0,
        "switching_off": 0.0,
        "idle": 6.0,
        "computing": 7.0,
        "unavailable": 2.0,
    }


#: two hosts (tests/data/batsim_2hosts.xml, 1 Gflop/s); host0 fails at 15 for 5 s
WORKLOAD = {
    "nb_res": 2,
    "jobs": [
        {"id": 1, "subtime": 0, "res": 1, "profile": "wait30"},
        {"id": 2, "subtime": 0, "res": 1, "profile": "compute"},
        {"id": 3, "subtime": 1, "res": 2, "profile": "both"},
    ],
    "profiles": {
        "wait30": {"type": "delay", "delay": 30},
        "wait5": {"type": "delay", "delay": 5},
        "compute": {"type": "parallel_homogeneous", "cpu": 10e9, "com": 0},
        "both": {"type": "composed", "repeat": 2, "seq": ["wait5", "compute"]},
    },
}


def replay_with_a_failure(tmp_path: Path) -> Path:
    workload, failures = tmp_path / "w.json", tmp_path / "f.failures"
    workload.write_text(json.dumps(WORKLOAD))
    failures.write_text("15 0 5 0\n")  # Alea's format: time, cluster, duration, node
    args = ["replay", str(workload), "--platform", str(DATA / "batsim_2hosts.xml"), "--failures", str(failures)]
    out = tmp_path / "out"
    args += ["--start", "0", "--length", "3", "--backfill", "none", "--executor", "serial"]
    assert main([*args, "--out", str(out), "--batsim-jobs"]) == 0
    return out / "batsim"


def test_a_failure_run_writes_batsim_s_three_files(tmp_path, capsys):
    """FCFS, first fit. Job 1 (30 s) runs on host0 from 0, job 2 (10 s) on host1 0-10; job 3 needs
    both hosts and waits. At 15 host0 fails: job 1 is killed and resubmitted as 1#1, which starts at
    once on host1 and ends at 45. Job 3, 2 x (5 + 10) = 30 s, then runs 45-75 on both hosts."""
    batsim = replay_with_a_failure(tmp_path)
    capsys.readouterr()
    jobs = list(csv.DictReader((batsim / "cell0-rep0-jobs.csv").open()))
    got = [
        (r["job_id"], r["final_state"], r["starting_time"], r["finish_time"], r["allocated_resources"]) for r in jobs
    ]
    assert got == [  # in the records' order: by end, a job's killed runs before its last
        ("2", "COMPLETED_SUCCESSFULLY", "0.000000", "10.000000", "1"),
        ("1", "COMPLETED_KILLED", "0.000000", "15.000000", "0"),
        ("1#1", "COMPLETED_SUCCESSFULLY", "15.000000", "45.000000", "1"),
        ("3", "COMPLETED_SUCCESSFULLY", "45.000000", "75.000000", "0-1"),
    ]
    by_id = {r["job_id"]: r for r in jobs}
    assert by_id["1#1"]["submission_time"] == "15.000000" and by_id["1#1"]["waiting_time"] == "0.000000"
    states = list(csv.DictReader((batsim / "cell0-rep0-machine_states.csv").open()))
    assert {sum(int(v) for k, v in row.items() if k != "time") for row in states} == {2}
    (schedule,) = csv.DictReader((batsim / "cell0-rep0-schedule.csv").open())
    assert tuple(schedule) == SCHEDULE_COLUMNS
    assert (schedule["nb_jobs"], schedule["nb_jobs_success"], schedule["nb_jobs_killed"]) == ("4", "3", "1")
    assert float(schedule["makespan"]) == pytest.approx(75.0)
    assert float(schedule["time_unavailable"]) == pytest.approx(5.0)  # host0 down 15-20


def test_evalys_reads_every_file_and_draws_each_run_apart(tmp_path, capsys):
    """evalys (the `batsim` extra) reads jobs.csv and machine_states.csv and draws its Gantt chart,
    a rectangle per run (the killed run of job 1 and its resubmission apart), and the machine states."""
    evalys_jobset = pytest.importorskip("evalys.jobset", reason="evalys is not installed: pip install schedlab[batsim]")
    import matplotlib

    matplotlib.use("Agg")
    from evalys.mstates import MachineStatesChanges
    from evalys.visu.legacy import plot_gantt, plot_mstates
    from matplotlib.figure import Figure

    batsim = replay_with_a_failure(tmp_path)
    capsys.readouterr()
    jobset = evalys_jobset.JobSet.from_csv(str(batsim / "cell0-rep0-jobs.csv"))
    states = MachineStatesChanges(str(batsim / "cell0-rep0-machine_states.csv"))  # checks columns and totals
    fig = Figure(figsize=(8, 6))
    top, bottom = fig.subplots(2, sharex=True)
    plot_gantt(jobset, ax=top, title="evalys: a job killed by a node failure and resubmitted")
    plot_mstates(states.df, ax=bottom, title="machine states")
    rectangles = [a for a in top.artists + top.patches if type(a).__name__ == "Rectangle"]
    assert len(rectangles) == len(jobset.df) == 4  # one per run, each on contiguous ids
    fig.savefig(tmp_path / "evalys_restarts.png", dpi=80)
    assert (tmp_path / "evalys_restarts.png").stat().st_size > 5_000

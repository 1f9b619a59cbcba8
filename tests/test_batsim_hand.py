"""A Batsim user's inputs unchanged: a JSON workload of all three profile types on a 2-host XML
platform, its makespan and energy worked by hand."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from schedlab.experiment.cli import main

DATA = Path(__file__).resolve().parent / "data"

#: tests/data/batsim_2hosts.xml: host0 and host1, 1 Gflop/s, 100 W idle and 200 W computing at pstate 0
WORKLOAD = {
    "nb_res": 2,
    "jobs": [
        {"id": 1, "subtime": 0, "res": 2, "profile": "compute"},
        {"id": 2, "subtime": 0, "res": 1, "profile": "wait"},
        {"id": 3, "subtime": 5, "res": 1, "profile": "both"},
    ],
    "profiles": {
        "compute": {"type": "parallel_homogeneous", "cpu": 10e9, "com": 0},
        "wait": {"type": "delay", "delay": 20},
        "both": {"type": "composed", "repeat": 2, "seq": ["wait", "compute"]},
    },
}


def replay(tmp_path: Path, platform: Path, workload: dict) -> tuple[dict[str, dict], dict[str, str]]:
    path = tmp_path / "workload.json"
    path.write_text(json.dumps(workload))
    out = tmp_path / "out"
    args = ["replay", str(path), "--platform", str(platform), "--start", "0", "--length", str(len(workload["jobs"]))]
    assert main([*args, "--backfill", "none", "--executor", "serial", "--out", str(out), "--batsim-jobs"]) == 0
    jobs = {r["job_id"]: r for r in csv.DictReader((out / "batsim" / "cell0-rep0-jobs.csv").open())}
    (schedule,) = csv.DictReader((out / "batsim" / "cell0-rep0-schedule.csv").open())
    return jobs, schedule


def test_three_profile_types_on_two_hosts_match_the_hand_computation(tmp_path, capsys):
    jobs, schedule = replay(tmp_path, DATA / "batsim_2hosts.xml", WORKLOAD)
    capsys.readouterr()
    # durations: compute = 10e9 flops / 1e9 flop/s = 10 s; wait = 20 s; both = 2 x (20 + 10) = 60 s
    # FCFS: at 0 job 1 takes both hosts, 0-10; job 2 waits, job 3 arrives at 5 and waits.
    # At 10 job 2 starts on host0 (10-30) and job 3 on host1 (10-70).
    times = {k: (float(r["starting_time"]), float(r["finish_time"])) for k, r in jobs.items()}
    assert times == {"1": (0.0, 10.0), "2": (10.0, 30.0), "3": (10.0, 70.0)}
    assert float(schedule["makespan"]) == pytest.approx(70.0)  # the last finish
    # energy from the first submission (0) to the last finish (70):
    #   host0 computes 0-10 and 10-30 (30 s x 200 W = 6000 J), idles 30-70 (40 s x 100 W = 4000 J): 10000 J
    #   host1 computes 0-10 and 10-70 (70 s x 200 W):                                                14000 J
    assert float(schedule["consumed_joules"]) == pytest.approx(24000.0)
    # each job's joules: its hosts' computing watts while it runs
    #   job 1: 2 hosts x 10 s x 200 W = 4000; job 2: 20 s x 200 W = 4000; job 3: 60 s x 200 W = 12000
    joules = {k: float(r["consumed_energy"]) for k, r in jobs.items()}
    assert joules == pytest.approx({"1": 4000.0, "2": 4000.0, "3": 12000.0})
    # waits 0, 10 and 5 (job 3 from its submission at 5): mean 5
    assert float(schedule["mean_waiting_time"]) == pytest.approx(5.0)
    # machine-seconds: computing 30 (host0) + 70 (host1), idle 40 (host0)
    assert float(schedule["time_computing"]) == pytest.approx(100.0)
    assert float(schedule["time_idle"]) == pytest.approx(40.0)


def test_flops_run_at_the_speed_of_the_host_s_pstate(tmp_path, capsys):
    """Hosts that start in pstate 1 (0.5 Gflop/s, 100:150 W) run 10e9 flops in 20 s, not 10."""
    xml = (DATA / "batsim_2hosts.xml").read_text().replace('speed="1Gf, 0.5Gf"', 'speed="1Gf, 0.5Gf" pstate="1"')
    platform = tmp_path / "slow.xml"
    platform.write_text(xml)
    workload = {
        "nb_res": 2,
        "jobs": [
            {"id": 1, "subtime": 0, "res": 2, "profile": "compute"},
            {"id": 2, "subtime": 0, "res": 1, "profile": "compute"},
        ],
        "profiles": {"compute": {"type": "parallel_homogeneous", "cpu": 10e9}},
    }
    jobs, schedule = replay(tmp_path, platform, workload)
    capsys.readouterr()
    # job 1 on both hosts 0-20 (10e9 / 0.5e9), then job 2 on host0 20-40
    times = {k: (float(r["starting_time"]), float(r["finish_time"])) for k, r in jobs.items()}
    assert times == {"1": (0.0, 20.0), "2": (20.0, 40.0)}
    assert float(schedule["makespan"]) == pytest.approx(40.0)
    # host0 computes 0-40 at 150 W = 6000 J; host1 computes 0-20 (3000 J) and idles 20-40 at 100 W (2000 J)
    assert float(schedule["consumed_joules"]) == pytest.approx(11000.0)

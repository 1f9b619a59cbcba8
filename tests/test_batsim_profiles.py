"""Batsim's profile types as run times: delay, parallel_homogeneous at the hosts' speed, composed sequences."""

from __future__ import annotations

import json

import pytest

from schedlab.model.formats.batsim import BatsimWorkloadError, read_batsim_workload

PROFILES = {
    "wait": {"type": "delay", "delay": 20},
    "compute": {"type": "parallel_homogeneous", "cpu": 10e9, "com": 1e6},  # com: no network, ignored
    "spread": {
        "type": "ParallelTaskHomogeneousProfile",
        "cpu": 8e9,
        "generation_strategy": "DefinedAmountsSpreadUniformly",
    },
    "both": {"type": "composed", "repeat": 2, "seq": ["wait", "compute"]},
    "v5": {"type": "SequentialCompositionProfile", "seq": ["both", "wait"]},
}


def workload(tmp_path, jobs, profiles=PROFILES):
    path = tmp_path / "w.json"
    path.write_text(json.dumps({"nb_res": 4, "jobs": jobs, "profiles": profiles}))
    return path


def job(i, profile, res=1):
    return {"id": i, "subtime": i, "res": res, "profile": profile}


def test_each_profile_type_runs_its_time_at_the_hosts_speed(tmp_path):
    path = workload(tmp_path, [job(1, "wait"), job(2, "compute"), job(3, "spread", 4), job(4, "both"), job(5, "v5")])
    runtimes = {j.id: j.runtime for j in read_batsim_workload(path, flops=1e9).jobs}
    assert runtimes == {
        1: 20.0,  # delay
        2: 10.0,  # 10e9 flops / 1e9 flop/s
        3: 2.0,  # 8e9 flops spread on 4 hosts: 2e9 each
        4: 60.0,  # 2 x (20 + 10)
        5: 80.0,  # 60 + 20
    }


def test_flops_without_a_platform_speed_are_refused(tmp_path):
    path = workload(tmp_path, [job(1, "wait"), job(2, "both")])
    with pytest.raises(
        BatsimWorkloadError, match=r"job 1 \(id 2\): profile 'compute' has type 'parallel_homogeneous': its flops need"
    ):
        read_batsim_workload(path)


@pytest.mark.parametrize(
    ("jobs", "profiles", "message"),
    [
        (
            [job(1, "wait"), job(1, "wait")],
            PROFILES,
            r"w\.json: job 1 \(id 1\): field 'id' repeats the id of job 0 .*, got 1",
        ),
        (
            [job(1, "wait"), {**job(2, "wait"), "id": "1"}],
            PROFILES,
            r"job 1 \(id '1'\): field 'id' repeats the id of job 0",
        ),
        (
            [job(7, "mpi")],
            {"mpi": {"type": "smpi", "trace": "t.txt"}},
            r"w\.json: job 0 \(id 7\): profile 'mpi' has type 'smpi'; schedlab replays delay, DelayProfile",
        ),
        (
            [job(7, "loop")],
            {"loop": {"type": "composed", "seq": ["loop"]}},
            r"job 0 \(id 7\): profile 'loop' contains itself \(loop -> loop\)",
        ),
        (
            [job(7, "c")],
            {"c": {"type": "composed", "seq": ["gone"]}},
            r"job 0 \(id 7\): profile 'c': field 'seq' names no profile of 'profiles': 'gone'",
        ),
        (
            [job(7, "c")],
            {"c": {"type": "composed", "repeat": 0, "seq": ["w"]}, "w": {"type": "delay", "delay": 1}},
            r"profile 'c': field 'repeat' must be a whole number >= 1, got 0",
        ),
        (
            [job(7, "p")],
            {"p": {"type": "parallel_homogeneous", "cpu": -1}},
            r"job 0 \(id 7\): profile 'p': field 'cpu' must be a finite number >= 0, got -1",
        ),
    ],
)
def test_a_bad_profile_or_a_repeated_id_gets_one_line(tmp_path, jobs, profiles, message):
    with pytest.raises(BatsimWorkloadError, match=message) as error:
        read_batsim_workload(workload(tmp_path, jobs, profiles), flops=1e9)
    assert "\n" not in str(error.value)


def test_ids_that_are_names_are_numbered_in_file_order(tmp_path):
    # Batsim's own workloads name their jobs ("seq-1-rep1-ok"); schedlab numbers them 1..n in file order
    jobs = [{**job(0, "wait"), "id": "late", "subtime": 5}, {**job(1, "wait"), "id": "w0!1"}, job(2, "compute")]
    read = read_batsim_workload(workload(tmp_path, jobs), flops=1e9)
    assert read.names == ("late", "w0!1", "2")
    assert [(j.id, j.submit) for j in read.jobs] == [(2, 1.0), (3, 2.0), (1, 5.0)]
    with pytest.raises(BatsimWorkloadError, match=r"job 1 \(id 'a'\): field 'id' repeats the id of job 0"):
        read_batsim_workload(workload(tmp_path, [{**job(0, "wait"), "id": "a"}, {**job(1, "wait"), "id": "a"}]))

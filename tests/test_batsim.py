"""Batsim interop (issue 25 item 6): its workload JSON in, its jobs.csv out, read by evalys."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from schedlab.experiment.cli import main
from schedlab.model.formats.batsim import (
    JOBS_CSV_COLUMNS,
    BatsimWorkloadError,
    jobs_csv,
    read_batsim_workload,
)

#: 4 resources; job 3 reaches its walltime (runs 50, walltime 20); job 5 asks for 8 (never fits)
WORKLOAD = {
    "nb_res": 4,
    "jobs": [
        {"id": 1, "subtime": 0, "res": 2, "walltime": 100, "profile": "short"},
        {"id": "2", "subtime": 5, "res": 4, "walltime": -1, "profile": "short"},
        {"id": 3, "subtime": 6, "res": 1, "walltime": 20, "profile": "long"},
        {"id": 4, "subtime": 7, "res": 3, "profile": "v5"},
        {"id": 5, "subtime": 8, "res": 8, "profile": "short"},
    ],
    "profiles": {
        "short": {"type": "delay", "delay": 10},
        "long": {"type": "delay", "delay": 50},
        "v5": {"type": "DelayProfile", "delay": 5.5},
    },
}


def write(tmp_path: Path, data: object, name: str = "w.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=1))
    return path


def test_a_workload_becomes_jobs(tmp_path):
    workload = read_batsim_workload(write(tmp_path, WORKLOAD))
    assert workload.nb_res == 4
    got = [(j.id, j.submit, j.runtime, j.cpus, j.estimate, j.job_class) for j in workload.jobs]
    assert got == [
        (1, 0.0, 10.0, 2, 100.0, "short"),
        (2, 5.0, 10.0, 4, None, "short"),
        (3, 6.0, 50.0, 1, 20.0, "long"),
        (4, 7.0, 5.5, 3, None, "v5"),
        (5, 8.0, 10.0, 8, None, "short"),
    ]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda w: w["jobs"][1].pop("res"), r"job 1 \(id '2'\): field 'res' is missing"),
        (lambda w: w["jobs"][2].update(res=0), r"job 2 \(id 3\): field 'res' must be a whole number >= 1, got 0"),
        (lambda w: w["jobs"][3].update(profile="gone"), r"job 3 \(id 4\): field 'profile' names no profile"),
        (
            lambda w: w["profiles"].update(short={"type": "smpi", "trace": "traces.txt"}),
            r"job 0 \(id 1\): profile 'short' has type 'smpi'; schedlab replays delay, DelayProfile, parallel",
        ),
        (
            lambda w: w["profiles"].update(long={"type": "delay", "delay": -3}),
            r"job 2 \(id 3\): profile 'long': field 'delay' must be a finite number > 0, got -3",
        ),
        (lambda w: w["jobs"][0].update(walltime="soon"), r"job 0 \(id 1\): field 'walltime' must be a finite number"),
    ],
)
def test_a_bad_workload_gets_one_line_naming_the_job(tmp_path, change, message):
    workload = json.loads(json.dumps(WORKLOAD))
    change(workload)
    with pytest.raises(BatsimWorkloadError, match=message) as error:
        read_batsim_workload(write(tmp_path, workload))
    assert "\n" not in str(error.value) and "w.json" in str(error.value)


def test_a_truncated_workload_names_the_job_it_was_reading(tmp_path):
    text = json.dumps(WORKLOAD, indent=1)
    cut = text[: text.index('"id": 4') + 20]  # cut inside job 4's object
    with pytest.raises(BatsimWorkloadError, match=r"not valid JSON \(truncated\?\) .* in job 3 \(id '4'\)"):
        read_batsim_workload(write(tmp_path, cut))


def test_schedlab_replay_reads_batsim_json_and_writes_batsim_jobs_csv(tmp_path, capsys):
    """FCFS + EASY, kill at walltime, worked by hand. Job 1 runs 0-10 on 0-1, but its walltime
    says 100: job 2 (all 4 CPUs) is the head, with its shadow time at 100. Job 3 (1
    CPU, walltime 20) ends by 26 <= 100: it backfills at 6 on CPU 2 and is killed
    at 26. At 10 job 1 ends; the head's shadow is now job 3's 26, and job 4 (3 CPUs,
    5.5 s) ends by 15.5: it backfills on 0-1 and 3, the lowest free ids (no 3 in a row).
    At 26 job 2 starts on 0-3. Job 5 asks for 8 of 4: rejected."""
    path = write(tmp_path, WORKLOAD)
    out = tmp_path / "out"
    code = main(
        [
            "replay",
            str(path),
            "--start",
            "0",
            "--length",
            "5",
            "--backfill",
            "easy",
            "--executor",
            "serial",
            "--out",
            str(out),
            "--batsim-jobs",
        ]
    )
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "5 jobs (Batsim workload); machine 4 CPUs" in printed
    jobs = out / "batsim" / "cell0-rep0-jobs.csv"
    with jobs.open() as stream:
        header = next(csv.reader(stream))
        stream.seek(0)
        rows = {r["job_id"]: r for r in csv.DictReader(stream)}
    assert tuple(header) == JOBS_CSV_COLUMNS  # Batsim's src/export.cpp order
    assert {
        k: (r["final_state"], r["success"], r["starting_time"], r["finish_time"], r["allocated_resources"])
        for k, r in rows.items()
    } == {
        "1": ("COMPLETED_SUCCESSFULLY", "1", "0.000000", "10.000000", "0-1"),
        "2": ("COMPLETED_SUCCESSFULLY", "1", "26.000000", "36.000000", "0-3"),
        "3": ("COMPLETED_WALLTIME_REACHED", "0", "6.000000", "26.000000", "2"),
        "4": ("COMPLETED_SUCCESSFULLY", "1", "10.000000", "15.500000", "0-1 3"),
        "5": ("REJECTED", "0", "", "", ""),
    }
    assert rows["3"]["profile"] == "long" and rows["4"]["requested_time"] == "5.500000"
    assert rows["2"]["stretch"] == "3.100000"  # (36 - 5) / 10
    assert rows["5"]["requested_number_of_resources"] == "8" and rows["5"]["consumed_energy"] == ""


def test_schedlab_replay_names_the_job_of_a_bad_workload(tmp_path, capsys):
    bad = json.loads(json.dumps(WORKLOAD))
    bad["jobs"][2]["subtime"] = "yesterday"
    code = main(
        [
            "replay",
            str(write(tmp_path, bad)),
            "--start",
            "0",
            "--length",
            "5",
            "--executor",
            "serial",
            "--out",
            str(tmp_path / "out"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert err.splitlines()[0].endswith("job 2 (id 3): field 'subtime' must be a finite number >= 0, got 'yesterday'")


def test_jobs_left_running_are_counted_not_written():
    from schedlab.model.records.job_record import JobRecord, Status

    def record(i, status, start, end):
        return JobRecord(
            i, "", "", None, "m", 0.0, start, end, start, end - start, 5.0, 5.0, 1, 5.0, 1.0, 0, 0, 0.0, status, 0, "0"
        )

    text, left_out = jobs_csv([record(1, Status.COMPLETED, 0.0, 5.0), record(2, Status.RUNNING, 1.0, float("nan"))])
    assert left_out == 1 and text.count("\n") == 2


def test_evalys_reads_our_jobs_csv_and_draws_its_gantt_chart(tmp_path, capsys):
    """A real client: evalys (the `batsim` extra) loads schedlab's jobs.csv of a SDSC-SP2 window and
    draws its Gantt chart over the machine's 128 CPUs."""
    evalys_jobset = pytest.importorskip("evalys.jobset", reason="evalys is not installed: pip install schedlab[batsim]")
    pytest.importorskip("matplotlib")
    root = Path(__file__).resolve().parents[1]
    trace = root.parent / "shared" / "traces" / "SDSC-SP2-1998-4.2-cln.swf.gz"
    if not trace.exists():
        pytest.skip(f"{trace} not present")
    out = tmp_path / "sdsc"
    assert (
        main(
            [
                "replay",
                str(trace),
                "--start",
                "20000",
                "--length",
                "200",
                "--backfill",
                "easy",
                "--executor",
                "serial",
                "--no-native",
                "--out",
                str(out),
                "--batsim-jobs",
            ]
        )
        == 0
    )
    capsys.readouterr()
    jobs = out / "batsim" / "cell0-rep0-jobs.csv"
    jobset = evalys_jobset.JobSet.from_csv(str(jobs))
    frame = jobset.df
    ours = {r["job_id"]: r for r in csv.DictReader(jobs.open())}
    assert len(frame) == len(ours) == 200
    assert jobset.res_bounds[0] >= 0 and jobset.res_bounds[1] <= 127
    # evalys counts each job's CPUs from the interval set: the CPUs it asked for
    assert (frame["proc_alloc"] == frame["requested_number_of_resources"]).all()
    import matplotlib

    matplotlib.use("Agg")
    from evalys.visu.legacy import plot_gantt
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 5))
    ax = fig.subplots()
    plot_gantt(jobset, ax=ax, title="evalys: schedlab's jobs.csv, SDSC-SP2 jobs 20000-20199, FCFS + EASY")
    assert len(ax.patches) + len(ax.artists) >= 200  # a rectangle per job (more where ids are split)
    fig.savefig(tmp_path / "evalys_gantt.png", dpi=90)
    assert (tmp_path / "evalys_gantt.png").stat().st_size > 10_000


# ------------------------------------------------------------------- issue 35: --batsim-jobs is saved with the run
TINY = Path(__file__).parent / "scenarios" / "tiny_policies.py"


def test_batsim_jobs_are_written_while_the_run_still_holds_out(tmp_path, monkeypatch, capsys):
    # issue 35: they were written after the lock was let go, so a second run could replace the folder in between
    from schedlab.experiment import batsim_export
    from schedlab.experiment.out_lock import OutLock, OutLocked

    out = tmp_path / "o"
    held = []
    real = batsim_export.write_batsim_jobs

    def spy(folder):
        try:
            OutLock(out).release()
            held.append(False)  # a second run could have taken out here
        except OutLocked:
            held.append(True)
        return real(folder)

    monkeypatch.setattr(batsim_export, "write_batsim_jobs", spy)
    args = ["run", str(TINY), "--quick", "--reps", "1", "--executor", "serial", "--out", str(out)]
    assert main([*args, "--batsim-jobs"]) == 0, capsys.readouterr()
    assert held == [True]
    cells = len((out / "summary.csv").read_text().splitlines()) - 1
    assert f"wrote Batsim's jobs.csv, schedule.csv for {cells} run(s) in {out / 'batsim'}" in capsys.readouterr().out
    expected = [f"cell{i}-rep0-{kind}.csv" for i in range(cells) for kind in ("jobs", "schedule")]
    assert sorted(p.name for p in (out / "batsim").iterdir()) == sorted(expected)


def test_batsim_jobs_on_a_full_disk_name_the_file_and_leave_no_truncated_one(tmp_path, monkeypatch, capsys):
    import errno
    import os

    out = tmp_path / "o"
    args = ["run", str(TINY), "--quick", "--reps", "1", "--executor", "serial", "--out", str(out)]
    assert main(args) == 0
    capsys.readouterr()
    fdopen, write_text = os.fdopen, Path.write_text

    class Full:  # a disk with 10 bytes left: a jobs.csv written gets its first 10, then ENOSPC
        def __init__(self, fd, mode="r", *a, **k):
            self.file = fdopen(fd, mode, *a, **k)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.file.close()

        def write(self, data):
            if data[:6] not in ("job_id", b"job_id"):  # not a jobs.csv: the journal, the results
                return self.file.write(data)
            self.file.write(data[:10])
            self.file.flush()
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def __getattr__(self, name):
            return getattr(self.file, name)

    def full_text(self, data, *a, **k):  # the same disk, written through Path.write_text
        if not data.startswith("job_id"):
            return write_text(self, data, *a, **k)
        with Full(os.open(self, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), "w") as fh:
            fh.write(data)

    monkeypatch.setattr(os, "fdopen", Full)
    monkeypatch.setattr(Path, "write_text", full_text)
    code = main([*args, "--overwrite", "--batsim-jobs"])
    err = capsys.readouterr().err
    monkeypatch.undo()
    assert code == 2
    assert (
        err.splitlines()[0] == f"error: cannot write {out / 'batsim' / 'cell0-rep0-jobs.csv'}: No space left on device"
    )
    assert not (out / "batsim").exists()  # the save failed whole: the earlier results stay, and nothing half-written
    assert (out / "summary.json").is_file() and not [p for p in tmp_path.iterdir() if p.name.startswith(".o.")]

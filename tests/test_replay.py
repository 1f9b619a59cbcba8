"""Trace replay: hand-worked schedules for FCFS, SJF and EASY, scores, windows, native, the CLI."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import simpy

from schedlab.experiment.cli import main
from schedlab.model.core.job import Job
from schedlab.model.formats.logs import NativeSchedule, evaluate, load_log, pick_windows
from schedlab.policies.batch import make_policy
from schedlab.policies.scoring import f1, unicep, wfp3
from schedlab.processes.machine.replay import replay_model

DATA = Path(__file__).parent / "data"
EXAMPLE = DATA / "easy_example.swf"
TRACES = Path(__file__).resolve().parents[1].parent / "shared" / "traces"
ROOT = Path(__file__).resolve().parents[1]


def starts(policy, compat="none"):
    trace = load_log(str(EXAMPLE), compat)
    env = simpy.Environment()
    model = replay_model(env, trace.jobs, trace.cpus, policy, compat=compat)
    model.run()
    return {r.id: r.start for r in model.records()}


def test_fcfs_is_strict():
    """J2 (8 procs) blocks at t=1 until J1 ends at 10; everyone behind it waits for J2."""
    assert starts(make_policy("fcfs")) == {1: 0, 2: 10, 3: 15, 4: 15, 5: 15}


def test_sjf_by_requested_time():
    """At t=10 SJF starts J2 (req 5), then J5 (req 6) fits beside it; J3 and J4 wait for J2."""
    assert starts(make_policy("sjf")) == {1: 0, 2: 10, 5: 10, 3: 15, 4: 15}


def test_easy_backfills_only_what_cannot_delay_the_head():
    """J3 would delay J2 (3 procs > 2 spare, ends after 10): not backfilled.
    J4 uses only the 2 spare CPUs: backfilled at 3. J5 ends by its request at 10,
    the reservation: backfilled at 4. J2 still starts at its reservation, 10."""
    assert starts(make_policy("fcfs", "easy")) == {1: 0, 2: 10, 3: 15, 4: 3, 5: 4}


def test_rlscheduler_backfilling_is_strict_and_uses_no_spare_processors():
    """RLScheduler's variant: J5 ends exactly at the reservation (not strictly before) and
    J4 would need spare CPUs, so nothing is backfilled here."""
    assert starts(make_policy("fcfs", "easy", "rlscheduler"), "rlscheduler") == {1: 0, 2: 10, 3: 15, 4: 15, 5: 15}


def test_scores_match_their_formulas():
    job = Job(id=1, submit=100.0, runtime=50.0, cpus=4, estimate=200.0)
    assert f1(job, 0) == pytest.approx(math.log10(200) * 4 + 870 * math.log10(100))
    assert wfp3(job, 300.0) == pytest.approx(-((200 / 200) ** 3) * 4)
    assert unicep(job, 300.0) == pytest.approx(-200 / (2 * 200))
    one = Job(id=2, submit=0.0, runtime=5.0, cpus=1)
    assert math.isfinite(f1(one, 0.0))  # log10(0) read as log10(0.1)
    assert unicep(one, 10.0) < -1e5  # a waiting 1-CPU job is the most urgent


def test_windows_explicit_and_drawn():
    assert pick_windows(100, 10, starts=[0, 90]) == [0, 90]
    with pytest.raises(ValueError, match=r"out of range: a window of 10 jobs starts in 0..90"):
        pick_windows(100, 10, starts=[91])
    drawn = pick_windows(100, 10, count=5, seed=3)
    assert drawn == pick_windows(100, 10, count=5, seed=3) and len(set(drawn)) == 5
    assert drawn != pick_windows(100, 10, count=5, seed=4)


def test_native_schedule_uses_recorded_waits():
    jobs = [Job(id=1, submit=0.0, runtime=10.0, cpus=2), Job(id=2, submit=5.0, runtime=10.0, cpus=2)]
    native = NativeSchedule(jobs, [0.0, 15.0])
    metrics = evaluate(native.all_records(), cpus=4)
    assert metrics["wait"] == 7.5
    assert metrics["bounded_slowdown"] == pytest.approx((1.0 + 25 / 10) / 2)
    assert metrics["utilization"] == pytest.approx(40 / (4 * 30))


@pytest.mark.skipif(not (TRACES / "NASA-iPSC-1993-3.1-cln.swf.gz").exists(), reason="traces not present")
def test_nasa_replay_under_fcfs_waits_only_where_the_log_itself_overflows():
    """NASA's submit times are its real start times, so FCFS replays the log as it ran.

    Measured: the cleaned log is not quite feasible on its 128 CPUs — at 18 event
    instants the jobs it records as running hold more (up to 176). Only jobs arriving
    into such an overflow wait (11 of 18 066); on a machine wide enough for the log's
    peak nothing waits and the mean bounded slowdown is exactly 1.
    """
    trace = load_log(str(TRACES / "NASA-iPSC-1993-3.1-cln.swf.gz"))
    assert trace.cpus == 128 and len(trace.jobs) == 18239 - 173
    events = sorted([(j.submit, j.cpus) for j in trace.jobs] + [(j.submit + j.runtime, -j.cpus) for j in trace.jobs])
    busy, peak = 0, 0
    for _, delta in events:
        busy += delta
        peak = max(peak, busy)
    assert peak == 176

    on_128 = replay_model(simpy.Environment(), trace.jobs, 128, make_policy("fcfs")).run().records()
    waited = [r for r in on_128 if r.wait > 0]
    assert len(waited) == 11
    assert evaluate(on_128, 128)["bounded_slowdown"] == pytest.approx(1.026, abs=1e-3)

    wide = replay_model(simpy.Environment(), trace.jobs, peak, make_policy("fcfs")).run().records()
    result = evaluate(wide, peak)
    assert result["bounded_slowdown"] == 1.0 and result["wait"] == 0.0


def test_cli_replay_writes_the_summary_contract(tmp_path, capsys):
    code = main(
        [
            "replay",
            str(EXAMPLE),
            "--policy",
            "fcfs",
            "--policy",
            "sjf",
            "--backfill",
            "none",
            "--backfill",
            "easy",
            "--start",
            "0",
            "--length",
            "5",
            "--executor",
            "serial",
            "--out",
            str(tmp_path),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    summary = json.loads((tmp_path / "summary.json").read_text())
    rows = {(r["policy"], r["backfill"]): r for r in summary["rows"]}
    assert set(rows) == {("fcfs", "none"), ("fcfs", "easy"), ("sjf", "none"), ("sjf", "easy")}
    for row in rows.values():
        assert row["windows"] == 1 and row["jobs"] == 5
        assert {"bounded_slowdown", "wait", "response", "utilization"} <= set(row)
    # FCFS waits: J2 9, J3 13, J4 12, J5 11 -> mean 9; EASY: J2 9, J3 13 -> mean 4.4
    assert rows[("fcfs", "none")]["wait"] == pytest.approx(9.0)
    assert rows[("fcfs", "easy")]["wait"] == pytest.approx(4.4)
    assert (tmp_path / "records.parquet").exists()


def test_cli_replay_bad_window_is_one_line(capsys):
    assert main(["replay", str(EXAMPLE), "--start", "3", "--length", "5", "--executor", "serial"]) == 2
    err = capsys.readouterr().err
    assert "out of range" in err and "Traceback" not in err


def test_a_window_longer_than_the_log_is_refused_before_any_replication(tmp_path, monkeypatch, capsys):
    """A log given by path runs from any folder (no ../shared/traces needed); too long a window stops at once."""
    monkeypatch.chdir(tmp_path)  # a folder with no ../shared/traces beside it
    out = tmp_path / "out"
    assert main(["replay", str(EXAMPLE), "--length", "6", "--executor", "serial", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"log '{EXAMPLE}': window length 6 is longer than the log's 5 jobs" in err
    assert "replication" not in err and not (out / "replications.csv").exists()
    assert main(["replay", str(EXAMPLE), "--length", "5", "--executor", "serial", "--out", str(out)]) == 0


# --------------------------------------------------------------------------- issue 17, items 4 and 5
def _with_memory(tmp_path: Path) -> Path:
    """The hand-made example with a memory request (field 10) on every second job, as HPC2N has."""
    lines = []
    for i, line in enumerate(EXAMPLE.read_text().splitlines()):
        if line.startswith(";") or not line.strip() or i % 2:
            lines.append(line)
            continue
        fields = line.split()
        fields[9] = "1024"
        lines.append(" ".join(fields))
    path = tmp_path / "memory.swf"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_window_replays_every_job_even_those_that_request_memory(tmp_path):
    trace = load_log(str(_with_memory(tmp_path)), "rlscheduler")
    assert "request memory; the replay machine models CPUs only" in trace.report
    records = replay_model(simpy.Environment(), trace.jobs, trace.cpus, make_policy("fcfs")).run().records()
    assert evaluate(records, trace.cpus)["jobs"] == len(trace.jobs) == 5


def test_jobs_left_out_of_a_window_are_named_per_reason():
    import pandas as pd

    from schedlab.experiment.cli import left_out

    records = pd.DataFrame(
        {
            "log": "t",
            "policy": "fcfs",
            "backfill": "none",
            "id": [1, 2, 3],
            "status": ["completed", "rejected", "rejected"],
        }
    )
    [line] = left_out(records, 3)
    assert line == (
        "left out of the metrics, t fcfs none: 2 of 3 jobs in windows of 3: "
        "2 never fits the machine (wider than it, or a resource it lacks) (jobs 2, 3)"
    )


def test_the_run_seed_draws_the_windows_unless_window_seed_is_set():
    from schedlab.experiment import run

    def starts(**kw):
        over = {
            "logs": (str(TRACES / "lublin_256.swf.gz"),),
            "backfills": ("none",),
            "native": False,
            "length": 16,
            "windows": 3,
            **kw.pop("over", {}),
        }
        results = run(ROOT / "scenarios" / "log_replay.py", overrides=over, executor="serial", **kw)
        return results.records.groupby("rep")["id"].min().tolist()

    if not (TRACES / "lublin_256.swf.gz").exists():
        pytest.skip("needs ../shared/traces")
    assert starts(seed=0) != starts(seed=1)
    assert starts(seed=0, over={"window_seed": 5}) == starts(seed=1, over={"window_seed": 5})


def _rlscheduler_sjf(jobs: list[Job], procs: int) -> dict[int, float]:
    """An independent reading of RLScheduler's test loop (SJF, no backfilling): each job's start.

    Its SJF key is ``(request_time, submit_time)`` under a stable sort of the queue (log
    order last); the chosen job is committed to until it fits; while it waits, arrivals up
    to the next release join the queue one at a time; an empty queue takes one arrival.
    """
    free, t, queue, nxt, running, start = procs, jobs[0].submit, [jobs[0]], 1, [], {}
    while True:
        queue.sort(key=lambda j: (j.requested_time, j.submit))
        job = queue[0]
        while free < job.cpus:
            running.sort(key=lambda r: r[0])
            if nxt < len(jobs) and jobs[nxt].submit <= running[0][0]:
                t, nxt = max(t, jobs[nxt].submit), nxt + 1
                queue.append(jobs[nxt - 1])
            else:
                t, free = max(t, running[0][0]), free + running.pop(0)[1]
        start[job.id], free = t, free - job.cpus
        running.append((t + job.runtime, job.cpus))
        queue.remove(job)
        if queue:
            continue
        if nxt >= len(jobs):
            return start
        while True:
            running.sort(key=lambda r: r[0])
            if not running or jobs[nxt].submit <= running[0][0]:
                t, nxt = max(t, jobs[nxt].submit), nxt + 1
                queue.append(jobs[nxt - 1])
                break
            t, free = max(t, running[0][0]), free + running.pop(0)[1]


def test_rlscheduler_sjf_without_backfilling_matches_an_independent_reading_of_its_loop():
    path = TRACES / "SDSC-SP2-1998-4.2-cln.swf.gz"
    if not path.exists():
        pytest.skip("needs ../shared/traces")
    trace = load_log(str(path), "rlscheduler")
    for lo in pick_windows(len(trace.jobs), 1024, count=2, seed=3):
        window = list(trace.jobs[lo : lo + 1024])
        policy = make_policy("sjf", "none", "rlscheduler")
        records = replay_model(simpy.Environment(), window, trace.cpus, policy, compat="rlscheduler").run().records()
        assert {r.id: r.start for r in records} == _rlscheduler_sjf(window, trace.cpus)


def _heapq_easy():
    import importlib.util

    spec = importlib.util.spec_from_file_location("_heapq_replay", ROOT / "benchmarks" / "_heapq_replay.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.replay


@pytest.mark.parametrize(
    ("trace", "lo", "hi", "killed"),
    [("SDSC-SP2-1998-4.2-cln.swf.gz", 20000, 23000, 204), ("UniLu-Gaia-2014-1.swf.gz", 20000, 23000, None)],
)
@pytest.mark.parametrize("walltime", ["run-on", "kill"])
def test_easy_gives_the_heapq_references_schedule_job_for_job(trace, lo, hi, killed, walltime):
    """``benchmarks/_heapq_replay.py``, FCFS + EASY written without schedlab, starts every job when schedlab does.

    Under ``walltime="kill"`` (the replay default) a job over its requested time ends
    there, in both. ``benchmarks/replay.py`` checks the whole logs the same way.
    """
    path = TRACES / trace
    if not path.exists():
        pytest.skip(f"{path} not present")
    loaded = load_log(str(path))
    window = loaded.jobs[lo:hi]
    records = (
        replay_model(simpy.Environment(), window, loaded.cpus, make_policy("fcfs", "easy"), walltime=walltime)
        .run()
        .records()
    )
    mine = {r.id: r.start for r in records}
    tuples = [(j.id, j.submit, j.runtime, j.cpus, j.requested_time) for j in window]
    assert [mine[j[0]] for j in tuples] == _heapq_easy()(tuples, loaded.cpus, kill=walltime == "kill")
    if walltime == "kill" and killed is not None:
        assert sum(r.status.value == "timeout" for r in records) == killed


def test_cli_replay_of_a_log_without_maxprocs_asks_for_procs_and_takes_them(tmp_path, capsys):
    """A log whose header gives no machine size: one line naming ``--cpus``; with it (or SWF's ``--procs``), it runs."""
    log = ROOT / "tests" / "data" / "swf" / "no_maxprocs.swf"
    common = ["replay", str(log), "--start", "0", "--length", "2", "--no-native", "--executor", "serial"]
    assert main([*common, "--out", str(tmp_path / "a")]) == 2
    err = capsys.readouterr().err
    assert "the header gives no MaxProcs" in err and "--cpus N" in err and "Traceback" not in err
    assert main([*common, "--procs", "128", "--out", str(tmp_path / "b")]) == 0
    out = capsys.readouterr().out
    assert "machine 128 CPUs" in out
    assert json.loads((tmp_path / "b" / "summary.json").read_text())["config"]["cpus"] == 128

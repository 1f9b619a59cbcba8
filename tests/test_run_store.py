"""Runs you can stop and resume: progress with every executor, --out checked first, atomic saving,
a journal of finished tasks, --resume, Ctrl-C and a killed parent (issue 17, items 6-10 and 14)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from schedlab.experiment import run
from schedlab.experiment.cli import main
from schedlab.experiment.out_lock import LOCK
from schedlab.experiment.store import JOURNAL, OutError

HERE = Path(__file__).parent
TINY = HERE / "scenarios" / "tiny_policies.py"
GATED = HERE / "scenarios" / "gated.py"


def _rows(out: Path) -> list[dict]:
    return json.loads((out / "summary.json").read_text())["rows"]


# --------------------------------------------------------------------------- item 6: progress and on_result
@pytest.mark.parametrize("executor", ["serial", "process"])
def test_on_result_is_called_once_per_task_with_every_executor(executor):
    seen = []
    results = run(TINY, quick=True, reps=2, executor=executor, workers=2, on_result=seen.append, progress=False)
    assert sorted((r.cell_index, r.rep) for r in seen) == [(c, r) for c in range(3) for r in range(2)]
    assert len(results.replications) == 6


@pytest.mark.slow
def test_on_result_is_called_with_dask():
    pytest.importorskip("dask.distributed")
    seen = []
    run(TINY, quick=True, reps=2, executor="dask", workers=1, on_result=seen.append, progress=False)
    assert len(seen) == 6


# --------------------------------------------------------------------------- item 9: --out checked first
def test_out_that_is_a_file_or_cannot_be_made_fails_before_any_work(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("x")
    calls = []
    with pytest.raises(OutError, match="exists and is not a folder"):
        run(TINY, quick=True, executor="serial", out=afile, on_result=calls.append)
    with pytest.raises(OutError, match="cannot be written"):
        run(TINY, quick=True, executor="serial", out=afile / "below", on_result=calls.append)
    assert calls == []  # refused before the first replication


# --------------------------------------------------------------------------- item 8: atomic, owned, no symlinks
def test_rerun_into_out_is_refused_without_overwrite_and_replaces_everything_with_it(tmp_path):
    out = tmp_path / "o"
    run(TINY, quick=True, reps=2, executor="serial", out=out)
    assert (out / "records.parquet").exists()
    with pytest.raises(OutError, match="add --overwrite"):
        run(TINY, quick=True, reps=2, executor="serial", out=out)
    run(TINY, quick=True, reps=2, executor="serial", out=out, overwrite=True, keep_records=False)
    assert not (out / "records.parquet").exists()  # --no-records leaves no old records behind
    assert json.loads((out / "manifest.json").read_text())["files"] == [
        "summary.json",
        "summary.csv",
        "replications.csv",
    ]
    assert not (out / JOURNAL).exists()  # a finished run needs no journal


def test_a_save_that_dies_midway_leaves_the_earlier_results_whole(tmp_path, monkeypatch):
    from schedlab.experiment.results import Results

    out = tmp_path / "o"
    run(TINY, quick=True, reps=2, seed=5, executor="serial", out=out)
    before = _results_files(out)
    write = Results._write

    def dies_after_the_summary(self, folder):
        write(self, folder)
        raise KeyboardInterrupt  # killed after writing the new summary.json, before the swap

    monkeypatch.setattr(Results, "_write", dies_after_the_summary)
    with pytest.raises(KeyboardInterrupt):
        run(TINY, quick=True, reps=3, seed=0, executor="serial", out=out, overwrite=True)
    assert _results_files(out) == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".o.")]  # no half-written folder left


def _results_files(out: Path) -> dict[str, bytes]:
    """The results in ``out`` (not the lock file, whose owner token names the latest run that held it)."""
    return {p.name: p.read_bytes() for p in out.iterdir() if p.is_file() and p.name != LOCK}


def test_a_folder_of_other_files_is_never_overwritten(tmp_path):
    (tmp_path / "thesis.tex").write_text("mine")
    with pytest.raises(OutError, match="did not write"):
        run(TINY, quick=True, executor="serial", out=tmp_path, overwrite=True)
    assert (tmp_path / "thesis.tex").read_text() == "mine"


def test_a_symlink_inside_out_is_replaced_not_followed(tmp_path):
    out, elsewhere = tmp_path / "o", tmp_path / "elsewhere.json"
    elsewhere.write_text("keep me")
    run(TINY, quick=True, reps=2, executor="serial", out=out)
    (out / "summary.json").unlink()
    (out / "summary.json").symlink_to(elsewhere)
    run(TINY, quick=True, reps=2, executor="serial", out=out, overwrite=True)
    assert elsewhere.read_text() == "keep me"
    assert not (out / "summary.json").is_symlink()


def test_cli_refuses_a_used_out_and_says_how(tmp_path, capsys):
    args = ["run", str(TINY), "--quick", "--reps", "2", "--executor", "serial", "--out", str(tmp_path / "o")]
    assert main(args) == 0
    assert main(args) == 2
    assert "add --overwrite" in capsys.readouterr().err
    assert main([*args, "--overwrite", "--no-records"]) == 0
    assert "records" not in capsys.readouterr().out.splitlines()[-1]


# --------------------------------------------------------------------------- item 10: journal and resume
def test_each_finished_task_is_journaled_and_resume_skips_it(tmp_path):
    out = tmp_path / "o"
    full = run(TINY, quick=True, reps=3, executor="serial", out=tmp_path / "full")

    class Stop(Exception):
        pass

    def stop_after_four(result):
        if len(seen) == 3:
            raise Stop
        seen.append(result)

    seen: list = []
    with pytest.raises(Stop):
        run(TINY, quick=True, reps=3, executor="serial", out=out, on_result=stop_after_four)
    assert len(list((out / JOURNAL).glob("task-*.pkl"))) == 4
    ran = []
    resumed = run(TINY, quick=True, reps=3, executor="serial", out=out, resume=True, on_result=ran.append)
    assert len(ran) == 9 - 4 and resumed.run_info["resumed_tasks"] == 4
    assert resumed.summary() == full.summary()
    assert resumed.records.equals(full.records)


def test_resume_of_another_run_is_refused(tmp_path):
    out = tmp_path / "o"
    with pytest.raises(KeyboardInterrupt):
        run(TINY, quick=True, reps=2, executor="serial", out=out, on_result=_interrupt)
    with pytest.raises(OutError, match="differs in seed"):
        run(TINY, quick=True, reps=2, seed=1, executor="serial", out=out, resume=True)
    with pytest.raises(OutError, match="differs in config"):
        run(TINY, quick=True, reps=2, executor="serial", out=out, resume=True, overrides={"cpus": 9})
    with pytest.raises(OutError, match="no unfinished run"):
        run(TINY, quick=True, executor="serial", out=tmp_path / "new", resume=True)


def _interrupt(result):
    raise KeyboardInterrupt


def _start(args: list[str], signals: Path, block: str, new_group: bool = False) -> subprocess.Popen:
    env = {**os.environ, "SCHEDLAB_TEST_SIGNALS": str(signals), "SCHEDLAB_TEST_BLOCK": block}
    return subprocess.Popen(
        [sys.executable, str(GATED), *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=new_group,  # its own process group, to signal as a terminal does
    )


def _wait_for(path: Path, proc: subprocess.Popen, limit: float = 120) -> None:
    """Poll until ``path`` appears (a guard against a hang, not a timing assertion)."""
    end = time.monotonic() + limit
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < end, f"{path.name} never appeared"
        time.sleep(0.05)


def _gone(pid: int, limit: float = 30) -> bool:
    end = time.monotonic() + limit
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize("executor", ["serial", pytest.param("dask", marks=pytest.mark.slow)])
def test_a_run_killed_midway_resumes_to_the_same_summary(tmp_path, executor):
    if executor == "dask":
        pytest.importorskip("dask.distributed")
    signals = tmp_path / "signals"
    signals.mkdir()
    common = ["--executor", executor, "--workers", "1", "--seed", "3"]
    full = _start([*common, "--out", str(tmp_path / "full")], tmp_path, block="")
    assert full.wait(timeout=300) == 0, full.communicate()
    out = tmp_path / "o"
    killed = _start([*common, "--out", str(out)], signals, block="3")  # replication 3 never ends
    _wait_for(signals / "started-0-3", killed)
    _wait_for(out / JOURNAL / "task-0-0.pkl", killed)  # a Dask result may reach the client after the next start
    killed.kill()  # SIGKILL: no chance to clean up
    killed.wait(timeout=60)
    done = sorted(p.name for p in (out / JOURNAL).glob("task-*.pkl"))
    assert "task-0-0.pkl" in done and "task-0-3.pkl" not in done
    resumed = _start([*common, "--out", str(out), "--resume"], signals, block="")
    stdout, stderr = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, stderr
    assert f"resumed: {len(done)} replication(s)" in stdout
    assert _rows(out) == _rows(tmp_path / "full")


# --------------------------------------------------------------------------- item 7: Ctrl-C, killed parent
def _worker_pids(signals: Path) -> list[int]:
    return [int(p.read_text()) for p in signals.glob("started-*") if p.read_text()]


def test_ctrl_c_stops_a_pool_run_without_waiting_for_its_tasks(tmp_path):
    signals = tmp_path / "signals"
    signals.mkdir()
    proc = _start(["--executor", "process", "--workers", "2", "--out", str(tmp_path / "o")], signals, block="all")
    _wait_for(signals / "started-0-0", proc)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)  # the tasks never end: only cancelling them lets the run exit
    assert proc.returncode == 130 and "interrupted" in stderr
    assert all(_gone(pid) for pid in _worker_pids(signals))


def test_ctrl_c_on_a_pool_run_of_short_tasks_ends_in_one_line(tmp_path):
    """Ctrl-C at a terminal signals the whole process group, workers too, while results flow back
    (issue 35: 2 of 3 tries printed a 12-line InvalidStateError traceback after `interrupted`)."""
    for attempt in range(2):
        signals = tmp_path / f"signals{attempt}"
        signals.mkdir()
        args = ["--executor", "process", "--workers", "2", "--reps", "5000", "--no-records"]
        proc = _start([*args, "--out", str(tmp_path / f"o{attempt}")], signals, block="", new_group=True)
        _wait_for(signals / "started-0-20", proc)
        os.killpg(proc.pid, signal.SIGINT)
        _, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 130 and stderr == "interrupted\n"


def test_a_worker_lost_as_a_pool_run_is_interrupted_leaves_no_thread_traceback(tmp_path, monkeypatch):
    """The pool's own thread must find no future cancelled behind its back when a worker dies
    (Python 3.11 raised InvalidStateError there: concurrent.futures' terminate_broken)."""
    import threading
    from concurrent.futures.process import BrokenProcessPool

    from schedlab.experiment.executors import open_executor, pooled
    from schedlab.experiment.runner import RunSettings, run_task, sweep_cells

    signals = tmp_path / "signals"
    signals.mkdir()
    monkeypatch.setenv("SCHEDLAB_TEST_SIGNALS", str(signals))
    monkeypatch.setenv("SCHEDLAB_TEST_BLOCK", "1")  # replication 1 holds the only worker
    settings = RunSettings.make(GATED, reps=4, keep_records=False)
    tasks = settings.tasks(sweep_cells(settings.scenario, settings.cfg, settings.sweep))
    errors: list = []
    monkeypatch.setattr(threading, "excepthook", errors.append)
    with pytest.raises(KeyboardInterrupt), open_executor("process", 1, None) as pool:
        results = pooled(pool, run_task, tasks, window=8, cancel=False)  # as the runner takes its own pool's results
        next(results)  # cell 0, replication 0
        while not (signals / "started-0-1").exists():
            time.sleep(0.05)
        results.close()  # a Ctrl-C in the loop: what has not started is given up
        os.kill(int((signals / "started-0-1").read_text()), signal.SIGKILL)  # and the worker is lost
        end = time.monotonic() + 60
        while time.monotonic() < end:  # until the pool has seen its worker die
            try:
                pool.submit(abs, 1)
            except BrokenProcessPool:
                break
            time.sleep(0.05)
        for thread in threading.enumerate():  # and its thread has marked the futures it held
            if thread is not threading.current_thread() and type(thread).__module__ == "concurrent.futures.process":
                thread.join(timeout=60)
        raise KeyboardInterrupt
    assert [e.exc_type.__name__ for e in errors] == []


def test_a_killed_parent_leaves_no_pool_workers(tmp_path):
    signals = tmp_path / "signals"
    signals.mkdir()
    proc = _start(["--executor", "process", "--workers", "2", "--out", str(tmp_path / "o")], signals, block="all")
    _wait_for(signals / "started-0-0", proc)
    pids = _worker_pids(signals)
    proc.kill()
    proc.wait(timeout=60)
    assert pids and all(_gone(pid) for pid in pids)


# --------------------------------------------------------------------------- item 14: --scheduler
def test_scheduler_without_dask_is_warned_about(tmp_path, capsys):
    args = [
        "run",
        str(TINY),
        "--quick",
        "--reps",
        "2",
        "--executor",
        "serial",
        "--scheduler",
        "tcp://x:8786",
        "--out",
        str(tmp_path / "o"),
    ]
    assert main(args) == 0
    assert "--scheduler tcp://x:8786 is ignored" in capsys.readouterr().err


def test_scheduler_help_says_results_are_unpickled(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "unpickled" in text and "trust" in text and "distributed.comm.tls" in text


# --------------------------------------------------------------------------- item 3: a run's own curves
def test_a_report_reads_only_this_runs_curves(tmp_path):
    import pandas as pd

    from schedlab.experiment.scenario import load_scenario

    scenario = load_scenario(HERE.parent / "scenarios" / "collectives.py")
    small = {"runs": 4, "warmup": 2, "steps": 20, "servers": 8, "algorithms": "rand,wlu"}
    run(
        scenario,
        overrides=small,
        reps=1,
        seed=7,
        quick=True,
        executor="serial",
        keep_records=False,
        out=tmp_path / "earlier",
    )
    results = run(
        scenario, overrides=small, reps=2, quick=True, executor="serial", keep_records=False, out=tmp_path / "this"
    )
    saved = sorted(p.name for p in (tmp_path / "this" / "series").glob("*.csv"))
    assert len(saved) == len(results.replications)  # one curve per (cell, replication), from the runner
    scenario.module.report(results, tmp_path / "this")
    curves = pd.read_csv(tmp_path / "this" / "curves.csv")
    assert (curves["networks"] == 2).all()  # both of this run's replications, and nothing of the earlier run


def test_a_remote_scheduler_gets_dasks_tls_settings(monkeypatch, tmp_path):
    dask = pytest.importorskip("dask")
    distributed = pytest.importorskip("dask.distributed")
    from schedlab.experiment.runner import _executor

    seen = {}

    class FakeClient:  # stands for a scheduler reached over TLS: what schedlab hands it is what matters
        def __init__(self, address, security=None):
            seen.update(address=address, security=security)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def get_executor(self):
            return "executor"

    monkeypatch.setattr(distributed, "Client", FakeClient)
    ca = tmp_path / "ca.pem"
    with (
        dask.config.set({"distributed.comm.tls.ca-file": str(ca)}),
        _executor("dask", None, "tls://scheduler:8786") as pool,
    ):
        assert pool == "executor"
    assert seen["address"] == "tls://scheduler:8786"
    assert seen["security"].tls_ca_file == str(ca)  # read from Dask's own config

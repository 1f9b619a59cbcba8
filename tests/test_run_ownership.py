"""Runs that never mix, lose or hide results (issue 23, item 6): a run owns its --out, every journal
entry names its run, the work estimate comes before anything scales with the replications, and the
save is checked where it will happen and leaves nothing hidden behind."""

from __future__ import annotations

import errno
import os
import pickle
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from schedlab.experiment import ExperimentError, run
from schedlab.experiment import store as store_module
from schedlab.experiment.cli import main
from schedlab.experiment.out_lock import LOCK, OutLock
from schedlab.experiment.results import Results
from schedlab.experiment.run_settings import REPLICATION_WORK_LIMIT, RunSettings, check_work, estimate_work
from schedlab.experiment.runner import WORK_LIMIT
from schedlab.experiment.seeding import replication_seed
from schedlab.experiment.store import JOURNAL, OutError, is_mount_point

HERE = Path(__file__).parent
TINY = HERE / "scenarios" / "tiny_policies.py"
GATED = HERE / "scenarios" / "gated.py"
SCENARIOS = HERE.parent / "scenarios"


def _siblings(out: Path) -> list[str]:
    """Hidden folders a save left beside ``out``."""
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}."))


# --------------------------------------------------------------------------- one run owns its --out
def test_a_second_run_on_a_held_out_is_refused_in_one_line_before_any_work(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    ran = []
    with OutLock(out, settings="another run's") as held:
        for flags in ({}, {"overwrite": True}, {"resume": True}):
            with pytest.raises(OutError, match=rf"--out {out} is in use by run {held.run_id} \(pid {os.getpid()}"):
                run(TINY, quick=True, reps=2, executor="serial", out=out, on_result=ran.append, **flags)
    assert ran == []  # refused before the first task
    run(TINY, quick=True, reps=2, executor="serial", out=out, overwrite=True)  # free again once released
    assert (out / "summary.json").exists()


def test_a_live_run_in_another_process_keeps_overwrite_out_until_it_ends(tmp_path):
    signals = tmp_path / "signals"
    signals.mkdir()
    out = tmp_path / "o"
    env = {**os.environ, "SCHEDLAB_TEST_SIGNALS": str(signals), "SCHEDLAB_TEST_BLOCK": "1"}
    first = subprocess.Popen(
        [sys.executable, str(GATED), "--executor", "serial", "--out", str(out)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        end = time.monotonic() + 120
        while not (signals / "started-0-1").exists():  # a guard against a hang, not a timing assertion
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < end
            time.sleep(0.05)
        assert main(["run", str(GATED), "--executor", "serial", "--seed", "2", "--out", str(out), "--overwrite"]) == 2
        assert (out / JOURNAL / "task-0-0.pkl").exists()  # the first run's journal is whole
    finally:
        first.kill()
        first.wait(timeout=60)
    # killed, the first run holds nothing: its journal waits for --resume, with its own settings only
    with pytest.raises(OutError, match="differs in seed"):
        run(GATED, seed=2, executor="serial", out=out, resume=True)


def test_cli_says_who_holds_out_in_one_line(tmp_path, capsys):
    out = tmp_path / "o"
    out.mkdir()
    with OutLock(out) as held:
        assert main(["run", str(TINY), "--quick", "--executor", "serial", "--out", str(out), "--overwrite"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(f"error: --out {out} is in use by run {held.run_id}") and len(err) == 2


def test_resume_refuses_journal_entries_of_another_run_and_reruns_them(tmp_path):
    full = run(TINY, quick=True, reps=3, executor="serial", out=tmp_path / "full")
    for name, seed, tasks in (("o", 0, 2), ("other", 1, 4)):  # interrupted: this run, and one of another seed
        with pytest.raises(KeyboardInterrupt):
            run(TINY, quick=True, reps=3, seed=seed, executor="serial", out=tmp_path / name, on_result=_stop_at(tasks))
    journal, foreign = tmp_path / "o" / JOURNAL, tmp_path / "other" / JOURNAL
    done = sorted(p.name for p in journal.glob("task-*.pkl"))
    missing = next(p for p in sorted(foreign.glob("task-*.pkl")) if p.name not in done)
    shutil.copy(missing, journal / missing.name)  # what a second run writing into this journal leaves
    assert pickle.loads(missing.read_bytes())[0] != pickle.loads((journal / done[0]).read_bytes())[0]  # run ids
    ran = []
    resumed = run(TINY, quick=True, reps=3, executor="serial", out=tmp_path / "o", resume=True, on_result=ran.append)
    assert resumed.run_info["resumed_tasks"] == len(done) and resumed.run_info["foreign_tasks"] == 1
    assert (missing_task := tuple(map(int, missing.stem.split("-")[1:]))) in {(r.cell_index, r.rep) for r in ran}
    assert resumed.summary() == full.summary(), missing_task  # nothing of seed 1 in a summary that says seed 0


def _stop_at(n: int):
    seen = []

    def stop(result):
        seen.append(result)
        if len(seen) == n:
            raise KeyboardInterrupt

    return stop


# --------------------------------------------------------------------------- the work estimate comes first
def test_a_replication_seed_made_on_demand_is_the_spawned_one():
    spawned = np.random.SeedSequence(7).spawn(5)
    for rep in (0, 4):
        made = replication_seed(7, rep)
        assert made.spawn_key == spawned[rep].spawn_key and made.entropy == spawned[rep].entropy
        assert (made.generate_state(4) == spawned[rep].generate_state(4)).all()
    assert replication_seed(7, 10**15).spawn_key == (10**15,)  # no list of 10**15 seeds is made


@pytest.mark.parametrize(
    ("script", "kwargs"),
    [
        ("mmc.py", {"reps": 10**12}),
        ("deeprm.py", {"overrides": {"sequences": 10**12}}),
        ("osl_grid.py", {"quick": True, "overrides": {"steps": 10**12}}),  # estimated at exactly the limit
    ],
)
def test_a_huge_run_is_estimated_and_refused_before_any_work(script, kwargs, tmp_path):
    ran = []
    with pytest.raises(ExperimentError, match=re.escape(f"at or over the limit of {WORK_LIMIT:.0e}")):
        run(SCENARIOS / script, executor="serial", out=tmp_path / "o", on_result=ran.append, **kwargs)
    assert ran == [] and not (tmp_path / "o").exists()  # refused before --out was even made


def test_one_replication_too_large_is_refused_though_the_run_is_under_the_limit(tmp_path, capsys):
    # issue 35: mmc customers=10^10 is 10^11 units in all, under the run's limit, and ran for hours
    settings = RunSettings.make(SCENARIOS / "mmc.py", overrides={"customers": 10**10})
    assert estimate_work(settings.scenario, settings.cfg, settings.sweep, settings.reps) < WORK_LIMIT
    with pytest.raises(
        ExperimentError, match=re.escape(f"at or over the limit of {REPLICATION_WORK_LIMIT:.0e} per replication")
    ):
        check_work(settings)
    assert check_work(settings, force=True) > 0  # --force runs it anyway
    code = main(
        ["run", str(SCENARIOS / "mmc.py"), "--sweep", "customers=1000,10000000000", "--out", str(tmp_path / "o")]
    )
    err = capsys.readouterr().err.splitlines()
    assert code == 2 and len(err) == 2 and "one replication of cell {'customers': 10000000000} is estimated" in err[0]
    assert not (tmp_path / "o").exists()


def test_machine_rl_windows_set_the_count_and_are_estimated_too(tmp_path):
    if not (HERE.parent.parent / "shared" / "traces").is_dir():
        pytest.skip("machine_rl reads its log when its config is made")
    with pytest.raises(ExperimentError, match="1000000000000 replication"):
        run(SCENARIOS / "machine_rl.py", overrides={"windows": 10**12}, executor="serial")


# --------------------------------------------------------------------------- the save: checked first, nothing hidden
def test_out_under_a_parent_that_cannot_be_written_is_refused_before_any_work(tmp_path, monkeypatch):
    out = tmp_path / "o"
    out.mkdir()
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if Path(p) == tmp_path else real(p, mode))
    ran = []
    with pytest.raises(OutError, match=f"its parent {tmp_path} cannot be written"):
        run(TINY, quick=True, executor="serial", out=out, on_result=ran.append)
    assert ran == [] and _siblings(out) == []


def test_out_that_is_a_mount_point_is_refused_before_any_work(tmp_path, monkeypatch):
    assert is_mount_point(Path("/")) and not is_mount_point(tmp_path)
    out = tmp_path / "o"
    out.mkdir()
    monkeypatch.setattr(store_module, "_mount_points", lambda: {os.path.realpath(out)})  # as a bind mount shows
    with pytest.raises(OutError, match=rf"--out {out} is a mount point.*give a folder inside it"):
        run(TINY, quick=True, executor="serial", out=out)
    assert _siblings(out) == []


def test_a_save_whose_rename_fails_leaves_the_old_results_and_no_hidden_copy(tmp_path, monkeypatch):
    out = tmp_path / "o"
    run(TINY, quick=True, reps=2, seed=5, executor="serial", out=out)
    before = (out / "summary.json").read_bytes()
    rename = os.rename

    def busy(src, dst):
        if Path(src) == out:
            raise OSError(errno.EBUSY, os.strerror(errno.EBUSY), str(src))
        rename(src, dst)

    monkeypatch.setattr(os, "rename", busy)
    with pytest.raises(OutError, match=f"cannot save the results to {out}: Device or resource busy"):
        run(TINY, quick=True, reps=2, executor="serial", out=out, overwrite=True)
    assert (out / "summary.json").read_bytes() == before and _siblings(out) == []


def test_out_of_space_names_out_and_leaves_no_hidden_copy(tmp_path, monkeypatch):
    out = tmp_path / "o"

    def full(self, folder):
        raise OSError(errno.ENOSPC, "Error writing bytes to file")  # as pyarrow says it

    monkeypatch.setattr(Results, "_write", full)
    with pytest.raises(OutError, match=f"cannot save the results to {out}: No space left on device"):
        run(TINY, quick=True, reps=2, executor="serial", out=out)
    assert _siblings(out) == []


def test_copies_a_killed_save_left_beside_out_are_removed_by_the_next_save(tmp_path):
    out = tmp_path / "o"
    for stale in (".o.saving-k1ll3d", ".o.old-k1ll3d"):
        (tmp_path / stale).mkdir()
        (tmp_path / stale / "records.parquet").write_bytes(b"70 MB, once")
    (tmp_path / ".other.saving-x").mkdir()  # another folder's: not ours to remove
    run(TINY, quick=True, reps=2, executor="serial", out=out)
    assert _siblings(out) == [] and (tmp_path / ".other.saving-x").exists()
    assert (out / LOCK).exists()  # the lock file stays: removing it would let two runs hold two files


def test_a_save_leaves_the_temp_folders_of_another_out_whose_name_starts_alike(tmp_path):
    # issue 35: saving into X removed .X.v2.saving-*, the folder a run saving into X.v2 was filling
    other = [".o.v2.saving-abc123", ".o.v2.old-abc123", ".o.saving-x.saving-abc123"]
    for name in other:
        (tmp_path / name).mkdir()
    run(TINY, quick=True, reps=2, executor="serial", out=tmp_path / "o")
    assert all((tmp_path / name).exists() for name in other)
    assert store_module.is_own_sibling(".o.saving-abc_12", "o")
    assert not store_module.is_own_sibling(".o.v2.saving-abc", "o")


def _a_disk_full_after(room: int):
    """``os.fdopen`` for a disk with ``room`` bytes left: a longer write puts them, then fails (ENOSPC)."""
    fdopen = os.fdopen

    class Full:
        def __init__(self, fd, mode="r", *args, **kwargs):
            self.file = fdopen(fd, mode, *args, **kwargs)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.file.close()

        def write(self, data):
            self.file.write(data[:room])
            self.file.flush()
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    return Full


def test_write_file_atomic_on_a_full_disk_names_the_file_and_leaves_no_part(tmp_path, monkeypatch):
    path = tmp_path / "jobs.csv"
    path.write_text("earlier\n")

    monkeypatch.setattr(os, "fdopen", _a_disk_full_after(10))
    with pytest.raises(OutError, match=f"^cannot write {path}: No space left on device$"):
        store_module.write_file_atomic(path, "job_id\n" * 1000)
    monkeypatch.undo()
    assert path.read_text() == "earlier\n" and sorted(p.name for p in tmp_path.iterdir()) == ["jobs.csv"]


def test_a_file_system_without_locks_is_refused_in_one_line_leaving_nothing(tmp_path, monkeypatch, capsys):
    # issue 35: flock's ENOLCK (some network file systems) came out as "[Errno 37] No locks available",
    # naming no path, and left the new --out holding only a lock file
    import fcntl

    def no_locks(fd, op):
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))

    monkeypatch.setattr(fcntl, "flock", no_locks)
    out = tmp_path / "new" / "o"
    code = main(["run", str(TINY), "--quick", "--executor", "serial", "--out", str(out)])
    err = capsys.readouterr().err.splitlines()
    assert code == 2 and err[0].startswith(f"error: --out {out} cannot be locked: No locks available")
    assert list(tmp_path.iterdir()) == []  # neither the folders it made nor a lock file
    kept = tmp_path / "kept"
    kept.mkdir()
    with pytest.raises(OutError, match="cannot be locked"):
        run(TINY, quick=True, executor="serial", out=kept)
    assert kept.is_dir() and list(kept.iterdir()) == []  # a folder that was there stays, emptied of the lock

"""Where a run's results live: checking ``--out`` first, a journal of finished tasks, atomic saving.

A run that saves to ``out`` keeps, while it runs, one file per finished task
(cell, replication) in ``out/.schedlab-tasks/``, beside ``run.json``, the run's
identity (scenario and its code digest, config overrides, sweep, seed, replications,
schedlab's version). ``--resume`` reads the journal back and runs only the tasks
missing from it; a journal of another run (another seed, config or code) is refused.

Saving is atomic: the files go into a fresh sibling folder, which then takes
``out``'s place by rename. A kill leaves either the old results or the new ones,
never a mix, and nothing inside ``out`` is ever written through (a symlink there is
replaced, not followed).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import shutil
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["JOURNAL", "Journal", "OutError", "check_out", "replace_dir", "run_identity"]

JOURNAL = ".schedlab-tasks"
MARKERS = ("manifest.json", JOURNAL)  # a folder holding one of these was written by schedlab


class OutError(ValueError):
    """``--out`` cannot take this run's results; the message says why and what to do."""


def _owned(out: Path) -> bool:
    return any((out / m).exists() or (out / m).is_symlink() for m in MARKERS)


def check_out(out: Path, *, overwrite: bool = False, resume: bool = False) -> None:
    """Check, before any work, that ``out`` can take this run's results.

    ``out`` must be a folder (or not exist yet, with a parent that can be created)
    and not a symlink. A folder that already holds files is refused unless it is
    schedlab's (a manifest or a journal) and ``overwrite`` or ``resume`` is given.
    """
    if out.is_symlink():
        raise OutError(f"--out {out} is a symlink; give the folder it points to")
    if out.exists() and not out.is_dir():
        raise OutError(f"--out {out} exists and is not a folder")
    if out.exists() and any(out.iterdir()):
        if not _owned(out):
            raise OutError(f"--out {out} holds files that schedlab did not write; choose an empty or new folder")
        if not (overwrite or resume):
            raise OutError(f"--out {out} holds an earlier run's results; add --overwrite to replace them "
                           "(or --resume to finish that run)")
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".schedlab-probe-"):
            pass  # the folder takes files: fail now, not after every replication
    except OSError as exc:
        raise OutError(f"--out {out} cannot be written: {exc.strerror or exc}") from None


def script_digest(path: str | Path) -> str:
    """SHA-256 of a scenario script's text: a resumed run must run the same code."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def run_identity(**parts: Any) -> dict[str, Any]:
    """What makes two runs the same run, as JSON-ready data (with schedlab's version)."""
    from schedlab import __version__

    return json.loads(json.dumps({**parts, "schedlab": __version__}, default=repr, sort_keys=True))


def _write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)  # replaces a symlink at ``path`` itself, never its target
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


class Journal:
    """The finished tasks of a run in ``out/.schedlab-tasks``, one pickle per (cell, replication)."""

    def __init__(self, out: Path, identity: Mapping[str, Any], *, resume: bool) -> None:
        self.folder = out / JOURNAL
        if self.folder.is_symlink():
            raise OutError(f"{self.folder} is a symlink; schedlab will not write through it")
        stored = self.folder / "run.json"
        if resume:
            if not stored.is_file():
                raise OutError(f"--resume: {out} holds no unfinished run (no {JOURNAL}/run.json)")
            old = json.loads(stored.read_text())
            if old != dict(identity):
                diff = sorted(k for k in set(old) | set(identity) if old.get(k) != identity.get(k))
                raise OutError(f"--resume: {out} holds another run (it differs in {', '.join(diff)}); "
                               "run with the same script, settings, seed and schedlab version, or use --overwrite")
        else:
            if self.folder.exists():
                shutil.rmtree(self.folder)
            self.folder.mkdir(parents=True)
            _write_atomic(stored, (json.dumps(identity, indent=2, sort_keys=True) + "\n").encode())

    def _file(self, cell: int, rep: int) -> Path:
        return self.folder / f"task-{cell}-{rep}.pkl"

    def done(self) -> dict[tuple[int, int], Any]:
        """The results already written, by (cell index, replication); unreadable files are left to rerun."""
        out = {}
        for path in self.folder.glob("task-*-*.pkl"):
            with contextlib.suppress(Exception):  # a half-written file cannot exist (atomic), but be lenient
                result = pickle.loads(path.read_bytes())
                out[(result.cell_index, result.rep)] = result
        return out

    def add(self, result: Any) -> None:
        """Write one finished task (atomically: a kill leaves it whole or absent)."""
        _write_atomic(self._file(result.cell_index, result.rep), pickle.dumps(result))


def replace_dir(out: Path, write: Callable[[Path], None]) -> None:
    """Let ``write`` fill a fresh sibling folder, then put it in ``out``'s place by rename.

    The old ``out`` (its files, the journal) is moved aside first and removed last,
    so a kill leaves the old results, or the new ones, never a mix.
    """
    out = Path(out)
    parent = out.parent if str(out.parent) else Path(".")
    parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(dir=parent, prefix=f".{out.name}.saving-"))
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(fresh, 0o777 & ~mask)  # mkdtemp makes it private; results are as readable as any new folder
    try:
        write(fresh)
    except BaseException:
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    old = None
    if out.exists() or out.is_symlink():
        old = Path(tempfile.mkdtemp(dir=parent, prefix=f".{out.name}.old-"))
        os.rmdir(old)
        os.rename(out, old)
    os.rename(fresh, out)
    if old is not None:
        if old.is_symlink() or not old.is_dir():
            old.unlink()
        else:
            shutil.rmtree(old, ignore_errors=True)

"""Where a run's results live: checking ``--out`` first, a journal of finished tasks, atomic saving.

A run that saves to ``out`` owns it while it runs (an exclusive lock, see
:mod:`schedlab.experiment.out_lock`) and keeps one file per finished task (cell,
replication) in ``out/.schedlab-tasks/``, beside ``run.json``: the run's id and its
identity (scenario and its code digest, config overrides, sweep, seed, replications,
schedlab's version). Every task file carries the run's id. ``--resume`` reads the
journal back and runs only the tasks missing from it; a journal of another run
(another seed, config or code) is refused, and so is a task file of another run id.

Saving is atomic: the files go into a fresh sibling folder, which then takes
``out``'s place by rename. A kill leaves either the old results or the new ones,
never a mix, and nothing inside ``out`` is ever written through (a symlink there is
replaced, not followed). Because of the rename, :func:`check_out` checks first that
``out`` is not a mount point and that its parent takes new folders; a save that
fails anyway removes its sibling folder, and names ``out`` in the error. A refused
check leaves no folder it made. :func:`write_file_atomic` writes one file the same way
(a temporary file, then a rename), for files written beside the results.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import json
import os
import pickle
import re
import shutil
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from schedlab.experiment.out_lock import LOCK, OutLock, OutLocked

__all__ = [
    "JOURNAL",
    "Journal",
    "OutError",
    "OutLock",
    "check_out",
    "replace_dir",
    "run_identity",
    "write_file_atomic",
]

JOURNAL = ".schedlab-tasks"
MARKERS = ("manifest.json", JOURNAL, LOCK)  # a folder holding one of these was written by schedlab
#: hidden siblings a save makes beside ``out`` (``.NAME.saving-*``, ``.NAME.old-*``)
SIBLINGS = ("saving", "old")
#: the random tail ``tempfile.mkdtemp`` gives a sibling's name (no dot: ``.X.v2.saving-*`` is not ``X``'s)
_TAIL = r"[a-z0-9_]+"


class OutError(ValueError):
    """``--out`` cannot take this run's results; the message says why and what to do."""


def _why(exc: OSError) -> str:
    return os.strerror(exc.errno) if exc.errno else str(exc)


def _parent(out: Path) -> Path:
    return out.absolute().parent


def _mount_points() -> set[str]:
    """The mount points Linux lists for this process (bind mounts included); empty elsewhere."""
    try:
        text = Path("/proc/self/mountinfo").read_text()
    except OSError:
        return set()
    # the fifth field is the mount point, with space, tab, newline and backslash written in octal
    return {
        re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), line.split()[4])
        for line in text.splitlines()
        if len(line.split()) > 4
    }


def is_mount_point(path: Path) -> bool:
    """Whether ``path`` is a mount point (a bind mount of a folder of the same file system too)."""
    if os.path.ismount(path) or path.stat().st_dev != _parent(path).stat().st_dev:
        return True
    return os.path.realpath(path) in _mount_points()


def _check_save_place(out: Path) -> None:
    """The save renames ``out`` and makes a sibling folder: check now that both can happen."""
    parent = _parent(out)
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutError(
            f"--out {out}: its parent {parent} cannot be written, and the save makes its new folder "
            "there; give an --out whose parent you can write"
        )
    try:  # os.access says yes to root on a read-only file system: try it
        os.rmdir(tempfile.mkdtemp(dir=parent, prefix=f".{out.name}.probe-"))
    except OSError as exc:
        raise OutError(
            f"--out {out}: its parent {parent} cannot take the save's new folder: {_why(exc)}; "
            "give an --out whose parent you can write"
        ) from None
    if out.is_dir() and is_mount_point(out):
        raise OutError(
            f"--out {out} is a mount point: results are saved by replacing the folder, which a mount "
            f"point cannot be; give a folder inside it (e.g. --out {out / 'results'})"
        )


def _owned(out: Path) -> bool:
    return any((out / m).exists() or (out / m).is_symlink() for m in MARKERS)


def _missing_folders(out: Path) -> list[Path]:
    """``out`` and its ancestors that do not exist yet, deepest first: what ``mkdir(parents=True)`` makes."""
    missing = []
    for folder in (out, *out.parents):
        if folder.exists() or folder.is_symlink():
            break
        missing.append(folder)
    return missing


def check_out(
    out: Path, *, overwrite: bool = False, resume: bool = False, settings: str | None = None
) -> OutLock | None:
    """Check, before any work, that ``out`` can take this run's results; with ``settings``, take it.

    ``out`` must be a folder (or not exist yet, with a parent that can be created),
    not a symlink and not a mount point, in a parent that takes new folders. A folder
    that already holds files is refused unless it is schedlab's (a manifest, a journal
    or a lock) and ``overwrite`` or ``resume`` is given. A folder another live run
    holds is refused, whatever the flags.

    Returns
    -------
    OutLock or None
        With ``settings`` (a digest of the run's settings, for the owner token): the
        hold on ``out``, to release when the results are saved.
    """
    if out.is_symlink():
        raise OutError(f"--out {out} is a symlink; give the folder it points to")
    if out.exists() and not out.is_dir():
        raise OutError(f"--out {out} exists and is not a folder")
    used = out.exists() and any(out.iterdir())
    if used and not _owned(out):
        raise OutError(f"--out {out} holds files that schedlab did not write; choose an empty or new folder")
    made = _missing_folders(out)
    try:
        try:
            out.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=out, prefix=".schedlab-probe-"):
                pass  # the folder takes files: fail now, not after every replication
        except OSError as exc:
            raise OutError(f"--out {out} cannot be written: {_why(exc)}") from None
        _check_save_place(out)
        lock = None
        if settings is not None:
            try:
                lock = OutLock(out, settings=settings)
            except OutLocked as exc:
                raise OutError(str(exc)) from None
    except BaseException:
        for folder in made:  # a refused run leaves no folder it made (deepest first; only if still empty)
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise
    if used and not (overwrite or resume) and any((out / m).exists() for m in MARKERS[:2]):
        if lock is not None:
            lock.release()
        raise OutError(
            f"--out {out} holds an earlier run's results; add --overwrite to replace them "
            "(or --resume to finish that run)"
        )
    return lock


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


def write_file_atomic(path: Path, data: str | bytes) -> None:
    """Write ``path`` whole or not at all: a temp file beside it, then a rename.

    A full disk or a kill leaves the earlier file (or none), never a truncated one.

    Raises
    ------
    OutError
        The write failed; the one-line message names ``path`` and why.
    """
    path = Path(path)
    try:
        _write_atomic(path, data.encode() if isinstance(data, str) else data)
    except OSError as exc:
        raise OutError(f"cannot write {path}: {_why(exc)}") from None


class Journal:
    """The finished tasks of a run in ``out/.schedlab-tasks``, one pickle per (cell, replication)."""

    def __init__(self, out: Path, identity: Mapping[str, Any], *, resume: bool, lock: OutLock) -> None:
        self.folder = out / JOURNAL
        if self.folder.is_symlink():
            raise OutError(f"{self.folder} is a symlink; schedlab will not write through it")
        stored = self.folder / "run.json"
        #: task files found in the journal but written by another run (refused: rerun)
        self.foreign = 0
        if resume:
            if not stored.is_file():
                raise OutError(f"--resume: {out} holds no unfinished run (no {JOURNAL}/run.json)")
            header = json.loads(stored.read_text())
            old = header.get("identity", header)  # a journal of schedlab < 0.x held the identity alone
            if old != dict(identity):
                diff = sorted(k for k in set(old) | set(identity) if old.get(k) != identity.get(k))
                raise OutError(
                    f"--resume: {out} holds another run (it differs in {', '.join(diff)}); "
                    "run with the same script, settings, seed and schedlab version, or use --overwrite"
                )
            lock.adopt(str(header.get("run_id", "")))  # the same run, continued: its entries are ours
        else:
            if self.folder.exists():
                shutil.rmtree(self.folder)
            self.folder.mkdir(parents=True)
            header = {"run_id": lock.run_id, "owner": lock.owner, "identity": dict(identity)}
            _write_atomic(stored, (json.dumps(header, indent=2, sort_keys=True) + "\n").encode())
        self.run_id = lock.run_id

    def _file(self, cell: int, rep: int) -> Path:
        return self.folder / f"task-{cell}-{rep}.pkl"

    def done(self) -> dict[tuple[int, int], Any]:
        """This run's results already written, by (cell index, replication).

        Unreadable files, and files another run wrote (another run id), are left to
        rerun; the latter are counted in :attr:`foreign`.
        """
        out = {}
        self.foreign = 0
        for path in self.folder.glob("task-*-*.pkl"):
            with contextlib.suppress(Exception):  # a half-written file cannot exist (atomic), but be lenient
                entry = pickle.loads(path.read_bytes())
                if not (isinstance(entry, tuple) and len(entry) == 2 and entry[0] == self.run_id):
                    self.foreign += 1
                    continue
                result = entry[1]
                out[(result.cell_index, result.rep)] = result
        return out

    def add(self, result: Any) -> None:
        """Write one finished task with the run's id (atomically: a kill leaves it whole or absent)."""
        path = self._file(result.cell_index, result.rep)
        try:
            _write_atomic(path, pickle.dumps((self.run_id, result)))
        except OSError as exc:
            raise OutError(f"cannot journal a finished task in {self.folder}: {_why(exc)}") from exc


def replace_dir(out: Path, write: Callable[[Path], None], lock: OutLock | None = None) -> None:
    """Let ``write`` fill a fresh sibling folder, then put it in ``out``'s place by rename.

    The old ``out`` (its files, the journal) is moved aside first and removed last,
    so a kill leaves the old results, or the new ones, never a mix. A save that fails
    removes its fresh folder and puts the old one back: no hidden copy stays beside
    ``out``. With ``lock`` (the run's hold on ``out``) the fresh folder is locked
    before the swap, and copies that killed saves left beside ``out`` are removed.

    Raises
    ------
    OutError
        The save failed for want of space, rights or a renameable folder; the message names ``out``.
    """
    out = Path(out)
    parent = out.parent if str(out.parent) else Path(".")
    try:
        parent.mkdir(parents=True, exist_ok=True)
        fresh = Path(tempfile.mkdtemp(dir=parent, prefix=f".{out.name}.saving-"))
    except OSError as exc:
        raise OutError(f"cannot save the results to {out}: its parent {_parent(out)}: {_why(exc)}") from exc
    mask = os.umask(0)
    os.umask(mask)
    old = None
    try:
        os.chmod(fresh, 0o777 & ~mask)  # mkdtemp makes it private; results are as readable as any new folder
        write(fresh)
        if lock is not None:
            lock.carry_to(fresh)
        if out.exists() or out.is_symlink():
            old = Path(tempfile.mkdtemp(dir=parent, prefix=f".{out.name}.old-"))
            os.rmdir(old)
            os.rename(out, old)
        os.rename(fresh, out)
    except BaseException as exc:
        if old is not None and not (out.exists() or out.is_symlink()):
            os.rename(old, out)  # the swap failed halfway: the earlier results go back where they were
        shutil.rmtree(fresh, ignore_errors=True)
        if isinstance(exc, OSError) and not isinstance(exc, OutError):
            raise OutError(f"cannot save the results to {out}: {_why(exc)}") from exc
        raise
    if old is not None:
        _remove(old)
    if lock is not None:
        for stale in parent.glob(f".{glob.escape(out.name)}.*-*"):
            if is_own_sibling(stale.name, out.name):
                _remove(stale)  # a copy a killed save of this folder left: we own the folder now


def is_own_sibling(name: str, out_name: str) -> bool:
    """Whether ``name`` is a hidden copy a save of ``out_name`` makes (``.X.saving-abc``, ``.X.old-abc``).

    Exactly those: ``.X.v2.saving-abc`` belongs to ``X.v2``, whose run may be saving it now.
    """
    pattern = rf"\.{re.escape(out_name)}\.(?:{'|'.join(SIBLINGS)})-{_TAIL}"
    return re.fullmatch(pattern, name) is not None


def _remove(path: Path) -> None:
    if path.is_symlink() or not path.is_dir():
        path.unlink(missing_ok=True)
    else:
        shutil.rmtree(path, ignore_errors=True)

"""Who owns a ``--out`` folder: one live run at a time, named by an owner token.

A run that saves to ``out`` holds an exclusive ``flock`` on ``out/.schedlab-lock``
from before its first task until its results are saved. The lock file holds the
owner's token (run id, process id, host, start time, settings digest), so a second
run that finds the folder taken says who has it, in one line, before it does any
work. The kernel drops the lock when its process dies (even by SIGKILL), so a killed
run never leaves the folder locked; its journal waits for ``--resume``.

A file system that gives no locks (``flock`` fails with ``ENOLCK``, as some network
file systems) is refused (:class:`OutUnlockable`): there is no unlocked fallback, since
two runs could then save into one folder. The lock file that attempt made is removed.

The save replaces ``out`` by a fresh folder (see :func:`store.replace_dir`); the
owner locks the fresh folder's lock file before the swap (:meth:`OutLock.carry_to`),
so the folder is never unowned while a run is saving it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import time
import uuid
from pathlib import Path
from typing import Any

__all__ = ["LOCK", "OutLock", "OutLocked", "OutUnlockable"]

LOCK = ".schedlab-lock"


class OutLocked(ValueError):
    """``--out`` is held by another live run; the message names it."""


class OutUnlockable(OutLocked):
    """``--out``'s file system gives no locks (``ENOLCK``, as some network file systems); the message names it.

    Refused, not run unlocked: without the lock two runs could save into one folder.
    """


def _owner_text(owner: dict[str, Any]) -> str:
    since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(owner.get("started", 0)))
    return f"run {owner.get('run_id', '?')} (pid {owner.get('pid', '?')} on {owner.get('host', '?')}, since {since})"


class OutLock:
    """An exclusive hold on a results folder, for the life of one run.

    Parameters
    ----------
    out
        The folder (it must exist).
    settings
        A digest of the run's settings, written in the token for whoever finds the folder taken.
    run_id
        The run's id; a resumed run keeps the id of the run it finishes. A new one is drawn if None.

    Raises
    ------
    OutLocked
        Another live process holds ``out``.
    """

    def __init__(self, out: Path, *, settings: str = "", run_id: str | None = None) -> None:
        self.out = Path(out)
        self.owner = {
            "run_id": run_id or uuid.uuid4().hex[:12],
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started": time.time(),
            "settings": settings,
        }
        self._fds: list[int] = []
        self._take(self.out)

    @property
    def run_id(self) -> str:
        """The id every journal entry of this run carries."""
        return str(self.owner["run_id"])

    def adopt(self, run_id: str) -> None:
        """Continue the run ``run_id`` (``--resume``): its entries are this run's own."""
        self.owner["run_id"] = run_id
        for fd in self._fds:
            self._write_token(fd)

    def _take(self, folder: Path) -> None:
        path = folder / LOCK
        made = not (path.exists() or path.is_symlink())
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            try:
                owner = json.loads(os.pread(fd, 4096, 0) or b"{}")
            except ValueError:
                owner = {}
            os.close(fd)
            raise OutLocked(
                f"--out {self.out} is in use by {_owner_text(owner)}: wait for it to end, or give another --out"
            ) from None
        except OSError as exc:  # ENOLCK and the like: no lock can be had on this file system
            os.close(fd)
            if made:
                path.unlink(missing_ok=True)  # the lock file this attempt made: nothing is left behind
            raise OutUnlockable(
                f"--out {self.out} cannot be locked: {os.strerror(exc.errno) if exc.errno else exc} "
                "(its file system gives no file locks, as some network file systems); schedlab locks --out "
                "to keep two runs from saving into it: give an --out on a local file system"
            ) from None
        except BaseException:
            os.close(fd)
            raise
        self._write_token(fd)
        self._fds.append(fd)

    def _write_token(self, fd: int) -> None:
        data = (json.dumps(self.owner, sort_keys=True) + "\n").encode()
        os.ftruncate(fd, 0)
        os.pwrite(fd, data, 0)

    def carry_to(self, folder: Path) -> None:
        """Lock ``folder``'s lock file too: the fresh folder about to take ``out``'s place."""
        self._take(Path(folder))

    def release(self) -> None:
        """Let the folder go (the files stay: unlinking a lock file would let two runs hold two files)."""
        for fd in self._fds:
            with contextlib.suppress(OSError):
                os.close(fd)  # closing the descriptor drops its flock
        self._fds.clear()

    def __enter__(self) -> OutLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

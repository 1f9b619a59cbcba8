"""Where a run's tasks execute: serially, in a local process pool, on Dask; and its progress bar.

:func:`open_executor` gives ``None`` for serial runs (the runner calls tasks itself),
else a ``concurrent.futures.Executor``. A local pool's workers start with ``spawn``
and exit when the process that started them dies, so a killed run leaves no orphans.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from contextlib import contextmanager
from typing import Any, Literal, TypeVar

__all__ = ["ExecutorName", "open_executor", "pooled", "progress_bar"]

ExecutorName = Literal["serial", "process", "dask"]


class ExecutorError(RuntimeError):
    """The executor asked for cannot be had (unknown name, a missing extra)."""


def _start_worker(parent: int) -> None:
    """A pool worker's start: Ctrl-C is the run's to handle, and the worker exits with its parent.

    A terminal's Ctrl-C signals the whole process group: a worker that took it would die
    mid-task, printing its own traceback, and race the run's orderly stop (:func:`_stop_pool`).
    """
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):  # started with SIGINT blocked (see _sigint_held): ignored now, so let it in
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    _watch_parent(parent)


@contextmanager
def _sigint_held() -> Iterator[None]:
    """SIGINT held back (blocked) in this thread while it may start pool workers, then let through.

    A worker inherits its starter's blocked signals, so one started while a Ctrl-C is on
    its way takes it only after :func:`_start_worker` ignores it: without this, a worker
    still starting up died of it, printing its own traceback after ``interrupted``. The
    run itself gets the Ctrl-C as soon as the block ends.
    """
    import signal

    if not hasattr(signal, "pthread_sigmask"):  # Windows: no signal masks
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _watch_parent(parent: int) -> None:
    """In a pool worker: exit when the process that started the pool is gone (SIGKILL leaves no orphans)."""
    import threading

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:  # re-parented: the run's process died without shutting the pool down
                os._exit(1)

    threading.Thread(target=watch, name="schedlab-parent-watch", daemon=True).start()


def _stop_pool(pool: Executor) -> None:
    """Cancel what has not started and stop the workers now (Ctrl-C must not wait for every task).

    The pool cancels its own futures (``cancel_futures``): its thread then forgets them.
    A future cancelled from outside stays in that thread's list, and when the workers die
    Python 3.11 fails to mark it (``InvalidStateError``, a traceback after ``interrupted``);
    so the runner leaves a process pool's futures to this. The thread is given time to
    end, so the run exits with nothing left printing.
    """
    workers = list((getattr(pool, "_processes", None) or {}).values())  # before shutdown forgets them
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    end = time.monotonic() + 5
    while getattr(pool, "_cancel_pending_futures", False) and manager is not None and manager.is_alive():
        if time.monotonic() > end:
            break
        time.sleep(0.01)  # the pool's thread drops the futures not started before it sees its workers die
    for proc in workers:
        with contextlib.suppress(Exception):
            proc.terminate()
    if manager is not None:
        manager.join(timeout=10)


@contextmanager
def open_executor(kind: ExecutorName | Executor, workers: int | None, address: str | None) -> Iterator[Executor | None]:
    """The executor a run asks for, open while the run lasts: ``None`` (serial), a process pool, or a Dask client's."""
    if isinstance(kind, Executor):
        yield kind
        return
    if kind == "serial":
        yield None
        return
    n = workers or os.cpu_count() or 1
    if kind == "process":
        import multiprocessing
        from concurrent.futures import (
            ProcessPoolExecutor,
        )  # imported by pool runs only: it costs start-up time (measured: benchmarks/README.md)

        # spawn: workers start clean (no forked threads or torch state); tasks carry all they need
        pool = ProcessPoolExecutor(
            max_workers=n,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker,
            initargs=(os.getpid(),),
        )
        try:
            yield pool
        except BaseException:
            _stop_pool(pool)
            raise
        pool.shutdown(wait=True)
        return
    if kind == "dask":
        try:
            from dask.distributed import Client, LocalCluster
            from distributed.security import Security
        except ImportError:
            raise ExecutorError("--executor dask needs the dask extra: pip install 'schedlab[dask]'") from None
        if address:
            # TLS and credentials come from Dask's own config (distributed.comm.tls.*), as `dask` reads them.
            # Results come back unpickled: connect only to a scheduler you trust.
            with Client(address, security=Security()) as client:
                yield client.get_executor()
        else:
            with (
                LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
                Client(cluster) as client,
            ):
                yield client.get_executor()
        return
    raise ExecutorError(f"unknown executor {kind!r}; choose serial, process or dask")


T = TypeVar("T")
R = TypeVar("R")


def pooled(pool: Executor, fn: Callable[[T], R], todo: Iterable[T], window: int, cancel: bool = True) -> Iterator[R]:
    """``fn`` of each of ``todo`` on ``pool``, in completion order, at most ``window`` submitted at a time.

    A bounded window keeps a forced, huge run from making all its futures at once;
    on Ctrl-C or a failed task, nothing more is started: the futures not started are
    cancelled here, unless ``cancel`` is False: the run's own process pool cancels them
    itself as it stops (see :func:`_stop_pool`, and why).
    """
    pending: set[Future[R]] = set()
    items = iter(todo)
    try:
        while True:
            with _sigint_held():  # a submit may start a worker (see _sigint_held)
                for item in itertools.islice(items, window - len(pending)):
                    pending.add(pool.submit(fn, item))
            if not pending:
                return
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                yield fut.result()
    except BaseException:
        if cancel:
            for fut in pending:
                fut.cancel()
        raise


class _NoBar:
    """A progress bar nobody sees: what tqdm does when disabled, without importing tqdm."""

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, n: int = 1) -> None:
        pass


def progress_bar(total: int, show: bool | None) -> Any:
    # None: shown only when stderr is a terminal (tqdm's disable=None)
    """A progress bar over ``total`` replications (tqdm's), or a silent one when not shown."""
    if show is False or (show is None and not (sys.stderr is not None and sys.stderr.isatty())):
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="rep", leave=False)

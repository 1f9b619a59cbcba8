"""Running a scenario: one replication, replications of every cell, sweeps, on any executor.

The runner turns (cell, replication) pairs into independent tasks, each carrying the
scenario's path, its config, the cell and the replication's seed. A task builds a
fresh ``simpy.Environment``, runs the model and measures it; it needs nothing from the
process that made it, so it runs the same serially, in a local process pool, or on any
``concurrent.futures.Executor`` (a Dask cluster's ``Client.get_executor()``).
Results come back in task order whatever order they finished in.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import math
import os
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, Future, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import simpy

from schedlab.experiment.results import Results, aggregate
from schedlab.experiment.run_records import RunRecords
from schedlab.experiment.scenario import Scenario, config_dict, load_scenario, make_config
from schedlab.experiment.seeding import replication_seeds
from schedlab.model.analysis import metrics
from schedlab.model.core.streams import Streams
from schedlab.model.records.job_record import Status
from schedlab.model.records.log import RecordLog
from schedlab.model.records.table import records_frame
from schedlab.processes.model import Model

__all__ = ["ExperimentError", "build_model", "run", "run_task", "standard_metrics", "sweep_cells"]

ExecutorName = Literal["serial", "process", "dask"]


class ExperimentError(RuntimeError):
    """A replication failed; the message names the cell and replication, and the cause."""

    def __init__(self, message: str, details: str = "") -> None:
        super().__init__(message)
        self.details = details


@dataclass(frozen=True)
class Task:
    """One replication of one cell: everything a worker needs, and nothing else."""

    scenario_path: str
    overrides: Mapping[str, Any]
    quick: bool
    cell_index: int
    cell: Mapping[str, Any]
    rep: int
    seed: np.random.SeedSequence
    keep_records: bool


@dataclass(frozen=True)
class TaskResult:
    cell_index: int
    rep: int
    metrics: dict[str, float]
    #: the job records: a RecordLog (made a DataFrame by the process that gathers the results), a
    #: pandas.DataFrame (from stations that keep lists), or None when records are not kept
    records: Any
    seconds: float
    #: file name -> bytes a measure returned under ``"files"`` (curves, series), saved under --out
    files: dict[str, bytes] = dataclasses.field(default_factory=dict)


def standard_metrics(model: Model) -> dict[str, float]:
    """What ``measure`` defaults to: completed jobs, mean wait, response and bounded slowdown."""
    records = model.records()
    done = [r for r in records if r.status is Status.COMPLETED]
    waits = metrics.wait(done)
    return {
        "completed": float(len(done)),
        "wait_mean": float(waits.mean()) if waits.size else math.nan,
        "response_mean": float(metrics.response(done).mean()) if done else math.nan,
        "bounded_slowdown_mean": float(metrics.bounded_slowdown(done).mean()) if done else math.nan,
    }


def build_model(
    scenario: Scenario, cfg: Any, cell: Mapping[str, Any], seed: np.random.SeedSequence,
    env: simpy.Environment | None = None, rep: int = 0,
) -> Model:
    """Build (not run) the scenario's model for one cell and replication seed."""
    env = env if env is not None else simpy.Environment()
    model = scenario.build(env, cfg, dict(cell), Streams(seed, rep))
    if not isinstance(model, Model):
        raise ExperimentError(f"{scenario.path}: build() must return a schedlab Model, got {type(model).__name__}")
    return model


def _cell_config(scenario: Scenario, task: Task) -> Any:
    cfg = scenario.config(task.overrides, quick=task.quick)
    swept = {k: v for k, v in task.cell.items() if k in {f.name for f in dataclasses.fields(cfg)}}
    if swept:
        cfg = make_config(scenario.config_type, {**config_dict(cfg), **swept}, where=f"scenario {scenario.name!r}")
    return cfg


def run_task(task: Task) -> TaskResult:
    """Run one replication of one cell (in whatever process the executor chose)."""
    began = time.perf_counter()
    try:
        scenario = load_scenario(task.scenario_path)
        cfg = _cell_config(scenario, task)
        model = build_model(scenario, cfg, task.cell, task.seed, rep=task.rep).run()
        measured = dict((scenario.measure or standard_metrics)(model))
        files = _files(measured.pop("files", None) or {})
        values = {}
        for name, value in measured.items():
            try:
                values[name] = float(value)
            except (TypeError, ValueError):
                raise ExperimentError(f"measure() returned {name}={value!r}, which is not a number") from None
        frame = None
        if task.keep_records:
            records = model.records()
            # A RecordLog goes back as it is: 40 bytes a job to pickle, journal and send
            # between processes where its DataFrame is about 160; the frame is built once, at the end.
            frame = records if isinstance(records, RecordLog) else records_frame(records, **task.cell, rep=task.rep)
    except Exception as exc:  # carry the cause to the parent with the task's coordinates
        where = f"cell {task.cell_index} {dict(task.cell)} replication {task.rep}"
        raise ExperimentError(f"{where}: {type(exc).__name__}: {exc}", traceback.format_exc()) from None
    return TaskResult(task.cell_index, task.rep, values, frame, time.perf_counter() - began, files)


def _files(given: Mapping[str, Any]) -> dict[str, bytes]:
    """A measure's ``"files"``: name -> text, bytes or DataFrame (saved as CSV), as bytes."""
    out = {}
    for name, data in given.items():
        if hasattr(data, "to_csv"):
            data = data.to_csv(index=False)
        out[str(name)] = data.encode() if isinstance(data, str) else bytes(data)
    return out


def sweep_cells(scenario: Scenario, cfg: Any, grid: Mapping[str, Sequence[Any]] | None) -> list[dict[str, Any]]:
    """The cells of a run: each point of the sweep ``grid`` (config fields) times the scenario's cells."""
    points: list[dict[str, Any]] = [{}]
    if grid:
        names = list(grid)
        points = [dict(zip(names, combo, strict=True)) for combo in itertools.product(*(grid[n] for n in names))]
    out = []
    for point in points:
        where = f"scenario {scenario.name!r}"
        point_cfg = make_config(scenario.config_type, {**config_dict(cfg), **point}, where=where)
        for cell in scenario.cells(point_cfg):
            clash = set(cell) & set(point)
            if clash:
                raise ExperimentError(f"sweep keys {sorted(clash)} are also factors of the scenario's cells")
            out.append({**point, **cell})
    return out


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
    """Cancel what has not started and stop the workers now (Ctrl-C must not wait for every task)."""
    workers = list((getattr(pool, "_processes", None) or {}).values())  # before shutdown forgets them
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in workers:
        with contextlib.suppress(Exception):
            proc.terminate()


@contextmanager
def _executor(kind: ExecutorName | Executor, workers: int | None, address: str | None) -> Iterator[Executor | None]:
    if isinstance(kind, Executor):
        yield kind
        return
    if kind == "serial":
        yield None
        return
    n = workers or os.cpu_count() or 1
    if kind == "process":
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor  # imported by pool runs only: 10-18 ms

        # spawn: workers start clean (no forked threads or torch state); tasks carry all they need
        pool = ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_watch_parent, initargs=(os.getpid(),))
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
            raise ExperimentError(
                "--executor dask needs the dask extra: pip install 'schedlab[dask]'"
            ) from None
        if address:
            # TLS and credentials come from Dask's own config (distributed.comm.tls.*), as `dask` reads them.
            # Results come back unpickled: connect only to a scheduler you trust.
            with Client(address, security=Security()) as client:
                yield client.get_executor()
        else:
            with LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
                    Client(cluster) as client:
                yield client.get_executor()
        return
    raise ExperimentError(f"unknown executor {kind!r}; choose serial, process or dask")


class _NoBar:
    """A progress bar nobody sees: what tqdm does when disabled, without importing it (16-44 ms)."""

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, n: int = 1) -> None:
        pass


def _progress(total: int, show: bool | None) -> Any:
    # None: shown only when stderr is a terminal (tqdm's disable=None)
    if show is False or (show is None and not (sys.stderr is not None and sys.stderr.isatty())):
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="rep", leave=False)


#: work units (the product of a config's ``work=True`` fields, times replications) a run may need without ``force``
WORK_LIMIT = 1e12


def estimate_work(scenario: Scenario, cfg: Any, sweep: Mapping[str, Sequence[Any]] | None, reps: int) -> float:
    """A run's size before it starts: replications times each sweep point's declared work fields."""
    from schedlab.model.core.fields import work_units

    if not sweep:
        return work_units(cfg) * reps
    names = list(sweep)
    points = [dict(zip(names, combo, strict=True)) for combo in itertools.product(*(sweep[n] for n in names))]
    where = f"scenario {scenario.name!r}"
    return float(sum(work_units(make_config(scenario.config_type, {**config_dict(cfg), **p}, where=where))
                     for p in points) * reps)


def run(
    scenario: Scenario | str | Path,
    *,
    overrides: Mapping[str, Any] | None = None,
    sweep: Mapping[str, Sequence[Any]] | None = None,
    reps: int | None = None,
    seed: int = 0,
    quick: bool = False,
    executor: ExecutorName | Executor = "process",
    workers: int | None = None,
    address: str | None = None,
    keep_records: bool = True,
    progress: bool | None = None,
    on_result: Callable[[TaskResult], None] | None = None,
    out: str | Path | None = None,
    resume: bool = False,
    overwrite: bool = False,
    force: bool = False,
) -> Results:
    """Run every (cell, replication) of a scenario and aggregate each cell into one row.

    Parameters
    ----------
    scenario
        A loaded :class:`Scenario` or the path of a scenario script.
    overrides
        Config field -> value (strings are parsed by the field's type).
    sweep
        Config field -> values: one cell per combination, times the scenario's cells.
    reps
        Replications per cell (default: the scenario's ``REPS``).
    seed
        The run's seed; replication r of every cell uses the r-th spawned SeedSequence.
    quick
        Apply the scenario's ``QUICK`` overrides first.
    executor
        ``"serial"``, ``"process"`` (a local pool of ``workers`` processes, the
        default), ``"dask"`` (a local Dask cluster, or the scheduler at ``address``),
        or any ``concurrent.futures.Executor`` instance.
    address
        A Dask scheduler's address (``executor="dask"``). Results are unpickled from
        it, so it must be trusted; TLS settings come from Dask's config.
    keep_records
        Collect every job's record (tagged with its cell and replication).
    progress
        Show a progress bar: ``None`` shows it only on a terminal.
    on_result
        Called with each task's result as it finishes (in completion order).
    out
        Save here: checked before any work, each finished task journaled as it
        completes, the results written atomically at the end.
    resume
        With ``out``: run only the tasks missing from ``out``'s journal (the same run
        only: same script, settings, seed and schedlab version, else refused).
    overwrite
        With ``out``: replace an earlier run's results there (refused otherwise).
    force
        Run even when the estimated work exceeds :data:`WORK_LIMIT`.
    """
    from schedlab.experiment.store import Journal, check_out, run_identity, script_digest

    scn = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
    overrides = dict(overrides or {})
    cfg = scn.config(overrides, quick=quick)
    n_reps = scn.default_reps(cfg) if reps is None else reps
    seeds = replication_seeds(seed, n_reps)
    work = estimate_work(scn, cfg, sweep, n_reps)
    if work > WORK_LIMIT and not force:
        raise ExperimentError(
            f"this run is estimated at {work:.3g} work units (replications x the config's work fields), over "
            f"the limit of {WORK_LIMIT:.0e}: it would likely run out of memory or time. Lower them, or add --force"
        )
    journal = None
    if out is not None:
        out = Path(out)
        check_out(out, overwrite=overwrite, resume=resume)
        identity = run_identity(
            script=str(scn.path), digest=script_digest(scn.path), config=config_dict(cfg),
            sweep={k: list(v) for k, v in (sweep or {}).items()}, seed=seed, reps=n_reps, quick=quick,
            keep_records=keep_records,
        )
        journal = Journal(out, identity, resume=resume)
    cells = sweep_cells(scn, cfg, sweep)
    tasks = [
        Task(str(scn.path), overrides, quick, i, cell, r, seeds[r], keep_records)
        for i, cell in enumerate(cells)
        for r in range(n_reps)
    ]
    done = journal.done() if journal is not None and resume else {}
    results: list[TaskResult] = [done[(t.cell_index, t.rep)] for t in tasks if (t.cell_index, t.rep) in done]
    todo = [t for t in tasks if (t.cell_index, t.rep) not in done]
    began = time.perf_counter()

    def finished(result: TaskResult, bar: Any) -> None:
        results.append(result)
        if journal is not None:
            journal.add(result)  # before anything else: a kill after this line loses nothing
        bar.update()
        if on_result:
            on_result(result)

    with _executor(executor, workers, address) as pool, _progress(len(tasks), progress) as bar:
        bar.update(len(results))
        if pool is None:
            for task in todo:
                finished(run_task(task), bar)
        else:
            from concurrent.futures.process import BrokenProcessPool

            try:
                futures: list[Future[TaskResult]] = [pool.submit(run_task, t) for t in todo]
                try:
                    for fut in as_completed(futures):
                        finished(fut.result(), bar)
                except BaseException:
                    for fut in futures:  # Ctrl-C or a failed task: nothing more is started
                        fut.cancel()
                    raise
            except BrokenProcessPool as exc:
                raise ExperimentError(
                    "a worker process died. Called from a script? The pool starts workers with 'spawn', which "
                    "re-imports the script: put the call under `if __name__ == '__main__':`, or use "
                    "executor='serial'"
                ) from exc
    elapsed = time.perf_counter() - began
    results.sort(key=lambda r: (r.cell_index, r.rep))
    rows = aggregate(cells, [[r.metrics for r in results if r.cell_index == i] for i in range(len(cells))])
    replications = [{**cells[r.cell_index], "rep": r.rep, **r.metrics} for r in results]
    # the tasks' records as they came back: a DataFrame is made only when one is read or must be saved
    records = RunRecords([(r.records, cells[r.cell_index], r.rep) for r in results if r.records is not None]) \
        if keep_records else None
    executor_name = executor if isinstance(executor, str) else type(executor).__name__
    # one flat folder: a report globs series/*.csv; the prefix keeps two tasks' names apart
    files = {f"series/cell{r.cell_index}-rep{r.rep}-{name}": data for r in results for name, data in r.files.items()}
    outcome = Results(
        scenario=scn.name, seed=seed, reps=n_reps, quick=quick, config=config_dict(cfg),
        rows=rows, replications=replications, job_records=records,
        run_info={"executor": executor_name, "workers": workers, "seconds": elapsed,
                  "sweep": {k: list(v) for k, v in (sweep or {}).items()}, "cells": len(cells),
                  "seed_entropy": np.random.SeedSequence(seed).entropy, "script": str(scn.path),
                  "resumed_tasks": len(done), "estimated_work": work},
        extra_files=files,
    )
    if out is not None:
        outcome.save(out)
    return outcome

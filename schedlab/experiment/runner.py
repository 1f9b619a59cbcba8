"""Running a scenario: one replication, replications of every cell, sweeps, on any executor.

The runner turns (cell, replication) pairs into independent tasks, each carrying the
scenario's path, its config, the cell and the replication's seed. A task builds a
fresh ``simpy.Environment``, runs the model and measures it; it needs nothing from the
process that made it, so it runs the same serially, in a local process pool, or on any
``concurrent.futures.Executor`` (a Dask cluster's ``Client.get_executor()``).
Results come back in task order whatever order they finished in.
"""

from __future__ import annotations

import dataclasses
import math
import os
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import simpy

from schedlab.experiment.executors import ExecutorName, open_executor, pooled, progress_bar
from schedlab.experiment.output_folders import check_output_folders
from schedlab.experiment.results import Results, aggregate
from schedlab.experiment.run_records import RunRecords
from schedlab.experiment.run_settings import (
    REPLICATION_WORK_LIMIT,
    WORK_LIMIT,
    ExperimentError,
    RunSettings,
    Task,
    _sweep_points,
    check_work,
    estimate_work,
)
from schedlab.experiment.scenario import Scenario, config_dict, load_scenario, make_config
from schedlab.model.analysis import metrics
from schedlab.model.core.streams import Streams
from schedlab.model.records.job_record import Status
from schedlab.model.records.log import RecordLog
from schedlab.model.records.table import records_frame
from schedlab.processes.model import Model

__all__ = [
    "REPLICATION_WORK_LIMIT",
    "WORK_LIMIT",
    "ExperimentError",
    "RunSettings",
    "Task",
    "TaskResult",
    "build_model",
    "check_work",
    "estimate_work",
    "run",
    "run_task",
    "standard_metrics",
    "sweep_cells",
]

#: the name tests and older code import (a context manager: see executors.open_executor)
_executor = open_executor


@dataclass(frozen=True)
class TaskResult:
    """One replication of one cell, as the process that ran it hands it back: metrics, records, files, time."""

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
    scenario: Scenario,
    cfg: Any,
    cell: Mapping[str, Any],
    seed: np.random.SeedSequence,
    env: simpy.Environment | None = None,
    rep: int = 0,
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
        # metrics, and maybe "files" (name -> text, bytes or DataFrame): Any until each is read
        measured: dict[str, Any] = dict((scenario.measure or standard_metrics)(model))
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
    out = []
    for point in _sweep_points(grid):
        where = f"scenario {scenario.name!r}"
        point_cfg = make_config(scenario.config_type, {**config_dict(cfg), **point}, where=where)
        for cell in scenario.cells(point_cfg):
            clash = set(cell) & set(point)
            if clash:
                raise ExperimentError(f"sweep keys {sorted(clash)} are also factors of the scenario's cells")
            out.append({**point, **cell})
    return out


@dataclass
class _Saving:
    """A run's hold on ``out``: the lock, and the journal of its finished tasks."""

    out: Path
    lock: Any
    journal: Any


def _claim_out(settings: RunSettings, out: str | Path, *, resume: bool, overwrite: bool) -> _Saving:
    """Take ``out`` for this run before any work: checked, locked, its journal opened (or read back)."""
    import hashlib
    import json

    from schedlab.experiment.store import Journal, check_out

    identity = settings.identity()
    digest = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]
    out = Path(out)
    lock = check_out(out, overwrite=overwrite, resume=resume, settings=digest)
    assert lock is not None  # with settings, check_out takes the folder
    try:
        return _Saving(out, lock, Journal(out, identity, resume=resume, lock=lock))
    except BaseException:
        lock.release()
        raise


def _execute(
    todo: Iterable[Task],
    total: int,
    already: int,
    finished: Callable[[TaskResult], None],
    *,
    executor: ExecutorName | Executor,
    workers: int | None,
    address: str | None,
    progress: bool | None,
) -> None:
    """Run ``todo`` on the executor, calling ``finished`` with each result as it comes back."""
    with open_executor(executor, workers, address) as pool, progress_bar(total, progress) as bar:
        bar.update(already)
        if pool is None:
            for task in todo:
                finished(run_task(task))
                bar.update()
            return
        from concurrent.futures.process import BrokenProcessPool

        try:
            window = 4 * (workers or os.cpu_count() or 1) + 16
            for result in pooled(pool, run_task, todo, window, cancel=executor != "process"):
                finished(result)
                bar.update()
        except BrokenProcessPool as exc:
            raise ExperimentError(
                "a worker process died. Called from a script? The pool starts workers with 'spawn', which "
                "re-imports the script: put the call under `if __name__ == '__main__':`, or use "
                "executor='serial'"
            ) from exc


def _outcome(
    settings: RunSettings, cells: list[dict[str, Any]], results: list[TaskResult], run_info: dict[str, Any]
) -> Results:
    """The aggregated rows, the replications, the records and the measures' files of a finished run."""
    results.sort(key=lambda r: (r.cell_index, r.rep))
    rows = aggregate(cells, [[r.metrics for r in results if r.cell_index == i] for i in range(len(cells))])
    replications = [{**cells[r.cell_index], "rep": r.rep, **r.metrics} for r in results]
    # the tasks' records as they came back: a DataFrame is made only when one is read or must be saved
    records = (
        RunRecords([(r.records, cells[r.cell_index], r.rep) for r in results if r.records is not None])
        if settings.keep_records
        else None
    )
    # one flat folder: a report globs series/*.csv; the prefix keeps two tasks' names apart
    files = {f"series/cell{r.cell_index}-rep{r.rep}-{name}": data for r in results for name, data in r.files.items()}
    return Results(
        scenario=settings.scenario.name,
        seed=settings.seed,
        reps=settings.reps,
        quick=settings.quick,
        config=config_dict(settings.cfg),
        rows=rows,
        replications=replications,
        job_records=records,
        run_info={
            **run_info,
            "sweep": dict(settings.sweep),
            "cells": len(cells),
            "seed_entropy": np.random.SeedSequence(settings.seed).entropy,
            "script": str(settings.scenario.path),
        },
        extra_files=files,
    )


def scenario_warnings(scenario: Scenario, cfg: Any) -> list[str]:
    """The scenario's warnings for ``cfg`` (its ``warnings(cfg)``, if it defines one), each a line.

    A run keeps them in ``manifest.json`` (``run.warnings``) and the command line prints
    them: a result read without them can mislead (conservative backfilling whose
    guarantee does not hold for the placement, for one).
    """
    return [str(line) for line in scenario.warnings(cfg)] if scenario.warnings is not None else []


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
    save_also: Callable[[Path], Any] | None = None,
) -> Results:
    """Run every (cell, replication) of a scenario and aggregate each cell into one row.

    The steps, each its own function: :meth:`RunSettings.make` (config, replications),
    :func:`check_work` (the estimate, before any seed or task exists), the folders the
    config writes into tried (:func:`check_output_folders`), ``out`` claimed
    (checked, locked, journal opened), the tasks run on the executor, the results
    aggregated and saved.

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
        Save here: checked and locked before any work (a second run on the same
        folder is refused while this one lives), each finished task journaled as it
        completes, the results written atomically at the end.
    resume
        With ``out``: run only the tasks missing from ``out``'s journal (the same run
        only: same script, settings, seed and schedlab version, else refused; task
        files of another run id are refused and run again).
    overwrite
        With ``out``: replace an earlier run's results there (refused otherwise, and
        while another run holds the folder).
    force
        Run even when the estimated work reaches :data:`WORK_LIMIT`, or one replication's
        :data:`REPLICATION_WORK_LIMIT`.
    save_also
        With ``out``: called with the save's new folder once the results are written
        there, to add files of its own (``--batsim-jobs``); they are saved with the
        results while the run still holds ``out``.
    """
    settings = RunSettings.make(
        scenario, overrides=overrides, sweep=sweep, reps=reps, seed=seed, quick=quick, keep_records=keep_records
    )
    work = check_work(settings, force=force)
    check_output_folders(settings)  # a bad series_dir or pool_log stops the run now, not after hours of cells
    said = scenario_warnings(settings.scenario, settings.cfg)
    saving = _claim_out(settings, out, resume=resume, overwrite=overwrite) if out is not None else None
    try:
        cells = sweep_cells(settings.scenario, settings.cfg, settings.sweep)
        done = saving.journal.done() if saving is not None and resume else {}
        results: list[TaskResult] = list(done.values())

        def finished(result: TaskResult) -> None:
            results.append(result)
            if saving is not None:
                saving.journal.add(result)  # before anything else: a kill after this line loses nothing
            if on_result:
                on_result(result)

        began = time.perf_counter()
        todo = (t for t in settings.tasks(cells) if (t.cell_index, t.rep) not in done)
        _execute(
            todo,
            len(cells) * settings.reps,
            len(done),
            finished,
            executor=executor,
            workers=workers,
            address=address,
            progress=progress,
        )
        run_info = {
            "executor": executor if isinstance(executor, str) else type(executor).__name__,
            "workers": workers,
            "seconds": time.perf_counter() - began,
            "resumed_tasks": len(done),
            "foreign_tasks": saving.journal.foreign if saving is not None else 0,
            "estimated_work": work,
            "warnings": said,
        }
        outcome = _outcome(settings, cells, results, run_info)
        if saving is not None:
            outcome.save(saving.out, lock=saving.lock, also=save_also)
        return outcome
    finally:
        if saving is not None:
            saving.lock.release()

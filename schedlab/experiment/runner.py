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
import itertools
import math
import os
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import simpy

from schedlab.experiment.results import Results, aggregate
from schedlab.experiment.scenario import Scenario, config_dict, load_scenario, make_config
from schedlab.experiment.seeding import Streams, replication_seeds
from schedlab.model import metrics
from schedlab.model.records import Status, records_frame
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
    records: Any  # pandas.DataFrame or None
    seconds: float


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
        measured = (scenario.measure or standard_metrics)(model)
        values = {}
        for name, value in measured.items():
            try:
                values[name] = float(value)
            except (TypeError, ValueError):
                raise ExperimentError(f"measure() returned {name}={value!r}, which is not a number") from None
        frame = None
        if task.keep_records:
            frame = records_frame(model.records(), **task.cell, rep=task.rep)
    except Exception as exc:  # carry the cause to the parent with the task's coordinates
        where = f"cell {task.cell_index} {dict(task.cell)} replication {task.rep}"
        raise ExperimentError(f"{where}: {type(exc).__name__}: {exc}", traceback.format_exc()) from None
    return TaskResult(task.cell_index, task.rep, values, frame, time.perf_counter() - began)


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

        # spawn: workers start clean (no forked threads or torch state); tasks carry all they need
        with ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("spawn")) as pool:
            yield pool
        return
    if kind == "dask":
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise ExperimentError(
                "--executor dask needs the dask extra: pip install 'schedlab[dask]'"
            ) from None
        if address:
            with Client(address) as client:
                yield client.get_executor()
        else:
            with LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
                    Client(cluster) as client:
                yield client.get_executor()
        return
    raise ExperimentError(f"unknown executor {kind!r}; choose serial, process or dask")


def _progress(total: int, show: bool | None) -> Any:
    from tqdm.auto import tqdm

    # disable=None: shown only when stderr is a terminal
    return tqdm(total=total, unit="rep", disable=None if show is None else not show, leave=False)


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
    keep_records
        Collect every job's record (tagged with its cell and replication).
    progress
        Show a progress bar: ``None`` shows it only on a terminal.
    """
    scn = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
    overrides = dict(overrides or {})
    cfg = scn.config(overrides, quick=quick)
    n_reps = scn.default_reps(cfg) if reps is None else reps
    seeds = replication_seeds(seed, n_reps)
    cells = sweep_cells(scn, cfg, sweep)
    tasks = [
        Task(str(scn.path), overrides, quick, i, cell, r, seeds[r], keep_records)
        for i, cell in enumerate(cells)
        for r in range(n_reps)
    ]
    began = time.perf_counter()
    results: list[TaskResult] = []
    with _executor(executor, workers, address) as pool, _progress(len(tasks), progress) as bar:
        if pool is None:
            for task in tasks:
                results.append(run_task(task))
                bar.update()
                if on_result:
                    on_result(results[-1])
        else:
            try:
                futures: list[Future[TaskResult]] = [pool.submit(run_task, t) for t in tasks]
                for fut in futures:
                    results.append(fut.result())
            except BrokenProcessPool as exc:
                raise ExperimentError(
                    "a worker process died. Called from a script? The pool starts workers with 'spawn', which "
                    "re-imports the script: put the call under `if __name__ == '__main__':`, or use "
                    "executor='serial'"
                ) from exc
                bar.update()
                if on_result:
                    on_result(results[-1])
    elapsed = time.perf_counter() - began
    results.sort(key=lambda r: (r.cell_index, r.rep))
    rows = aggregate(cells, [[r.metrics for r in results if r.cell_index == i] for i in range(len(cells))])
    replications = [{**cells[r.cell_index], "rep": r.rep, **r.metrics} for r in results]
    records = None
    if keep_records:
        import pandas as pd

        frames = [r.records for r in results if r.records is not None]
        records = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    executor_name = executor if isinstance(executor, str) else type(executor).__name__
    return Results(
        scenario=scn.name, seed=seed, reps=n_reps, quick=quick, config=config_dict(cfg),
        rows=rows, replications=replications, records=records,
        run_info={"executor": executor_name, "workers": workers, "seconds": elapsed,
                  "sweep": {k: list(v) for k, v in (sweep or {}).items()}, "cells": len(cells),
                  "seed_entropy": np.random.SeedSequence(seed).entropy, "script": str(scn.path)},
    )

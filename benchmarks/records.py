"""The records path: keeping a run's job records, and turning them into the saved DataFrame.

    python benchmarks/records.py                      # 300,000 records, best of 3
    python benchmarks/records.py --records 1000000    # the memory benchmark's size

One process, the two ways interleaved, best of ``--repeat``:

- **keep**: ``RecordLog.add`` for every job of an M/M/1-like log (one CPU, no
  estimate, no time-utility function, as ``Machine`` logs a completion nobody listens
  to): microseconds a record, and the log's bytes a record (``tracemalloc``), against a
  list of the ``JobRecord`` tuples ``job_record`` makes (what a machine kept before
  the log).
- **frame**: ``records_frame(log)``, built from the log's arrays, against
  ``records_frame(list(log))``, built from the record tuples (what the runner did
  before: ``Model.records()`` made the tuples, pandas read them row by row); seconds,
  and the ``tracemalloc`` peak of each above the log (the transient memory of the
  build). Both frames are checked equal, column for column and dtype for dtype.
- **ship**: the pickled size of what a task sends back and journals: the log
  (what the runner sends now) against the frame (what it sent before).

``--phases`` instead times, in this process, each step of ``schedlab run
scenarios/mmc.py --reps 1 --executor serial --set c=50 --set arrival_rate=45 --set
customers=N --out TMP`` (``run`` split as the runner does it): the simulation, and
what is around it (records, ``measure``, the DataFrame, the journal, saving).
``--start-to-finish`` runs that command and ``startup.py``'s 40-line SimPy script as
child processes, interleaved, and compares their **CPU** time (user + system, from
``RUSAGE_CHILDREN``), which the shared machine's load moves much less than their
wall-clock time; the ratio is script / schedlab, as ``startup.py``'s (target >= 0.9).

The records are synthetic (a named numpy stream; float times, one CPU, completion
order): the sizes and times of a real M/M/50 run's log, without its simulation.
Nothing is asserted about time.
"""

from __future__ import annotations

import argparse
import gc
import pickle
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from schedlab.model.core.job import Job
from schedlab.model.records.job_record import Status
from schedlab.model.records.log import RecordLog
from schedlab.model.records.table import job_record, records_frame


def _jobs(n: int, seed: int) -> list[tuple[Job, float, float]]:
    """``n`` jobs of one CPU with their start and end times, from the ``records`` stream."""
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])  # the benchmark's one named stream
    submit = np.cumsum(rng.exponential(1 / 45, n)).tolist()
    runtime = rng.exponential(1.0, n).tolist()
    wait = rng.exponential(0.08, n).tolist()
    return [(Job(i, s, r), s + w, s + w + r) for i, (s, r, w) in enumerate(zip(submit, runtime, wait, strict=True))]


def _keep_log(jobs: list[tuple[Job, float, float]]) -> RecordLog:
    log = RecordLog()
    for job, start, end in jobs:
        log.add(job, "cpus", Status.COMPLETED, start, end, (end - start) * job.cpus)
    return log


def _keep_tuples(jobs: list[tuple[Job, float, float]]) -> list[Any]:
    return [
        job_record(job, "cpus", Status.COMPLETED, start=start, end=end, cpu_time=(end - start) * job.cpus)
        for job, start, end in jobs
    ]


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    gc.collect()
    began = time.perf_counter()
    out = fn()
    return time.perf_counter() - began, out


def _traced(fn: Callable[[], Any]) -> tuple[int, int, Any]:
    """Bytes ``fn``'s result holds, and the peak above the start while it ran."""
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    out = fn()
    held, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return held - base, peak - base, out


def phases(customers: int) -> None:
    """Seconds (wall and CPU) of each step of one mmc run, as ``run_task`` and ``run`` take them."""
    from schedlab.experiment import runner
    from schedlab.experiment.results import Results, aggregate
    from schedlab.experiment.runner import Task, TaskResult, _cell_config, build_model
    from schedlab.experiment.scenario import load_scenario
    from schedlab.experiment.seeding import replication_seeds
    from schedlab.experiment.store import Journal

    steps: list[tuple[str, float, float]] = []
    clock = [time.perf_counter(), time.process_time()]

    def step(name: str) -> None:
        now = [time.perf_counter(), time.process_time()]
        steps.append((name, now[0] - clock[0], now[1] - clock[1]))
        clock[:] = now

    with tempfile.TemporaryDirectory() as tmp:
        scenario = load_scenario(Path(__file__).resolve().parent.parent / "scenarios" / "mmc.py")
        overrides = {"c": "50", "arrival_rate": "45", "customers": str(customers)}
        task = Task(str(scenario.path), overrides, False, 0, {}, 0, replication_seeds(0, 1)[0], True)
        model = build_model(scenario, _cell_config(scenario, task), {}, task.seed)
        step("load the scenario, build the model")
        model.run()
        step("simulate (env.run)")
        metrics = dict(scenario.measure(model))  # type: ignore[misc]  # a scenario script is loaded at run time: its measure() has no static type
        step("measure (mmc's own, over model.records())")
        records = model.records()
        step("model.records() (the runner's)")
        if not hasattr(runner, "RunRecords") and not hasattr(runner, "_records_frame"):  # an older checkout
            records = records_frame(records, rep=0)
            step("records' DataFrame (in the task, from the record tuples)")
        result = TaskResult(0, 0, metrics, records, 0.0)
        Journal(Path(tmp) / "out", {"run": 1}, resume=False).add(result)
        step("journal the task (pickle, write, fsync)")
        rows = aggregate([{}], [[metrics]])
        if hasattr(runner, "RunRecords"):  # the records saved from the log, a DataFrame made only if read
            results = Results(
                "mmc", 0, 1, False, {}, rows, [{"rep": 0, **metrics}], runner.RunRecords([(records, {}, 0)])
            )
        else:
            if hasattr(runner, "_records_frame"):
                records = runner._records_frame(result, {})
                step("records' DataFrame (once, from the log's arrays)")
            results = Results("mmc", 0, 1, False, {}, rows, [{"rep": 0, **metrics}], records)
        step("aggregate (summary statistics)")
        results.save(Path(tmp) / "out")
        step("save (summary, replications, records.parquet, manifest)")
    print(f"mmc, M/M/50, {customers:,} customers, one run in this process (imports not counted):")
    for name, wall, cpu in steps:
        print(f"  {name:<58} {wall:7.3f} s wall {cpu:7.3f} s CPU")
    outside = [s for s in steps if not s[0].startswith("simulate")]
    print(
        f"  {'all but the simulation':<58} {sum(s[1] for s in outside):7.3f} s wall "
        f"{sum(s[2] for s in outside):7.3f} s CPU"
    )


def _child_cpu(cmd: list[str]) -> float:
    """User + system CPU seconds of one child process run to its end."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    # outside the repository: ``python -c`` puts its folder first on sys.path, which would
    # shadow the checkout PYTHONPATH names (see startup.py)
    subprocess.run(cmd, capture_output=True, check=True, cwd=tempfile.gettempdir())
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def start_to_finish(customers: int, repeat: int) -> None:
    """CPU time of ``schedlab run`` mmc against startup.py's SimPy script, interleaved, best of ``repeat``."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from startup import SCRIPT, _cli

    best = {"schedlab": float("inf"), "script": float("inf")}
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "mmc_simpy.py"
        script.write_text(SCRIPT)
        for i in range(repeat):
            ours = _cli(
                "--set", "c=50", "--set", "arrival_rate=45", "--set", f"customers={customers}", "--out", f"{tmp}/run{i}"
            )
            best["schedlab"] = min(best["schedlab"], _child_cpu(ours))
            best["script"] = min(best["script"], _child_cpu([sys.executable, str(script), str(customers)]))
    print(f"M/M/50, {customers:,} customers, start to finish, CPU time (user + system), best of {repeat}:")
    print(f"  schedlab run    {best['schedlab']:7.2f} s")
    print(f"  SimPy script    {best['script']:7.2f} s")
    print(f"  ratio script / schedlab: {best['script'] / best['schedlab']:.2f} (target >= 0.9)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=300_000, help="records or customers (default 300000)")
    parser.add_argument("--repeat", type=int, default=3, help="interleaved runs of each way; best kept (default 3)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--phases", action="store_true", help="time each step of one mmc run instead")
    parser.add_argument(
        "--start-to-finish", action="store_true", help="CPU time of schedlab run mmc against the SimPy script instead"
    )
    args = parser.parse_args(argv)
    n = args.records
    if args.phases:
        phases(n)
        return
    if args.start_to_finish:
        start_to_finish(n, args.repeat)
        return
    jobs = _jobs(n, args.seed)

    best = {"log": float("inf"), "tuples": float("inf"), "arrays": float("inf"), "rows": float("inf")}
    for _ in range(args.repeat):
        seconds, log = _timed(lambda: _keep_log(jobs))
        best["log"] = min(best["log"], seconds)
        seconds, _ = _timed(lambda: _keep_tuples(jobs))
        best["tuples"] = min(best["tuples"], seconds)
        seconds, ours = _timed(lambda: records_frame(log, rep=0))  # noqa: B023 - called at once
        best["arrays"] = min(best["arrays"], seconds)
        seconds, theirs = _timed(lambda: records_frame(list(log), rep=0))  # noqa: B023
        best["rows"] = min(best["rows"], seconds)
    pd.testing.assert_frame_equal(ours, theirs, check_exact=True)
    del ours, theirs

    log_bytes, _, log = _traced(lambda: _keep_log(jobs))
    tuple_bytes, _, tuples = _traced(lambda: _keep_tuples(jobs))
    del tuples
    frame_bytes, arrays_peak, frame = _traced(lambda: records_frame(log, rep=0))
    _, rows_peak, _ = _traced(lambda: records_frame(list(log), rep=0))
    shipped_log, shipped_frame = len(pickle.dumps(log, 5)), len(pickle.dumps(frame, 5))

    mib = 2**20
    print(f"{n:,} records, best of {args.repeat} (one process, interleaved)")
    print(
        f"  keep:  RecordLog.add {1e6 * best['log'] / n:.2f} us, {log_bytes / n:.0f} B a record"
        f"  | JobRecord tuples {1e6 * best['tuples'] / n:.2f} us, {tuple_bytes / n:.0f} B a record"
        f"  | bytes tuples / log {tuple_bytes / log_bytes:.1f}"
    )
    print(
        f"  frame: from the arrays {best['arrays']:.3f} s, peak {arrays_peak / mib:.0f} MiB"
        f"  | from the tuples {best['rows']:.3f} s, peak {rows_peak / mib:.0f} MiB"
        f"  | time tuples / arrays {best['rows'] / best['arrays']:.1f}"
        f"  (the frame itself: {frame_bytes / mib:.0f} MiB)"
    )
    print(f"  ship:  pickled log {shipped_log / mib:.1f} MiB | pickled frame {shipped_frame / mib:.1f} MiB")


if __name__ == "__main__":
    main()

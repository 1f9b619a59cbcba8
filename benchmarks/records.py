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

The records are synthetic (a named numpy stream; float times, one CPU, completion
order): the sizes and times of a real M/M/50 run's log, without its simulation.
Nothing is asserted about time.
"""

from __future__ import annotations

import argparse
import gc
import pickle
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from schedlab.model.job import Job
from schedlab.model.records import RecordLog, Status, job_record, records_frame


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
    return [job_record(job, "cpus", Status.COMPLETED, start=start, end=end, cpu_time=(end - start) * job.cpus)
            for job, start, end in jobs]


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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=300_000, help="records (default 300000)")
    parser.add_argument("--repeat", type=int, default=3, help="interleaved runs of each way; best kept (default 3)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    n = args.records
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
    print(f"  keep:  RecordLog.add {1e6 * best['log'] / n:.2f} us, {log_bytes / n:.0f} B a record"
          f"  | JobRecord tuples {1e6 * best['tuples'] / n:.2f} us, {tuple_bytes / n:.0f} B a record"
          f"  | bytes tuples / log {tuple_bytes / log_bytes:.1f}")
    print(f"  frame: from the arrays {best['arrays']:.3f} s, peak {arrays_peak / mib:.0f} MiB"
          f"  | from the tuples {best['rows']:.3f} s, peak {rows_peak / mib:.0f} MiB"
          f"  | time tuples / arrays {best['rows'] / best['arrays']:.1f}"
          f"  (the frame itself: {frame_bytes / mib:.0f} MiB)")
    print(f"  ship:  pickled log {shipped_log / mib:.1f} MiB | pickled frame {shipped_frame / mib:.1f} MiB")


if __name__ == "__main__":
    main()

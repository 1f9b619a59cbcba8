"""Each tool's replay, measured: the pieces of benchmarks/replay.py that time one replay.

``replay.py`` runs every tool in its own fresh process (``replay.py --worker ...``) and
compares their schedules and times in one table; this module is what such a worker
runs, and what ``--inprocess`` and ``--profile`` run in replay.py's own process:

- the schedlab side: the replay model built as ``replay_model`` builds it where this
  checkout allows (``build_schedlab``, with :class:`_OneAtATime` while the Machine
  applies one action per policy call) and its timed run, ``worker_schedlab``;
- the heapq references (``_heapq_replay.py``, ``_heapq_conservative.py``) reading the
  cleaned SWF file, ``worker_heapq``;
- both simulations in one process, interleaved (``inprocess_ratio``), and a cProfile of
  schedlab's (``profile_schedlab``).

A worker writes its schedule, ``(id, submit, start, end)`` per completed job, as JSON for
replay.py to compare. Kept apart from replay.py so that the script reads as the
comparison (which tools, in which processes, the table) and this file as the
measurement of one tool. Like the other ``_*.py`` files here it is imported from
beside the script.
"""

from __future__ import annotations

import cProfile
import io
import json
import math
import pstats
import time
import tracemalloc
from collections.abc import Sequence
from typing import Any

# --------------------------------------------------------------------------- schedlab


class _OneAtATime:
    """A generator policy (``EASY``, ``Priority``) served one action per call.

    Used only while :class:`~schedlab.processes.machine.machine.Machine` still expects a policy
    to return one action (or ``None``) per call: the machine applies each action
    before asking again, so the generator sees every start before it yields the next,
    exactly as a machine that consumed the iterator itself would.
    """

    __slots__ = ("_current", "policy")

    def __init__(self, policy: Any) -> None:
        self.policy = policy
        self._current: Any = None

    def __call__(self, view: Any) -> Any:
        if self._current is None:
            self._current = iter(self.policy(view))
        action = next(self._current, None)
        if action is None:
            self._current = None
        return action

    def __repr__(self) -> str:
        return f"_OneAtATime({self.policy})"


def _machine_takes_iterators() -> bool:
    """Whether this checkout's Machine applies a policy's iterator of actions itself."""
    import simpy

    from schedlab.model.core.job import Job
    from schedlab.processes.machine.machine import Machine, PolicyError

    env = simpy.Environment()
    machine = Machine(env, 1, lambda view: iter(()))
    try:
        machine.submit(Job(id=1, submit=0.0, runtime=1.0, cpus=1))
    except PolicyError:
        return False
    return True


def build_schedlab(env: Any, jobs: Sequence[Any], procs: int, batch: bool, backfill: str = "easy") -> tuple[Any, str]:
    """The replay model, built as ``replay_model`` builds it where this checkout allows."""
    from schedlab.policies.batch import BACKFILLS, make_policy
    from schedlab.processes.machine.machine import Machine
    from schedlab.processes.machine.replay import replay_model
    from schedlab.processes.model import Model
    from schedlab.processes.source import Source

    if backfill == "conservative" and "conservative-rebuild" in BACKFILLS:
        backfill = "conservative-rebuild"  # the reading _heapq_conservative.py transcribes (issue 25)
    policy = make_policy("fcfs", backfill)
    iterators = _machine_takes_iterators()
    if not iterators:
        policy = _OneAtATime(policy)
    try:
        kwargs = {"batch_decisions": True} if batch else {}
        how = "replay_model" + ("" if iterators else ", policy served one action per call")
        return replay_model(env, jobs, procs, policy, **kwargs), how
    except TypeError as exc:
        if "batch_decisions" not in str(exc):
            raise
        if batch:
            raise SystemExit(f"--batch-decisions: this checkout's Machine does not take it ({exc})") from None
    # replay_model passes batch_decisions=, which this checkout's Machine does not take yet
    machine = Machine(env, procs, policy)
    Source(env, jobs, machine)
    how = "Machine(env, procs, policy) directly" + (", policy served one action per call" if not iterators else "")
    return Model(env, [machine], parts={"machine": machine}), how


def new_env() -> Any:
    """A fresh SimPy environment (imported here: the orchestrator never needs SimPy)."""
    import simpy

    return simpy.Environment()


def worker_schedlab(trace: str, schedule: str, traced: bool, batch: bool, backfill: str = "easy") -> dict[str, Any]:
    from schedlab.model.formats.logs import evaluate, load_log
    from schedlab.model.records.job_record import Status

    rss_imported = _maxrss_kib()
    if traced:
        tracemalloc.start()
    t0 = time.perf_counter()
    loaded = load_log(trace)
    t1 = time.perf_counter()
    load_peak = tracemalloc.get_traced_memory()[1] if traced else None
    env = new_env()
    model, how = build_schedlab(env, loaded.jobs, loaded.cpus, batch, backfill)
    model.run()
    t2 = time.perf_counter()
    records = model.records()
    measured = evaluate(records, loaded.cpus)
    t3 = time.perf_counter()
    peak = tracemalloc.get_traced_memory()[1] if traced else None
    rows = [(r.id, r.submit, r.start, r.end) for r in records if r.status is Status.COMPLETED]
    _write_rows(schedule, rows)
    return {
        "tool": "schedlab",
        "how": how,
        "jobs": len(rows),
        "loaded": len(loaded.jobs),
        "load_s": t1 - t0,
        "sim_s": t2 - t1,
        "metrics_s": t3 - t2,
        "evaluate": measured,
        "rss_imported_kib": rss_imported,
        "maxrss_kib": _maxrss_kib(),
        "tracemalloc_peak": peak,
        "tracemalloc_load_peak": load_peak,
    }


# --------------------------------------------------------------------------- heapq reference


def read_plain_swf(path: str) -> list[tuple[int, float, float, int, float]]:
    """(id, submit, run time, CPUs, requested time) of each line of a cleaned SWF file."""
    jobs = []
    with open(path) as f:
        for line in f:
            if line.startswith(";") or not line.strip():
                continue
            v = line.split()
            jobs.append((int(v[0]), float(v[1]), float(v[3]), int(v[4]), float(v[8])))
    return jobs


def reference_replay(rule: str) -> Any:
    """The heapq reference's ``replay(jobs, procs)`` for ``rule``: easy, accasim or conservative."""
    if rule == "conservative":
        from _heapq_conservative import replay as conservative

        return conservative
    from _heapq_replay import replay as easy

    return lambda jobs, procs: easy(jobs, procs, rule)


def worker_heapq(swf: str, procs: int, rule: str, schedule: str, traced: bool) -> dict[str, Any]:
    replay = reference_replay(rule)

    rss_imported = _maxrss_kib()
    if traced:
        tracemalloc.start()
    t0 = time.perf_counter()
    jobs = read_plain_swf(swf)
    t1 = time.perf_counter()
    starts = replay(jobs, procs)
    t2 = time.perf_counter()
    rows = [(j[0], j[1], s, s + j[2]) for j, s in zip(jobs, starts, strict=True)]
    peak = tracemalloc.get_traced_memory()[1] if traced else None
    _write_rows(schedule, rows)
    return {
        "tool": f"heapq-{rule}",
        "jobs": len(rows),
        "load_s": t1 - t0,
        "sim_s": t2 - t1,
        "metrics_s": 0.0,
        "rss_imported_kib": rss_imported,
        "maxrss_kib": _maxrss_kib(),
        "tracemalloc_peak": peak,
    }


# --------------------------------------------------------------------------- in this process


def profile_schedlab(trace: str, top: int, batch: bool, backfill: str = "easy") -> str:
    """cProfile of schedlab's simulation of the whole trace (load excluded): top functions two ways."""
    from schedlab.model.formats.logs import load_log

    loaded = load_log(trace)
    env = new_env()
    model, _ = build_schedlab(env, loaded.jobs, loaded.cpus, batch, backfill)
    profiler = cProfile.Profile()
    profiler.enable()
    model.run()
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).strip_dirs()
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)
    return out.getvalue()


def inprocess_ratio(trace: str, backfill: str, repeat: int, batch: bool) -> str:
    """Both simulations timed in this process, interleaved, best of ``repeat``; their schedules compared."""
    from schedlab.model.formats.logs import load_log

    loaded = load_log(trace)
    tuples = [(j.id, j.submit, j.runtime, j.cpus, j.requested_time) for j in loaded.jobs]
    reference = reference_replay(backfill)
    best_s = best_h = math.inf
    differ = 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        model, _ = build_schedlab(new_env(), loaded.jobs, loaded.cpus, batch, backfill)
        model.run()
        t1 = time.perf_counter()
        starts = reference(tuples, loaded.cpus)
        t2 = time.perf_counter()
        best_s, best_h = min(best_s, t1 - t0), min(best_h, t2 - t1)
        mine = {r.id: r.start for r in model.records()}
        differ = sum(1 for j, s in zip(tuples, starts, strict=True) if mine.get(j[0]) != s)
    n = len(tuples)
    return (
        f"in-process, interleaved, best of {repeat}: schedlab {best_s:.2f} s ({best_s / n * 1e6:.1f} us/job), "
        f"heapq reference {best_h:.2f} s ({best_h / n * 1e6:.1f} us/job); starts that differ: {differ}\n"
        f"speed schedlab / heapq reference, FCFS + {backfill}, in-process: {best_h / best_s:.2f} "
        f"(issue 16's target >= 0.75)"
    )


# --------------------------------------------------------------------------- helpers


def _maxrss_kib() -> int:
    """Peak RSS of this process in KiB (see benchmarks/_memory.py)."""
    from _memory import peak_rss_kib  # beside this script; the AccaSim driver shares it

    return peak_rss_kib()


def _write_rows(path: str, rows: list[tuple[Any, ...]]) -> None:
    with open(path, "w") as f:
        json.dump(sorted(rows), f)

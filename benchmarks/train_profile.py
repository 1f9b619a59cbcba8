"""Where the time of RLScheduler's search goes: one generation's member tasks, in one process.

The tasks are those of the first generation of ``train_speedup.py --kind rlscheduler``
(HPC2N's first 10,000 jobs, or ``--log``'s; 16 antithetic pairs, 32 sequences of 256
jobs a member, half of them with EASY backfilling, seed 0): captured from
:func:`~schedlab.training.rlscheduler.search.evolve` itself by an executor that records
them, so they are the search's own. Each member task is a chunk of 8 sequences
(:func:`~schedlab.training.rlscheduler.search.plan_scores`). Printed:

1. **breakdown**: the CPU time of the tasks split by timers around the chooser's parts
   (which jobs are shown, their feature rows, the scorer's forward pass, the choice: the
   mask and argmax), the rest being the simulation (SimPy, the Machine, RLScheduler's
   loop and its backfilling, the records, the sequence's score); with the decisions per
   sequence and the mean queue length scored. Under ``--path padded`` the chooser is
   the one before the rows-only path (a padded 128-row observation, ``predict`` with its
   mask), under ``--path rows`` the current per-sequence one; under ``lockstep`` the
   same timers, the driver's own code counted with the simulation.
2. **cProfile**: the own time of every function, summed by area (cProfile's overhead
   weighs on many small calls, so these shares lean toward the simulation's code).
3. **paths**: the same tasks scored three ways, interleaved, several rounds: ``padded``
   (before), ``rows`` (per sequence), ``lockstep`` (the chunk's 8 sequences stepped
   together, one batched forward pass per round of decisions:
   :mod:`schedlab.envs.rlscheduler.lockstep`); CPU seconds, sequences per CPU second,
   ratios to ``padded`` per round (median and range), and whether all give the same scores.
4. **pool**: the tasks called here against the same tasks through a warm 1-worker spawn
   pool (wall time, and the bytes pickled per task and per result).

    PYTHONPATH=$PWD python benchmarks/train_profile.py --tasks 32 --rounds 5
    PYTHONPATH=$PWD python benchmarks/train_profile.py --log lublin_256 --draw-within 0 --parts paths
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import multiprocessing
import pickle
import pstats
import statistics
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

import schedlab.envs.rlscheduler.env as env_module
import schedlab.envs.rlscheduler.lockstep as lockstep_module
from schedlab.envs.rlscheduler.env import ModelChooser, RLSchedulerConfig, RLSchedulerEnv, sequence_scores
from schedlab.envs.rlscheduler.lockstep import lockstep_scores
from schedlab.envs.rlscheduler.obs import log_features
from schedlab.envs.rlscheduler.scorer import KernelScorer
from schedlab.training.rlscheduler.search import plan_scores
from schedlab.training.search import gather

LOGS = Path(__file__).resolve().parents[2] / "shared" / "traces"
Plan = list[tuple[RLSchedulerConfig, int]]


class PaddedChooser(ModelChooser):
    """The chooser before the rows-only path: a padded observation of ``queue`` rows and ``predict`` with its mask."""

    def choose(self, view: Any) -> Any:
        waiting = view.waiting
        if len(waiting) == 1:
            return waiting[0]
        shown = env_module.visible_jobs(waiting, self.queue)
        obs = env_module.observe(shown, view.now, view.free, self.features, self.queue)
        mask = np.zeros(self.queue, dtype=bool)
        mask[: len(shown)] = True
        action, _ = self.model.predict(obs, deterministic=True, action_masks=mask)
        slot = int(action)
        return shown[slot] if slot < len(shown) else shown[0]


def per_sequence(scorer: KernelScorer, plan: Plan, chooser: type[ModelChooser]) -> list[float]:
    """The plan's scores one sequence at a time (``sequence_scores``), with ``chooser``."""
    out = []
    for cfg, start in plan:
        loaded = cfg.loaded
        features = log_features(str(cfg.path), loaded.cpus * loaded.procs_per_node)
        out += sequence_scores(cfg, lambda b, c=cfg, f=features: chooser(scorer, f, c.queue, b), [start])  # type: ignore[misc]  # a default binds each sequence's own
    return out


PATHS: dict[str, Callable[[KernelScorer, Plan], list[float]]] = {
    "padded": lambda s, p: per_sequence(s, p, PaddedChooser),
    "rows": lambda s, p: per_sequence(s, p, ModelChooser),
    "lockstep": lockstep_scores,
}


class _Recorder(Executor):
    """Records the tasks sent to it and answers each with a placeholder score per sequence."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.calls.append(args)
        future: Future[Any] = Future()
        future.set_result([1.0] * len(args[2]))
        return future


class _Stop(Exception):
    pass


def generation_tasks(logs_dir: str, log: str, draw_within: int) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The first generation's SJF tasks and member tasks, as the search sends them."""
    from sb3_contrib import MaskablePPO

    from schedlab.envs.kernel_policy import MaskableKernelPolicy
    from schedlab.training.rlscheduler.search import evolve

    cfg = RLSchedulerConfig(log=log, draw_within=draw_within, logs_dir=logs_dir)
    model = MaskablePPO(MaskableKernelPolicy, RLSchedulerEnv(cfg), seed=0, device="cpu")
    recorder = _Recorder()

    def stop(_state: Any) -> None:
        raise _Stop

    with contextlib.suppress(_Stop):
        evolve(
            model, cfg, generations=1, pairs=16, episodes=32, sigma=0.05, learning_rate=0.02,
            both_backfills=True, seed=0, on_generation=stop, executor=recorder,
        )  # fmt: skip
    sjf = [c for c in recorder.calls if c[0] is None]
    members = [c for c in recorder.calls if c[0] is not None]
    return sjf, members


class Timers:
    """Timers wrapped around the chooser's parts (patched in this process only)."""

    def __init__(self) -> None:
        self.t: dict[str, float] = dict.fromkeys(("choose", "shown", "rows", "forward", "predict"), 0.0)
        self.n = {"choose": 0, "scored": 0, "rows": 0}
        self._undo: list[tuple[Any, str, Any]] = []

    def _wrap(self, owner: Any, name: str, key: str, count: Callable[[tuple[Any, ...]], None] | None = None) -> None:
        original = getattr(owner, name)
        clock, t = time.process_time, self.t  # CPU time: the machine may be shared

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = clock()
            out = original(*args, **kwargs)
            t[key] += clock() - start
            if count is not None:
                count(args)
            return out

        self._undo.append((owner, name, original))
        setattr(owner, name, timed)

    def __enter__(self) -> Timers:
        n = self.n

        def scored(args: tuple[Any, ...]) -> None:
            n["scored"] += 1
            n["rows"] += len(args[1])

        def chosen(_args: tuple[Any, ...]) -> None:
            n["choose"] += 1

        self._wrap(env_module, "visible_jobs", "shown")
        self._wrap(env_module, "shown_rows", "rows")
        self._wrap(env_module, "observe", "rows")
        self._wrap(lockstep_module, "visible_jobs", "shown")
        self._wrap(lockstep_module, "shown_rows", "rows")
        self._wrap(KernelScorer, "scores", "forward", scored)
        self._wrap(KernelScorer, "predict", "predict")
        self._wrap(ModelChooser, "choose", "choose", chosen)
        self._wrap(PaddedChooser, "choose", "choose", chosen)
        return self

    def __exit__(self, *exc: object) -> None:
        for owner, name, original in reversed(self._undo):
            setattr(owner, name, original)


def breakdown(members: list[tuple[Any, ...]], path: str) -> None:
    run = PATHS[path]
    tasks = [(layout.scorer(vector), plan) for layout, vector, plan in members]
    sequences = sum(len(plan) for _, plan in tasks)
    with Timers() as timers:
        cpu = time.process_time()
        wall = time.perf_counter()
        for scorer, plan in tasks:
            run(scorer, plan)
        wall = time.perf_counter() - wall
        cpu = time.process_time() - cpu
    t, n = timers.t, timers.n
    choice = t["choose"] - t["shown"] - t["rows"] - t["forward"]
    parts = {
        "simulation (SimPy, Machine, RLScheduler's loop and backfilling, records, score)": cpu - t["choose"],
        "shown jobs (visible_jobs)": t["shown"],
        "feature rows (observe / shown_rows)": t["rows"],
        "scorer forward pass (KernelScorer.scores)": t["forward"],
        "choice (mask, argmax, predict's and choose's own code)": choice,
    }
    if path == "lockstep":  # no chooser: the driver's own code (the argmax too) counts with the simulation
        parts = {
            "simulation and the lockstep driver (its stepping, the argmax per sequence)": (
                cpu - t["shown"] - t["rows"] - t["forward"]
            ),
            "shown jobs (visible_jobs)": t["shown"],
            "feature rows (shown_rows)": t["rows"],
            "scorer forward pass (KernelScorer.scores, batched)": t["forward"],
        }
    print(f"\n## breakdown, path {path}: {len(tasks)} member tasks, {sequences} sequences")
    print(f"CPU {cpu:.2f} s, wall {wall:.2f} s (the timers read the CPU clock; their own cost is in their parts)")
    print("| part | s | share |\n|---|---|---|")
    for name, seconds in parts.items():
        print(f"| {name} | {seconds:.2f} | {seconds / cpu:.1%} |")
    if path == "lockstep":
        print(
            f"batched forward passes per task: {n['scored'] / len(tasks):.1f}, "
            f"of {n['rows'] / max(n['scored'], 1):.1f} rows each"
        )
    else:
        print(
            f"decisions per sequence (the chooser asked): {n['choose'] / sequences:.1f}; scored (2+ waiting): "
            f"{n['scored'] / sequences:.1f}; mean queue length scored: {n['rows'] / max(n['scored'], 1):.1f}"
        )


AREAS = (
    ("simpy", "SimPy"),
    ("schedlab/processes", "Machine (schedlab.processes)"),
    ("schedlab/policies", "RLScheduler's loop, backfilling (schedlab.policies)"),
    ("schedlab/model", "records, jobs (schedlab.model)"),
    ("rlscheduler/obs.py", "feature rows (obs.py)"),
    ("rlscheduler/scorer.py", "scorer (scorer.py)"),
    ("rlscheduler/env.py", "chooser, sequence score (env.py)"),
    ("rlscheduler/lockstep.py", "lockstep driver (lockstep.py)"),
    ("numpy", "numpy (Python-level and C calls)"),
)


def profiled(members: list[tuple[Any, ...]], path: str) -> None:
    run = PATHS[path]
    tasks = [(layout.scorer(vector), plan) for layout, vector, plan in members]
    profile = cProfile.Profile()
    profile.enable()
    for scorer, plan in tasks:
        run(scorer, plan)
    profile.disable()
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]  # pstats keeps its table there
    sums: dict[str, float] = {}
    for (filename, _line, name), (_cc, _nc, tottime, _ct, _callers) in stats.items():
        label = "other (builtins, list and dict methods, ...)"
        where = filename if filename != "~" else name
        for key, area in AREAS:
            if key in where:
                label = area
                break
        sums[label] = sums.get(label, 0.0) + tottime
    total = sum(sums.values())
    print(f"\n## cProfile, path {path}: own time by area (total {total:.2f} s under the profiler)")
    print("| area | s | share |\n|---|---|---|")
    for label, seconds in sorted(sums.items(), key=lambda kv: -kv[1]):
        print(f"| {label} | {seconds:.2f} | {seconds / total:.1%} |")
    top = pstats.Stats(profile)
    top.sort_stats("tottime").print_stats(15)


def paths(members: list[tuple[Any, ...]], rounds: int) -> None:
    tasks = [(layout.scorer(vector), plan) for layout, vector, plan in members]
    sequences = sum(len(plan) for _, plan in tasks)
    cpu: dict[str, list[float]] = {name: [] for name in PATHS}
    results: dict[str, list[list[float]]] = {}
    for r in range(rounds):
        order = list(PATHS) if r % 2 == 0 else list(reversed(PATHS))
        for name in order:
            start = time.process_time()
            results[name] = [PATHS[name](scorer, plan) for scorer, plan in tasks]
            cpu[name].append(time.process_time() - start)
    same = all(results[name] == results["padded"] for name in PATHS)
    print(f"\n## paths: {len(tasks)} member tasks, {sequences} sequences, {rounds} rounds, interleaved")
    print("| path | best CPU s | sequences / CPU s (best) | ratio to padded, per round: median (min-max) |")
    print("|---|---|---|---|")
    for name in PATHS:
        ratios = [a / b for a, b in zip(cpu[name], cpu["padded"], strict=True)]
        print(
            f"| {name} | {min(cpu[name]):.2f} | {sequences / min(cpu[name]):.0f} | "
            f"{statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f}) |"
        )
    print(f"same scores on every path: {same}")


def pool(members: list[tuple[Any, ...]], rounds: int) -> None:
    task_bytes = [len(pickle.dumps((plan_scores, call))) for call in members]
    here = [plan_scores(*call) for call in members]
    result_bytes = [len(pickle.dumps(result)) for result in here]
    direct: list[float] = []
    pooled: list[float] = []
    pooled_cpu: list[float] = []
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as executor:
        gather(executor, plan_scores, members[:2])  # warm: the worker has loaded the log and its features
        for _ in range(rounds):
            start = time.perf_counter()
            gather(None, plan_scores, members)
            direct.append(time.perf_counter() - start)
            start, cpu = time.perf_counter(), time.process_time()
            out = gather(executor, plan_scores, members)
            pooled.append(time.perf_counter() - start)
            pooled_cpu.append(time.process_time() - cpu)
            assert out == here
    ratios = [p / d for p, d in zip(pooled, direct, strict=True)]
    print(f"\n## pool: {len(members)} member tasks, here against a warm 1-worker spawn pool, {rounds} rounds")
    print(f"here: best {min(direct):.2f} s wall; pool: best {min(pooled):.2f} s wall")
    print(
        f"pool / here per round: median {statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f}); "
        f"the main process's CPU while the pool works: best {min(pooled_cpu):.3f} s"
    )
    print(
        f"pickled per task: {statistics.mean(task_bytes):.0f} bytes; per result: "
        f"{statistics.mean(result_bytes):.0f} bytes"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=128, help="member tasks of the generation (128: all)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the interleaved comparisons")
    parser.add_argument("--logs-dir", default=str(LOGS), help="folder of the SWF logs")
    parser.add_argument("--log", default="HPC2N-2002-2.2-cln", help="the log searched on")
    parser.add_argument(
        "--draw-within", type=int, default=10_000, help="sequences drawn among its first N jobs (0: all)"
    )
    parser.add_argument(
        "--parts", nargs="+", default=["breakdown", "cprofile", "paths", "pool"],
        choices=["breakdown", "cprofile", "paths", "pool"], help="what to measure",
    )  # fmt: skip
    parser.add_argument("--path", nargs="+", default=["padded", "rows", "lockstep"], choices=list(PATHS))
    args = parser.parse_args()
    sjf, members = generation_tasks(args.logs_dir, args.log, args.draw_within)
    members = members[: args.tasks]
    backfilled = sum(c.backfill for _, _, plan in members for c, _ in plan)
    print(
        f"{args.log}, generation 1: {len(sjf)} SJF tasks, {len(members)} member tasks timed "
        f"({sum(len(p) for _, _, p in members)} sequences, {backfilled} with EASY)"
    )
    plan_scores(*members[0])  # the log and its features are loaded before any clock starts
    if "breakdown" in args.parts:
        for path in args.path:
            breakdown(members, path)
    if "cprofile" in args.parts:
        for path in args.path:
            profiled(members, path)
    if "paths" in args.parts:
        paths(members, args.rounds)
    if "pool" in args.parts:
        pool(members, args.rounds)


if __name__ == "__main__":
    main()

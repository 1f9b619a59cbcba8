"""How much faster a training scores its population on more worker processes.

Two trainings, each timed on a spawn process pool of every worker count given:

- ``machine``: ``schedlab train Machine-v0`` (SJF teacher, a few generations);
- ``rlscheduler``: RLScheduler's search on HPC2N (as ``schedlab train
  scenarios/rlscheduler.py`` runs it: 16 antithetic pairs, 32 sequences of 256 jobs a
  member, with and without EASY backfilling), a few generations, no PPO.

Each pool is warmed first (every worker has made its environment, or loaded the log),
so the times are the training's, not the pool's start. Printed, per count: the wall
time, the CPU time of the training (this process's and its workers', read with psutil
where it is installed), the speedup over 1 worker and the parallel efficiency
(speedup / workers), all ratios measured in this process, and the weights' SHA-256,
which must be the same for every count.

    PYTHONPATH=$PWD python benchmarks/train_speedup.py --workers 1 2
    PYTHONPATH=$PWD python benchmarks/train_speedup.py --kind rlscheduler --workers 1 2 4 8 16
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import math
import multiprocessing
import os
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from pathlib import Path

LOGS = Path(__file__).resolve().parents[2] / "shared" / "traces"


def machine_training(generations: int) -> tuple[Callable[[Executor], None], Callable[[Executor], str]]:
    """Warm-up and timed run of ``schedlab train Machine-v0``."""
    from schedlab.training import TrainConfig, train
    from schedlab.training.episodes import episode_costs
    from schedlab.training.run import env_spec

    config = TrainConfig(
        env="Machine-v0", teacher="sjf", generations=generations, pairs=8, episodes=4, validation=8,
        imitation_episodes=4, imitation_epochs=10,
    )  # fmt: skip
    spec = env_spec(config)

    def warm(pool: Executor) -> None:
        list(pool.map(episode_costs, *zip(*[(spec, None, "sjf", [0])] * 2 * os.cpu_count(), strict=True)))

    def run(pool: Executor) -> str:
        with tempfile.TemporaryDirectory() as out:
            return train(config, out, executor=pool).sha256

    return warm, run


def rlscheduler_training(
    generations: int, logs_dir: str
) -> tuple[Callable[[Executor], None], Callable[[Executor], str]]:
    """Warm-up and timed run of RLScheduler's search on HPC2N (no imitation, no PPO)."""
    from schedlab.envs.rlscheduler.env import RLSchedulerConfig
    from schedlab.envs.rlscheduler.scorer import scorer_vector
    from schedlab.training.rlscheduler.search import window_scores
    from schedlab.training.rlscheduler.settings import TrainSettings
    from schedlab.training.rlscheduler.train import train

    cfg = RLSchedulerConfig(log="HPC2N-2002-2.2-cln", draw_within=10_000, logs_dir=logs_dir)
    settings = TrainSettings(
        steps=0, imitate="", search_generations=generations, search_pairs=16, search_episodes=32,
        both_backfills=True, search_eval_every=generations,
    )  # fmt: skip

    def warm(pool: Executor) -> None:
        calls = [(cfg, None, None, [1000 + i], 64) for i in range(2 * (os.cpu_count() or 1))]
        list(pool.map(window_scores, *zip(*calls, strict=True)))

    def run(pool: Executor) -> str:
        model, _ = train(cfg, settings, executor=pool)
        return hashlib.sha256(scorer_vector(model).astype("<f8").tobytes()).hexdigest()

    return warm, run


def _cpu_seconds() -> float:
    """CPU seconds used so far by this process and its live children (the pool's workers); NaN without psutil."""
    try:
        import psutil
    except ImportError:
        return math.nan
    me = psutil.Process()
    total = 0.0
    for proc in [me, *me.children(recursive=True)]:
        with contextlib.suppress(psutil.NoSuchProcess):
            times = proc.cpu_times()
            total += times.user + times.system
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=("machine", "rlscheduler"), default="machine", help="which training")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="worker counts (1 is the reference)")
    parser.add_argument("--generations", type=int, default=4, help="generations of the training timed")
    parser.add_argument("--logs-dir", default=str(LOGS), help="folder of the SWF logs (rlscheduler)")
    args = parser.parse_args()
    if args.kind == "machine":
        warm, run = machine_training(args.generations)
    else:
        warm, run = rlscheduler_training(args.generations, args.logs_dir)
    times = {}
    for n in sorted({1, *args.workers}):
        with ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("spawn")) as pool:
            warm(pool)
            cpu = _cpu_seconds()
            start = time.perf_counter()
            sha = run(pool)
            times[n] = (time.perf_counter() - start, _cpu_seconds() - cpu, sha)
        print(f"{n} workers: {times[n][0]:.1f} s", flush=True)
    print(f"{args.kind}, {args.generations} generations, {os.cpu_count()} cores")
    print("| workers | wall s | CPU s (all processes) | speedup | efficiency | weights sha256 |")
    print("|---|---|---|---|---|---|")
    for n, (seconds, cpu_s, sha) in times.items():
        speedup = times[1][0] / seconds
        print(f"| {n} | {seconds:.1f} | {cpu_s:.1f} | {speedup:.2f} | {speedup / n:.2f} | {sha[:16]}... |")
    print(f"same weights for every worker count: {len({sha for _, _, sha in times.values()}) == 1}")


if __name__ == "__main__":
    main()

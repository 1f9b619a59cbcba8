"""How much faster ``schedlab train`` scores its population on more worker processes.

The same small training of ``schedlab/Machine-v0`` (SJF teacher) runs on a spawn
process pool of each worker count given; each pool is warmed first (every worker has
made its environment and network), so the times are the training's, not the pool's
start. Printed, per count: the wall time, the speedup over 1 worker and the parallel
efficiency (speedup / workers), all ratios measured in this process, and the weights'
SHA-256, which must be the same for every count.

    PYTHONPATH=$PWD python benchmarks/train_speedup.py --workers 1 2
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor

from schedlab.training import TrainConfig, train
from schedlab.training.episodes import EnvSpec, episode_costs


def timed(config: TrainConfig, workers: int) -> tuple[float, str]:
    """Seconds of ``train(config)`` on a warm pool of ``workers`` processes, and the weights' sha256."""
    spec = EnvSpec(config.env, json.dumps(dict(config.env_settings)), config.hidden)
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        list(
            pool.map(
                episode_costs, [spec] * 2 * workers, [None] * 2 * workers, ["sjf"] * 2 * workers, [[0]] * 2 * workers
            )
        )
        with tempfile.TemporaryDirectory() as out:
            start = time.perf_counter()
            result = train(config, out, executor=pool)
            return time.perf_counter() - start, result.sha256


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="worker counts (1 is the reference)")
    parser.add_argument("--generations", type=int, default=4, help="generations of the training timed")
    args = parser.parse_args()
    config = TrainConfig(
        env="Machine-v0", teacher="sjf", generations=args.generations, pairs=8, episodes=4, validation=8,
        imitation_episodes=4, imitation_epochs=10,
    )  # fmt: skip
    counts = sorted(set([1, *args.workers]))
    times = {n: timed(config, n) for n in counts}
    print("| workers | wall s | speedup | efficiency | weights sha256 |\n|---|---|---|---|---|")
    for n, (seconds, sha) in times.items():
        speedup = times[1][0] / seconds
        print(f"| {n} | {seconds:.1f} | {speedup:.2f} | {speedup / n:.2f} | {sha[:16]}... |")
    same = len({sha for _, sha in times.values()}) == 1
    print(f"same weights for every worker count: {same}")


if __name__ == "__main__":
    main()

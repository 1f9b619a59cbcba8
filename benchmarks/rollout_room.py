"""The room below SJF+EASY on ``train Machine-v0``'s held-out episodes: the rollout of ``easy-sjf`` (docs/rl.md).

The rollout policy (:class:`schedlab.training.rollout.Rollout`, Bertsekas, Tsitsiklis and
Wu 1997) tries every valid action at every decision, replays the episode with the base
heuristic ``easy-sjf`` (EASY backfilling under SJF on the window of 8) to its end, and
takes the action of the lowest episode cost (minus the return of an env with
``reward="bounded_slowdown"``: the episode's total bounded slowdown, threshold 10 s). It sees the true
future, so it is clairvoyant: a bound on the room a learner of this action space has
below its base heuristic, and a privileged teacher, not a deployable scheduler.

It plays the held-out episodes ``benchmarks/train_machine_eval.py`` scores models on
(``reset(seed=k)``'s jobs, ``k = 0..n-1``, the default environment), beside the same
heuristics, each mean ± 95% half-width paired with SJF and SJF+EASY over the episodes.

    python benchmarks/rollout_room.py --episodes 50
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from train_machine_eval import METRICS, episode_jobs, evaluate, play

from schedlab.model.analysis.paired import paired_difference
from schedlab.training.heuristics import heuristic
from schedlab.training.rollout import Rollout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=50, help="held-out episodes: seeds 0..n-1")
    parser.add_argument("--base", default="easy-sjf", help="the base heuristic (a Machine-v0 teacher name)")
    args = parser.parse_args()
    seeds = list(range(args.episodes))
    rows, _ = evaluate([], seeds)
    env = gym.make("schedlab/Machine-v0", disable_env_checker=True, reward="bounded_slowdown")  # the cost: the measure
    rollout = Rollout(heuristic("schedlab/Machine-v0", args.base))
    start = time.perf_counter()
    rows[f"rollout of {args.base} (clairvoyant)"] = [
        play(env, lambda o, m, e: rollout(e), episode_jobs(env, s)) for s in seeds
    ]
    seconds = time.perf_counter() - start
    took = f"{seconds:.0f} s, {seconds / args.episodes:.2f} s an episode, {rollout.simulated} simulated episodes"
    print(f"{args.episodes} held-out episodes; the rollout took {took}")
    for m, metric in enumerate(METRICS):
        sjf, easy = [r[m] for r in rows["sjf"]], [r[m] for r in rows["sjf+easy"]]
        print(f"\n{metric}\n\n| policy | mean | paired with SJF | paired with SJF+EASY |\n|---|---|---|---|")
        for name, values in rows.items():
            v = [r[m] for r in values]
            d, half, _ = paired_difference(v, sjf)
            e, half_e, _ = paired_difference(v, easy)
            print(f"| {name} | {np.mean(v):.3f} | {d:+.3f} ± {half:.3f} | {e:+.3f} ± {half_e:.3f} |")


if __name__ == "__main__":
    main()

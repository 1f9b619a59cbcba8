"""Models of ``schedlab train Machine-v0`` against SJF and FCFS on the same held-out episodes (docs/rl.md).

Each model (a ``--out`` folder of ``schedlab train``) plays held-out episodes
``reset(seed=k)``, ``k = 0..n-1`` (below the seeds training and validation draw from,
:mod:`schedlab.training.run`), greedily. SJF (by estimate) and FCFS run as the machine's
own policies (:func:`schedlab.policies.batch.make_policy`, no backfilling) on the same
jobs, on the environment's kind of Machine, as ``benchmarks/sb3_baselines.py`` runs
them; ``sjf (window)`` is the teacher, SJF among the environment's window. The metric
is the episode's mean bounded slowdown (threshold 10 s, the mean runtime).

Printed for each metric (bounded slowdown; plain slowdown, what the reward sums):
per model, the mean over episodes and its paired difference with SJF
(mean ± 95% half-width over the episodes); over models, the mean ± standard deviation
of the models' means and of their paired differences with SJF.

    python benchmarks/train_machine_eval.py /tmp/m36/seed0 /tmp/m36/seed1 /tmp/m36/seed2 --episodes 50
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import gymnasium as gym
import numpy as np
import simpy

import schedlab.envs  # noqa: F401  # registers schedlab/Machine-v0
from schedlab.envs import agent_machine
from schedlab.model.analysis import metrics
from schedlab.model.analysis.paired import paired_difference
from schedlab.policies.batch import make_policy
from schedlab.processes import Source
from schedlab.training import load_policy
from schedlab.training.heuristics import heuristic

METRICS = ("bounded slowdown (threshold 10 s)", "slowdown (the reward's, unbounded)")


def bsld(records: list) -> tuple[float, float]:
    """The episode's mean bounded slowdown and mean slowdown."""
    return float(metrics.bounded_slowdown(records, 10.0).mean()), float(metrics.slowdown(records).mean())


def play(env: gym.Env, act: Callable[[np.ndarray, np.ndarray, gym.Env], int], jobs: list) -> tuple[float, float]:
    """One episode on the given jobs with ``act(obs, mask, env)``; its metrics."""
    obs, info = env.reset(options={"jobs": jobs})
    done = False
    while not done:
        obs, _, terminated, truncated, info = env.step(act(obs, info["action_mask"], env))
        done = terminated or truncated
    return bsld(env.unwrapped.records())


def episode_jobs(env: gym.Env, seed: int) -> list:
    """The jobs ``reset(seed=seed)`` draws: the workload from a generator seeded as Gymnasium seeds it."""
    return list(env.unwrapped.workload(np.random.Generator(np.random.PCG64(seed))))


def evaluate(models: list[Path], episodes: int) -> dict[str, list[list[tuple[float, float]]]]:
    env = gym.make("schedlab/Machine-v0", disable_env_checker=True)
    policies = [load_policy(folder / "model.pt", env) for folder in models]
    rows: dict[str, list[list[tuple[float, float]]]] = {"fcfs": [[]], "sjf": [[]], "sjf (window)": [[]]}
    rows["learned"] = [[] for _ in models]
    window_sjf = heuristic("schedlab/Machine-v0", "sjf")
    for k in range(episodes):
        jobs = episode_jobs(env, k)
        for i, policy in enumerate(policies):
            rows["learned"][i].append(play(env, lambda obs, mask, e, p=policy: p.act(obs, mask), jobs))
        rows["sjf (window)"][0].append(play(env, lambda obs, mask, e: window_sjf(e), jobs))
        for name in ("fcfs", "sjf"):
            sim = simpy.Environment()
            machine = agent_machine(sim, env.unwrapped.cpus, make_policy(name, "none"))
            Source(sim, jobs, machine)
            sim.run()
            rows[name][0].append(bsld(machine.all_records()))
    return rows


def table(rows: dict[str, list[list[tuple[float, float]]]], names: list[str], m: int) -> None:
    """The markdown table of metric ``m``: every policy's mean and its paired difference with SJF."""
    sjf = [r[m] for r in rows["sjf"][0]]
    print(f"\n{METRICS[m]}\n\n| policy | mean | paired with SJF |\n|---|---|---|")
    means, diffs = [], []
    for name, runs in zip(names, rows["learned"], strict=True):
        values = [r[m] for r in runs]
        d, half, _ = paired_difference(values, sjf)
        means.append(float(np.mean(values)))
        diffs.append(d)
        print(f"| learned, {name} | {means[-1]:.3f} | {d:+.3f} ± {half:.3f} |")
    sd_means, sd_diffs = (float(np.std(x, ddof=1)) if len(x) > 1 else 0.0 for x in (means, diffs))
    print(f"| learned, mean ± sd over {len(means)} seeds | {np.mean(means):.3f} ± {sd_means:.3f} ", end="")
    print(f"| {np.mean(diffs):+.3f} ± {sd_diffs:.3f} |")
    for name in ("sjf (window)", "sjf", "fcfs"):
        values = [r[m] for r in rows[name][0]]
        d, half, _ = paired_difference(values, sjf)
        print(f"| {name} | {np.mean(values):.3f} | {d:+.3f} ± {half:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+", type=Path, help="folders written by schedlab train Machine-v0")
    parser.add_argument("--episodes", type=int, default=50, help="held-out episodes (seeds 0..n-1)")
    args = parser.parse_args()
    rows = evaluate(args.models, args.episodes)
    print(f"{args.episodes} held-out episodes (seeds 0..{args.episodes - 1}), per-episode means")
    for m in range(len(METRICS)):
        table(rows, [p.name for p in args.models], m)


if __name__ == "__main__":
    main()

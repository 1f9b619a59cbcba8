"""Models of ``schedlab train Machine-v0`` against SJF, FCFS and EASY backfilling on the same episodes (docs/rl.md).

Each model (a ``--out`` folder of ``schedlab train``) plays the same episodes greedily,
in the environment it was trained in (its ``settings.json``'s env settings: window,
``backfill``...). The episodes are the held-out ones, ``reset(seed=k)``, ``k = 0..n-1``
(below the seeds training and validation draw from, :mod:`schedlab.training.run`), or
with ``--validation S`` the first ``n`` of the validation episodes training seed ``S``
draws (its 16 are the first 16 of them): the episodes recipes are chosen on, never the
held-out ones.

The heuristics run on the same jobs. On the whole queue, as the machine's own policies
(:func:`schedlab.policies.batch.make_policy`) on the environment's kind of Machine, as
``benchmarks/sb3_baselines.py`` runs them: every registered order
(:data:`~schedlab.policies.scoring.SCORES`: SJF by estimate, FCFS, F1-F4, SAF, ...; not
``sjf-runtime``, which reads the true runtimes) as a strict order, and EASY backfilling
under each (``fcfs+easy`` is plain EASY). On the
window of the default environment (the 8 oldest waiting jobs, as a learner sees them):
``sjf (window)``, SJF among the window jobs that fit, and ``easy-sjf (window)``, EASY
backfilling under SJF restricted to the window (:mod:`schedlab.training.heuristics`,
the teachers). The metric is the episode's mean bounded slowdown (threshold 10 s, the
mean runtime); then plain slowdown, what the reward sums.

Printed for each metric: per model, the mean over episodes and its paired differences
with SJF and with EASY's best order (the EASY row with the lowest mean on these
episodes), each mean ± 95% half-width over the episodes; over models, the mean ±
standard deviation of the models' means and of their paired differences.

    python benchmarks/train_machine_eval.py /tmp/m36/seed0 /tmp/m36/seed1 /tmp/m36/seed2 --episodes 50
    python benchmarks/train_machine_eval.py /tmp/m36/seed0 --validation 0 --episodes 64   # choosing
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

import gymnasium as gym
import numpy as np
import simpy

import schedlab.envs  # noqa: F401  # registers schedlab/Machine-v0
from schedlab.envs import agent_machine
from schedlab.model.analysis import metrics
from schedlab.model.analysis.paired import paired_difference
from schedlab.model.core.streams import Streams
from schedlab.policies.batch import make_policy
from schedlab.policies.scoring import CLAIRVOYANT, SCORES
from schedlab.processes import Source
from schedlab.training import load_policy
from schedlab.training.heuristics import heuristic
from schedlab.training.run import VALIDATION_SEEDS

METRICS = ("bounded slowdown (threshold 10 s)", "slowdown (the reward's, unbounded)")
#: heuristics on the whole queue: row name -> (order, backfilling); every registered order but the clairvoyant one
#: (``sjf-runtime`` reads the true runtimes), strict and under EASY
ORDERS = [name for name in SCORES if name not in CLAIRVOYANT]
QUEUE = {name: (name, "none") for name in ORDERS} | {f"{name}+easy": (name, "easy") for name in ORDERS}
#: teachers on the default environment's window: row name -> heuristic
WINDOW = {"sjf (window)": "sjf", "easy-sjf (window)": "easy-sjf"}

Rows = dict[str, list[tuple[float, float]]]


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


def episode_seeds(episodes: int, validation: int | None) -> list[int]:
    """``0..episodes-1`` (held out), or the first ``episodes`` validation seeds of training seed ``validation``."""
    if validation is None:
        return list(range(episodes))
    draw = Streams(validation)["validation_episodes"]
    return [int(s) for s in draw.integers(*VALIDATION_SEEDS, size=episodes)]


def evaluate(models: list[Path], seeds: list[int]) -> tuple[Rows, list[Rows]]:
    """The heuristics' and each model's metrics on the episodes ``seeds``."""
    env = gym.make("schedlab/Machine-v0", disable_env_checker=True)
    learned: list[tuple[gym.Env, object]] = []
    for folder in models:
        settings = json.loads((folder / "settings.json").read_text())["env_settings"]
        model_env = gym.make("schedlab/Machine-v0", disable_env_checker=True, **settings)
        learned.append((model_env, load_policy(folder / "model.pt", model_env)))
    rows: Rows = {name: [] for name in (*QUEUE, *WINDOW)}
    runs: list[list[tuple[float, float]]] = [[] for _ in models]
    teachers = {name: heuristic("schedlab/Machine-v0", h) for name, h in WINDOW.items()}
    for seed in seeds:
        jobs = episode_jobs(env, seed)
        for (model_env, policy), out in zip(learned, runs, strict=True):
            out.append(play(model_env, lambda obs, mask, e, p=policy: p.act(obs, mask), jobs))  # type: ignore[attr-defined]
        for name, rule in teachers.items():
            rows[name].append(play(env, lambda obs, mask, e, r=rule: r(e), jobs))
        for name, (score, backfill) in QUEUE.items():
            sim = simpy.Environment()
            machine = agent_machine(sim, env.unwrapped.cpus, make_policy(score, backfill))
            Source(sim, jobs, machine)
            sim.run()
            rows[name].append(bsld(machine.all_records()))
    return rows, [{"learned": r} for r in runs]


def table(rows: Rows, learned: list[Rows], names: list[str], m: int) -> None:
    """The markdown table of metric ``m``: every policy's mean, its paired differences with SJF and EASY's best."""
    sjf = [r[m] for r in rows["sjf"]]
    best = min((n for n in QUEUE if n.endswith("+easy")), key=lambda name: np.mean([r[m] for r in rows[name]]))
    easy = [r[m] for r in rows[best]]
    print(f"\n{METRICS[m]} (EASY's best order here: {best})\n")
    print(f"| policy | mean | paired with SJF | paired with {best} |\n|---|---|---|---|")
    means, diffs, diffs_easy = [], [], []
    for name, model in zip(names, learned, strict=True):
        values = [r[m] for r in model["learned"]]
        d, half, _ = paired_difference(values, sjf)
        e, half_e, _ = paired_difference(values, easy)
        means.append(float(np.mean(values)))
        diffs.append(d)
        diffs_easy.append(e)
        print(f"| learned, {name} | {means[-1]:.3f} | {d:+.3f} ± {half:.3f} | {e:+.3f} ± {half_e:.3f} |")
    if len(means) > 1:
        sd = [float(np.std(x, ddof=1)) for x in (means, diffs, diffs_easy)]
        print(f"| learned, mean ± sd over {len(means)} seeds | {np.mean(means):.3f} ± {sd[0]:.3f} ", end="")
        print(f"| {np.mean(diffs):+.3f} ± {sd[1]:.3f} | {np.mean(diffs_easy):+.3f} ± {sd[2]:.3f} |")
    for name in (*WINDOW, *QUEUE):
        values = [r[m] for r in rows[name]]
        d, half, _ = paired_difference(values, sjf)
        e, half_e, _ = paired_difference(values, easy)
        print(f"| {name} | {np.mean(values):.3f} | {d:+.3f} ± {half:.3f} | {e:+.3f} ± {half_e:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=Path, help="folders written by schedlab train Machine-v0")
    parser.add_argument("--episodes", type=int, default=50, help="episodes (held out: seeds 0..n-1)")
    parser.add_argument(
        "--validation", type=int, default=None, metavar="SEED",
        help="play training seed SEED's validation episodes instead of the held-out ones",
    )  # fmt: skip
    args = parser.parse_args()
    seeds = episode_seeds(args.episodes, args.validation)
    rows, learned = evaluate(args.models, seeds)
    which = "held-out" if args.validation is None else f"validation (training seed {args.validation}'s)"
    print(f"{args.episodes} {which} episodes, per-episode means")
    for m in range(len(METRICS)):
        table(rows, learned, [p.name for p in args.models], m)


if __name__ == "__main__":
    main()

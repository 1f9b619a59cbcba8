"""Stable-Baselines3 MaskablePPO against the heuristics, on held-out seeds (docs/rl.md, "Stable-Baselines3").

Two models, each trained for a small budget with sb3-contrib's ``MaskablePPO`` and
evaluated greedily (deterministic, masked) on seeds it never trained on:

- **machine**: ``schedlab/Machine-v0`` (a 16-CPU machine, 64 synthetic jobs per episode
  at load 0.9, the agent picks which of the 8 oldest waiting jobs to start), against
  FCFS, SJF and EASY backfilling (:func:`schedlab.policies.batch.make_policy`) run on
  the same kind of Machine (:func:`~schedlab.envs.machine.config.agent_machine`) with the
  same jobs. Metric: mean bounded slowdown (threshold 10 s, the mean runtime) and mean wait.
- **grid**: seed 003's grid (10 brokers x 25 resources, xi = 0.7, 200 steps) behind the
  Parallel API, one policy shared by every broker, trained through SuperSuit's vector
  env (:func:`schedlab.envs.sb3.grid_vec_env`), against LLS and RS run in the model
  itself (:class:`~schedlab.policies.grid.LeastLoaded`, :class:`~schedlab.policies.grid.RandomSelection`)
  on the same capacities and jobs (``Streams(seed)``). Metric: ATPT (eq. 1) and ALoR
  averaged over the last quarter of the horizon.

PPO is evaluated twice on each seed: greedy (``ppo``: the most probable valid action)
and sampling its policy (``ppo_sampled``, torch's generator seeded by the evaluation
seed). On the grid the difference matters: every broker with a job acts at once on
the same loads, and one greedy policy shared by all sends them to the same resource.
Every number is a mean over the held-out seeds with its 95% half-width; ``ppo - best``
is the paired difference with the best heuristic on the same seeds.

    python benchmarks/sb3_baselines.py --quick          # a few minutes on 2 cores
    python benchmarks/sb3_baselines.py                  # the table in docs/rl.md
    python benchmarks/sb3_baselines.py --only machine --steps 50000 --seeds 10
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import simpy
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize

from schedlab.envs import GridAgentsConfig, MachineEnv, SyntheticJobs, agent_machine, grid_model
from schedlab.envs.grid.parallel import GridParallelEnv
from schedlab.envs.sb3 import grid_vec_env
from schedlab.experiment.results import ci95_halfwidth
from schedlab.model.analysis import metrics
from schedlab.model.core.streams import Streams
from schedlab.policies import LeastLoaded, RandomSelection
from schedlab.policies.batch import make_policy
from schedlab.processes import Source

BUDGETS = {  # training steps (samples), held-out seeds
    "quick": {"machine": (20_000, 6), "grid": (20_000, 4)},
    "full": {"machine": (200_000, 20), "grid": (400_000, 10)},
}
#: the machine's heuristics as (score, backfill) of make_policy
HEURISTICS = {"fcfs": ("fcfs", "none"), "sjf": ("sjf", "none"), "easy": ("fcfs", "easy")}
MACHINE_JOBS = SyntheticJobs(count=64, load=0.9, cpus=16)
GRID = GridAgentsConfig()  # seed 003's grid as the environment's defaults
HELD_OUT = 10_000  # evaluation seeds start here; training resets draw from seed 0's children


def summary(values: list[float]) -> dict[str, float]:
    return {"mean": float(np.mean(values)), "ci95": float(ci95_halfwidth(values))}


# --------------------------------------------------------------------------- the machine
def machine_jobs(k: int) -> list:
    """Held-out sequence k: its own stream, never one a training episode draws from."""
    return list(MACHINE_JOBS(np.random.default_rng([HELD_OUT, k])))


def machine_scores(records) -> dict[str, float]:
    return {"bsld": float(metrics.bounded_slowdown(records, 10.0).mean()), "wait": float(metrics.wait(records).mean())}


def train_machine(steps: int, seed: int) -> MaskablePPO:
    # obs are in [0, 1] already; slowdown rewards spread widely (a short job's slowdown soars): normalise them
    env = VecNormalize(DummyVecEnv([lambda: MachineEnv(workload=MACHINE_JOBS)]), norm_obs=False, norm_reward=True)
    n_steps = min(1024, steps)  # a tiny budget still completes a rollout
    model = MaskablePPO("MlpPolicy", env, seed=seed, n_steps=n_steps, batch_size=min(128, n_steps), device="cpu")
    return model.learn(total_timesteps=steps)


def eval_machine(model: MaskablePPO, seeds: int) -> dict[str, list[dict[str, float]]]:
    rows: dict[str, list[dict[str, float]]] = {"ppo": [], "ppo_sampled": [], "fcfs": [], "sjf": [], "easy": []}
    env = MachineEnv(workload=MACHINE_JOBS)
    for k in range(seeds):
        jobs = machine_jobs(k)
        for name, greedy in (("ppo", True), ("ppo_sampled", False)):
            torch.manual_seed(HELD_OUT + k)  # the sampled policy draws from torch's generator: seeded per sequence
            obs, _ = env.reset(options={"jobs": jobs})
            done = False
            while not done:
                action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=greedy)
                obs, _, terminated, truncated, _ = env.step(int(action))
                done = terminated or truncated
            rows[name].append(machine_scores(env.records()))
        for name, (score, backfill) in {
            "fcfs": ("fcfs", "none"),
            "sjf": ("sjf", "none"),
            "easy": ("fcfs", "easy"),
        }.items():
            sim = simpy.Environment()
            machine = agent_machine(sim, MACHINE_JOBS.cpus, make_policy(score, backfill))
            Source(sim, jobs, machine)
            sim.run()
            rows[name].append(machine_scores(machine.all_records()))
    return rows


# --------------------------------------------------------------------------- the grid
def grid_scores(grid) -> dict[str, float]:
    series = grid.series.as_dict()
    last = series["time"] >= 0.75 * GRID.steps
    return {"atpt": float(grid.series.atpt), "alor": float(series["alor"][last].mean())}


def train_grid(steps: int, seed: int) -> tuple[MaskablePPO, VecNormalize]:
    # loads (LoR, in steps) and job counts are unbounded: normalise observations and rewards by running stats
    vec = VecNormalize(grid_vec_env(GRID), norm_obs=True, norm_reward=True)
    n_steps = max(8, min(256, steps // vec.num_envs))  # per vector entry (one broker each)
    model = MaskablePPO("MlpPolicy", vec, seed=seed, n_steps=n_steps, batch_size=256, device="cpu")
    return model.learn(total_timesteps=steps), vec


def eval_grid(model: MaskablePPO, vec: VecNormalize, seeds: int) -> dict[str, list[dict[str, float]]]:
    rows: dict[str, list[dict[str, float]]] = {"ppo": [], "ppo_sampled": [], "lls": [], "rs": []}
    env = GridParallelEnv(GRID)
    vec.training = False  # frozen normalisation statistics
    for k in range(seeds):
        seed = HELD_OUT + k
        for name, greedy in (("ppo", True), ("ppo_sampled", False)):
            torch.manual_seed(seed)
            observations, infos = env.reset(seed=seed)
            while env.agents:
                names = env.agents
                obs = vec.normalize_obs(np.stack([observations[a] for a in names]))
                masks = np.stack([infos[a]["action_mask"] for a in names]).astype(bool)
                actions, _ = model.predict(obs, action_masks=masks, deterministic=greedy)
                observations, _, _, _, infos = env.step(dict(zip(names, actions.tolist(), strict=True)))
            rows[name].append(grid_scores(env.model))
        for name, rule in {"lls": LeastLoaded, "rs": RandomSelection}.items():
            streams = Streams(seed)  # the environment's reset(seed) draws the same capacities and jobs
            sim = simpy.Environment()
            grid = grid_model(sim, GRID, rule(streams["routing"]), streams)
            sim.run(until=grid.done)
            rows[name].append(grid_scores(grid))
    return rows


# --------------------------------------------------------------------------- the table
def table(what: str, rows: dict[str, list[dict[str, float]]], metric: str) -> dict[str, dict]:
    """Per policy, each metric's mean and 95% half-width; for PPO also the paired difference with the best."""
    out = {p: {m: summary([r[m] for r in rs]) for m in rs[0]} for p, rs in rows.items()}
    heuristics = [p for p in rows if not p.startswith("ppo")]
    best = min(heuristics, key=lambda p: out[p][metric]["mean"])
    for ppo in ("ppo", "ppo_sampled"):
        diff = [a[metric] - b[metric] for a, b in zip(rows[ppo], rows[best], strict=True)]
        out[ppo][f"{metric}_minus_{best}"] = summary(diff)
    return out


def markdown(what: str, result: dict[str, dict]) -> str:
    metrics_ = [m for m in next(iter(result.values())) if "_minus_" not in m]
    lines = [f"| {what} | " + " | ".join(metrics_) + " |", "|---|" + "---|" * len(metrics_)]
    for policy, cells in result.items():
        lines.append(
            f"| {policy} | " + " | ".join(f"{cells[m]['mean']:.2f} ± {cells[m]['ci95']:.2f}" for m in metrics_) + " |"
        )
    for ppo in ("ppo", "ppo_sampled"):
        for key, cell in result[ppo].items():
            if "_minus_" in key:
                what = key.replace("_minus_", f" ({ppo}) - ")
                lines.append(f"\npaired {what}: {cell['mean']:.2f} ± {cell['ci95']:.2f}")
    return "\n".join(lines)


def run(what: str, steps: int, seeds: int, train_seed: int) -> dict[str, dict]:
    start = time.perf_counter()
    if what == "machine":
        rows, metric = eval_machine(train_machine(steps, train_seed), seeds), "bsld"
    else:
        model, vec = train_grid(steps, train_seed)
        rows, metric = eval_grid(model, vec, seeds), "atpt"
    result = table(what, rows, metric)
    print(markdown(what, result))
    print(
        f"({what}: {steps} training steps, {seeds} held-out seeds, {time.perf_counter() - start:.0f} s)\n", flush=True
    )
    return result


def main(argv: list[str] | None = None) -> dict[str, dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small budget (minutes)")
    parser.add_argument("--only", choices=("machine", "grid"), help="one of the two models")
    parser.add_argument("--steps", type=int, help="training steps (overrides the budget)")
    parser.add_argument("--seeds", type=int, help="held-out evaluation seeds (overrides the budget)")
    parser.add_argument("--train-seed", type=int, default=0, help="seed of training (episodes, weights)")
    parser.add_argument("--out", type=Path, help="write the results as JSON here")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)  # small networks: one thread is fastest and leaves the other core free
    budget = BUDGETS["quick" if args.quick else "full"]
    results = {}
    for what in [args.only] if args.only else ["machine", "grid"]:
        steps, seeds = budget[what]
        results[what] = run(what, args.steps or steps, args.seeds or seeds, args.train_seed)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=1))
    return results


if __name__ == "__main__":
    main()

"""Why the SARSA supervisor of seed 001 loses to EDF: its own objective, its fit, its curve.

Runs on *tuning* seeds (SeedSequence(1000), never the evaluation seeds of the
scenario's table) the synthetic workloads of ``scenarios/responsive_grid.py`` under
EDF, GREEDY (each election maximises the elected job's own reward: a perfect
one-step learner of seed 001's reward) and RL (the paper's reading, and with epsilon
0), on the same jobs, and prints:

1. each scheduler's waits and its value of the learner's objective, the mean of
   ``lambda W + (1 - lambda) F`` over elected jobs;
2. RL's learning curve: the objective per 500 elections, pre-training blocks marked;
3. the ESN's fit: the final readout against the SARSA targets and against the
   Monte-Carlo returns ``G_t = sum_k gamma^k r_t+k`` of the elections;
4. how late rewards arrive: elections made between an election and its job's completion.

    python scenarios/responsive_diagnosis.py [seeds]
"""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path

import numpy as np
import simpy
import torch

from schedlab.experiment.scenario import load_scenario
from schedlab.model.core.streams import Streams
from schedlab.papers.site_workloads import election_rewards

SCENARIO = load_scenario(Path(__file__).with_name("responsive_grid.py"))
SETTINGS = ("EDF", "GREEDY", "RL", "RL eps=0", "RL+queue")
BLOCK = 500


def _r2(pred: np.ndarray, target: np.ndarray) -> float:
    return float(1 - ((target - pred) ** 2).sum() / ((target - target.mean()) ** 2).sum())


def run(share: float, seed: np.random.SeedSequence, setting: str) -> dict:
    cfg = SCENARIO.config()
    if setting == "RL eps=0":
        cfg = dataclasses.replace(cfg, epsilon=0.0)
    cell = {"experiment": "synthetic", "interactive": share, "fairness": "feasible", "setting": setting.split()[0]}
    env = simpy.Environment()
    model = SCENARIO.build(env, cfg, cell, Streams(seed))
    out: dict = {}
    scheduler = model["scheduler"]
    if scheduler is not None:
        learner, q = scheduler.learner, scheduler.learner.approximator
        chosen: list[torch.Tensor] = []
        commit = q.commit
        q.commit = lambda z: (chosen.append(z.clone()), commit(z))[1]  # record each election's features
        lag: list[int] = []
        model["machine"].completed.connect(lambda r: lag.append(scheduler.elections))
    model.run()
    out.update(SCENARIO.measure(model))
    values = np.array([v for _, v in election_rewards(model.records(), model["targets"], model["weight"])])
    out["curve"] = [float(values[i : i + BLOCK].mean()) for i in range(0, len(values), BLOCK)]
    if scheduler is not None:
        n = scheduler.elections
        r = np.full(n, np.nan)
        for e, v in scheduler.objective.items():
            r[e] = v
        # Monte-Carlo returns over the elections whose rewards are all known (the paper's gamma per election)
        known = int(np.argmax(np.isnan(r))) if np.isnan(r).any() else n
        g = np.zeros(known)
        acc = 0.0
        for t in range(known - 1, -1, -1):
            acc = r[t] + cfg.gamma * acc
            g[t] = acc
        z = torch.stack(chosen[:known])
        pred = q.predict(z).double().numpy()
        tail = slice(cfg.pretrain, known - 50)  # leave the truncated returns of the last elections out
        out["r2_mc"] = _r2(pred[tail], g[tail])
        out["corr_mc"] = float(np.corrcoef(pred[tail], g[tail])[0, 1])
        zz, yy = torch.stack(list(learner._z)), np.array(list(learner._y))
        out["r2_targets"] = _r2(q.predict(zz).double().numpy(), yy)
        # elections between each job's election and its completion (the reward's lateness)
        order = list(scheduler.objective)  # dict order = completion order
        out["lag"] = np.array([done - e for e, done in zip(order, lag, strict=False)])
    return out


def main(n_seeds: int = 3) -> None:
    torch.set_num_threads(1)
    seeds = np.random.SeedSequence(1000).spawn(n_seeds)
    began = time.perf_counter()
    for share in (0.2, 0.4, 0.5):
        runs = {s: [run(share, seed, s) for seed in seeds] for s in SETTINGS}
        print(f"\n## interactive {share:g}: {n_seeds} tuning seeds")
        print("| setting | objective | int wait | batch wait | int max | W int | W batch |")
        print("|---|---|---|---|---|---|---|")
        for s, rs in runs.items():
            m = {
                k: np.mean([r[k] for r in rs])
                for k in (
                    "objective",
                    "wait_interactive_mean",
                    "wait_batch_mean",
                    "wait_interactive_max",
                    "W_interactive_mean",
                    "W_batch_mean",
                )
            }
            print(
                f"| {s} | {m['objective']:.3f} | {m['wait_interactive_mean']:.0f} | {m['wait_batch_mean']:.0f} "
                f"| {m['wait_interactive_max']:.0f} | {m['W_interactive_mean']:.3f} | {m['W_batch_mean']:.3f} |"
            )
        rl = runs["RL"]
        pre = SCENARIO.config().pretrain // BLOCK
        for s in ("EDF", "RL"):
            curve = np.mean([r["curve"] for r in runs[s]], axis=0)
            print(
                f"{s} objective per {BLOCK} elections (* = RL's pre-training by EDF): "
                + " ".join(f"{v:.3f}{'*' if i < pre else ''}" for i, v in enumerate(curve))
            )
        for key, label in (
            ("r2_targets", "R2 of the readout on its SARSA targets"),
            ("r2_mc", "R2 of Q against Monte-Carlo returns"),
            ("corr_mc", "correlation of Q with Monte-Carlo returns"),
        ):
            print(f"{label}: " + ", ".join(f"{r[key]:.2f}" for r in rl))
        lag = np.concatenate([r["lag"] for r in rl])
        print(
            f"elections before a reward arrives: median {np.median(lag):.0f}, 90% {np.percentile(lag, 90):.0f}, "
            f"max {lag.max():.0f}"
        )
    print(f"\n{time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)

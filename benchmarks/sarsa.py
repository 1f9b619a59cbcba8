"""Cost of learned job election: SARSA + ESN and SARSA + MLP against FIFO on the same arrivals.

All three run scenarios/responsive_grid.py's synthetic site (M/M/50 at rho = 0.99,
20% interactive, feasible fair share) on the very same jobs (same seed). The script
prints scheduling decisions (job elections) per second of wall-clock time for each,
and the ratios learner / FIFO. A SARSA election scores every fitting waiting job with
the network (one batched forward pass), and every ``refit_every`` completed elections
re-fits it: by ridge regression for the ESN, by some epochs of Adam for the MLP.

Run from the repository root: ``python benchmarks/sarsa.py`` (about a minute;
``--jobs`` to change the workload). It prints; it asserts nothing.
"""

from __future__ import annotations

import argparse
import gc
import platform
import time
from pathlib import Path

import numpy as np
import torch

from schedlab.experiment.runner import build_model
from schedlab.experiment.scenario import load_scenario

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "responsive_grid.py"


def timed(setting: str, approximator: str, jobs: int, seed: int) -> tuple[float, int]:
    scenario = load_scenario(SCENARIO)
    cfg = scenario.config({"experiment": "synthetic", "jobs": jobs, "drop": 0, "approximator": approximator})
    cell = {"experiment": "synthetic", "interactive": 0.2, "fairness": "feasible", "setting": setting}
    gc.collect()
    began = time.perf_counter()
    model = build_model(scenario, cfg, cell, np.random.SeedSequence(seed)).run()
    return time.perf_counter() - began, len(model["machine"].records)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=3000, help="jobs in the workload (one election each)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(1)
    runs = {"FIFO": ("FIFO", "esn"), "SARSA+ESN": ("RL", "esn"), "SARSA+MLP": ("RL", "mlp")}
    rate = {}
    print(
        f"job elections on the synthetic site, {args.jobs} jobs (Python {platform.python_version()}, "
        f"torch {torch.__version__}, 1 thread)"
    )
    for name, (setting, approximator) in runs.items():
        elapsed, elections = timed(setting, approximator, args.jobs, args.seed)
        rate[name] = elections / elapsed
        print(f"  {name:10s} {rate[name]:>10,.0f} elections/s  ({elapsed:.2f} s)")
    for name in ("SARSA+ESN", "SARSA+MLP"):
        print(f"  ratio {name} / FIFO: {rate[name] / rate['FIFO']:.4f}")


if __name__ == "__main__":
    main()

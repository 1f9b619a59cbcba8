"""Cost of value-based scheduling: utility preempt + oversubscribe (learning on) against best-fit.

Both policies run scenarios/utility_scheduling.py's model (24 CPUs, jobs of 4-20 CPUs
and ideal length 5-10, linear TUFs) on the very same arrivals (same seed, same
stream) for ``--time`` simulated time units, learning on throughout for the utility
policy. The script prints simulated time units per second of wall-clock time for each
and the ratio utility / best-fit: the price of scoring every waiting job's preemption
and squeeze against the value function at each decision, and of the TD updates.

At rates whose load the machine cannot keep up with, the queue grows through the run
and every decision scores every waiting job, so the cost per time unit grows with the
run; ``--rate`` shows it (0.1 is the paper's base case).

Run from the repository root: ``python benchmarks/utility.py`` (under a minute).
It also times one replication of the default scenario's seven policies (the full
default run is 50 of those, spread over the cores). It prints; it asserts nothing.
"""

from __future__ import annotations

import argparse
import gc
import platform
import time
from pathlib import Path

import numpy as np

from schedlab.experiment.runner import build_model
from schedlab.experiment.scenario import load_scenario

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "utility_scheduling.py"


def timed(policy: str, rate: float, until: float, seed: int) -> tuple[float, dict[str, float]]:
    scenario = load_scenario(SCENARIO)
    cfg = scenario.config(
        {
            "policy": policy,
            "arrival_rate": rate,
            "train_time": until / 2,
            "test_time": until / 2,
            "learn_during_test": True,
        }
    )
    gc.collect()
    began = time.perf_counter()
    model = build_model(scenario, cfg, {}, np.random.SeedSequence(seed)).run()
    elapsed = time.perf_counter() - began
    return elapsed, scenario.measure(model)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=0.1, help="arrival rate (0.1: the paper's base case)")
    parser.add_argument("--time", type=float, default=45_000.0, help="simulated time units per run")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each policy, interleaved; best kept")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    best = {"best-fit": np.inf, "utility-both": np.inf}
    measured = {}
    for _ in range(args.repeat):
        for policy in best:
            elapsed, measured[policy] = timed(policy, args.rate, args.time, args.seed)
            best[policy] = min(best[policy], elapsed)
    print(
        f"utility scheduling, rate {args.rate}, {args.time:.0f} time units, best of {args.repeat} "
        f"(Python {platform.python_version()})"
    )
    for policy, elapsed in best.items():
        m = measured[policy]
        print(
            f"  {policy:13s} {args.time / elapsed:>12,.0f} time units/s  ({elapsed:.3f} s)  "
            f"{m['completed']:.0f} jobs completed in the second half, productivity {m['productivity_fraction']:.3f}"
        )
    print(f"  ratio utility-both / best-fit: {best['best-fit'] / best['utility-both']:.2f} (speed)")
    began = time.perf_counter()
    for policy in (
        "best-fit",
        "aggressive-oversubscribe",
        "aggressive-preempt",
        "aggressive-both",
        "utility-oversubscribe",
        "utility-preempt",
        "utility-both",
    ):
        timed(policy, 0.1, 45_000.0, args.seed)
    one = time.perf_counter() - began
    print(
        f"  one replication of the default scenario (7 policies, rate 0.1, 45000 units): {one:.2f} s; "
        f"50 replications on 2 workers: about {50 * one / 2 / 60:.1f} min"
    )


if __name__ == "__main__":
    main()

"""Engine overhead: schedlab against a minimal hand-written SimPy model of the same queue.

Both sides simulate the same M/M/50 queue at utilisation rho = 0.9 (arrival rate 45,
service rate 1, FCFS) for ``--customers`` customers, until the last one has left,
and the script prints the customers simulated per second of wall-clock time for each
and the ratio schedlab / raw. The ratio is the price of schedlab's generality (a
policy asked at every decision event, a Job and a Running state per job that survive
preemption and squeezing, one immutable JobRecord per job, the completion signal, the
tracing hook) over the least a SimPy user would write for this one model.

- **schedlab**: ``Source(poisson_workload(45, Exponential(1.0), count=N, seed=seed))``
  feeding ``Machine(env, 50, FCFS())``; the run ends when the workload drains.
- **raw SimPy**: a source process, and one process per customer that holds a
  ``simpy.Resource(capacity=50)`` (``with res.request() as req: yield req; yield
  env.timeout(s)``) and appends its wait to a list.

Both draw the same way: in blocks of :data:`schedlab.model.workloads.BLOCK` (1024)
from one ``numpy.random.Generator``, a block of inter-arrival gaps, then a block of
service times, converted to Python floats once per block. With the same seed the two
models see the very same customers, so their mean waits agree up to float rounding
(schedlab schedules arrivals at cumulated absolute times, the raw model by adding
gaps); they are printed with the Erlang-C mean wait, which one run of 200 000
customers matches only to within several per cent (waits at rho = 0.9 are strongly
correlated). Each side's time covers building the model, drawing its customers,
running it and collecting the waits; each is run ``--repeat`` times, interleaved, and
the best time is kept. The garbage collector is left on, as in real use, but collects
once before each run, so that neither model's leftovers are freed in the other's
time. ``--profile N`` also prints the top N functions of a cProfile of one schedlab
run (the profiler slows it down several-fold).

Run from the repository root: ``python benchmarks/engine.py`` (about a minute).
It prints; it asserts nothing about time.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import platform
import pstats
import statistics
import time
from collections.abc import Callable, Generator

import numpy as np
import simpy

from schedlab.model.distributions import Exponential
from schedlab.model.queueing import erlang_c_wait
from schedlab.model.workloads import BLOCK, poisson_workload
from schedlab.policies.ordering import FCFS
from schedlab.processes.machine import Machine
from schedlab.processes.source import Source

SERVERS = 50
ARRIVAL_RATE = 45.0
SERVICE_RATE = 1.0


def run_schedlab(customers: int, seed: int) -> list[float]:
    """The M/M/50 queue built from schedlab's parts; returns each customer's wait."""
    env = simpy.Environment()
    machine = Machine(env, SERVERS, FCFS())
    Source(env, poisson_workload(ARRIVAL_RATE, Exponential(1.0 / SERVICE_RATE), count=customers, seed=seed), machine)
    env.run()
    return [r.wait for r in machine.records]


def run_raw(customers: int, seed: int) -> list[float]:
    """The same queue in plain SimPy, as a user would write it; returns each customer's wait."""
    rng = np.random.default_rng(seed)
    env = simpy.Environment()
    servers = simpy.Resource(env, capacity=SERVERS)
    waits: list[float] = []

    def customer(service: float) -> Generator[simpy.Event, object, None]:
        arrived = env.now
        with servers.request() as req:
            yield req
            waits.append(env.now - arrived)
            yield env.timeout(service)

    def source() -> Generator[simpy.Event, object, None]:
        left = customers
        while left > 0:
            # The same draws, in the same order and blocks, as poisson_workload's.
            gaps = rng.exponential(1.0 / ARRIVAL_RATE, BLOCK).tolist()
            services = rng.exponential(1.0 / SERVICE_RATE, BLOCK).tolist()
            for gap, service in zip(gaps[:left], services[:left], strict=True):
                yield env.timeout(gap)
                env.process(customer(service))
            left -= BLOCK

    env.process(source())
    env.run()
    return waits


MODELS: dict[str, Callable[[int, int], list[float]]] = {"schedlab": run_schedlab, "raw simpy": run_raw}


def _timed(model: Callable[[int, int], list[float]], customers: int, seed: int) -> tuple[float, float]:
    """Seconds to build and run ``model``, and its customers' mean wait."""
    gc.collect()  # the previous run's model (cycles and all) goes now, not in this run's time
    begin = time.perf_counter()
    waits = model(customers, seed)
    elapsed = time.perf_counter() - begin
    if len(waits) != customers:
        raise RuntimeError(f"{model.__name__}: {len(waits)} customers went through, not {customers}")
    return elapsed, statistics.fmean(waits)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--customers", type=int, default=200_000, help="customers per run (default 200000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each model; the best is kept (default 3)")
    parser.add_argument("--seed", type=int, default=1, help="seed of both models' draws (default 1)")
    parser.add_argument("--profile", type=int, default=0, metavar="N",
                        help="also print the top N functions of a cProfile of one schedlab run")
    args = parser.parse_args(argv)
    if args.customers < 1 or args.repeat < 1:
        parser.error("--customers and --repeat must be >= 1")

    best = dict.fromkeys(MODELS, float("inf"))
    mean_wait = dict.fromkeys(MODELS, float("nan"))
    for _ in range(args.repeat):
        for name, model in MODELS.items():
            elapsed, mean_wait[name] = _timed(model, args.customers, args.seed)
            best[name] = min(best[name], elapsed)

    print(f"M/M/{SERVERS}, rho = {ARRIVAL_RATE / (SERVERS * SERVICE_RATE):g}, {args.customers} customers, "
          f"best of {args.repeat} (Python {platform.python_version()}, SimPy {simpy.__version__})")
    for name in MODELS:
        print(f"  {name:<10} {args.customers / best[name]:>10,.0f} customers/s  ({best[name]:.3f} s)"
              f"  mean wait {mean_wait[name]:.5f}")
    print(f"  ratio schedlab/raw: {best['raw simpy'] / best['schedlab']:.2f}")
    print(f"  Erlang-C mean wait: {erlang_c_wait(SERVERS, ARRIVAL_RATE, SERVICE_RATE):.5f}")

    if args.profile > 0:
        profiler = cProfile.Profile()
        profiler.runcall(run_schedlab, args.customers, args.seed)
        stats = pstats.Stats(profiler).strip_dirs()
        stats.sort_stats("tottime").print_stats(args.profile)


if __name__ == "__main__":
    main()

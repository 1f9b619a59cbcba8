"""A machine in plain SimPy: each job a process over a ``simpy.Resource``, the founding design's shape.

A machine of ``c`` CPUs is ``simpy.Resource(env, capacity=c)``; a one-CPU job is a
process that asks for a CPU, holds it for its service time, and gives it back when the
``with`` block ends::

    with machine.request() as req:
        yield req
        yield env.timeout(service)

This is the smallest complete model of a cluster in SimPy, and where schedlab starts.
Lesson 2 (``docs/tutorials/02_shared_resources.md``) runs it beside
:class:`~schedlab.processes.machine.machine.Machine` on the same jobs and gets the same waits;
``benchmarks/engine.py`` and ``benchmarks/startup.py`` time schedlab against it. What a
``simpy.Resource`` cannot do is what ``Machine`` adds: it grants requests first come,
first served, one unit each, so there is no policy to ask, no job of several CPUs, no
preemption or squeezing, and no record of a job beyond what the process keeps.

The module imports only SimPy and the standard library, so that
``benchmarks/startup.py`` can run a copy of it as a plain SimPy script
(``python simpy_machine.py N``: an M/M/50 queue of N customers, its mean wait), with
no part of schedlab imported. (A copy: run in place, its folder would come first on
``sys.path`` and its neighbour ``signal.py`` would shadow the standard library's.)
"""

from __future__ import annotations

import random
import sys
from collections.abc import Generator, Iterable, Iterator

import simpy

__all__ = ["arrivals", "job", "main", "mmc_jobs", "run_jobs"]


def job(
    env: simpy.Environment, machine: simpy.Resource, submit: float, service: float, waits: list[float]
) -> Generator[simpy.Event, object, None]:
    """One job: wait for a CPU, hold it for ``service``, give it back; its wait goes to ``waits``."""
    with machine.request() as req:
        yield req
        waits.append(env.now - submit)
        yield env.timeout(service)


def arrivals(
    env: simpy.Environment, machine: simpy.Resource, jobs: Iterable[tuple[float, float]], waits: list[float]
) -> Generator[simpy.Event, object, None]:
    """Start a ``job`` process at each ``(submit, service)`` pair's submit time (pairs in submit order)."""
    for submit, service in jobs:
        delay = submit - env.now  # as schedlab's Source computes it: the same clock readings
        if delay > 0:
            yield env.timeout(delay)
        env.process(job(env, machine, submit, service, waits))


def run_jobs(jobs: Iterable[tuple[float, float]], cpus: int) -> list[float]:
    """Run ``(submit, service)`` pairs of one-CPU jobs on ``cpus`` CPUs, to the end; each job's wait.

    The waits come in the order the jobs started, which is the order they arrived: the
    resource grants its CPUs first come, first served.
    """
    env = simpy.Environment()
    machine = simpy.Resource(env, capacity=cpus)
    waits: list[float] = []
    env.process(arrivals(env, machine, jobs, waits))
    env.run()
    return waits


def mmc_jobs(
    customers: int, rate: float = 45.0, service_rate: float = 1.0, seed: int = 0
) -> Iterator[tuple[float, float]]:
    """``customers`` Poisson arrivals at ``rate`` with exponential services, as ``(submit, service)`` pairs."""
    rng = random.Random(seed)
    clock = 0.0
    for _ in range(customers):
        clock += rng.expovariate(rate)
        yield clock, rng.expovariate(service_rate)


def main(argv: list[str] | None = None) -> None:
    """``python simpy_machine.py N``: M/M/50 at rho 0.9 for N customers; prints the mean wait after a 10% warm-up."""
    customers = int((sys.argv[1:] if argv is None else argv)[0])
    waits = run_jobs(mmc_jobs(customers), 50)
    kept = waits[customers // 10 :]
    print(f"mean wait {sum(kept) / len(kept):.4f} over {len(kept)} customers")


if __name__ == "__main__":
    main()

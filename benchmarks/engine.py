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
- **raw SimPy**: :mod:`schedlab.processes.machine.simpy_machine`, the package's plain-SimPy
  machine (lesson 2 starts from it): a source process, and one process per customer
  that holds a ``simpy.Resource(capacity=50)`` (``with res.request() as req: yield req;
  yield env.timeout(s)``) and appends its wait to a list.

Both draw the same way: in blocks of :data:`schedlab.model.core.workloads.BLOCK` (1024)
from one ``numpy.random.Generator``, a block of inter-arrival gaps, then a block of
service times, converted to Python floats once per block, the arrival times cumulated
as ``poisson_workload`` cumulates them. With the same seed the two models see the very
same customers at the very same times, so their waits agree exactly; the mean waits
are printed with the Erlang-C mean wait, which one run of 200 000
customers matches only to within several per cent (waits at rho = 0.9 are strongly
correlated). Each side's time covers building the model, drawing its customers,
running it and collecting the waits; each is run ``--repeat`` times, interleaved, and
the best time is kept, both wall-clock time and this process's CPU time
(``time.process_time``): on a shared machine other processes' load moves the wall-clock
ratio by 10-20% between runs, the CPU-time ratio much less. The garbage collector is
left on, as in real use, but collects once before each run, so that neither model's
leftovers are freed in the other's time. ``--profile N`` also prints the top N
functions of a cProfile of one schedlab run (the profiler slows it down several-fold).

``--before REV`` adds a third model: schedlab as it was at git revision REV, its whole
``schedlab/`` exported with ``git archive`` and imported as ``_schedlab_before`` beside
today's package (REV may also be a folder that holds such an export, ``git archive REV
schedlab | tar -x -C DIR``, for a machine whose copy of the tree has no ``.git``), the
model built from its own ``Machine``, ``FCFS``, ``Source`` and workload. So a change to
the engine, or a move of its modules, is measured before and after in one process.

``--servers C`` simulates M/M/C at the same rho (arrival rate 0.9 C): ``--servers 1000``
is the wide machine, where removing a finished job from the running set must not cost
O(C). After the timings, each model runs once more in a fresh child process, which
prints its peak RSS (``VmHWM``) and the share of its CPU time spent in the garbage
collector (timed with ``gc.callbacks``): ``--customers 1000000`` is the memory
benchmark (targets: schedlab's peak RSS <= 1.5x raw SimPy's, GC < 3% of CPU).
``--no-memory`` skips it.

Run from the repository root: ``python benchmarks/engine.py`` (about a minute).
It prints; it asserts nothing about time.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import platform
import pstats
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import simpy

from schedlab.model.analysis.queueing import erlang_c_wait
from schedlab.model.core.distributions import Exponential
from schedlab.model.core.workloads import BLOCK, poisson_workload
from schedlab.policies.ordering import FCFS
from schedlab.processes.machine.machine import Machine
from schedlab.processes.machine.simpy_machine import run_jobs
from schedlab.processes.source import Source

SERVERS = 50
ARRIVAL_RATE = 45.0
SERVICE_RATE = 1.0
RHO = ARRIVAL_RATE / (SERVERS * SERVICE_RATE)


def run_schedlab(customers: int, seed: int, servers: int = SERVERS) -> list[float]:
    """The M/M/c queue built from schedlab's parts; returns each customer's wait."""
    env = simpy.Environment()
    machine = Machine(env, servers, FCFS())
    rate = RHO * servers * SERVICE_RATE
    Source(env, poisson_workload(rate, Exponential(1.0 / SERVICE_RATE), count=customers, seed=seed), machine)
    env.run()
    return [r.wait for r in machine.records]


def run_raw(customers: int, seed: int, servers: int = SERVERS) -> list[float]:
    """The same queue in plain SimPy (:mod:`schedlab.processes.machine.simpy_machine`); returns each customer's wait."""
    rng = np.random.default_rng(seed)
    rate = RHO * servers * SERVICE_RATE

    def draws() -> Iterator[tuple[float, float]]:
        left, clock = customers, 0.0
        while left > 0:
            # The same draws, in the same order and blocks, as poisson_workload's, and its arrival times.
            times = clock + np.cumsum(rng.exponential(1.0 / rate, BLOCK))
            services = rng.exponential(1.0 / SERVICE_RATE, BLOCK).tolist()
            yield from zip(times.tolist()[:left], services[:left], strict=True)
            clock = float(times[-1])
            left -= BLOCK

    return run_jobs(draws(), servers)


MODELS: dict[str, Callable[[int, int, int], list[float]]] = {"schedlab": run_schedlab, "raw simpy": run_raw}


#: the name a revision's whole package is imported under, beside today's ``schedlab``
BEFORE_PACKAGE = "_schedlab_before"


def _git(rev: str, *args: str) -> subprocess.CompletedProcess[bytes]:
    """``git ARGS`` in the repository this script belongs to."""
    root = Path(__file__).resolve().parent.parent
    return subprocess.run(["git", *args], cwd=root, capture_output=True)


def package_at(rev: str) -> dict[str, Any]:
    """The M/M/c model's parts from the whole package at ``rev``, imported as :data:`BEFORE_PACKAGE`.

    The whole package, not its ``Machine`` alone: a revision's ``Machine`` imports its own
    modules by their paths at that revision (which moved with the ``model/`` split and again
    with the rooms by model kind), and knows its own ``Job`` class only, so the workload,
    source and policy are the revision's too.
    """
    import importlib
    import io
    import re
    import shutil
    import tarfile
    import tempfile

    folder = Path(tempfile.mkdtemp())
    exported = Path(rev) / "schedlab"
    if exported.is_dir():  # a revision exported beforehand, where there is no git
        shutil.copytree(exported, folder / "schedlab")
    else:
        archive = _git(rev, "archive", "--format=tar", rev, "schedlab")
        if archive.returncode != 0:
            why = (archive.stderr.decode().strip().splitlines() or ["git archive failed"])[0]
            raise SystemExit(f"engine.py: --before {rev}: cannot export schedlab/ at that revision: {why}")
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(folder, filter="data")
    package = folder / BEFORE_PACKAGE
    (folder / "schedlab").rename(package)
    for path in package.rglob("*.py"):  # its absolute imports, renamed: `from schedlab.x import` and `import schedlab`
        path.write_text(re.sub(r"\b(from|import) schedlab\b", rf"\1 {BEFORE_PACKAGE}", path.read_text()))
    sys.path.insert(0, str(folder))

    def find(name: str, *modules: str) -> Any:
        for module in modules:
            try:
                found = importlib.import_module(f"{BEFORE_PACKAGE}.{module}")
            except ModuleNotFoundError:
                continue
            if hasattr(found, name):
                return getattr(found, name)
        raise SystemExit(f"engine.py: --before {rev}: no {name} in schedlab.{{{','.join(modules)}}} at that revision")

    return {
        "machine": find("Machine", "processes.machine.machine", "processes.machine"),
        "fcfs": find("FCFS", "policies.ordering", "policies"),
        "source": find("Source", "processes.source"),
        "workload": find("poisson_workload", "model.core.workloads", "model.workloads"),
        "exponential": find("Exponential", "model.core.distributions", "model.distributions"),
    }


def model_at(rev: str) -> Callable[[int, int, int], list[float]]:
    """:func:`run_schedlab` as it was at git revision ``rev``: its whole package, imported beside today's.

    A revision git does not know stops with a one-line message naming it.
    """
    if not (Path(rev) / "schedlab").is_dir() and _git(rev, "cat-file", "-e", f"{rev}^{{commit}}").returncode != 0:
        raise SystemExit(f"engine.py: --before {rev}: no such revision")
    return schedlab_with(label=f"schedlab@{rev}", **package_at(rev))


def schedlab_with(
    machine: type,
    label: str,
    *,
    fcfs: Any = FCFS,
    source: Any = Source,
    workload: Any = poisson_workload,
    exponential: Any = Exponential,
) -> Callable[[int, int, int], list[float]]:
    """:func:`run_schedlab` with another ``Machine`` class (and, for a whole older package, its other parts)."""

    def run(customers: int, seed: int, servers: int = SERVERS) -> list[float]:
        env = simpy.Environment()
        m = machine(env, servers, fcfs())
        rate = RHO * servers * SERVICE_RATE
        source(env, workload(rate, exponential(1.0 / SERVICE_RATE), count=customers, seed=seed), m)
        env.run()
        return [r.wait for r in m.records]

    run.__name__ = label
    return run


def _timed(
    model: Callable[[int, int, int], list[float]], customers: int, seed: int, servers: int = SERVERS
) -> tuple[float, float, float]:
    """Wall-clock and CPU seconds to build and run ``model``, and its customers' mean wait."""
    gc.collect()  # the previous run's model (cycles and all) goes now, not in this run's time
    begin, cpu = time.perf_counter(), time.process_time()
    waits = model(customers, seed, servers)
    elapsed, cpu = time.perf_counter() - begin, time.process_time() - cpu
    if len(waits) != customers:
        raise RuntimeError(f"{model.__name__}: {len(waits)} customers went through, not {customers}")
    return elapsed, cpu, statistics.fmean(waits)


def _memory_worker(name: str, customers: int, seed: int, servers: int) -> None:
    """One run of model ``name`` in this (fresh) process; prints its peak RSS and GC share as JSON."""
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
    from _memory import peak_rss_kib

    spent = [0.0, 0.0]  # seconds in collections, start of the one under way

    def clock(phase: str, info: dict) -> None:
        if phase == "start":
            spent[1] = time.process_time()
        else:
            spent[0] += time.process_time() - spent[1]

    gc.callbacks.append(clock)
    cpu = time.process_time()
    MODELS[name](customers, seed, servers)
    cpu = time.process_time() - cpu
    gc.callbacks.remove(clock)
    print(json.dumps({"rss_mib": peak_rss_kib() / 1024, "gc_share": spent[0] / cpu, "cpu_s": cpu}))


def _memory(customers: int, seed: int, servers: int) -> dict[str, dict[str, float]]:
    out = {}
    for name in MODELS:
        done = subprocess.run(
            [
                sys.executable,
                __file__,
                "--memory-worker",
                name,
                "--customers",
                str(customers),
                "--seed",
                str(seed),
                "--servers",
                str(servers),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        out[name] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--customers", type=int, default=200_000, help="customers per run (default 200000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each model; the best is kept (default 3)")
    parser.add_argument("--seed", type=int, default=1, help="seed of both models' draws (default 1)")
    parser.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="N",
        help="also print the top N functions of a cProfile of one schedlab run",
    )
    parser.add_argument("--servers", type=int, default=SERVERS, help="c of M/M/c, at rho 0.9 (default 50)")
    parser.add_argument("--no-memory", action="store_true", help="skip the peak-RSS and GC runs")
    parser.add_argument(
        "--before",
        metavar="REV",
        default=None,
        help="also time Machine as it was at git revision REV (e.g. HEAD~3), or in a folder holding that revision's "
        "exported schedlab/, in the same process",
    )
    parser.add_argument("--memory-worker", choices=list(MODELS), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.customers < 1 or args.repeat < 1 or args.servers < 1:
        parser.error("--customers, --repeat and --servers must be >= 1")
    if args.memory_worker:
        _memory_worker(args.memory_worker, args.customers, args.seed, args.servers)
        return

    models = dict(MODELS)
    if args.before:
        models[f"@{args.before}"] = model_at(args.before)
    best = dict.fromkeys(models, float("inf"))
    best_cpu = dict.fromkeys(models, float("inf"))
    mean_wait = dict.fromkeys(models, float("nan"))
    for _ in range(args.repeat):
        for name, model in models.items():
            elapsed, cpu, mean_wait[name] = _timed(model, args.customers, args.seed, args.servers)
            best[name] = min(best[name], elapsed)
            best_cpu[name] = min(best_cpu[name], cpu)

    c = args.servers
    print(
        f"M/M/{c}, rho = {RHO:g}, {args.customers} customers, "
        f"best of {args.repeat} (Python {platform.python_version()}, SimPy {simpy.__version__})"
    )
    for name in models:
        print(
            f"  {name:<10} {args.customers / best[name]:>10,.0f} customers/s  ({best[name]:.3f} s wall, "
            f"{best_cpu[name]:.3f} s CPU)  mean wait {mean_wait[name]:.5f}"
        )
    for name in models:
        if name != "raw simpy":
            print(
                f"  ratio {name}/raw: {best['raw simpy'] / best[name]:.2f} wall-clock, "
                f"{best_cpu['raw simpy'] / best_cpu[name]:.2f} CPU time (target >= 1.0)"
            )
    print(f"  Erlang-C mean wait: {erlang_c_wait(c, RHO * c * SERVICE_RATE, SERVICE_RATE):.5f}")
    if not args.no_memory:
        mem = _memory(args.customers, args.seed, c)
        for name in MODELS:
            print(
                f"  {name:<10} peak RSS {mem[name]['rss_mib']:7.1f} MiB   GC {100 * mem[name]['gc_share']:5.1f}% "
                f"of {mem[name]['cpu_s']:.1f} s CPU (one run in a fresh process)"
            )
        print(
            f"  peak RSS schedlab/raw: {mem['schedlab']['rss_mib'] / mem['raw simpy']['rss_mib']:.2f} "
            "(target <= 1.5; GC target < 3%)"
        )

    if args.profile > 0:
        profiler = cProfile.Profile()
        profiler.runcall(run_schedlab, args.customers, args.seed, c)
        stats = pstats.Stats(profiler).strip_dirs()
        stats.sort_stats("tottime").print_stats(args.profile)


if __name__ == "__main__":
    main()

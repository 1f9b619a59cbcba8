"""Whole-log replay speed and memory: schedlab against AccaSim and a plain heapq replay.

The whole UniLu-Gaia-2014-1 log (51,987 records, 2,004 CPUs; ``--log`` takes
another, by path or by name in ../shared/traces) is replayed under FCFS + EASY
backfilling (``--backfill conservative``: conservative backfilling with the plan rebuilt
at each decision, ``conservative-rebuild`` in checkouts that have it, against its own
heapq reference ``_heapq_conservative.py``; AccaSim is not run then), from an empty
machine, by each tool in turn, and the script
prints one table: per tool the jobs replayed, the load time, the simulation time,
jobs/s (jobs replayed / simulation wall time), peak memory, and the mean wait and
mean bounded slowdown ``max(1, (wait + run) / max(run, 10))`` of its schedule; then
the time ratios AccaSim / schedlab.

- **schedlab**: :func:`schedlab.model.formats.logs.load_log` (read, clean), then
  :func:`~schedlab.processes.machine.replay.replay_model` with ``make_policy("fcfs",
  "easy")`` on a machine of the header's MaxProcs CPUs, run to the end, and
  :func:`~schedlab.model.formats.logs.evaluate` (timed apart, as "metrics").
- **AccaSim** 1.1.3 (``pip install accasim`` into its own venv, default
  ``../accasim-venv``): FIFO with ``EASYBackfilling`` and the ``FirstFit`` allocator,
  run by ``_accasim_driver.py`` with that venv's interpreter. Its reader turns a
  job of *n* CPUs into *n* one-core requests, so the 2,004 cores form one flat
  pool however they are split into nodes; ``--nodes 1`` (one node of 2,004 cores,
  the same machine model as schedlab's and the cheapest for AccaSim's allocator)
  and ``--nodes 151`` (the header's node count: 41 nodes of 14 cores, 110 of 13)
  give the same schedule and differ only in allocator work. AccaSim parses the SWF
  as it simulates; the driver parses it first with AccaSim's own parser so that
  its load and simulation are timed apart too.
- **heapq reference** (``_heapq_replay.py``, no SimPy): schedlab's EASY rule decision
  for decision, and AccaSim's EASY as AccaSim codes it. Both should reproduce their
  tool's schedule job for job; the script counts the jobs whose start differs. For
  conservative backfilling, ``_heapq_conservative.py``.

The last line is issue 16's figure: the speed of schedlab's simulation relative to
its heapq reference (reference time / schedlab time; target >= 0.75). Taken from
separate processes it swings with the machine's load; ``--inprocess K`` also times the
two simulations in this one process, interleaved, best of K, the way
benchmarks/README.md's ratios are taken, and checks that the schedules agree.

Every tool replays the same cleaned job list: the jobs ``load_log`` keeps, written
once to a plain SWF file that AccaSim and the reference read; the table prints each
tool's job count and how many jobs start at another time than in schedlab's run.
Where the AccaSim venv is missing or AccaSim does not import, the script says why
and compares with the heapq reference only.

Each tool runs in its own fresh subprocess, ``--repeat`` times, interleaved, keeping
the best time, so that no tool's imports, caches or heap weigh on another's numbers.
Peak RSS is ``VmHWM`` from /proc/self/status of those timing runs, printed with the
RSS right after imports; not ``getrusage``, whose ``ru_maxrss`` a child inherits from
its parent across fork + exec on Linux. The traced peak (``tracemalloc``: Python
allocations during load + simulation + metrics) comes from one more run of each tool
with tracing on (of the first AccaSim layout only), since tracing slows a run down.
The garbage collector stays on. ``--profile N`` adds a cProfile of schedlab's
simulation (top N functions by own and by cumulative time).

While this checkout's ``Machine`` takes no ``batch_decisions`` (which ``replay_model``
passes) the model is built as ``replay_model`` builds it, by hand; while it applies
one action per policy call, the EASY generator is served one action per call
(:class:`_OneAtATime`, in ``_replay_runs.py``). The table's header line says which path ran.
No assertion on time: this prints, it does not judge.

This script is the comparison (which tools, each in which process, the table);
``_replay_runs.py`` beside it is the measurement of one tool's replay, which a
``--worker`` process, ``--inprocess`` and ``--profile`` run.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from _replay_runs import inprocess_ratio, profile_schedlab, worker_heapq, worker_schedlab  # beside this script

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_LOG = ROOT.parent / "shared" / "traces" / "UniLu-Gaia-2014-1.swf.gz"
DEFAULT_ACCASIM_PYTHON = os.environ.get("ACCASIM_PYTHON", str(ROOT.parent / "accasim-venv" / "bin" / "python"))
BSLD_THRESHOLD = 10.0


# --------------------------------------------------------------------------- helpers


def _run(cmd: list[str], what: str) -> dict[str, Any]:
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=HERE, check=False)
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-15:])
        raise SystemExit(f"{what} failed (exit {done.returncode}):\n{tail}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def schedule_metrics(path: str) -> dict[str, Any]:
    """Jobs, mean wait and mean bounded slowdown (10 s) of a schedule file, the same way for every tool."""
    with open(path) as f:
        rows = json.load(f)
    waits = [start - submit for _, submit, start, _ in rows]
    bslds = [max(1.0, (end - submit) / max(end - start, BSLD_THRESHOLD)) for _, submit, start, end in rows]
    return {
        "ids": [r[0] for r in rows],
        "starts": {r[0]: r[2] for r in rows},
        "jobs": len(rows),
        "wait": statistics.fmean(waits) if waits else math.nan,
        "bsld": statistics.fmean(bslds) if bslds else math.nan,
    }


def accasim_check(python: str) -> tuple[bool, str]:
    """Whether AccaSim can be imported by ``python`` (with the driver's one shim); else why not."""
    if not Path(python).is_file():
        return False, f"no AccaSim interpreter at {python} (create the venv: see benchmarks/README.md)"
    probe = (
        "import sys, collections, collections.abc; collections.Mapping = collections.abc.Mapping; "
        "import accasim.base.simulator_class, importlib.metadata as m; "
        "print(m.version('accasim'), sys.version.split()[0])"
    )
    done = subprocess.run([python, "-c", probe], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return False, (done.stderr.strip().splitlines() or ["(no message)"])[-1]
    version, py = done.stdout.split()
    return True, f"AccaSim {version} on Python {py}"


def write_clean_swf(path: str, loaded: Any) -> None:
    """The cleaned jobs as a plain SWF file, each with the requested time schedlab's scheduler is told."""
    from schedlab.model.formats.swf.writer import write_swf

    jobs = [j if j.estimate is not None else dataclasses.replace(j, estimate=j.requested_time) for j in loaded.jobs]
    write_swf(path, jobs, header={"MaxProcs": loaded.cpus, "Note": f"cleaned by schedlab from {loaded.path}"})


# --------------------------------------------------------------------------- main


def _mib(kib: float | None) -> str:
    return "-" if kib is None else f"{kib / 1024:,.0f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--log", "--trace", default=str(DEFAULT_LOG), help="SWF log (default: the shared UniLu-Gaia-2014-1)"
    )  # --trace: its name before issue 34
    parser.add_argument("--repeat", type=int, default=3, help="timing runs of each tool; best kept (default 3)")
    parser.add_argument(
        "--nodes", default="1,151", help="AccaSim node counts to run, comma-separated (default 1,151); empty for none"
    )
    parser.add_argument(
        "--accasim-python",
        default=DEFAULT_ACCASIM_PYTHON,
        help="interpreter of the AccaSim venv (default $ACCASIM_PYTHON or ../accasim-venv/bin/python)",
    )
    parser.add_argument("--no-tracemalloc", action="store_true", help="skip the traced-memory runs")
    parser.add_argument(
        "--batch-decisions",
        action="store_true",
        help="pass batch_decisions=True to replay_model (where the Machine takes it)",
    )
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="also cProfile schedlab; print top N")
    parser.add_argument(
        "--backfill",
        choices=["easy", "conservative"],
        default="easy",
        help="FCFS + EASY (default; with AccaSim) or conservative backfilling",
    )
    parser.add_argument(
        "--inprocess",
        type=int,
        default=0,
        metavar="K",
        help="also time schedlab and its heapq reference in one process, interleaved, best of K",
    )
    parser.add_argument("--keep", metavar="DIR", help="keep the cleaned SWF and every schedule in DIR")
    # internal: one measurement in a fresh process
    parser.add_argument(
        "--worker", choices=["schedlab", "heapq-easy", "heapq-accasim", "heapq-conservative"], help=argparse.SUPPRESS
    )
    parser.add_argument("--swf", help=argparse.SUPPRESS)
    parser.add_argument("--procs", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--schedule", help=argparse.SUPPRESS)
    parser.add_argument("--traced", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker == "schedlab":
        print(json.dumps(worker_schedlab(args.log, args.schedule, args.traced, args.batch_decisions, args.backfill)))
        return
    if args.worker:
        print(json.dumps(worker_heapq(args.swf, args.procs, args.worker.split("-")[1], args.schedule, args.traced)))
        return
    if args.repeat < 1:
        parser.error("--repeat must be >= 1")
    nodes = [int(n) for n in args.nodes.split(",") if n.strip()]

    from schedlab.model.formats.logs import load_log, log_path

    log = str(log_path(args.log, ROOT.parent / "shared" / "traces").resolve())
    loaded = load_log(log)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="schedlab-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    swf = str(work / "cleaned.swf")
    write_clean_swf(swf, loaded)
    report = str(loaded.report).splitlines()
    print(f"{Path(log).name}: {report[0].split(': ', 1)[1]}; machine {loaded.cpus} CPUs")
    for line in report[1:]:
        print(f"  dropped{line}")
    print(f"every tool reads the same {len(loaded.jobs)} cleaned jobs ({swf} for AccaSim and the reference)")

    me = [sys.executable, str(HERE / "replay.py")]
    rule = args.backfill
    reference = f"heapq, schedlab's {'EASY' if rule == 'easy' else 'cons.'}"
    tools: dict[str, list[str]] = {
        "schedlab": [*me, "--worker", "schedlab", "--log", log, "--backfill", rule]
        + (["--batch-decisions"] if args.batch_decisions else []),
        reference: [*me, "--worker", f"heapq-{rule}", "--swf", swf, "--procs", str(loaded.cpus)],
    }
    ok, accasim_note = accasim_check(args.accasim_python)
    if rule != "easy":
        nodes, accasim_note = [], "AccaSim not run (it has no conservative backfilling here)"
    if ok and nodes:
        for n in nodes:
            tools[f"AccaSim, {n} node{'s' if n > 1 else ''}"] = [
                args.accasim_python,
                str(HERE / "_accasim_driver.py"),
                swf,
                "--cores",
                str(loaded.cpus),
                "--nodes",
                str(n),
            ]
        tools["heapq, AccaSim's EASY"] = [*me, "--worker", "heapq-accasim", "--swf", swf, "--procs", str(loaded.cpus)]
    elif not ok:
        print(f"NOTE: AccaSim not run: {accasim_note}\n      comparing with the heapq reference only.")

    best: dict[str, dict[str, Any]] = {}
    for _ in range(args.repeat):
        for name, cmd in tools.items():
            out = _run([*cmd, "--schedule", str(work / f"{_slug(name)}.json")], name)
            if name not in best or out["sim_s"] < best[name]["sim_s"]:
                keep_rss = max(out["maxrss_kib"], best.get(name, {}).get("maxrss_kib", 0))
                best[name] = {**out, "maxrss_kib": keep_rss}
    if not args.no_tracemalloc:
        accasim_layouts = [name for name in tools if name.startswith("AccaSim")]
        for name, cmd in tools.items():
            if name in accasim_layouts[1:]:
                continue  # same jobs and schedule as the first layout; tracing it again only costs time
            flag = "--tracemalloc" if name.startswith("AccaSim") else "--traced"
            out = _run([*cmd, "--schedule", str(work / f"{_slug(name)}-traced.json"), flag], f"{name} (traced)")
            best[name]["tracemalloc_peak"] = out["tracemalloc_peak"]

    metrics = {name: schedule_metrics(str(work / f"{_slug(name)}.json")) for name in tools}
    ref = metrics["schedlab"]
    print(
        f"\nFCFS + {rule} backfilling, whole log, best of {args.repeat} (each tool in its own process); "
        f"{accasim_note if ok else 'no AccaSim'}"
    )
    print(f"schedlab built with: {best['schedlab']['how']}")
    head = (
        f"{'tool':<24}{'jobs':>7}{'load s':>8}{'sim s':>8}{'jobs/s':>9}{'peak RSS MiB':>13}{'(imports)':>10}"
        f"{'traced MiB':>11}{'mean wait s':>12}{'mean bsld':>10}{'starts != schedlab':>19}"
    )
    print(head)
    print("-" * len(head))
    for name in tools:
        b, m = best[name], metrics[name]
        same_set = set(m["ids"]) == set(ref["ids"])
        differ = sum(1 for k, s in m["starts"].items() if ref["starts"].get(k) != s) if same_set else "other jobs!"
        traced = b.get("tracemalloc_peak")
        print(
            f"{name:<24}{m['jobs']:>7}{b['load_s']:>8.2f}{b['sim_s']:>8.2f}{m['jobs'] / b['sim_s']:>9,.0f}"
            f"{_mib(b['maxrss_kib']):>13}{_mib(b['rss_imported_kib']):>10}"
            f"{'-' if traced is None else f'{traced / 2**20:,.0f}':>11}{m['wait']:>12.2f}{m['bsld']:>10.4f}"
            f"{differ:>19}"
        )
    s = best["schedlab"]
    ev = s["evaluate"]
    print(
        f"\nschedlab evaluate(): wait {ev['wait']:.2f} s, bounded slowdown {ev['bounded_slowdown']:.4f}, "
        f"utilization {ev['utilization']:.3f}; metrics took {s['metrics_s']:.2f} s (not in sim s)"
    )
    total = s["load_s"] + s["sim_s"] + s["metrics_s"]
    for name in tools:
        if name != "schedlab":  # > 1: schedlab is faster
            a = best[name]
            print(
                f"time ratio {name} / schedlab: simulation {a['sim_s'] / s['sim_s']:.2f}, "
                f"load + simulation (+ schedlab's metrics) {(a['load_s'] + a['sim_s']) / total:.2f}"
            )
    print(
        f"speed schedlab / heapq reference, FCFS + {rule}, subprocesses: "
        f"{best[reference]['sim_s'] / s['sim_s']:.2f} (issue 16's target >= 0.75)"
    )
    counts = {m["jobs"] for m in metrics.values()}
    listed = ", ".join(f"{n} {m['jobs']}" for n, m in metrics.items())
    print(f"job counts: {listed} -> {'all equal' if len(counts) == 1 else 'DIFFERENT'}")
    if args.inprocess:
        print(inprocess_ratio(log, rule, args.inprocess, args.batch_decisions))
    if args.profile:
        print(f"\ncProfile of schedlab's simulation (load excluded), top {args.profile}:")
        print(profile_schedlab(log, args.profile, args.batch_decisions, rule))
    if not args.keep:
        for p in work.iterdir():
            p.unlink()
        work.rmdir()


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name.lower()).strip("_")


if __name__ == "__main__":
    main()

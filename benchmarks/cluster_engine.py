"""A cluster's replay, and a powered cluster's with DVFS, against schedlab at another git revision.

``engine.py`` times the plain ``Machine``; this times what a cluster adds on its hot path
(placing each job, its placement table, its core ids) and what a powered cluster adds
(its ``pstates`` part, called at each start and release, and the rescaling of running
jobs at each pstate change). Both sides replay the same window of an SWF log (default
the first 3,000 jobs of SDSC-SP2 from ``../shared/traces``) on
``docs/platforms/batsim_dvfs_128.toml`` (128 one-core hosts with Batsim's 13 pstates),
first-fit placement:

- ``cluster``: a ``Cluster`` under FCFS + EASY;
- ``powered``: a ``PoweredCluster`` under ``QueueDVFS(FCFS + EASY, low=12)``, whose nodes go
  to pstate 12 whenever the queue empties and back to 0 when a job waits.

``--before REV`` exports schedlab's whole package at REV and imports it beside today's, as
``engine.py --before`` does; each side builds its model from its own package. The runs are
interleaved and the best CPU time (``time.process_time``) of ``--repeat`` is kept; each
line also says whether the two sides gave the same records, placement rows and pstate rows.
Run from the repository root: ``python benchmarks/cluster_engine.py --before main``.
It prints; it asserts nothing about time.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import time
from pathlib import Path
from typing import Any

import simpy
from engine import BEFORE_PACKAGE, package_at  # beside this script: the export of a revision's package

PLATFORM = "docs/platforms/batsim_dvfs_128.toml"


def package_parts(package: str) -> dict[str, Any]:
    """What a replay on a (powered) cluster needs, from ``package`` (``schedlab`` or a revision's)."""

    def module(name: str) -> Any:
        return importlib.import_module(f"{package}.{name}")

    return {
        "load_log": module("model.formats.logs").load_log,
        "log_path": module("model.formats.logs").log_path,
        "load_platform": module("model.formats.platform_file").load_platform,
        "make_policy": module("policies.batch").make_policy,
        "make_placement": module("policies.placement").make_placement,
        "QueueDVFS": module("policies.dvfs").QueueDVFS,
        "cluster_model": module("processes.cluster.cluster").cluster_model,
        "powered_cluster_model": module("processes.cluster.power").powered_cluster_model,
    }


def replay(parts: dict[str, Any], jobs: list[Any], platform: Any, kind: str) -> tuple[float, Any]:
    """CPU seconds to build and run one replay, and what it gave (records, placement and pstate rows)."""
    gc.collect()
    began = time.process_time()
    env = simpy.Environment()
    easy = parts["make_policy"]("fcfs", "easy")
    if kind == "powered":
        build = parts["powered_cluster_model"]
        model = build(env, jobs, platform, parts["QueueDVFS"](easy, 12), parts["make_placement"]("first-fit"))
    else:
        model = parts["cluster_model"](env, jobs, platform, easy, parts["make_placement"]("first-fit"))
    model.run()
    seconds = time.process_time() - began
    cluster = model["cluster"]
    pstates = cluster.pstate_rows() if kind == "powered" else []
    return seconds, ([tuple(r) for r in model.records()], cluster.placement_rows(), pstates)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", metavar="REV", required=True, help="the git revision to compare with")
    parser.add_argument("--log", default="SDSC-SP2-1998-4.2-cln", help="SWF log (default SDSC-SP2)")
    parser.add_argument("--logs-dir", default="../shared/traces", help="where the logs are")
    parser.add_argument("--jobs", type=int, default=3000, help="the log's first N jobs (default 3000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each side; the best is kept (default 3)")
    args = parser.parse_args(argv)
    if args.jobs < 1 or args.repeat < 1:
        parser.error("--jobs and --repeat must be >= 1")
    package_at(args.before)
    sides = {"here": package_parts("schedlab"), f"@{args.before}": package_parts(BEFORE_PACKAGE)}
    inputs = {}
    for name, parts in sides.items():
        log = parts["load_log"](str(parts["log_path"](args.log, Path(args.logs_dir))), memory=True)
        platform = parts["load_platform"](PLATFORM)
        inputs[name] = ([platform.swf_job(job) for job in log.jobs[: args.jobs]], platform)
    print(f"{args.log}, first {args.jobs} jobs, {PLATFORM}, best of {args.repeat} (CPU s)")
    for kind in ("cluster", "powered"):
        best = dict.fromkeys(sides, float("inf"))
        out = {}
        for _ in range(args.repeat):
            for name, parts in sides.items():
                seconds, out[name] = replay(parts, *inputs[name], kind)
                best[name] = min(best[name], seconds)
        here, before = best.values()
        same = len({repr(o) for o in out.values()}) == 1
        times = ", ".join(f"{name} {s:.3f}" for name, s in best.items())
        print(f"  {kind:8} {times}; here/before {here / before:.3f}; the same results: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()

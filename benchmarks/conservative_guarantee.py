"""Conservative backfilling's guarantee on real windows: jobs started later than their arrival reservation.

For each window of a log, FCFS with conservative backfilling is replayed twice:
the paper's rule (reservations made at arrival, compressed when jobs end early:
``Conservative`` on a machine, ``PartitionConservative`` on a platform) and the plan
rebuilt at each decision (``RebuildConservative``, ``RebuildPartitionConservative``).
A job's *arrival reservation* is, for the paper's rule, ``policy.promised``; for the
rebuilt plan, the job's slot in ``plan(view)`` (``partition_plan(view)``) at the first
decision that sees it (its arrival), taken before the policy acts. A job is *late*
when it started after that slot. CPU seconds are each replay's alone (the rebuilt
plan's without the notes).

With ``--platform`` the window is replayed on a cluster: a platform file, ``one-core``
(the log's CPUs as one-core nodes) or ``cores=K`` (nodes of K cores, as many as
the log's CPUs fill), jobs placed by ``--placement``. The ``exact`` column says
whether the run met ``PartitionConservative``'s condition for the guarantee (counting
cores is exact: docs/platforms.md); where it did not, late starts are counted, not
excluded.

    python benchmarks/conservative_guarantee.py                      # SDSC-SP2, 6 windows of 1000, kill
    python benchmarks/conservative_guarantee.py --walltime run-on --windows 3
    python benchmarks/conservative_guarantee.py --platform one-core
    python benchmarks/conservative_guarantee.py --platform cores=8 --placement first-fit
    python benchmarks/conservative_guarantee.py --log LPC-EGEE-2004-1.2-cln --platform docs/platforms/lpc_egee.toml
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import simpy

from schedlab.model.core.platform import Platform
from schedlab.model.formats.logs import load_log, log_path, pick_windows
from schedlab.model.formats.platform_file import load_platform, parse_platform
from schedlab.policies.conservative import Conservative
from schedlab.policies.conservative_rebuild import RebuildConservative, plan
from schedlab.policies.partition_conservative import PartitionConservative
from schedlab.policies.partition_conservative_rebuild import RebuildPartitionConservative, partition_plan
from schedlab.policies.placement import PLACEMENTS, make_placement
from schedlab.processes.cluster.cluster import cluster_model
from schedlab.processes.machine.replay import replay_model


class FirstPlan:
    """A rebuilt-plan policy that notes each job's slot in the plan of the first decision that sees it."""

    def __init__(self, policy, planner) -> None:
        self.policy = policy
        self.planner = planner
        self.promised: dict = {}

    def __call__(self, view):
        if any(job not in self.promised for job in view.waiting):
            for job, t in self.planner(view).items():
                self.promised.setdefault(job, t)
        return self.policy(view)


def replay(
    jobs, procs: int, policy, walltime: str, platform: Platform | None, placement: str
) -> tuple[dict, float, float]:
    began = time.process_time()
    env = simpy.Environment()
    if platform is None:
        model = replay_model(env, jobs, procs, policy, walltime=walltime).run()
    else:
        jobs = [platform.swf_job(job) for job in jobs]
        model = cluster_model(env, jobs, platform, policy, make_placement(placement), walltime=walltime).run()
    seconds = time.process_time() - began
    records = [r for r in model.records() if r.start == r.start]  # not the jobs rejected (no start)
    starts = {r.id: r.start for r in records}
    wait = sum(r.start - r.submit for r in records) / len(records)
    return starts, wait, seconds


def platform_of(spec: str, procs: int) -> Platform | None:
    """The platform ``--platform`` names: none, ``one-core``, ``cores=K`` or a file."""
    if not spec:
        return None
    if spec == "one-core" or spec.startswith("cores="):
        cores = 1 if spec == "one-core" else int(spec.removeprefix("cores="))
        return parse_platform({"nodes": {"node": {"count": procs // cores, "cores": cores}}}, source=spec)
    return load_platform(spec)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--log", "--trace", default="SDSC-SP2-1998-4.2-cln")  # --trace: its name before issue 34
    parser.add_argument("--logs-dir", default=str(Path(__file__).resolve().parents[1].parent / "shared" / "traces"))
    parser.add_argument("--windows", type=int, default=6)
    parser.add_argument("--length", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--starts", default=None, metavar="I,J,...", help="windows starting at these jobs")
    parser.add_argument("--walltime", choices=("kill", "run-on"), default="kill")
    parser.add_argument("--platform", default="", help="a platform file, one-core or cores=K (default: a Machine)")
    parser.add_argument("--placement", choices=sorted(PLACEMENTS), default="first-fit")
    args = parser.parse_args()
    log = load_log(str(log_path(args.log, Path(args.logs_dir))), memory=bool(args.platform))
    platform = platform_of(args.platform, log.cpus)
    where = f"platform {args.platform}, {args.placement}" if platform else f"{log.cpus} CPUs"
    print(
        f"{args.log}: {f'windows at {args.starts}' if args.starts else f'{args.windows} windows'} "
        f"of {args.length} jobs (seed {args.seed}), "
        f"{where}, walltime {args.walltime}, FCFS"
    )
    print(
        f"{'start':>7} | {'late: paper':>11} {'rebuild':>8} | {'wait s: paper':>13} {'rebuild':>9} "
        f"| {'CPU s: paper':>12} {'rebuild':>8} | exact"
    )
    totals = [0, 0, 0]
    seconds = [0.0, 0.0]
    starts = [int(x) for x in args.starts.split(",")] if args.starts else None
    for lo in pick_windows(len(log.jobs), args.length, starts=starts, count=args.windows, seed=args.seed):
        jobs = log.jobs[lo : lo + args.length]
        if platform is None:
            paper, rebuild = Conservative(), FirstPlan(RebuildConservative(), plan)
        else:
            paper, rebuild = PartitionConservative(), FirstPlan(RebuildPartitionConservative(), partition_plan)
        s_paper, w_paper, t_paper = replay(jobs, log.cpus, paper, args.walltime, platform, args.placement)
        s_rebuild, w_rebuild, _ = replay(jobs, log.cpus, rebuild, args.walltime, platform, args.placement)
        # its CPU time without the plan noted at each arrival (the same starts: the notes change nothing)
        t_rebuild = replay(jobs, log.cpus, rebuild.policy, args.walltime, platform, args.placement)[2]
        late_paper = sum(s_paper[job.id] > t for job, t in paper.promised.items())
        late_rebuild = sum(s_rebuild[job.id] > t for job, t in rebuild.promised.items())
        totals = [totals[0] + len(paper.promised), totals[1] + late_paper, totals[2] + late_rebuild]
        seconds = [seconds[0] + t_paper, seconds[1] + t_rebuild]
        exact = "yes" if getattr(paper, "exact", True) else "no"
        print(
            f"{lo:>7} | {late_paper:>11} {late_rebuild:>8} | {w_paper:>13.0f} {w_rebuild:>9.0f} "
            f"| {t_paper:>12.2f} {t_rebuild:>8.2f} | {exact}"
        )
    print(f"late starts: paper {totals[1]} of {totals[0]} jobs, rebuild {totals[2]} of {totals[0]}")
    print(f"CPU s in all: paper {seconds[0]:.2f}, rebuild {seconds[1]:.2f}")


if __name__ == "__main__":
    main()

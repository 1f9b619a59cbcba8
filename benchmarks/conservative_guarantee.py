"""Conservative backfilling's guarantee on real windows: jobs started later than their arrival reservation.

For each window of a log, FCFS with conservative backfilling is replayed twice:
the paper's rule (``Conservative``: reservations made at arrival, compressed when
jobs end early) and the plan rebuilt at each decision (``RebuildConservative``). A
job's *arrival reservation* is, for the paper's rule, ``policy.promised``; for the
rebuilt plan, the job's slot in ``plan(view)`` at the first decision that sees it
(its arrival), taken before the policy acts. A job is *late* when it started after
that slot.

    python benchmarks/conservative_guarantee.py                      # SDSC-SP2, 6 windows of 1000, kill
    python benchmarks/conservative_guarantee.py --walltime run-on --windows 3
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import simpy

from schedlab.model.formats.traces import load_trace, pick_windows, trace_path
from schedlab.policies.conservative import Conservative
from schedlab.policies.conservative_rebuild import RebuildConservative, plan
from schedlab.processes.replay import replay_model


class FirstPlan:
    """RebuildConservative that notes each job's slot in the plan of the first decision that sees it."""

    def __init__(self) -> None:
        self.policy = RebuildConservative()
        self.promised: dict = {}

    def __call__(self, view):
        if any(job not in self.promised for job in view.waiting):
            for job, t in plan(view).items():
                self.promised.setdefault(job, t)
        return self.policy(view)


def replay(jobs, procs: int, policy, walltime: str) -> tuple[dict, float, float]:
    began = time.process_time()
    model = replay_model(simpy.Environment(), jobs, procs, policy, walltime=walltime).run()
    seconds = time.process_time() - began
    records = model.records()
    starts = {r.id: r.start for r in records}
    wait = sum(r.start - r.submit for r in records) / len(records)
    return starts, wait, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trace", default="SDSC-SP2-1998-4.2-cln")
    parser.add_argument("--traces-dir", default=str(Path(__file__).resolve().parents[1].parent / "shared" / "traces"))
    parser.add_argument("--windows", type=int, default=6)
    parser.add_argument("--length", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--starts", default=None, metavar="I,J,...", help="windows starting at these jobs")
    parser.add_argument("--walltime", choices=("kill", "run-on"), default="kill")
    args = parser.parse_args()
    trace = load_trace(str(trace_path(args.trace, Path(args.traces_dir))))
    print(
        f"{args.trace}: {args.starts or args.windows} windows of {args.length} jobs (seed {args.seed}), "
        f"{trace.procs} processors, walltime {args.walltime}, FCFS"
    )
    print(
        f"{'start':>7} | {'late: paper':>11} {'rebuild':>8} | {'wait s: paper':>13} {'rebuild':>9} "
        f"| {'CPU s: paper':>12} {'rebuild':>8}"
    )
    totals = [0, 0, 0]
    starts = [int(x) for x in args.starts.split(",")] if args.starts else None
    for lo in pick_windows(len(trace.jobs), args.length, starts=starts, count=args.windows, seed=args.seed):
        jobs = trace.jobs[lo : lo + args.length]
        paper = Conservative()
        s_paper, w_paper, t_paper = replay(jobs, trace.procs, paper, args.walltime)
        rebuild = FirstPlan()
        s_rebuild, w_rebuild, t_rebuild = replay(jobs, trace.procs, rebuild, args.walltime)
        late_paper = sum(s_paper[job.id] > t for job, t in paper.promised.items())
        late_rebuild = sum(s_rebuild[job.id] > t for job, t in rebuild.promised.items())
        totals = [totals[0] + len(jobs), totals[1] + late_paper, totals[2] + late_rebuild]
        print(
            f"{lo:>7} | {late_paper:>11} {late_rebuild:>8} | {w_paper:>13.0f} {w_rebuild:>9.0f} "
            f"| {t_paper:>12.2f} {t_rebuild:>8.2f}"
        )
    print(f"late starts: paper {totals[1]} of {totals[0]} jobs, rebuild {totals[2]} of {totals[0]}")


if __name__ == "__main__":
    main()

"""Whether conservative backfilling's guarantee holds in a replay, said before it runs and counted after.

Conservative backfilling (``--backfill conservative``) promises every job a start no
later than the reservation it was given on arrival. The promise rests on its plan,
which counts free CPUs (on a platform: free cores per pool of nodes), being
the machine: any CPUs the plan counts free can take the job. When that fails a
job may start later than promised, and the replay gave no sign. So:

- :func:`guarantee_gaps` reads the replay's settings, its platform's node shape and
  its logs' job widths *before* the run, and names each reason the guarantee does not
  hold; ``schedlab replay`` prints them as one warning line and keeps it in
  ``manifest.json`` (``run.warnings``). The combinations that keep the guarantee, and
  why, are in ``docs/platforms.md`` ("Conservative backfilling's guarantee");
  :mod:`schedlab.policies.partition_conservative` states the condition per job.
- :func:`late_starts` counts, after a window's run, the jobs that started later than
  their arrival reservation (the ``late_starts`` metric of conservative cells).

A reason found here means the guarantee *may* fail (a first-fit job of two cores may
still always find a node); ``late_starts`` says whether it did.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from schedlab.model.core.job import Job
from schedlab.model.core.platform import Platform
from schedlab.policies.conservative import Conservative
from schedlab.policies.partition_conservative import node_pools

__all__ = ["guarantee_gaps", "late_lines", "late_starts", "placement_gaps", "replay_warnings", "warning_line"]

#: slack on a start time compared with its reservation (both simulated seconds, sums of the log's times)
_SLACK = 1e-6


def guarantee_gaps(cfg: Any, jobs: Iterable[Job], platform: Platform | None) -> list[str]:
    """Why ``conservative`` backfilling's guarantee does not hold for these settings and jobs (empty: it holds).

    ``jobs`` are the logs' jobs as read (SWF CPUs and memory), ``platform`` the
    platform replayed on (``None``: a machine of CPUs, which any job of the
    plan's width fits).
    """
    if "conservative" not in cfg.backfills:
        return []
    gaps = []
    if cfg.walltime == "run-on":
        gaps.append("jobs run past their requested time (walltime run-on) and hold CPUs the plan counted free")
    if cfg.failures or cfg.mtbf:
        gaps.append("nodes fail (--failures/--mtbf), taking CPUs the plan counted")
    if platform is not None:
        gaps += placement_gaps(cfg.placement, platform, list(jobs))
    return gaps


def placement_gaps(placement: str, platform: Platform, jobs: Sequence[Job]) -> list[str]:
    """The node shape and placement rule's reasons: free cores the plan counts that a job cannot take."""
    gaps = []
    widest = max(n.cores for n in platform.nodes)
    if widest > 1 and placement == "exclusive":
        gaps.append(f"placement exclusive gives jobs whole nodes of up to {widest} cores, the plan counts cores")
    elif widest > 1 and placement in ("first-fit", "best-fit"):
        # a job one node could hold waits for one node: its cores free over several nodes do not take it
        narrow = sum(1 for j in jobs if 1 < j.cpus <= widest)
        if narrow:
            gaps.append(
                f"placement {placement} keeps a job of {'2' if widest == 2 else f'2 to {widest}'} cores on one node, "
                f"and {narrow} job(s) of the log(s) ask for that: "
                "cores free on several nodes, none holding the job, are counted free"
            )
    short = _short_of_resources(platform, jobs)
    if short:
        gaps.append(f"{short} job(s) of the log(s) ask more memory or other resources a core than some node has a core")
    groups = [p.nodes for p in platform.partitions.values()]
    pools = node_pools(groups)
    size: dict[int, int] = {}
    for pool in pools.values():
        size[pool] = size.get(pool, 0) + 1
    overlapping = [
        name for name, p in platform.partitions.items() if p.nodes and size[pools[p.nodes[0]]] != len(p.nodes)
    ]
    if overlapping:
        gaps.append(
            f"partitions {', '.join(overlapping)} share nodes with others but differ from them: "
            "a pool's free cores include nodes a job may not use"
        )
    return gaps


def _short_of_resources(platform: Platform, jobs: Sequence[Job]) -> int:
    """How many jobs ask more of a resource a core than the node poorest in it has a core."""
    names = set(platform.resources)
    per_core = {r: min(n.resources.get(r, 0.0) / n.cores for n in platform.nodes) for r in names}
    if not per_core and not any(q.demands for q in platform.queues.values()):
        return 0  # cores only: nothing else can bind
    count = 0
    for job in jobs:
        demands = platform.swf_job(job).demands
        if any(a > 0 and a / job.cpus > per_core.get(r, 0.0) * (1 + 1e-9) for r, a in demands.items()):
            count += 1
    return count


def warning_line(gaps: Sequence[str]) -> str:
    """The one line ``schedlab replay`` prints (and keeps in ``manifest.json``) for ``gaps``."""
    return (
        "warning: conservative backfilling's guarantee (no job starts later than its reservation at arrival) "
        f"does not hold here: {'; '.join(gaps)}; the late_starts column counts the jobs started late "
        "(docs/platforms.md)"
    )


def late_starts(policy: Conservative, records: Iterable[Any]) -> int:
    """How many jobs of ``records`` started later than ``policy`` promised them on arrival."""
    first: dict[Any, float] = {}
    for r in records:
        if r.start == r.start:  # nan: never started (said in the replay's left-out lines)
            first[r.id] = min(first.get(r.id, r.start), r.start)
    return sum(1 for job, t in policy.promised.items() if job.id in first and first[job.id] > t + _SLACK)


def replay_warnings(cfg: Any, jobs: Iterable[Job]) -> list[str]:
    """The warning lines of a replay of ``jobs`` under ``cfg`` (a log replay's Config): none, or the one above."""
    from schedlab.model.formats.platform_file import cached_platform

    gaps = guarantee_gaps(cfg, jobs, cached_platform(cfg.platform) if cfg.platform else None)
    return [warning_line(gaps)] if gaps else []


def late_lines(replications: Iterable[dict[str, Any]], length: int) -> list[str]:
    """One line per conservative cell whose jobs started later than promised: how many, of how many."""
    late: dict[tuple[str, ...], list[float]] = {}
    for rep in replications:
        if "late_starts" in rep and rep["late_starts"] == rep["late_starts"]:
            # trace: the log's column in results saved before the vocabulary (issue 34)
            key = tuple(str(rep[k]) for k in ("log", "trace", "policy", "backfill") if k in rep)
            late.setdefault(key, []).append(rep["late_starts"])
    return [
        f"late starts, {' '.join(key)}: {int(sum(n))} of {len(n) * length} jobs in {len(n)} window(s) of {length} "
        "started later than their reservation at arrival"
        for key, n in late.items()
        if sum(n)
    ]

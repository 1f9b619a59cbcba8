"""The workloads of seed 001's grid site: Table 1's M/M/P jobs and a segment of a real PBS log.

Both tag each job *interactive* (execution under 15 minutes, section 4.2) or batch,
and give each a VO (``group``); the synthetic one and the tagging live with the site's
contract (:mod:`schedlab.model.contracts.site`, so that the site's Gymnasium environment
draws the same jobs) and are re-exported here. :func:`election_objective` is the quantity the SARSA
supervisor maximises, measured on any schedule's records.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from schedlab.model.analysis.fair_share import FairShare, responsiveness_utility
from schedlab.model.contracts.site import INTERACTIVE_LIMIT, synthetic_site_jobs, tagged
from schedlab.model.core.job import Job
from schedlab.model.formats.egee import busiest_segment, without_monitoring
from schedlab.model.formats.logs import load_log, log_path
from schedlab.model.records.job_record import JobRecord

__all__ = [
    "INTERACTIVE_LIMIT",
    "SiteLog",
    "election_objective",
    "election_rewards",
    "log_segment",
    "synthetic_site_jobs",
    "tagged",
]


@dataclass(frozen=True)
class SiteLog:
    """A segment of a log as the site sees it."""

    jobs: list[Job]  # submit times from 0, classes tagged, VOs folded
    waits: list[float]  # the waits the log recorded (NATIVE)
    cores: int  # the log's machine
    targets: dict[str, float]  # each VO's share of the segment's work: a feasible schedule
    note: str  # what was read, removed and kept


def log_segment(
    trace: str, weeks: int, week: int | None, monitoring_queue: str, monitoring_max_runtime: float, max_jobs: int = 0
) -> SiteLog:
    """Monitoring jobs out, the busiest ``weeks`` weeks (or those from ``week``), the six largest VOs.

    ``monitoring_queue="auto"`` is the ``test`` queue (1) of an EGEE log and none otherwise;
    ``max_jobs`` (if > 0) keeps only the segment's first jobs.
    """
    loaded = load_log(str(log_path(trace)))
    queue = monitoring_queue
    if queue == "auto":
        queue = "1" if "EGEE" in Path(trace).name.upper() else ""
    jobs, waits, removed = list(loaded.jobs), list(loaded.recorded_wait), 0
    if queue:
        jobs, waits, removed = without_monitoring(jobs, waits, queue, monitoring_max_runtime)
    seg = busiest_segment(jobs, loaded.cpus, weeks, week)
    last = min(seg.last, seg.first + max_jobs) if max_jobs else seg.last
    window, waits = jobs[seg.first : last], waits[seg.first : last]
    largest = [g for g, _ in Counter(j.group for j in window).most_common(6)]
    t0 = window[0].submit  # the segment starts at time 0: utilization is measured from there
    jobs = [
        dataclasses.replace(tagged(j, j.group if j.group in largest else "rest"), submit=j.submit - t0) for j in window
    ]
    work: defaultdict[str, float] = defaultdict(float)
    for j in jobs:
        work[j.group] += j.cpus * j.runtime
    total = sum(work.values())
    note = (
        f"{len(loaded.jobs)} jobs read, {removed} monitoring jobs removed (queue {queue or '-'}, run <= "
        f"{monitoring_max_runtime:g} s); weeks {round((seg.start - loaded.jobs[0].submit) / 604800)}+{weeks}: "
        f"{len(jobs)} jobs, load {seg.load:.2f}"
    )
    return SiteLog(jobs, waits, loaded.cpus, {g: w / total for g, w in sorted(work.items())}, note)


def election_rewards(
    records: Sequence[JobRecord], targets: Mapping[str, float], weight: float
) -> list[tuple[JobRecord, float]]:
    """``(record, lambda W + (1 - lambda) F)`` of every job in election order (start time).

    ``F`` is the fair-share utility right after the job's election, ``W`` its responsiveness.
    """
    fair = FairShare(targets)
    out = []
    for r in sorted(records, key=lambda r: (r.start, r.id)):
        f = fair.elect(r.group, r.cpus * r.service) if r.group in targets else fair.utility()
        out.append((r, weight * responsiveness_utility(r.service, r.wait) + (1 - weight) * f))
    return out


def election_objective(
    records: Sequence[JobRecord], kept: set[int], targets: Mapping[str, float], weight: float
) -> float:
    """The learner's objective on any schedule: mean ``lambda W + (1 - lambda) F`` over the ``kept`` jobs."""
    values = [v for r, v in election_rewards(records, targets, weight) if r.id in kept]
    return sum(values) / len(values) if values else math.nan

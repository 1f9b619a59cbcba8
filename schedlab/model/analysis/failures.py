"""What node failures cost a run, and the check that no job was lost or run twice.

Functions of a machine's :class:`~schedlab.model.records.node_fail.NodeKill` and
:class:`~schedlab.model.records.node_fail.NodeOutage` lists and of its job records:

- :func:`lost_cpu_hours`: the CPU-time the killed attempts held, in hours;
- :func:`jobs_hit`: how many distinct jobs a failure killed at least once;
- :func:`availability`: the fraction of CPU-time the CPUs were up;
- :func:`failure_conservation`: every submitted job ends exactly once, and every kill
  is either a restart or a drop.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from schedlab.model.core.procset import parse_procset
from schedlab.model.records.job_record import JobRecord, Status
from schedlab.model.records.node_fail import NodeKill, NodeOutage

__all__ = ["FailureBalance", "availability", "failure_conservation", "jobs_hit", "lost_cpu_hours"]

#: the statuses a job ends with, once (the others say it was still here when the run stopped)
_FINAL = (Status.COMPLETED, Status.TIMEOUT, Status.NODE_FAIL, Status.REJECTED)


def lost_cpu_hours(kills: Iterable[NodeKill], time_unit: float = 3600.0) -> float:
    """CPU-hours held by attempts that a node failure killed (``time_unit`` seconds an hour)."""
    return math.fsum(k.cpu_time for k in kills) / time_unit


def jobs_hit(kills: Iterable[NodeKill]) -> int:
    """How many distinct jobs were killed by a node failure at least once."""
    return len({k.job for k in kills})


def availability(outages: Iterable[NodeOutage], cpus: int, start: float, end: float) -> float:
    """The fraction of the ``cpus x (end - start)`` CPU-time during which CPUs were up.

    An outage still open (``end`` nan) counts until ``end``; outages are clipped to
    ``[start, end]``. Overlapping outages of one node count once (a machine records an
    outage only when the node goes from up to down).
    """
    span = end - start
    if not (cpus > 0 and span > 0):
        raise ValueError(f"availability: need cpus > 0 and end > start, got {cpus}, {start}, {end}")
    down = math.fsum(
        len(parse_procset(o.procs)) * max(0.0, min(end, o.end if o.end == o.end else end) - max(start, o.start))
        for o in outages
    )
    return 1.0 - down / (cpus * span)


@dataclass(frozen=True)
class FailureBalance:
    """The counts :func:`failure_conservation` checked (each a whole number)."""

    submitted: int
    ended: int
    completed: int
    dropped: int
    kills: int
    restarts: int


def failure_conservation(
    submitted: Sequence[Any],
    records: Iterable[JobRecord],
    kills: Sequence[NodeKill],
) -> FailureBalance:
    """Check that node failures lost no job and ran none twice; raise AssertionError naming what broke.

    - every submitted id ends exactly once (completed, killed at its limit, dropped
      after a node failure, or rejected), and no other id ends;
    - the kills are the restarts plus the drops: each ``"requeued"`` kill is one more
      attempt of a job that ends later, each ``"dropped"`` kill is the job's
      ``NODE_FAIL`` record;
    - each ended record's ``restarts`` is the number of its job's ``"requeued"`` kills;
    - no job is killed after it ended.

    Records of jobs still running or waiting (a run cut short) fail the check.
    """
    records = list(records)
    ends = Counter(r.id for r in records if r.status in _FINAL)
    unfinished = [r.id for r in records if r.status not in _FINAL]
    twice = sorted((i for i, n in ends.items() if n > 1), key=str)
    want = Counter(submitted)
    problems: list[str] = []
    if [i for i, n in want.items() if n > 1]:
        problems.append(f"ids submitted twice: {sorted((i for i, n in want.items() if n > 1), key=str)[:5]}")
    if twice:
        problems.append(f"jobs ended twice: {twice[:5]}")
    missing = sorted(set(want) - set(ends), key=str)
    if missing:
        problems.append(f"jobs never ended: {missing[:5]}" + (f" (still here: {unfinished[:5]})" if unfinished else ""))
    extra = sorted(set(ends) - set(want), key=str)
    if extra:
        problems.append(f"jobs ended that were not submitted: {extra[:5]}")
    dropped_ids = Counter(r.id for r in records if r.status is Status.NODE_FAIL)
    drops = Counter(k.job for k in kills if k.outcome == "dropped")
    restarts = sum(k.outcome == "requeued" for k in kills)
    if drops != dropped_ids:
        problems.append(f"dropped kills {dict(drops)} do not match the NODE_FAIL records {dict(dropped_ids)}")
    requeued = Counter(k.job for k in kills if k.outcome == "requeued")
    miscounted = [
        (r.id, r.restarts, requeued[r.id]) for r in records if r.status in _FINAL and r.restarts != requeued[r.id]
    ]
    if miscounted:
        problems.append(f"records whose restarts are not their requeued kills (job, restarts, kills): {miscounted[:5]}")
    odd = [k for k in kills if k.outcome not in ("requeued", "dropped")]
    if odd:
        problems.append(f"kills with an unknown outcome: {odd[:3]}")
    attempts: dict[Any, list[int]] = {}
    for k in kills:
        attempts.setdefault(k.job, []).append(k.attempt)
    bad = [j for j, a in attempts.items() if a != list(range(1, len(a) + 1))]
    if bad:
        problems.append(f"kills out of attempt order for jobs {bad[:5]}")
    if problems:
        raise AssertionError("failure conservation: " + "; ".join(problems))
    return FailureBalance(
        submitted=len(want),
        ended=sum(ends.values()),
        completed=sum(r.status is Status.COMPLETED for r in records),
        dropped=sum(drops.values()),
        kills=len(kills),
        restarts=restarts,
    )

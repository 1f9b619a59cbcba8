"""A run's jobs as Batsim's jobs: one :class:`Attempt` per run of a job, a requeued job's killed runs included.

schedlab requeues a job that a node failure kills under its own id (its record keeps
the last run and counts the kills in ``restarts``; the machine's
:class:`~schedlab.model.records.node_fail.NodeKill` list has each killed run). Batsim has
no requeue: a scheduler resubmits a killed job as a new job, which pybatsim names after
the first with a ``#`` and a count (job ``1`` resubmitted is ``1#1``, then ``1#2``). So
each killed run is a Batsim job of its own:

- attempt 0 keeps the job's id and submission time; attempt k is ``<id>#k``,
  submitted when attempt k - 1 was killed (schedlab requeues it at once);
- a killed run ends ``COMPLETED_KILLED`` (success 0); the last run ends as its record;
- its waiting time is its own start minus its own submission, as Batsim counts it,
  not the time since the job's first submission;
- its ``allocated_resources`` are the CPU (or core) ids it held: the machine's
  allocation rows within its start and end (the record's own for the last run);
- its joules are the job's, shared among its runs in proportion to their
  CPU-seconds (exact while its nodes stay in one pstate).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from schedlab.model.core.procset import format_procset, parse_procset
from schedlab.model.records.job_record import JobRecord, Status
from schedlab.model.records.node_fail import NodeKill

__all__ = ["Attempt", "attempts"]


class Attempt(NamedTuple):
    """One run of a job, as one Batsim job: ``status`` a record's status, ``NODE_FAIL`` for a killed run."""

    job_id: str
    record: JobRecord
    submit: float
    start: float
    end: float
    status: Status
    allocation: str
    joules: float | None


def _held(rows: list[tuple[str, float, float]], start: float, end: float) -> str:
    """The ids of the allocation rows ``(procs, start, end)`` within ``[start, end]``, as one interval set."""
    ids: set[int] = set()
    for procs, a, b in rows:
        if a >= start - 1e-9 and b <= end + 1e-9:
            ids.update(parse_procset(procs))
    return format_procset(ids)


def attempts(
    records: Iterable[JobRecord],
    kills: Iterable[NodeKill] = (),
    allocations: Iterable[tuple[Any, str, float, float]] = (),
    energy: Mapping[Any, float] | None = None,
) -> list[Attempt]:
    """Each record's runs, in the records' order, each job's killed runs before its last.

    ``kills``: the run's node kills; ``allocations``: its ``(job, procs, start, end)``
    rows (``allocations.csv``); ``energy``: per job id, its joules. Raises ValueError
    naming the job when its record's ``restarts`` is not the number of its requeued kills.
    """
    killed: dict[str, list[NodeKill]] = {}
    for k in kills:
        if k.outcome == "requeued":  # a dropped run is its job's record
            killed.setdefault(str(k.job), []).append(k)
    held: dict[str, list[tuple[str, float, float]]] = {}
    for job, procs, start, end in allocations:
        held.setdefault(str(job), []).append((procs, float(start), float(end)))
    joules = {str(k): v for k, v in (energy or {}).items()}
    out: list[Attempt] = []
    for r in records:
        key = str(r.id)
        parts = sorted(killed.get(key, ()), key=lambda k: k.attempt)
        if len(parts) != r.restarts and Status(r.status) not in (Status.WAITING, Status.RUNNING):
            raise ValueError(
                f"job {r.id}: its record says {r.restarts} restarts, but the run's node_kills.csv has "
                f"{len(parts)} requeued kills of it"
            )
        runs = [(k.start, k.time, Status.NODE_FAIL) for k in parts] + [(r.start, r.end, Status(r.status))]
        spans = [max(b - a, 0.0) if b == b and a == a else 0.0 for a, b, _ in runs]
        total = sum(spans)
        submit = r.submit
        for n, (start, end, status) in enumerate(runs):
            last = n == len(runs) - 1
            allocation = r.allocation if last else _held(held.get(key, []), start, end)
            spent = joules.get(key)
            if spent is not None and len(runs) > 1:
                spent = spent * spans[n] / total if total > 0 else 0.0
            out.append(Attempt(key if n == 0 else f"{key}#{n}", r, submit, start, end, status, allocation, spent))
            submit = end  # requeued at the kill
    return out

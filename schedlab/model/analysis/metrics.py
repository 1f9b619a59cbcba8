"""Metrics as functions of job records (and, for LoR, of queue state).

Per-job metrics return a numpy array over the *completed* records, in the order
given; aggregate metrics return a float. Each docstring names its definition.

Handed a :class:`~schedlab.model.records.log.RecordLog` (what ``Model.records()``
gives for machines and servers), the per-job metrics and :func:`utilization` read its
columns (:meth:`~schedlab.model.records.log.RecordLog.column`) instead of making a
record per job, with the same results bit for bit: the same float operations on the
same values, and :func:`utilization`'s sum still taken job after job; a scenario's
``measure`` is then no longer paid per record (measured: benchmarks/README.md).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from schedlab.model.analysis.fair_share import FairShare
from schedlab.model.records.job_record import JobRecord, Status
from schedlab.model.records.log import RecordLog

__all__ = [
    "average_time_per_token",
    "bounded_slowdown",
    "fair_share",
    "load_of_resources",
    "load_summary",
    "processing_efficiency",
    "productivity",
    "response",
    "responsiveness",
    "slowdown",
    "utility_accrued",
    "utilization",
    "wait",
]


def _completed(records: Iterable[JobRecord]) -> list[JobRecord]:
    return [r for r in records if r.status is Status.COMPLETED]


def _column(records: Sequence[JobRecord], name: str) -> np.ndarray:
    return np.fromiter((getattr(r, name) for r in records), dtype=float, count=len(records))


def _completed_columns(records: Iterable[JobRecord], *names: str) -> list[np.ndarray]:
    """Fields ``names`` of the completed records as float arrays: a log's columns, or read record by record."""
    if isinstance(records, RecordLog):
        done = records.has_status(Status.COMPLETED)
        return [records.column(name).astype(float, copy=False)[done] for name in names]
    completed = _completed(records)
    return [_column(completed, name) for name in names]


def _window(start: float, end: float) -> float:
    if not (math.isfinite(start) and math.isfinite(end) and end > start):
        raise ValueError(f"need a finite window with end > start, got [{start!r}, {end!r}]")
    return end - start


def wait(records: Iterable[JobRecord]) -> np.ndarray:
    """Waiting time ``start - submit`` of each completed job (time in queue before it first ran)."""
    (waits,) = _completed_columns(records, "wait")
    return waits


def response(records: Iterable[JobRecord]) -> np.ndarray:
    """Response (turnaround) time ``end - submit`` of each completed job."""
    end, submit = _completed_columns(records, "end", "submit")
    return end - submit


def slowdown(records: Iterable[JobRecord]) -> np.ndarray:
    """Slowdown ``(end - submit) / runtime`` of each completed job.

    The runtime is the ideal one (with all requested CPUs), so waiting, suspension
    and squeezing all count as slowdown. Feitelson et al., "Theory and practice in
    parallel job scheduling", JSSPP 1997; Toth (seed 002) section 4.
    """
    end, submit, runtime = _completed_columns(records, "end", "submit", "runtime")
    return (end - submit) / runtime


def bounded_slowdown(records: Iterable[JobRecord], threshold: float = 10.0) -> np.ndarray:
    """Bounded slowdown ``max(1, (end - submit) / max(runtime, threshold))`` of each completed job.

    The threshold keeps very short jobs from dominating the mean (Feitelson et al.
    1997; seed 002 section 4). ``threshold`` is in the model's time unit (10 s is
    usual for logs in seconds).
    """
    if not (threshold > 0):
        raise ValueError(f"bounded slowdown threshold must be > 0, got {threshold!r}")
    end, submit, runtime = _completed_columns(records, "end", "submit", "runtime")
    return np.maximum(1.0, (end - submit) / np.maximum(runtime, threshold))


def average_time_per_token(records: Iterable[JobRecord]) -> float:
    """ATPT, mean of ``wait + execution`` over completed jobs (seed 003 eq. 1)."""
    resp = response(records)
    return float(resp.mean()) if resp.size else math.nan


def utilization(records: Iterable[JobRecord], capacity: float, start: float, end: float) -> float:
    """Fraction of ``capacity`` CPUs busy over ``[start, end]``: ``sum n_i t_i / (N T)``.

    Seed 000 eq. 7. Each record's ``cpu_time`` is counted in proportion to the part
    of ``[record.start, record.end]`` inside the window (for a job still running, up
    to the window's end). That split is exact for jobs whose allocation did not change
    while they ran; for a preempted or squeezed job it spreads the job's CPU-time
    evenly over its life. Use a window that covers whole jobs, or the machine's own
    busy-time integral, where that matters.
    """
    span = _window(start, end)
    if not (capacity > 0):
        raise ValueError(f"capacity must be > 0, got {capacity!r}")
    if isinstance(records, RecordLog) and records.columnar:
        return _busy_of_log(records, start, end) / (capacity * span)
    busy = 0.0
    for r in records:
        if r.status is Status.COMPLETED:
            s, e = r.start, r.end
        elif r.status is Status.RUNNING:
            s, e = r.start, end
        else:
            continue
        if e <= start or s >= end:
            continue
        life = e - s
        share = 1.0 if life <= 0 else (min(e, end) - max(s, start)) / life
        busy += r.cpu_time * share
    return busy / (capacity * span)


def _busy_of_log(log: RecordLog, start: float, end: float) -> float:
    """:func:`utilization`'s ``busy`` from the log's columns: the loop's float operations, array-wise.

    Only for a log whose every record is in its arrays (floats: a record kept whole
    may hold ints, whose Python arithmetic differs). The terms are added one after
    another as the loop adds them: ``np.cumsum`` accumulates in order, where
    ``np.sum`` adds pairwise (different last bits) and ``math.fsum`` rounds once.
    """
    completed, running = log.has_status(Status.COMPLETED), log.has_status(Status.RUNNING)
    s = log.column("start")
    e = np.where(running, end, log.column("end"))
    # the loop's `continue`s: neither completed nor running, or wholly outside the window (nan stays in)
    counted = (completed | running) & ~((e <= start) | (s >= end))
    s, e, cpu_time = s[counted], e[counted], log.column("cpu_time")[counted]
    life = e - s
    with np.errstate(divide="ignore", invalid="ignore"):  # the loop takes 1.0 where life <= 0
        share = np.where(life <= 0, 1.0, (np.minimum(e, end) - np.maximum(s, start)) / life)
    terms = cpu_time * share
    return float(np.cumsum(terms)[-1]) + 0.0 if terms.size else 0.0  # + 0.0: the loop's 0.0 + -0.0


def utility_accrued(records: Iterable[JobRecord], start: float = -math.inf, end: float = math.inf) -> float:
    """Total final utility of the jobs completed in ``[start, end)`` (seed 000, figure 2)."""
    return float(sum(r.utility for r in _completed(records) if start <= r.end < end))


def productivity(records: Iterable[JobRecord], capacity: float, start: float, end: float) -> float:
    """Utility-accrual productivity ``P = sum u_i / (N T)`` over ``[start, end)`` (seed 000 eq. 8).

    ``u_i`` is the final utility of each job completed in the window, ``N`` the
    machine's CPUs and ``T`` the window's length. It is 1 for an ideally packed
    machine whose jobs never wait.
    """
    span = _window(start, end)
    return utility_accrued(records, start, end) / (capacity * span)


def responsiveness(records: Iterable[JobRecord]) -> np.ndarray:
    """Responsiveness utility ``W_j = exec_j / (exec_j + wait_j)`` of each completed job.

    Seed 001 eq. 1, with the execution time taken as the job's service time
    ``end - start``. ``W = (1 + V)^-1`` where V is the relative overhead wait/exec.
    """
    exe, waits = _completed_columns(records, "service", "wait")
    return exe / (exe + waits)


def fair_share(records: Iterable[JobRecord], targets: Mapping[str, float]) -> np.ndarray:
    """Fairness utility ``F_j = 1 - D_j / M`` at each job's election (seed 001 eq. 2).

    Jobs that started (completed or running) are taken in order of start time. After
    electing job j, ``S_kj`` is group k's fraction of all the service (CPU-time,
    ``cpus * runtime``) elected so far; ``D_j = max_k (w_k - S_kj)_+`` is the deficit
    distance to the target shares ``w`` and ``M = max_k w_k``. Returns ``F_j`` for each
    elected job in election order; the last value is the final fair-share utility.
    Groups without a target have target 0.
    """
    w_total = sum(targets.values())
    if not targets or w_total <= 0 or any(v < 0 for v in targets.values()):
        raise ValueError(f"fair-share targets must be >= 0 and not all zero, got {dict(targets)!r}")
    tracker = FairShare({g: w / w_total for g, w in targets.items()})
    elected = sorted(
        (r for r in records if r.status in (Status.COMPLETED, Status.RUNNING)),
        key=lambda r: (r.start, r.id),
    )
    return np.array([tracker.elect(r.group, r.cpus * r.runtime) for r in elected], dtype=float)


def load_of_resources(queued_work: Sequence[float], capacities: Sequence[float]) -> np.ndarray:
    """LoR of each resource: queued job length over capacity, ``l_total^i / C_i`` (seed 003 eq. 2).

    ``queued_work[i]`` is the total length of the jobs in resource i's queue (the
    caller decides whether the job in service counts with its remaining length).
    """
    work = np.asarray(queued_work, dtype=float)
    cap = np.asarray(capacities, dtype=float)
    if work.shape != cap.shape:
        raise ValueError(f"queued_work and capacities differ in shape: {work.shape} vs {cap.shape}")
    if np.any(cap <= 0):
        raise ValueError("every capacity must be > 0")
    return work / cap


def load_summary(lor: np.ndarray) -> dict[str, float]:
    """ALoR (mean LoR, seed 003 eq. 2), max LoR and the standard deviation of LoR."""
    lor = np.asarray(lor, dtype=float)
    return {"alor": float(lor.mean()), "max_lor": float(lor.max()), "std_lor": float(lor.std())}


def processing_efficiency(records: Iterable[JobRecord], start: float, end: float) -> float:
    """World utility ``G = sum_k w_k e_k / sum_k w_k`` over the window ``[start, end)`` (seed 004 eq. 6).

    The numerator weighs the jobs completed in the window; the denominator the jobs
    that entered the system in it. With queues cleared between windows (seed 004's
    runs) the completed jobs are among those that entered, and G is in [0, 1].
    """
    _window(start, end)
    entered = done = 0.0
    for r in records:
        if start <= r.submit < end:
            entered += r.weight
        if r.status is Status.COMPLETED and start <= r.end < end:
            done += r.weight
    return done / entered if entered > 0 else math.nan


def system_load(
    rates: Sequence[float] | np.ndarray, mean_length: float, capacities: Sequence[float] | np.ndarray
) -> float:
    """Expected system load ``gamma = sum_j J_av * xi_j / sum_i C_i`` (seed 003 eq. 7), as a fraction.

    ``rates[j]`` is agent j's job arrival rate per unit of time (xi_j), ``mean_length``
    the mean job length ``(J_min + J_max) / 2`` and ``capacities`` the resources'
    capacities. Above 1 the queues grow without end.
    """
    xi = np.asarray(rates, dtype=float)
    cap = np.asarray(capacities, dtype=float)
    if xi.size < 1 or np.any(~np.isfinite(xi)) or np.any(xi < 0):
        raise ValueError(f"rates must be one or more finite values >= 0, got {xi.tolist()[:5]!r}")
    if cap.size < 1 or np.any(~np.isfinite(cap)) or np.any(cap <= 0):
        raise ValueError("capacities must be one or more finite values > 0")
    if not (math.isfinite(mean_length) and mean_length > 0):
        raise ValueError(f"mean_length must be finite and > 0, got {mean_length!r}")
    return float(mean_length * xi.sum() / cap.sum())


__all__ += ["system_load"]

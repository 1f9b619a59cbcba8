"""Kleinrock's conservation law as a measurement: sum over classes of class load times class mean wait.

For a work-conserving, non-preemptive single server fed by Poisson arrivals
(M/G/1), ``sum_k rho_k W_k`` is the same for every order of service that does not
look ahead (Kleinrock, *Queueing Systems* vol. 2, section 3.4): favouring one class
can only move waiting onto the others, in proportion to their loads. On P servers the
law is not exact (the work in the system is conserved only while every server is
busy), so schedlab *measures* the sum for each schedule and compares it with FIFO's
on the same jobs.

Here ``rho_k`` is the class's work (cores x execution time) over the capacity
(cores x span) and ``W_k`` its mean wait.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from schedlab.model.records.job_record import JobRecord

__all__ = ["class_terms", "conservation_sum"]


def class_terms(records: Iterable[JobRecord], capacity_time: float) -> dict[str, tuple[float, float]]:
    """Each class's ``(rho_k, W_k)``: its work over ``capacity_time`` and its mean wait.

    Parameters
    ----------
    records
        Completed jobs (their ``job_class``, ``cpus``, ``service`` and ``wait``).
    capacity_time
        Cores x the span the loads are taken over (> 0).
    """
    if not capacity_time > 0:
        raise ValueError(f"conservation: capacity_time must be > 0, got {capacity_time!r}")
    work: dict[str, float] = {}
    waits: dict[str, list[float]] = {}
    for r in records:
        work[r.job_class] = work.get(r.job_class, 0.0) + r.cpus * r.service
        waits.setdefault(r.job_class, []).append(r.wait)
    return {k: (work[k] / capacity_time, sum(w) / len(w)) for k, w in sorted(waits.items())}


def conservation_sum(terms: Mapping[str, tuple[float, float]]) -> float:
    """``sum_k rho_k W_k`` of :func:`class_terms`' output.

    Examples
    --------
    One server, two jobs at time 0 of 1 and 3 time units (classes a and b), a horizon
    of 4. Serving a first, b waits 1; serving b first, a waits 3. The sum is the same:

    >>> conservation_sum({"a": (1 / 4, 0.0), "b": (3 / 4, 1.0)})
    0.75
    >>> conservation_sum({"a": (1 / 4, 3.0), "b": (3 / 4, 0.0)})
    0.75
    """
    return sum(rho * wait for rho, wait in terms.values())

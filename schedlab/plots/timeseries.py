"""Busy CPUs, utilization and queue length over time, rebuilt from job records.

A record says when a job was submitted, first started and ended, and on how many CPUs.
From these the number of busy CPUs and of waiting jobs are step functions of time.
A preempted or squeezed job is counted on all its CPUs from first start to end: for
exact allocations under preemption use a trace and :func:`~schedlab.plots.gantt`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from schedlab.model.records import JobRecord
from schedlab.plots._mpl import new_figure

__all__ = ["occupancy", "utilization_queue"]


def _steps(changes: list[tuple[float, float]]) -> tuple[np.ndarray, np.ndarray]:
    """Times and running sums of ``(time, +/- amount)`` changes, one value per distinct time."""
    if not changes:
        return np.zeros(1), np.zeros(1)
    changes.sort()
    times = np.array([t for t, _ in changes])
    level = np.cumsum([d for _, d in changes])
    keep = np.append(times[1:] != times[:-1], True)  # the level after all changes at a time
    return times[keep], level[keep]


def occupancy(records: Iterable[JobRecord]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Step functions ``{"busy": (t, cpus), "queue": (t, jobs)}`` from records.

    Each is a pair of arrays: the level holds from ``t[i]`` until ``t[i + 1]``.
    """
    busy: list[tuple[float, float]] = []
    queue: list[tuple[float, float]] = []
    for r in records:
        if math.isnan(r.submit):
            continue
        queue.append((r.submit, 1.0))
        if not math.isnan(r.start):
            queue.append((r.start, -1.0))
            busy.append((r.start, float(r.cpus)))
            if not math.isnan(r.end):
                busy.append((r.end, -float(r.cpus)))
    return {"busy": _steps(busy), "queue": _steps(queue)}


def utilization_queue(records: Iterable[JobRecord], capacity: float, *, title: str = "") -> Any:
    """Two stacked panels: utilization (busy CPUs / capacity) and queue length, over time."""
    if not capacity > 0:
        raise ValueError(f"capacity must be > 0, got {capacity!r}")
    series = occupancy(records)
    fig = new_figure(8.0, 4.5, rows=2)
    top, bottom = fig.axes
    t, busy = series["busy"]
    top.step(t, busy / capacity, where="post", color="tab:blue")
    top.set_ylabel("utilization")
    top.set_ylim(0, 1.05)
    t, queued = series["queue"]
    bottom.step(t, queued, where="post", color="tab:red")
    bottom.set_ylabel("jobs waiting")
    bottom.set_xlabel("simulated time")
    if title:
        top.set_title(title)
    return fig

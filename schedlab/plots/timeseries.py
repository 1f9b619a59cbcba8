"""Busy CPUs, utilization and queue length over time, rebuilt from job records or a trace.

A record says when a job was submitted, first started and ended, and on how many CPUs.
From these the number of busy CPUs and of waiting jobs are step functions of time; a
preempted or squeezed job is counted on all its CPUs from first start to end. A trace
(a :class:`~schedlab.processes.tracing.TraceLog`'s entries) gives them exactly: every
start, resume, resize, preemption and completion. So do a machine's allocation rows
(which CPUs each job held, stretch by stretch): a job killed by a node failure and
requeued holds its CPUs in each attempt, which its record (its last attempt) does not say.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from schedlab.model.core.procset import parse_procset
from schedlab.model.records.job_record import JobRecord
from schedlab.plots._mpl import new_figure
from schedlab.plots.gantt import NODE_STATE_STYLE, segments_from_trace, state_style
from schedlab.plots.time_axis import time_axis
from schedlab.processes.tracing import TraceEntry

__all__ = ["busy_from_allocations", "occupancy", "utilization_queue"]


def _steps(changes: list[tuple[float, float]]) -> tuple[np.ndarray, np.ndarray]:
    """Times and running sums of ``(time, +/- amount)`` changes, one value per distinct time."""
    if not changes:
        return np.zeros(1), np.zeros(1)
    changes.sort()
    times = np.array([t for t, _ in changes])
    level = np.cumsum([d for _, d in changes])
    keep = np.append(times[1:] != times[:-1], True)  # the level after all changes at a time
    return times[keep], level[keep]


#: how each traced action changes the number of waiting jobs (a preempted job waits again)
_QUEUE_CHANGE = {"submit": 1.0, "start": -1.0, "preempt": 1.0, "resume": -1.0}


def _from_trace(entries: list[TraceEntry]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    busy: list[tuple[float, float]] = []
    for s in segments_from_trace(entries):
        busy += [(s.start, float(s.cpus)), (s.end, -float(s.cpus))]
    queue = [(e.time, _QUEUE_CHANGE[e.action]) for e in entries if e.action in _QUEUE_CHANGE]
    return {"busy": _steps(busy), "queue": _steps(queue)}


def busy_from_allocations(rows: Iterable[tuple[Any, str, float, float]]) -> tuple[np.ndarray, np.ndarray]:
    """Busy CPUs over time from allocation rows ``(job, "0-3 7", start, end)``: every stretch
    every job held its CPUs, each attempt of a job a failure killed included."""
    changes: list[tuple[float, float]] = []
    for job, procs, start, end in rows:
        held = float(len(parse_procset(procs, where=f"allocation of job {job}")))
        changes += [(float(start), held), (float(end), -held)]
    return _steps(changes)


def occupancy(source: Iterable[JobRecord] | Iterable[TraceEntry]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Step functions ``{"busy": (t, cpus), "queue": (t, jobs)}`` from records or trace entries.

    Each is a pair of arrays: the level holds from ``t[i]`` until ``t[i + 1]``. Pass the
    trace of a run with preemption or squeezing: records cannot tell when a job held
    fewer CPUs than it asked for, or none.
    """
    items: list[Any] = list(source)  # all records or all trace entries: the first tells which
    if items and isinstance(items[0], TraceEntry):
        return _from_trace(items)
    busy: list[tuple[float, float]] = []
    queue: list[tuple[float, float]] = []
    for r in items:
        if math.isnan(r.submit):
            continue
        queue.append((r.submit, 1.0))
        if not math.isnan(r.start):
            queue.append((r.start, -1.0))
            busy.append((r.start, float(r.cpus)))
            if not math.isnan(r.end):
                busy.append((r.end, -float(r.cpus)))
    return {"busy": _steps(busy), "queue": _steps(queue)}


def utilization_queue(
    source: Iterable[JobRecord] | Iterable[TraceEntry],
    capacity: float,
    *,
    title: str = "",
    time_unit: str = "",
    down: Iterable[tuple[float, float, float]] = (),
    allocations: Iterable[tuple[Any, str, float, float]] | None = None,
) -> Any:
    """Two stacked panels: utilization (busy CPUs / capacity) and queue length, over time.

    ``source`` is job records, or a trace's entries for exact allocations (see :func:`occupancy`).
    ``capacity`` is the CPUs of the machine the jobs ran on. The panel's y-limit grows
    to show any level above 1 (records count a squeezed job on all the CPUs it asked
    for; a wrong capacity once drew a panel wholly above a fixed limit, which looked empty).
    ``time_unit="s"`` shows a log's seconds in hours or days from the first submission
    (:func:`~schedlab.plots.time_axis.time_axis`). ``down``: ``(cpus, start, end)``, CPUs
    down (node failures); the CPUs lost are drawn hatched red down from the top of the
    utilization panel, so a run at 90% while 10% of the machine was down reads as full.
    ``allocations``: the run's allocation rows, from which the busy CPUs are then counted
    (:func:`busy_from_allocations`: every attempt, where records count each job's last).
    """
    if not capacity > 0:
        raise ValueError(f"capacity must be > 0, got {capacity!r}")
    series = occupancy(source)
    t, busy = series["busy"] if allocations is None else busy_from_allocations(allocations)
    t_queue, queued = series["queue"]
    # a job waits before it runs: the queue's first step is the first submission
    axis = time_axis(float(t_queue[0]), float(max(t[-1], t_queue[-1])), time_unit, "the first submission")
    fig = new_figure(8.0, 4.5, rows=2)
    top, bottom = fig.axes
    top.step(axis(t), busy / capacity, where="post", color="tab:blue")
    top.set_ylabel(f"utilization\n(of {capacity:g} CPUs)")
    top.set_ylim(0, 1.05 * max(1.0, float(busy.max()) / capacity))
    lost = [(a, float(n)) for n, a, b in down if b > a] + [(b, -float(n)) for n, a, b in down if b > a]
    if lost:  # the capacity the failures took, hatched from the top (the collection's gid is "down")
        t_down, cpus = _steps(lost)
        top.fill_between(
            axis(t_down),
            1 - cpus / capacity,
            1,
            step="post",
            label=NODE_STATE_STYLE["down"][0],
            gid="down",
            **state_style("down"),
        )
        top.legend(loc="upper right", fontsize=7)
    bottom.step(axis(t_queue), queued, where="post", color="tab:red")
    bottom.set_ylabel("jobs waiting")
    bottom.set_xlabel(axis.label)
    if title:
        top.set_title(title)
    return fig

"""Gantt charts: when each job held CPUs, and how many.

Records give one bar per job, from its first start to its end. A trace (a
:class:`~schedlab.processes.tracing.TraceLog`'s entries) gives the exact allocation
segments: a preempted job's bar has a gap, a squeezed job's bar is thinner while it
runs on fewer CPUs than it asked for.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from schedlab.model.records import JobRecord
from schedlab.plots._mpl import new_figure
from schedlab.processes.tracing import TraceEntry

__all__ = ["Segment", "gantt", "segments_from_records", "segments_from_trace"]

_ON = re.compile(r"job (\S+) (?:on|to) (\d+)/(\d+) cpus")
_JOB = re.compile(r"job ([^\s,]+)")


@dataclass(frozen=True, slots=True)
class Segment:
    """Job ``job`` held ``cpus`` of the ``requested`` CPUs it asked for, from ``start`` to ``end``."""

    job: str
    start: float
    end: float
    cpus: int
    requested: int


def segments_from_records(records: Iterable[JobRecord]) -> list[Segment]:
    """One segment per job that started: first start to end (or to its last known time)."""
    started = [r for r in records if not math.isnan(r.start)]
    several = len({r.machine for r in started}) > 1  # job ids are only unique per machine
    out = []
    for r in started:
        end = r.end if not math.isnan(r.end) else r.start
        name = f"{r.machine}/{r.id}" if several else str(r.id)
        out.append(Segment(name, float(r.start), float(end), int(r.cpus), int(r.cpus)))
    return out


def segments_from_trace(entries: Iterable[TraceEntry], until: float | None = None) -> list[Segment]:
    """Exact allocation segments from a machine's trace (start, resume, resize, preempt, complete).

    A segment still open at the end of the trace is closed at ``until`` (default: the
    last entry's time).
    """
    items = list(entries)
    several = len({e.process for e in items if e.action in ("start", "resume")}) > 1
    open_: dict[str, tuple[float, int, int]] = {}
    out: list[Segment] = []
    last = 0.0
    for e in items:
        last = e.time
        if e.action in ("start", "resume", "resize"):
            m = _ON.match(e.detail)
            if m is None:
                continue
            job, cpus, requested = m.group(1), int(m.group(2)), int(m.group(3))
            job = f"{e.process}/{job}" if several else job
            if job in open_:  # a resize closes the segment at the old width
                t0, n, req = open_.pop(job)
                out.append(Segment(job, t0, e.time, n, req))
            open_[job] = (e.time, cpus, requested)
        elif e.action in ("preempt", "complete"):
            m = _JOB.match(e.detail)
            job = (f"{e.process}/{m.group(1)}" if several else m.group(1)) if m is not None else ""
            if job in open_:
                t0, n, req = open_.pop(job)
                out.append(Segment(job, t0, e.time, n, req))
    stop = last if until is None else until
    out += [Segment(job, t0, stop, n, req) for job, (t0, n, req) in open_.items()]
    return sorted(out, key=lambda s: (s.start, s.job))


def gantt(
    source: Sequence[JobRecord] | Sequence[TraceEntry] | Sequence[Segment],
    *,
    title: str = "Gantt chart",
    max_jobs: int = 40,
    ax: Any = None,
) -> Any:
    """A Gantt chart: one row per job, a bar wherever it held CPUs, labelled ``held/asked``.

    Parameters
    ----------
    source
        Job records, trace entries, or segments. Records draw one bar per job; a trace
        draws its exact segments (gaps where preempted, pale where squeezed).
    title
        The chart's title.
    max_jobs
        Draw only the first ``max_jobs`` jobs to start (a readable chart has few rows).
    ax
        A matplotlib Axes to draw on; default a new Figure.

    Returns
    -------
    matplotlib.figure.Figure
    """
    items = list(source)
    if items and isinstance(items[0], TraceEntry):
        segments = segments_from_trace(items)  # type: ignore[arg-type]
    elif items and isinstance(items[0], Segment):
        segments = items  # type: ignore[assignment]
    else:
        segments = segments_from_records(items)  # type: ignore[arg-type]
    if ax is None:
        fig = new_figure(8.0, max(2.5, 0.22 * min(max_jobs, len({s.job for s in segments})) + 1.2))
        ax = fig.axes[0]
    fig = ax.figure
    rows: dict[str, int] = {}
    # label a bar only where its text fits: 4% of the time axis
    span = max((s.end for s in segments), default=1.0) - min((s.start for s in segments), default=0.0)
    for s in sorted(segments, key=lambda s: s.start):
        if s.job not in rows:
            if len(rows) >= max_jobs:
                continue
            rows[s.job] = len(rows)
        full = s.cpus >= s.requested  # a squeezed segment is drawn pale
        ax.broken_barh(
            [(s.start, s.end - s.start)],
            (rows[s.job] - 0.4, 0.8),
            facecolors="tab:blue" if full else "tab:orange",
            alpha=1.0 if full else 0.7,
        )
        if s.end - s.start > 0.04 * span and len(rows) <= 30:
            ax.text(
                (s.start + s.end) / 2,
                rows[s.job],
                f"{s.cpus}/{s.requested}",
                ha="center",
                va="center",
                fontsize=7,
                color="white",
            )
    ax.set_yticks(list(rows.values()), [f"job {j}" for j in rows])
    ax.invert_yaxis()  # first job on top, as a schedule is read
    ax.set_xlabel("simulated time")
    ax.set_title(title)
    return fig

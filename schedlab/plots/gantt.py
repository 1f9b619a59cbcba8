"""Gantt charts: when each job held CPUs, and how many; and, on a cluster, which nodes' cores.

Records give one bar per job, from its first start to its end. A trace (a
:class:`~schedlab.processes.tracing.TraceLog`'s entries) gives the exact allocation
segments: a preempted job's bar has a gap, a squeezed job's bar is thinner while it
runs on fewer CPUs than it asked for. A cluster's placement table
(:meth:`~schedlab.processes.cluster.cluster.Cluster.placement_rows`) gives :func:`node_gantt`:
one band per node, one row per core, each job drawn on the cores it held, and, behind
the jobs, each stretch a node was down (failed, until its repair: hatched red), switched
off or switching, so a failed node never reads as an idle one.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from schedlab.model.core.platform import Platform
from schedlab.model.records.job_record import JobRecord
from schedlab.plots._mpl import new_figure
from schedlab.plots.time_axis import time_axis
from schedlab.processes.tracing import TraceEntry

__all__ = [
    "NODE_STATE_STYLE",
    "Segment",
    "core_slots",
    "gantt",
    "node_gantt",
    "segments_from_records",
    "segments_from_trace",
    "state_style",
]

#: how a node's state is drawn behind its jobs: (legend name, colour, hatch); its collection's gid is the state
NODE_STATE_STYLE = {
    "down": ("down (failed)", "tab:red", "///"),
    "off": ("switched off", "tab:blue", ""),
    "switching_on": ("switching", "tab:orange", ""),
    "switching_off": ("switching", "tab:orange", ""),
}


def state_style(state: str) -> dict[str, Any]:
    """How a node state of :data:`NODE_STATE_STYLE` is drawn: keywords for a bar, an area or a legend patch."""
    _, colour, hatch = NODE_STATE_STYLE[state]
    return {
        "facecolor": colour,
        "alpha": 0.35,
        "hatch": hatch,
        "edgecolor": colour if hatch else "none",
        "linewidth": 0,
    }


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
    """Exact allocation segments from a machine's trace (start, resume, resize, preempt, complete, timeout).

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
        elif e.action in ("preempt", "complete", "timeout"):  # timeout: killed at its time limit
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
    time_unit: str = "",
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
    time_unit
        ``"s"``: times are seconds, shown in hours or days from the first start
        (:func:`~schedlab.plots.time_axis.time_axis`); ``""``: as they are.

    Returns
    -------
    matplotlib.figure.Figure
    """
    items: list[Any] = list(source)  # all trace entries, all segments or all records: the first tells which
    if items and isinstance(items[0], TraceEntry):
        segments = segments_from_trace(items)
    elif items and isinstance(items[0], Segment):
        segments = items
    else:
        segments = segments_from_records(items)
    if ax is None:
        fig = new_figure(8.0, max(2.5, 0.22 * min(max_jobs, len({s.job for s in segments})) + 1.2))
        ax = fig.axes[0]
    fig = ax.figure
    rows: dict[str, int] = {}
    # label a bar only where its text fits: 4% of the time axis
    first, last = min((s.start for s in segments), default=0.0), max((s.end for s in segments), default=1.0)
    span = last - first
    axis = time_axis(first, last, time_unit, "the first start")
    for s in sorted(segments, key=lambda s: s.start):
        if s.job not in rows:
            if len(rows) >= max_jobs:
                continue
            rows[s.job] = len(rows)
        full = s.cpus >= s.requested  # a squeezed segment is drawn pale
        ax.broken_barh(
            [(axis(s.start), (s.end - s.start) / axis.scale)],
            (rows[s.job] - 0.4, 0.8),
            facecolors="tab:blue" if full else "tab:orange",
            alpha=1.0 if full else 0.7,
        )
        if s.end - s.start > 0.04 * span and len(rows) <= 30:
            ax.text(
                axis((s.start + s.end) / 2),
                rows[s.job],
                f"{s.cpus}/{s.requested}",
                ha="center",
                va="center",
                fontsize=7,
                color="white",
            )
    ax.set_yticks(list(rows.values()), [f"job {j}" for j in rows])
    ax.invert_yaxis()  # first job on top, as a schedule is read
    ax.set_xlabel(axis.label)
    ax.set_title(title)
    return fig


#: a placement row: job, queue, node, kind, cores, start, end (Cluster.placement_rows)
PlacementRow = tuple[Any, str, str, str, int, float, float]


def _node_key(name: str) -> tuple[str, int, str]:
    """cpu-2 before cpu-10: the type, then the number after the last dash."""
    head, _, tail = name.rpartition("-")
    return (head, int(tail), "") if tail.isdigit() else (name, -1, name)


def core_slots(rows: Iterable[PlacementRow]) -> list[tuple[PlacementRow, list[int]]]:
    """Each placement with the core numbers of its node it is drawn on (the lowest free at its start).

    A placement table says how many cores of a node a job held, not which: any
    numbering that never puts two jobs on one core at once draws the same schedule.
    """
    busy: dict[str, list[float]] = {}  # node -> per core, when it frees
    out = []
    for row in sorted(rows, key=lambda r: (r[5], r[6], str(r[0]))):
        node, cores, start, end = row[2], int(row[4]), float(row[5]), float(row[6])
        until = busy.setdefault(node, [])
        free = [i for i, t in enumerate(until) if t <= start]
        while len(free) < cores:  # more cores than drawn so far: the node's rows grow
            until.append(-math.inf)
            free.append(len(until) - 1)
        # one block of neighbouring cores where there is one, so a job reads as one bar
        block = next(
            (free[k : k + cores] for k in range(len(free) - cores + 1) if free[k + cores - 1] - free[k] == cores - 1),
            None,
        )
        slots = block if block is not None else free[:cores]
        for i in slots:
            until[i] = end
        out.append((row, slots))
    return out


def _runs(slots: list[int]) -> list[tuple[int, int]]:
    """Contiguous runs of core numbers, as (first, count)."""
    runs: list[tuple[int, int]] = []
    for i in sorted(slots):
        if runs and runs[-1][0] + runs[-1][1] == i:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((i, 1))
    return runs


def node_gantt(
    rows: Iterable[PlacementRow],
    *,
    platform: Platform | None = None,
    title: str = "Gantt chart per node",
    ax: Any = None,
    time_unit: str = "",
    states: Iterable[tuple[str, str, float, float]] = (),
    nodes: Sequence[tuple[str, str, int]] = (),
) -> Any:
    """A Gantt chart per node: one band per node (a row per core), each job on the cores it held.

    Parameters
    ----------
    rows
        A cluster's placement table: ``(job, queue, node, kind, cores, start, end)``
        rows (:meth:`~schedlab.processes.cluster.cluster.Cluster.placement_rows`, or the
        ``placements.csv`` that ``schedlab replay --platform`` saves).
    platform
        The platform the jobs ran on: every node shows (idle ones too) with its
        cores and GPUs, and queues are named as it names them. Default: the nodes
        in ``rows``, each as wide as the most cores it had busy at once.
    title
        The chart's title.
    ax
        A matplotlib Axes to draw on; default a new Figure.
    time_unit
        ``"s"``: times are seconds, shown in hours or days from the first start; ``""``: as they are.
    states
        ``(node, state, start, end)``: each stretch a node was ``down`` (failed), ``off``,
        ``switching_on`` or ``switching_off`` (a powered cluster's
        :meth:`~schedlab.processes.cluster.power.PoweredCluster.power_rows`), drawn across the node's
        band behind its jobs (:data:`NODE_STATE_STYLE`), each stretch one collection whose
        gid is its state.
    nodes
        ``(name, kind, cores)`` of every node, where no ``platform`` is given (a cluster's
        :meth:`~schedlab.processes.cluster.cluster.Cluster.node_rows`): idle nodes show too.

    Returns
    -------
    matplotlib.figure.Figure
        Jobs are coloured by queue (the legend), labelled with their id where the bar
        is wide enough; nodes are named on the left, with their type.
    """
    placed = core_slots(rows)
    stretches = [(str(n), s, float(a), float(b)) for n, s, a, b in states]
    listed = [(n.name, n.kind, n.cores) for n in platform.nodes] if platform is not None else list(nodes)
    cores = {name: int(count) for name, _, count in listed}
    kinds = {name: kind for name, kind, _ in listed}
    gpus = {n.name: int(n.resources.get("gpus", 0)) for n in platform.nodes} if platform is not None else {}
    for row, slots in placed:
        cores[row[2]] = max(cores.get(row[2], 0), max(slots) + 1)
        kinds[row[2]] = row[3]
    for name, *_ in stretches:  # a node down all along still has a band
        cores.setdefault(name, 1)
    order = sorted(cores, key=_node_key)  # every node drawn, top to bottom
    base, y = {}, 0
    for node in order:
        base[node] = y
        y += cores[node]
    total = max(y, 1)
    if ax is None:
        fig = new_figure(9.0, min(14.0, max(3.0, 1.4 + 0.11 * total + 0.08 * len(order))))
        ax = fig.axes[0]
    fig = ax.figure
    queues = sorted({str(row[1]) for row, _ in placed})
    palette = ["C0", "C1", "C2", "C4", "C5", "C6", "C7", "C8", "C9"]  # no red: red is a node down
    colours = {q: palette[i % len(palette)] for i, q in enumerate(queues)}
    t0 = min((float(r[5]) for r, _ in placed), default=0.0)
    span = max([float(r[6]) for r, _ in placed] + [b for *_, b in stretches], default=1.0) - t0
    axis = time_axis(t0, t0 + span, time_unit, "the first start")
    for node, state, start, end in stretches:  # behind the jobs: a failed node is not an idle one
        ax.broken_barh(
            [(axis(start), (end - start) / axis.scale)],
            (base[node], cores[node]),
            zorder=0.5,
            gid=state,
            **state_style(state),
        )
    for row, slots in placed:
        start, end, queue = float(row[5]), float(row[6]), str(row[1])
        for first, count in _runs(slots):
            bottom = base[row[2]] + first
            ax.broken_barh(
                [(axis(start), (end - start) / axis.scale)],
                (bottom + 0.05, count - 0.1),
                facecolors=colours[queue],
                edgecolors="white",
                linewidth=0.4,
            )
            if span > 0 and end - start > 0.03 * span and count * 40 >= total:
                ax.text(
                    axis((start + end) / 2),
                    bottom + count / 2,
                    str(row[0]),
                    ha="center",
                    va="center",
                    fontsize=6,
                    color="white",
                )
    for node in order[1:]:
        ax.axhline(base[node], color="0.3", linewidth=0.8)
    ax.set_ylim(0, total)

    def label(n: str) -> str:
        gpu = f", {gpus[n]} GPUs" if gpus.get(n) else ""
        return f"{n}\n{cores[n]} cores{gpu}" if len(order) <= 40 else n

    ax.set_yticks(
        [base[n] + cores[n] / 2 for n in order], [label(n) for n in order], fontsize=7 if len(order) <= 40 else 4
    )
    ax.invert_yaxis()  # the first node on top, as a platform file lists them
    ax.ticklabel_format(axis="x", style="plain", useOffset=False)  # never "1e6" and an offset
    ax.set_xlabel(axis.label)
    ax.set_ylabel("nodes: one row per core")
    ax.set_title(title)
    from matplotlib.patches import Patch

    names = {}
    if platform is not None:
        for name, spec in platform.queues.items():
            names[name] = name
            if spec.swf_id is not None:
                names[str(spec.swf_id)] = f"{spec.swf_id} ({name})"
    handles = [Patch(color=colours[q], label=f"queue {names.get(q, q)}" if q else "no queue") for q in queues]
    legend: dict[str, str] = {}  # each legend name once (switching on and off share one), in order of appearance
    for _, state, _, _ in stretches:
        legend.setdefault(NODE_STATE_STYLE[state][0], state)
    handles += [Patch(label=name, **state_style(state)) for name, state in legend.items()]
    if handles:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7, frameon=False)
    return fig

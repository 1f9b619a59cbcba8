"""A Gantt chart over CPUs: each job a rectangle over the CPU ids it held, waits visible.

The chart an HPC user expects, as evalys draws Batsim's ``jobs.csv``: time on the x
axis, CPUs on the y axis, each job one rectangle per contiguous run of the ids it
held (a job given non-contiguous ids draws several). The rectangles are coloured by the
job's wait, so long waits stand out, and a second panel below counts the jobs waiting.
CPUs down (a node failure, until its repair) are drawn hatched red over their ids,
so a failed CPU never reads as an idle one.
The ids come from a machine built with ``allocation=``
(:meth:`~schedlab.processes.machine.cpu_ids.CpuIds.allocation_rows`), or from the
``allocations.csv`` that ``schedlab replay`` and ``scenarios/first_look.py`` save.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from schedlab.model.core.procset import parse_procset
from schedlab.model.records.job_record import JobRecord
from schedlab.plots._mpl import new_figure
from schedlab.plots.gantt import NODE_STATE_STYLE, state_style
from schedlab.plots.time_axis import time_axis

__all__ = ["cpu_gantt", "rectangles"]

#: an allocation row: job id, procset, start, end
AllocationRow = tuple[Any, str, float, float]


def rectangles(rows: Iterable[AllocationRow]) -> list[tuple[Any, float, float, int, int]]:
    """``(job, start, end, first id, count)``: one per contiguous run of ids of each segment."""
    out = []
    for job, procs, start, end in rows:
        ids = parse_procset(procs, where=f"allocation of job {job}")
        k = 0
        while k < len(ids):
            m = k
            while m + 1 < len(ids) and ids[m + 1] == ids[m] + 1:
                m += 1
            out.append((job, float(start), float(end), ids[k], m - k + 1))
            k = m + 1
    return out


def cpu_gantt(
    rows: Iterable[AllocationRow],
    capacity: int,
    *,
    records: Sequence[JobRecord] = (),
    title: str = "Gantt chart over CPUs",
    time_unit: str = "",
    down: Iterable[tuple[str, float, float]] = (),
) -> Any:
    """CPUs (y) over time (x), each job a rectangle over the ids it held.

    Parameters
    ----------
    rows
        ``(job id, "0-3 7", start, end)`` allocation segments.
    capacity
        The machine's CPUs: the y axis runs from 0 to ``capacity``.
    records
        The run's job records: each rectangle is coloured by its job's wait, and a
        lower panel counts the jobs waiting over time. Without them, one colour and
        no lower panel.
    title
        The chart's title.
    time_unit
        ``"s"``: times are seconds, drawn in hours or days from the first submission.
    down
        ``("0-3", start, end)``: CPUs down from ``start`` to ``end`` (a
        :class:`~schedlab.model.records.node_fail.NodeOutage`'s ``procs``, ``start`` and
        ``end``), drawn hatched red, one collection with gid ``"down"`` per run of ids.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    boxes = rectangles(rows)
    outages = rectangles(("down", procs, start, end) for procs, start, end in down)
    # by id as text: a table read back from CSV names jobs as text
    waits = {str(r.id): r.wait for r in records if r.wait == r.wait}  # not nan: it started
    times = [b[1] for b in boxes] + [r.submit for r in records]
    first = min(times, default=0.0)
    ends = [b[2] for b in boxes + outages] + [r.end for r in records if r.end == r.end]
    axis = time_axis(
        first, max(ends, default=first + 1.0), time_unit, "the first submission" if records else "the first start"
    )
    fig = new_figure(10.0, 6.0 if records else 4.5, rows=2 if records else 1)
    ax = fig.axes[0]
    if records:
        fig.axes[0].get_gridspec().set_height_ratios([4, 1])
    top = max(waits.values(), default=0.0)
    hours = time_unit == "s"
    scale = 3600.0 if hours else 1.0
    norm = Normalize(0.0, max(top / scale, 1e-9))
    cmap = "viridis"
    colour = ScalarMappable(norm=norm, cmap=cmap)
    for job, start, end, lo, count in boxes:
        wait = waits.get(str(job))
        face = colour.to_rgba(wait / scale) if wait is not None else "tab:blue"  # type: ignore[arg-type]  # a scalar gives one colour (matplotlib's stubs say array)
        ax.broken_barh(
            [(axis(start), (end - start) / axis.scale)], (lo, count), facecolors=face, edgecolors="black", linewidth=0.2
        )
    for _, start, end, lo, count in outages:  # a failed CPU is not an idle one
        ax.broken_barh([(axis(start), (end - start) / axis.scale)], (lo, count), gid="down", **state_style("down"))
    if outages:
        from matplotlib.patches import Patch

        hatched = Patch(label=NODE_STATE_STYLE["down"][0], **state_style("down"))
        ax.legend(handles=[hatched], loc="upper right", fontsize=7)
    ax.set_ylim(0, capacity)
    ax.set_ylabel(f"CPU id (0-{capacity - 1})")
    ax.set_title(title)
    if waits:
        bar = fig.colorbar(colour, ax=fig.axes, pad=0.01)  # beside both panels: their x axes stay aligned
        bar.set_label(f"wait ({'hours' if hours else time_unit or 'time units'})")
    if records:
        from schedlab.plots.timeseries import occupancy

        t, queued = occupancy(records)["queue"]
        below = fig.axes[1]
        below.step(axis(np.asarray(t)), queued, where="post", color="tab:red")
        below.set_ylabel("jobs\nwaiting")
        below.set_xlabel(axis.label)
    else:
        ax.set_xlabel(axis.label)
    return fig

"""Machine states over time: how many machines compute and how many are idle, as Batsim reports them.

Batsim counts each host's time in the states *computing*, *idle*, *switched off* and
*switching* on or off. schedlab's nodes are never switched off yet, so a node is
*computing* while any of its cores is held and *idle* otherwise; the chart stacks the
two counts over time, and its legend names only the states a run can have. The
machines are a cluster's nodes (its placement table) or, for a machine that gives
processor ids, its processors (its allocation rows).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from schedlab.plots._mpl import new_figure
from schedlab.plots.time_axis import time_axis

__all__ = ["computing_count", "machine_states"]


def computing_count(busy: Iterable[tuple[str, float, float]]) -> tuple[np.ndarray, np.ndarray]:
    """Times and the number of machines computing from each on: a machine computes while any
    of its ``(machine, start, end)`` stretches covers the time (overlapping stretches count once)."""
    changes: list[tuple[float, int, str]] = []
    for machine, start, end in busy:
        if end > start:
            changes += [(start, 1, machine), (end, -1, machine)]
    changes.sort(key=lambda c: (c[0], c[1]))  # at one time, ends before starts
    holders: dict[str, int] = {}
    times: list[float] = []
    counts: list[int] = []
    computing = 0
    for t, step, machine in changes:
        before = holders.get(machine, 0)
        holders[machine] = before + step
        computing += (before == 0 and step > 0) - (before + step == 0)
        if times and times[-1] == t:
            counts[-1] = computing
        else:
            times.append(t)
            counts.append(computing)
    return np.asarray(times, dtype=float), np.asarray(counts, dtype=float)


def machine_states(busy: Iterable[tuple[str, float, float]], machines: Sequence[str], *,
                   start: float | None = None, end: float | None = None, title: str = "Machine states",
                   time_unit: str = "", what: str = "nodes") -> Any:
    """Stacked machines computing and idle over time.

    Parameters
    ----------
    busy
        ``(machine, start, end)``: when each machine had a job (a placement row's node,
        or an allocation row's processor).
    machines
        Every machine's name, idle ones too.
    start, end
        The span drawn (default: the first and last stretch's).
    what
        What the machines are, for the y label (``"nodes"``, ``"processors"``).
    """
    stretches = list(busy)
    t, computing = computing_count(stretches)
    first = min([s for _, s, _ in stretches], default=0.0) if start is None else start
    last = max([e for _, _, e in stretches], default=1.0) if end is None else end
    # the step function over [first, last]: 0 computing before the first stretch
    t = np.concatenate(([first], t, [last]))
    computing = np.concatenate(([0.0], computing, [computing[-1] if computing.size else 0.0]))
    axis = time_axis(first, last, time_unit)
    fig = new_figure(9.0, 3.5)
    ax = fig.axes[0]
    total = len(machines)
    ax.fill_between(axis(t), 0, computing, step="post", color="tab:green", label="computing", linewidth=0)
    ax.fill_between(axis(t), computing, total, step="post", color="0.85", label="idle", linewidth=0)
    ax.set_ylim(0, max(total, 1))
    ax.set_xlim(axis(first), axis(last))
    ax.set_ylabel(f"{what} ({total})")
    ax.set_xlabel(axis.label)
    ax.set_title(title)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False,
              title="never switched off\n(not modelled yet)", title_fontsize=7)
    return fig

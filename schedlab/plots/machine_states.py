"""Machine states over time: how many machines compute and how many are idle, as Batsim reports them.

Batsim counts each host's time in the states *computing*, *idle*, *switched off* and
*switching* on or off. A node is *computing* while any of its cores is held, *switched
off*, *switching* or *down* (failed, until its repair) where a powered cluster's power rows
say so (:meth:`~schedlab.processes.cluster.power.PoweredCluster.power_rows`), or, on a cluster or
machine without power states, where its node outages say so (``down``), and *idle* otherwise; the
chart stacks the counts over time, and its legend names only the states a run can have
(a cluster without power states is never switched off). Where nodes were put in DVFS pstates
other than 0 (:meth:`~schedlab.processes.cluster.power.PoweredCluster.pstate_rows`), computing and
idle are each split by pstate, a shade per pstate with its speed in the legend, so a node
slowed to half speed no longer looks like one at full speed (Batsim's ``machine_states.csv``
has no pstates: it writes them apart, as ``pstate_changes.csv``). The
machines are a cluster's nodes (its placement table) or, for a machine that gives
CPU ids, its CPUs (its allocation rows).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from schedlab.plots._mpl import new_figure
from schedlab.plots.time_axis import time_axis

__all__ = ["computing_count", "machine_states", "pstate_counts", "state_counts"]


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


def _at(t: np.ndarray, times: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """A step function (``counts`` from each of ``times`` on, 0 before) read at ``t``."""
    if not times.size:
        return np.zeros_like(t)
    k = np.searchsorted(times, t, side="right") - 1
    return np.where(k >= 0, counts[np.maximum(k, 0)], 0.0)


def state_counts(
    busy: Iterable[tuple[str, float, float]], states: Iterable[tuple[str, str, float, float]] = ()
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Times, and from each on how many machines are ``computing``, ``switching``, ``switched off`` and ``down``.

    ``states``: ``(machine, state, start, end)`` with state ``off``, ``switching_off``,
    ``switching_on`` or ``down`` (failed, until its repair); both switchings count as ``switching``.
    """
    stretches = list(states)
    parts = {
        "computing": computing_count(busy),
        "switching": computing_count((m, a, b) for m, s, a, b in stretches if s.startswith("switching")),
        "switched off": computing_count((m, a, b) for m, s, a, b in stretches if s == "off"),
        "down": computing_count((m, a, b) for m, s, a, b in stretches if s == "down"),
    }
    t = np.unique(np.concatenate([times for times, _ in parts.values()]))
    return t, {name: _at(t, times, counts) for name, (times, counts) in parts.items()}


def _overlaps(
    a: Iterable[tuple[str, float, float]], b: Iterable[tuple[str, float, float]]
) -> list[tuple[str, float, float]]:
    """The ``(machine, start, end)`` stretches where a stretch of ``a`` and one of ``b`` of the same machine meet."""
    by_machine: dict[str, list[tuple[float, float]]] = {}
    for machine, start, end in b:
        by_machine.setdefault(machine, []).append((start, end))
    return [
        (machine, max(start, s), min(end, e))
        for machine, start, end in a
        for s, e in by_machine.get(machine, ())
        if min(end, e) > max(start, s)
    ]


def pstate_counts(
    busy: Iterable[tuple[str, float, float]],
    states: Iterable[tuple[str, str, float, float]],
    pstates: Iterable[tuple[str, int, float, float]],
) -> tuple[np.ndarray, dict[int, tuple[np.ndarray, np.ndarray]]]:
    """Times, and from each on, for each pstate ``k`` other than 0, how many machines compute at ``k``
    and how many are idle at ``k``.

    ``pstates``: ``(machine, pstate, start, end)``, each stretch a machine spent in a pstate other
    than 0 (:data:`~schedlab.processes.cluster.pstates.PSTATE_COLUMNS`). A machine in pstate ``k`` is
    computing at ``k`` while a ``busy`` stretch covers the time, and idle at ``k`` while neither a
    busy stretch nor one of ``states`` (off, switching, down: those keep their own colour) does.
    """
    busy, states, slowed = list(busy), list(states), list(pstates)
    other = [(m, a, b) for m, _, a, b in states]
    parts: dict[int, tuple[tuple[np.ndarray, np.ndarray], ...]] = {}
    for k in sorted({p for _, p, _, _ in slowed}):
        at_k = [(m, a, b) for m, p, a, b in slowed if p == k]
        parts[k] = (
            computing_count(_overlaps(busy, at_k)),
            computing_count(at_k),
            computing_count(_overlaps(other, at_k)),
        )
    t = np.unique(np.concatenate([np.zeros(0)] + [times for part in parts.values() for times, _ in part]))
    out = {}
    for k, (computing, inside, elsewhere) in parts.items():
        working = _at(t, *computing)
        out[k] = (working, _at(t, *inside) - working - _at(t, *elsewhere))
    return t, out


def machine_states(
    busy: Iterable[tuple[str, float, float]],
    machines: Sequence[str],
    *,
    start: float | None = None,
    end: float | None = None,
    title: str = "Machine states",
    time_unit: str = "",
    what: str = "nodes",
    states: Iterable[tuple[str, str, float, float]] | None = None,
    pstates: Iterable[tuple[str, int, float, float]] = (),
    speeds: dict[int, float] | None = None,
    down: Iterable[tuple[str, float, float]] = (),
    origin: str | None = None,
) -> Any:
    """Stacked machines computing and idle over time.

    Parameters
    ----------
    busy
        ``(machine, start, end)``: when each machine had a job (a placement row's node,
        or an allocation row's CPU).
    machines
        Every machine's name, idle ones too.
    start, end
        The span drawn (default: the first and last stretch's).
    what
        What the machines are, for the y label (``"nodes"``, ``"CPUs"``).
    states
        Each stretch a machine was off, switching or down (``None``: the machines are never
        switched off, and the legend says so; nodes down are drawn, in red, when any was).
    pstates
        Each stretch a machine spent in a DVFS pstate other than 0 (:func:`pstate_counts`):
        computing and idle are then drawn a shade per pstate (none: the chart is as without DVFS).
    speeds
        Each pstate's speed, for the legend (``pstate 1 (speed 0.5)``).
    down
        ``(machine, start, end)``: each stretch a machine was down (failed), where ``states``
        does not say it (a machine without power states: its
        :class:`~schedlab.model.records.node_fail.NodeOutage` list, by machine name).
    origin
        What the time axis counts from, for its label (default: ``"the first start"``, or
        ``"the start of the span drawn"`` when ``start`` is given).
    """
    stretches = list(busy)
    powered = states is not None
    every = [*(states or ()), *((m, "down", a, b) for m, a, b in down)]
    t, counts = state_counts(stretches, every)
    tp, slowed = pstate_counts(stretches, every, pstates)
    first = min([s for _, s, _ in stretches], default=0.0) if start is None else start
    # a node still down after the last job ended is part of the run: the span reaches its repair
    last = max([e for _, _, e in stretches] + [b for *_, b in every], default=1.0) if end is None else end
    # the step functions over [first, last]: each state's count at first, then from each change on
    changes = np.union1d(t, tp) if slowed else t
    grid = np.concatenate(([first], changes[(changes > first) & (changes < last)], [last]))
    layers = {name: _at(grid, t, c) for name, c in counts.items()}
    named = origin or ("the first start" if start is None else "the start of the span drawn")
    axis = time_axis(first, last, time_unit, named)
    fig = new_figure(9.0, 3.5)
    ax = fig.axes[0]
    total = len(machines)
    x = axis(grid)
    shown: tuple[str, ...] = ("computing", "switching", "switched off") if powered else ("computing",)
    if layers["down"].any():  # only a run with failures has nodes down: the legend names it then
        shown += ("down",)
    colours = {"computing": "tab:green", "switching": "tab:orange", "switched off": "tab:blue", "down": "tab:red"}
    drawn = [(name, layers[name], colours[name]) for name in shown]
    if slowed:  # computing at each slow pstate above computing at pstate 0, idle at each below the idle on top
        from matplotlib import colormaps  # new_figure imported matplotlib (or said it is missing)

        shade = np.linspace(0.5, 0.2, len(slowed)) if len(slowed) > 1 else np.array([0.35])  # slower: paler
        names = {k: f"pstate {k}" + (f" (speed {speeds[k]:.3g})" if speeds and k in speeds else "") for k in slowed}
        working = [
            (f"computing, {names[k]}", _at(grid, tp, c), colormaps["YlGn"](v))
            for (k, (c, _)), v in zip(slowed.items(), shade, strict=True)
        ]
        resting = [
            (f"idle, {names[k]}", _at(grid, tp, i), colormaps["Purples"](v + 0.1))
            for (k, (_, i)), v in zip(slowed.items(), shade, strict=True)
        ]
        full_speed = layers["computing"] - sum(layer for _, layer, _ in working)
        drawn = [("computing, pstate 0", full_speed, colours["computing"]), *working, *drawn[1:], *resting]
    low = np.zeros_like(grid)
    for name, layer, colour in drawn:  # idle (at pstate 0, where pstates were used) is what is left on top
        high = low + layer
        ax.fill_between(x, low, high, step="post", color=colour, label=name, linewidth=0)
        low = high
    ax.fill_between(x, low, total, step="post", color="0.85", label="idle, pstate 0" if slowed else "idle", linewidth=0)
    ax.set_ylim(0, max(total, 1))
    ax.set_xlim(axis(first), axis(last))
    ax.set_ylabel(f"{what} ({total})")
    ax.set_xlabel(axis.label)
    ax.set_title(title)
    ax.legend(
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
        fontsize=8,
        frameon=False,
        title=None if powered else "never switched off",
        title_fontsize=7,
    )
    return fig

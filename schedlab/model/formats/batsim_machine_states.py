"""Batsim's ``machine_states.csv``: how many machines sleep, switch, idle and compute, over time.

Batsim (``MachineStateTracer`` in its ``src/export.cpp``) writes ``time``, then the
number of hosts in each state: ``nb_sleeping``, ``nb_switching_on``,
``nb_switching_off``, ``nb_idle``, ``nb_computing``, a row at each change. Here a
machine is a platform's node (a cluster's placement rows say when it computes) or,
without a platform, one of the machine's CPUs (its allocation rows). A
powered cluster's power rows (``power.csv``) say when a node is off (*sleeping*),
switching on or off, or *down* (failed, until its repair). Batsim's file has no column
for a failed host: a down node is counted with the sleeping ones (it computes nothing),
so that every row sums to the machine count, as evalys checks; ``schedule.csv`` counts
its time apart, as ``time_unavailable``.

:func:`machine_timeline` gives the counts over time and the machine-seconds spent in
each state (``schedule.csv``'s ``time_*``), from the first submission to the end of
the run; :func:`machine_states_csv` writes the file. Times are written in full (Batsim
prints ``%g``, six significant digits, which rounds the times of long runs).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import NamedTuple

__all__ = ["MACHINE_STATES_COLUMNS", "STATES", "MachineTimeline", "machine_states_csv", "machine_timeline"]

#: the file's columns, in Batsim's order
MACHINE_STATES_COLUMNS = ("time", "nb_sleeping", "nb_switching_on", "nb_switching_off", "nb_idle", "nb_computing")
#: the states a machine is in, Batsim's names; ``unavailable`` is a failed node
STATES = ("sleeping", "switching_on", "switching_off", "idle", "computing", "unavailable")
#: a power row's state -> Batsim's, and which wins where stretches overlap (a failure first)
_POWER = {"down": "unavailable", "off": "sleeping", "switching_on": "switching_on", "switching_off": "switching_off"}
_ORDER = ("unavailable", "sleeping", "switching_on", "switching_off", "computing")


class MachineTimeline(NamedTuple):
    """Counts per state (``STATES``' order) from each of ``times`` on, and machine-seconds per state."""

    times: list[float]
    counts: list[tuple[int, ...]]
    seconds: dict[str, float]


def machine_timeline(
    machines: Sequence[str],
    busy: Iterable[tuple[str, float, float]],
    power: Iterable[tuple[str, str, float, float]],
    start: float,
    end: float,
) -> MachineTimeline:
    """The machines' states from ``start`` to ``end``.

    ``busy``: ``(machine, start, end)`` while it computes; ``power``: ``(machine,
    state, start, end)`` with a power row's state (``off``, ``switching_on``,
    ``switching_off``, ``down``; an end of ``nan``: until ``end``). A machine is in
    the first of unavailable, sleeping, switching on, switching off, computing whose
    stretch covers the time, else idle.
    """
    index = {m: k for k, m in enumerate(machines)}
    changes: list[tuple[float, int, int, str]] = []  # time, +1/-1, machine, state
    for machine, state, a, b in [(m, "computing", a, b) for m, a, b in busy] + [
        (m, _POWER[s], a, b) for m, s, a, b in power if s in _POWER
    ]:
        a = max(a, start)
        if machine not in index or not (b != b or b > a):
            continue
        changes.append((a, 1, index[machine], state))
        if b == b and b <= end:  # a stretch still open at the end (nan) or past it never ends here
            changes.append((b, -1, index[machine], state))
    changes.sort(key=lambda c: c[0])
    held = [dict.fromkeys(_ORDER, 0) for _ in machines]
    now = ["idle"] * len(machines)
    count = dict.fromkeys(STATES, 0)
    count["idle"] = len(machines)
    seconds = dict.fromkeys(STATES, 0.0)
    times, counts = [start], [tuple(count[s] for s in STATES)]
    since = start
    k = 0
    while k < len(changes):
        t = changes[k][0]
        for s in STATES:  # machine-seconds up to this change
            seconds[s] += count[s] * (t - since)
        since = t
        while k < len(changes) and changes[k][0] == t:  # every change at t before the row
            _, step, m, state = changes[k]
            held[m][state] += step
            new = next((s for s in _ORDER if held[m][s] > 0), "idle")
            count[now[m]] -= 1
            count[new] += 1
            now[m] = new
            k += 1
        row = tuple(count[s] for s in STATES)
        if row != counts[-1]:
            if times[-1] == t:
                counts[-1] = row
            else:
                times.append(t)
                counts.append(row)
    if end > since:
        for s in STATES:
            seconds[s] += count[s] * (end - since)
    return MachineTimeline(times, counts, seconds)


def _time(t: float) -> str:
    return f"{t:.15g}" if math.isfinite(t) else str(t)


def machine_states_csv(timeline: MachineTimeline) -> str:
    """The timeline as Batsim's ``machine_states.csv`` (down nodes counted as sleeping)."""
    lines = [",".join(MACHINE_STATES_COLUMNS)]
    for t, row in zip(timeline.times, timeline.counts, strict=True):
        sleeping, on, off, idle, computing, down = row
        lines.append(f"{_time(t)},{sleeping + down},{on},{off},{idle},{computing}")
    return "\n".join(lines) + "\n"

"""Energy of a run on a platform whose nodes give their power: total, per node, per job, mean power, EDP.

A node is on for the span ``[start, end]`` except where ``states`` says it was off,
switching or down (:meth:`~schedlab.processes.cluster.power.PoweredCluster.power_rows`). A node of ``cores`` cores draws
``idle + (full - idle) * busy / cores`` watts while ``busy`` of its cores are held
(:class:`~schedlab.model.core.platform.NodePower`). So over the span:

- a node's energy is ``idle * T_on + (full - idle) / cores * C + off * T_off + S``, where
  ``T_on`` is the time it was on within the span, ``C`` the core-seconds its jobs held on
  it, ``T_off`` its time off or down and ``S`` the joules of its switches (a switch's joules
  spread evenly over its seconds, so a switch cut by the span counts in part; a switch of
  0 seconds counts whole when its instant is in the span). Without ``states``,
  ``T_on = end - start``;
- a job's energy is what the cores it held drew while it held them:
  ``full * c / cores * d`` on each node (``c`` cores for ``d`` seconds), its share of the
  node's idle power and all the power its work added (what Batsim's ``consumed_energy``
  charges a job for, on a machine of one job);
- the total is the nodes' sum: the jobs' energies plus the idle power of the cores no
  job held, the off power and the switches;
- the mean power is the total over ``T``, and the energy-delay product (EDP) is the
  total times ``T`` (joule-seconds), the span standing for the delay.

With DVFS (``pstates``: the stretches a node spent in a pstate other than 0, a powered
cluster's ``pstate_rows()``), every ``idle`` and ``full`` above is that of the node's
pstate at the time: the formulas hold piece by piece, each piece of time at its
pstate's watts (:class:`~schedlab.model.core.platform.Pstate`; pstate 0's are the
type's ``idle`` and ``full``).

The held cores come from a cluster's placement table
(:meth:`~schedlab.processes.cluster.cluster.Cluster.placement_rows`): one ``(job, queue, node,
kind, cores, start, end)`` per job and node. Stretches outside the span are cut to it.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from schedlab.model.core.platform import NodePower, Platform

__all__ = ["EnergyReport", "energy"]


@dataclass(frozen=True)
class EnergyReport:
    """Joules, watts and joule-seconds of one run (see the module's docstring for each)."""

    total: float
    per_node: dict[str, float]
    per_job: dict[Any, float]
    mean_power: float
    edp: float
    span: float


def energy(
    rows: Iterable[tuple[Any, str, str, str, int, float, float]],
    platform: Platform,
    start: float,
    end: float,
    states: Iterable[tuple[str, str, float, float]] = (),
    pstates: Iterable[tuple[str, int, float, float]] = (),
) -> EnergyReport:
    """The energy of the jobs in ``rows`` on ``platform``'s nodes over ``[start, end]``.

    ``states``: ``(node, state, t0, t1)`` for every stretch a node was ``off``,
    ``switching_off``, ``switching_on`` or ``down`` after a failure (a powered cluster's
    ``power_rows()``); a down node draws its ``off`` watts (0 W if its type gives none).
    ``pstates``: ``(node, pstate, t0, t1)`` for every stretch a node was in a DVFS pstate
    other than 0 (a powered cluster's ``pstate_rows()``).

    Raises
    ------
    ValueError
        When a node type of the platform gives no power, or ``end <= start``.
    """
    if not end > start:
        raise ValueError(f"energy: the span must have a length, got [{start}, {end}]")
    power = {t.name: t.power for t in platform.node_types}
    missing = [name for name, p in power.items() if p is None]
    if missing:
        raise ValueError(
            f"energy: platform {platform.name!r}: node type(s) {', '.join(missing)} give no power "
            "(nodes.<type>.power = {idle = W, full = W})"
        )
    watts_of = {name: p for name, p in power.items() if p is not None}  # every type's: checked just above
    span = end - start
    busy: dict[str, float] = {}  # core-seconds held per node
    per_job: dict[Any, float] = {}
    cores_of = {n.name: n.cores for n in platform.nodes}
    kind_of = {n.name: n.kind for n in platform.nodes}
    extra: dict[str, float] = {}  # joules off and switching, and a pstate's change to pstate 0's watts, per node
    stretches = _Stretches(pstates, start, end)
    for node, level, t0, t1 in stretches.rows:  # a pstate's idle watts over its stretch
        watts = watts_of[kind_of[node]]
        extra[node] = extra.get(node, 0.0) + (_level(watts, node, level).idle - watts.idle) * (t1 - t0)
    for job, _queue, node, _kind, cores, t0, t1 in rows:
        a, b = max(t0, start), min(t1, end)
        held = max(0.0, b - a) * cores
        busy[node] = busy.get(node, 0.0) + held
        watts = watts_of[kind_of[node]]
        joules = watts.full * held / cores_of[node]
        for level, seconds in stretches.overlaps(node, a, b):  # the part of it at other pstates
            p = watts.levels[level]
            joules += (p.full - watts.full) * seconds * cores / cores_of[node]
            extra[node] = (
                extra.get(node, 0.0)
                + ((p.full - p.idle) - (watts.full - watts.idle)) * seconds * cores / cores_of[node]
            )
        per_job[job] = per_job.get(job, 0.0) + joules
    away: dict[str, float] = {}  # seconds not on, per node
    for node, state, t0, t1 in states:
        watts = watts_of[kind_of[node]]
        inside = max(0.0, min(t1, end) - max(t0, start))
        away[node] = away.get(node, 0.0) + inside
        for level, seconds in stretches.overlaps(node, max(t0, start), min(t1, end)):  # not on: no idle watts
            extra[node] = extra.get(node, 0.0) - (watts.levels[level].idle - watts.idle) * seconds
        if state in ("off", "down"):
            # off, or failed and powered down for its repair: its off watts (processes/cluster/power.py says why)
            joules = (watts.off or 0.0) * inside
        else:
            switch = watts.switch_off if state == "switching_off" else watts.switch_on
            if switch.seconds > 0:  # its watts, over the part of it inside the span
                joules = switch.joules / switch.seconds * inside
            else:
                joules = switch.joules if start <= t0 <= end else 0.0
        extra[node] = extra.get(node, 0.0) + joules
    per_node = {}
    for spec in platform.nodes:
        watts = watts_of[spec.kind]
        on = span - away.get(spec.name, 0.0)
        per_node[spec.name] = (
            watts.idle * on
            + (watts.full - watts.idle) * busy.get(spec.name, 0.0) / spec.cores
            + extra.get(spec.name, 0.0)
        )
    total = sum(per_node.values())
    return EnergyReport(total, per_node, per_job, total / span, total * span, span)


def _level(watts: NodePower, node: str, level: int) -> Any:
    if not 0 <= level < len(watts.levels):
        raise ValueError(f"energy: node {node!r} was in pstate {level}; its type has {len(watts.levels)} pstate(s)")
    return watts.levels[level]


class _Stretches:
    """The stretches each node spent in a pstate other than 0, cut to the span, to measure overlaps fast.

    Per node and pstate, the stretches (disjoint: a node is in one pstate at a time) are
    sorted with the running sum of their lengths, so the time an interval spent in them
    is two binary searches, not a scan.
    """

    def __init__(self, rows: Iterable[tuple[str, int, float, float]], start: float, end: float) -> None:
        self.rows = [(n, p, max(t0, start), min(t1, end)) for n, p, t0, t1 in rows if min(t1, end) > max(t0, start)]
        by: dict[str, dict[int, list[tuple[float, float]]]] = {}
        for node, level, t0, t1 in self.rows:
            by.setdefault(node, {}).setdefault(level, []).append((t0, t1))
        self._index: dict[str, list[tuple[int, list[float], list[float], list[float]]]] = {}
        for node, levels in by.items():
            table = []
            for level, pieces in levels.items():
                pieces.sort()
                starts, ends = [a for a, _ in pieces], [b for _, b in pieces]
                table.append((level, starts, ends, [0.0, *accumulate(b - a for a, b in pieces)]))
            self._index[node] = table

    def _measure(self, starts: list[float], ends: list[float], sums: list[float], t: float) -> float:
        """Time in these stretches before ``t``."""
        k = bisect_right(starts, t)  # stretches that began by t
        if k == 0:
            return 0.0
        return sums[k - 1] + min(t, ends[k - 1]) - starts[k - 1]

    def overlaps(self, node: str, a: float, b: float) -> list[tuple[int, float]]:
        """``(pstate, seconds)`` that ``[a, b]`` spent in each pstate other than 0 on ``node``."""
        if b <= a or node not in self._index:
            return []
        out = []
        for level, starts, ends, sums in self._index[node]:
            seconds = self._measure(starts, ends, sums, b) - self._measure(starts, ends, sums, a)
            if seconds > 0:
                out.append((level, seconds))
        return out

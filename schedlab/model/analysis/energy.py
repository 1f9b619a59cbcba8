"""Energy of a run on a platform whose nodes give their power: total, per node, per job, mean power, EDP.

A node is on for the span ``[start, end]`` except where ``states`` says it was off,
switching or down (:meth:`~schedlab.processes.power.PoweredCluster.power_rows`). A node of ``cores`` cores draws
``idle + (full - idle) * busy / cores`` watts while ``busy`` of its cores are held
(:class:`~schedlab.model.formats.platform.NodePower`). So over the span:

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

The held cores come from a cluster's placement table
(:meth:`~schedlab.processes.cluster.Cluster.placement_rows`): one ``(job, queue, node,
kind, cores, start, end)`` per job and node. Stretches outside the span are cut to it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from schedlab.model.formats.platform import Platform

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
) -> EnergyReport:
    """The energy of the jobs in ``rows`` on ``platform``'s nodes over ``[start, end]``.

    ``states``: ``(node, state, t0, t1)`` for every stretch a node was ``off``,
    ``switching_off``, ``switching_on`` or ``down`` after a failure (a powered cluster's
    ``power_rows()``); a down node draws its ``off`` watts (0 W if its type gives none).

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
    for job, _queue, node, _kind, cores, t0, t1 in rows:
        held = max(0.0, min(t1, end) - max(t0, start)) * cores
        busy[node] = busy.get(node, 0.0) + held
        watts = watts_of[kind_of[node]]
        per_job[job] = per_job.get(job, 0.0) + watts.full * held / cores_of[node]
    away: dict[str, float] = {}  # seconds not on, per node
    extra: dict[str, float] = {}  # joules off and switching, per node
    for node, state, t0, t1 in states:
        watts = watts_of[kind_of[node]]
        inside = max(0.0, min(t1, end) - max(t0, start))
        away[node] = away.get(node, 0.0) + inside
        if state in ("off", "down"):
            # off, or failed and powered down for its repair: its off watts (processes/power.py says why)
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

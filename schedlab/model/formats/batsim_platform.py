"""Node power read from a Batsim (SimGrid) platform file: its energy properties, as schedlab's platform gives them.

Batsim encodes a host's power states in SimGrid pstates (Batsim's docs, "Energy
model"): ``speed`` lists each pstate's flop rate, ``watt_per_state`` (``wattage_per_state``
in older files) each pstate's ``idle:full`` watts, ``watt_off`` (``wattage_off``) the
watts when off, and ``sleep_pstates="off:shutdown:boot"`` names three *virtual* pstates:
the node is off in the first, and shuts down or boots by computing one flop in the
other two. So a switch lasts ``1 / speed`` seconds at that pstate's watts, and costs
``watts / speed`` joules. :func:`batsim_node_power` reads one cluster's properties into
a :class:`~schedlab.model.core.platform.NodePower`, for a platform file's ``power``
table or a cross-check; it reads only these properties, not the network or the hosts'
names. :func:`node_power` reads one host's (or cluster's) properties the same way, for
:mod:`schedlab.model.formats.batsim_platform_file`, which reads the whole platform.
The compute pstates (DVFS) are those listed before the first sleep pstate, as
Batsim's files order them: each becomes a :class:`~schedlab.model.core.platform.Pstate`
whose speed is its flop rate over pstate 0's (a log's runtimes are taken as measured at
pstate 0) and whose watts are its ``idle:full`` entry (the first and last of its values).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from schedlab.model.core.platform import NodePower, Pstate, Switch

__all__ = ["BatsimPlatformError", "batsim_node_power", "node_power", "platform_root", "speeds_of"]

_UNITS = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


class BatsimPlatformError(ValueError):
    """A Batsim platform file that cannot be read; the message names the file, the cluster and the field."""


def _flops(text: str, where: str) -> float:
    match = re.fullmatch(r"\s*([0-9.eE+-]+)\s*([kMGT]?)f\s*", text)
    if match is None:
        raise BatsimPlatformError(f"{where}: a speed must read like 100.0Mf, got {text!r}")
    return float(match.group(1)) * _UNITS[match.group(2)]


def platform_root(path: str | Path, name: str) -> ET.Element:
    """The root element of the XML platform at ``path``; ``name`` names the file in the one-line error.

    Leading white space is skipped before parsing: Batsim's own ``cluster_energy_128.xml``
    starts with a blank line before its XML declaration, which SimGrid's parser accepts and
    a strict XML parser refuses.
    """
    try:
        with open(path, "rb") as stream:
            return ET.fromstring(stream.read().lstrip())
    except (ET.ParseError, OSError) as error:
        raise BatsimPlatformError(f"{name}: not a readable XML platform: {error}") from None


def batsim_node_power(path: str | Path, cluster: str | None = None) -> NodePower:
    """The power of the hosts of ``cluster`` (its ``id``; default: the first with ``sleep_pstates``) in ``path``.

    Raises
    ------
    BatsimPlatformError
        When the file is not XML, the cluster is missing, or a property is missing or
        unreadable; the one-line message names the file, the cluster and the property.
    """
    source = str(path)
    root = platform_root(path, source)
    candidates = [c for c in root.iter("cluster") if cluster is None or c.get("id") == cluster]
    props: dict[str, str] = {}
    for element in candidates:
        found = {p.get("id", ""): p.get("value", "") for p in element.findall("prop")}
        if cluster is not None or "sleep_pstates" in found:
            props, chosen = found, element
            break
    else:
        raise BatsimPlatformError(f"{source}: no cluster {cluster or 'with a sleep_pstates property'}")
    where = f"{source}: cluster {chosen.get('id')!r}"
    power = node_power(props, speeds_of(chosen.get("speed", ""), where), where)
    if power is None:
        raise BatsimPlatformError(f"{where}: property watt_per_state is missing")
    return power


def speeds_of(text: str, where: str) -> list[float]:
    """A host's ``speed`` attribute (``"100.0Mf, 88.9Mf"``): each pstate's flop rate."""
    return [_flops(s, f"{where}: speed") for s in text.split(",")]


def node_power(props: dict[str, str], speeds: list[float], where: str) -> NodePower | None:
    """A host's power from its properties and its pstates' flop rates (``None``: it gives no watts).

    Without ``sleep_pstates`` every pstate is a compute pstate and the host is never off.
    """

    def prop(*names: str) -> str:
        for name in names:
            if name in props:
                return props[name]
        raise BatsimPlatformError(f"{where}: property {names[0]} is missing")

    if "watt_per_state" not in props and "wattage_per_state" not in props:
        return None
    try:
        states = prop("watt_per_state", "wattage_per_state").split(",")
        watts = [tuple(float(w) for w in state.split(":")) for state in states]
        sleeps = props.get("sleep_pstates")
        off_state, down, boot = (int(k) for k in sleeps.split(":")) if sleeps else (len(watts),) * 3
        off = float(prop("watt_off", "wattage_off")) if sleeps else None
    except ValueError as error:
        raise BatsimPlatformError(f"{where}: {error}") from None
    if sleeps and max(off_state, down, boot) >= min(len(speeds), len(watts)):
        raise BatsimPlatformError(
            f"{where}: sleep_pstates {off_state}:{down}:{boot} name pstates beyond the "
            f"{min(len(speeds), len(watts))} given"
        )

    def switch(k: int) -> Switch:  # one flop at pstate k's speed, at its watts
        seconds = 1.0 / speeds[k]
        return Switch(seconds, watts[k][0] * seconds)

    compute = []
    for k in range(min(off_state, down, boot, len(speeds), len(watts))):
        level = Pstate(speeds[k] / speeds[0], watts[k][0], watts[k][-1])
        if not (level.speed > 0 and level.full >= level.idle >= 0):
            raise BatsimPlatformError(
                f"{where}: pstate {k}: speed {speeds[k]:g} f and watts {level.idle:g}:{level.full:g} "
                "must be > 0 and idle <= full"
            )
        compute.append(level)
    if not compute:
        raise BatsimPlatformError(
            f"{where}: sleep_pstates {off_state}:{down}:{boot} leave no compute pstate before them"
        )
    idle, full = compute[0].idle, compute[0].full
    pstates = tuple(compute) if len(compute) > 1 else ()
    if not sleeps:
        return NodePower(idle, full, pstates=pstates)
    return NodePower(idle, full, off, switch_off=switch(down), switch_on=switch(boot), pstates=pstates)

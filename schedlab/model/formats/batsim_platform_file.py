"""A Batsim (SimGrid) XML platform read as a schedlab :class:`~schedlab.model.core.platform.Platform`.

``schedlab replay --platform cluster_energy_128.xml`` takes Batsim's own file:
:func:`schedlab.model.formats.platform_file.load_platform` hands any ``.xml`` file (or
one that starts with ``<``) to :func:`read_batsim_platform`. It reads what Batsim reads
of a platform to build its machines (Batsim's ``src/machines.cpp``):

- the hosts: every ``<host>``, and every ``<cluster>``'s hosts (``prefix`` + each
  number of ``radical``, such as ``0-127`` or ``0-3,8``, + ``suffix``);
- their roles: the master host (``role`` ``master``; without one, the host named
  ``master_host``, Batsim's default ``--master-host``) and ``storage`` hosts compute
  nothing and are left out, as Batsim leaves them out of its compute machines;
- their order: by name, numbers compared as numbers (``host2`` before ``host10``), as
  Batsim numbers its machines, so resource ``k`` is the k-th host;
- each host's pstates (``speed``, one flop rate per pstate), its starting ``pstate``
  and its power and sleep states (``watt_per_state``, ``watt_off``, ``sleep_pstates``:
  :func:`~schedlab.model.formats.batsim_platform.node_power`).

A Batsim job's ``res`` counts hosts, so each host is a node of one core (a ``core``
attribute does not change that). Hosts alike (same pstates, watts and starting pstate)
share a node type, named after their cluster (or ``host`` for lone hosts). The network
(links, routes, bandwidths) is not read: schedlab models no network. Each node type
keeps its pstate 0 flop rate (``flops``), which turns a workload's flops into seconds.

Every error is one line naming the file, the host or cluster and the attribute.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from schedlab.model.core.platform import Node, NodePower, NodeType, Platform, frozen_amounts
from schedlab.model.formats.batsim_platform import BatsimPlatformError, node_power, platform_root, speeds_of

__all__ = ["is_batsim_platform", "read_batsim_platform"]

#: the host Batsim runs its own processes on when no host has the master role (its --master-host default)
MASTER_HOST = "master_host"


def is_batsim_platform(path: str | os.PathLike[str]) -> bool:
    """Is ``path`` an XML platform (Batsim's) rather than a TOML one: its suffix, else its first character?"""
    if os.fspath(path).lower().endswith(".xml"):
        return True
    try:
        with open(path, "rb") as stream:
            return stream.read(64).lstrip().startswith(b"<")
    except OSError:
        return False


@dataclass(frozen=True)
class _Host:
    name: str
    group: str
    role: str
    speeds: tuple[float, ...]
    power: NodePower | None


def _natural(name: str) -> tuple[tuple[int, int | str], ...]:
    """Batsim's machine order: numbers within names compared as numbers."""
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in re.findall(r"\d+|\D+", name))


def _radical(text: str, where: str) -> list[int]:
    numbers: list[int] = []
    for part in text.split(","):
        match = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", part)
        if match is None:
            raise BatsimPlatformError(f"{where}: radical must read like 0-127 or 0-3,8, got {text!r}")
        low, high = int(match.group(1)), int(match.group(2) or match.group(1))
        numbers += range(low, high + 1)
    return numbers


def _props(element: ET.Element) -> dict[str, str]:
    return {p.get("id", ""): p.get("value", "") for p in element.findall("prop")}


def _host(name: str, group: str, element: ET.Element, where: str) -> _Host:
    props = _props(element)
    if "speed" not in element.attrib:
        raise BatsimPlatformError(f"{where}: attribute speed is missing")
    speeds = speeds_of(element.get("speed", ""), where)
    role = props.get("role", "")
    power = None
    if "storage" not in role and "master" not in role:
        if not speeds[0] > 0:
            raise BatsimPlatformError(f"{where}: speed of pstate 0 must be > 0 for a compute host, got {speeds[0]:g}")
        power = node_power(props, speeds, where)
        start = element.get("pstate")
        if start is not None and power is not None:
            if not (start.isdigit() and int(start) < len(power.levels)):
                raise BatsimPlatformError(
                    f"{where}: attribute pstate names no compute pstate (there are {len(power.levels)}), got {start!r}"
                )
            power = NodePower(
                power.idle,
                power.full,
                power.off,
                power.switch_off,
                power.switch_on,
                power.pstates,
                int(start),
            )
    return _Host(name, group, role, tuple(speeds), power)


def read_batsim_platform(path: str | os.PathLike[str]) -> Platform:
    """The compute hosts of a Batsim XML platform as a :class:`Platform` of one-core nodes.

    Raises
    ------
    BatsimPlatformError
        One line naming the file and the host or cluster: not XML, no compute host, a
        speed, radical, pstate or power property that cannot be read.
    """
    source = os.fspath(path)
    name = os.path.basename(source)
    root = platform_root(source, name)
    hosts: list[_Host] = []
    for cluster in root.iter("cluster"):
        where = f"{name}: cluster {cluster.get('id')!r}"
        prefix, suffix = cluster.get("prefix", ""), cluster.get("suffix", "")
        template = _host("", cluster.get("id", "cluster"), cluster, where)
        for k in _radical(cluster.get("radical", ""), where):
            hosts.append(_Host(f"{prefix}{k}{suffix}", template.group, template.role, template.speeds, template.power))
    for element in root.iter("host"):
        hosts.append(_host(element.get("id", ""), "host", element, f"{name}: host {element.get('id')!r}"))
    has_master = any("master" in h.role for h in hosts)
    compute = [
        h for h in hosts if "master" not in h.role and "storage" not in h.role and (has_master or h.name != MASTER_HOST)
    ]
    if not compute:
        raise BatsimPlatformError(f"{name}: no compute host (every host is the master or a storage host)")
    compute.sort(key=lambda h: _natural(h.name))
    kinds: dict[tuple[str, tuple[float, ...], NodePower | None], str] = {}
    for h in compute:
        key = (h.group, h.speeds, h.power)
        if key not in kinds:
            taken = sum(1 for k in kinds if k[0] == h.group)
            kinds[key] = h.group if taken == 0 else f"{h.group}-{taken}"
    counts = {kind: 0 for kind in kinds.values()}
    nodes = []
    for h in compute:
        kind = kinds[(h.group, h.speeds, h.power)]
        counts[kind] += 1
        nodes.append(Node(h.name, kind, 1, frozen_amounts({})))
    types = tuple(
        NodeType(kind, counts[kind], 1, frozen_amounts({}), power, flops=speeds[0])
        for (_, speeds, power), kind in kinds.items()
    )
    label = root.get("id") or os.path.splitext(name)[0]
    return Platform(label, types, tuple(nodes), {}, {}, name)

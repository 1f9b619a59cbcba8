"""Reading a platform file: :func:`load_platform` (TOML, or Batsim's XML), with one-line :class:`PlatformError`s.

Every mistake names the file, the key path and the value, on one line::

    platform.toml: nodes.gpu.count: must be a whole number >= 1, got -2

The file's keys are in ``docs/platforms.md``; what they read into is
:mod:`schedlab.model.core.platform`.
"""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from schedlab.model.core.fields import is_int
from schedlab.model.core.limits import MAX_CPUS, MAX_NODES
from schedlab.model.core.platform import (
    Node,
    NodePower,
    NodeType,
    Partition,
    Platform,
    Pstate,
    Queue,
    Switch,
    frozen_amounts,
)
from schedlab.model.formats.batsim_platform import BatsimPlatformError
from schedlab.model.formats.batsim_platform_file import is_batsim_platform, read_batsim_platform

__all__ = ["PlatformError", "cached_platform", "load_platform", "parse_platform"]


class PlatformError(ValueError):
    """A platform file holds an impossible value; the message is one line: file, key path, value."""


class _Where:
    """The file being read, to name it in one-line errors."""

    def __init__(self, source: str) -> None:
        self.source = source

    def error(self, key: str, problem: str, value: Any = None, *, show: bool = True) -> PlatformError:
        got = f", got {value!r}" if show else ""
        return PlatformError(f"{self.source}: {key}: {problem}{got}")

    def table(self, value: Any, key: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.error(key, "must be a table", value)
        return value

    def known(self, table: Mapping[str, Any], key: str, allowed: tuple[str, ...]) -> None:
        for name in table:
            if name not in allowed:
                raise self.error(
                    f"{key}.{name}" if key else name, f"unknown key; expected one of {', '.join(allowed)}", show=False
                )

    def whole(self, value: Any, key: str, low: int) -> int:
        if not is_int(value, low):
            raise self.error(key, f"must be a whole number >= {low}", value)
        return value

    def amount(self, value: Any, key: str, *, positive: bool = False) -> float:
        ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        if not ok or value < 0 or (positive and value == 0):
            raise self.error(key, f"must be a finite number {'> 0' if positive else '>= 0'}", value)
        return float(value)

    def text(self, value: Any, key: str) -> str:
        if not isinstance(value, str) or not value:
            raise self.error(key, "must be a non-empty string", value)
        return value


_TOP = ("name", "nodes", "partitions", "queues")
_NODE = ("count", "cores", "memory", "gpus", "resources", "power")
_POWER = ("idle", "full", "off", "switch_off", "switch_on", "pstates", "pstate")
_PSTATE = ("speed", "idle", "full")
_SWITCH = ("seconds", "joules")
_PARTITION = ("nodes", "swf_id", "max_runtime", "default")
_QUEUE = ("swf_id", "priority", "weight", "max_runtime", "partition", "demands", "walltime")


@lru_cache(maxsize=8)
def cached_platform(path: str) -> Platform:
    """:func:`load_platform`, once per process and path (every replication of a replay shares it)."""
    return load_platform(path)


def load_platform(path: str | os.PathLike[str]) -> Platform:
    """Read a platform file: TOML, or a Batsim XML platform (a ``.xml`` file, or one that starts with ``<``).

    Raises
    ------
    PlatformError
        A syntax error, an unknown key, or an impossible value: one line naming the
        file, the key path (``nodes.gpu.count``, or an XML host's attribute) and the value.
    FileNotFoundError
        No such file.
    """
    source = os.fspath(path)
    if is_batsim_platform(source):
        if not os.path.isfile(source):
            raise FileNotFoundError(source)
        try:
            return read_batsim_platform(source)
        except BatsimPlatformError as exc:  # one error type for every platform file
            raise PlatformError(str(exc)) from None
    with open(source, "rb") as stream:
        raw = stream.read()
    name = os.path.basename(source)
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise PlatformError(f"{name}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise PlatformError(f"{name}: not valid TOML: {exc}") from None
    return parse_platform(data, source=name)


def parse_platform(data: Mapping[str, Any], *, source: str = "platform") -> Platform:
    """A :class:`Platform` from a TOML document already parsed into a dict (``source`` names it in errors)."""
    at = _Where(source)
    at.known(data, "", _TOP)
    if "nodes" not in data:
        raise at.error("nodes", "is missing: a platform needs at least one node type", show=False)
    node_tables = at.table(data["nodes"], "nodes")
    if not node_tables:
        raise at.error("nodes", "must name at least one node type", node_tables)
    types = tuple(_node_type(at, kind, table) for kind, table in node_tables.items())
    _within_caps(at, types)  # before one node is made: a typo of 10**12 nodes is an error, not minutes and GBs
    nodes = tuple(
        Node(f"{t.name}-{i}", t.name, t.cores, frozen_amounts(t.resources)) for t in types for i in range(t.count)
    )
    resource_names = {r for t in types for r in t.resources}
    partitions = {
        p: _partition(at, p, table, types, nodes)
        for p, table in at.table(data.get("partitions", {}), "partitions").items()
    }
    defaults = [p for p in partitions.values() if p.default]
    if len(defaults) > 1:
        raise at.error(
            f"partitions.{defaults[1].name}.default",
            f"only one partition may be the default ({defaults[0].name} already is)",
            True,
        )
    queues = {
        q: _queue(at, q, table, partitions, resource_names)
        for q, table in at.table(data.get("queues", {}), "queues").items()
    }
    _unique_ids(at, "partitions", partitions)
    _unique_ids(at, "queues", queues)
    label = at.text(data.get("name", source), "name")
    return Platform(label, types, nodes, MappingProxyType(partitions), MappingProxyType(queues), source)


def _within_caps(at: _Where, types: tuple[NodeType, ...]) -> None:
    """Refuse more nodes or cores in all than a cluster is built with (:mod:`schedlab.model.core.limits`)."""
    nodes = cores = 0
    for t in types:
        nodes += t.count
        cores += t.count * t.cores
        if nodes > MAX_NODES:
            raise at.error(f"nodes.{t.name}.count", f"too many nodes: at most {MAX_NODES} nodes in all", t.count)
        if cores > MAX_CPUS:
            raise at.error(f"nodes.{t.name}.count", f"too many cores: at most {MAX_CPUS} cores in all", t.count)


def _node_type(at: _Where, kind: str, raw: Any) -> NodeType:
    key = f"nodes.{kind}"
    table = at.table(raw, key)
    at.known(table, key, _NODE)
    if "cores" not in table:
        raise at.error(f"{key}.cores", "is missing: every node type needs its cores", show=False)
    cores = at.whole(table["cores"], f"{key}.cores", 1)
    if cores > MAX_CPUS:
        raise at.error(f"{key}.cores", f"too many: at most {MAX_CPUS} cores a node", cores)
    count = at.whole(table.get("count", 1), f"{key}.count", 1)
    if count > MAX_NODES:
        raise at.error(f"{key}.count", f"too many: at most {MAX_NODES} nodes of a type", count)
    resources: dict[str, float] = {}
    if "memory" in table:
        resources["memory"] = at.amount(table["memory"], f"{key}.memory")
    if "gpus" in table:
        resources["gpus"] = float(at.whole(table["gpus"], f"{key}.gpus", 0))
    for r, a in at.table(table.get("resources", {}), f"{key}.resources").items():
        if r in ("cores", "cpus", "memory", "gpus"):
            raise at.error(f"{key}.resources.{r}", f"give {r} as {key}.{'cores' if r == 'cpus' else r}", a)
        resources[r] = at.amount(a, f"{key}.resources.{r}")
    power = None
    if "power" in table:
        watts = at.table(table["power"], f"{key}.power")
        at.known(watts, f"{key}.power", _POWER)
        pstates = _pstates(at, watts, f"{key}.power")
        if pstates:
            idle, full = pstates[0].idle, pstates[0].full
        else:
            for w in _POWER[:2]:
                if w not in watts:
                    raise at.error(
                        f"{key}.power.{w}", "is missing: a node's power needs idle and full watts", show=False
                    )
            idle, full = at.amount(watts["idle"], f"{key}.power.idle"), at.amount(watts["full"], f"{key}.power.full")
            if full < idle:
                raise at.error(f"{key}.power.full", f"must be >= idle ({idle:g} W)", watts["full"])
        start = at.whole(watts.get("pstate", 0), f"{key}.power.pstate", 0)
        if start >= max(1, len(pstates)):
            raise at.error(f"{key}.power.pstate", f"names no pstate (there are {max(1, len(pstates))})", start)
        switches = {}
        for name in ("switch_off", "switch_on"):
            if name in watts:
                if "off" not in watts:
                    raise at.error(
                        f"{key}.power.{name}", "needs power.off: only a node that can be off switches", show=False
                    )
                switch = at.table(watts[name], f"{key}.power.{name}")
                at.known(switch, f"{key}.power.{name}", _SWITCH)
                switches[name] = Switch(
                    at.amount(switch.get("seconds", 0.0), f"{key}.power.{name}.seconds"),
                    at.amount(switch.get("joules", 0.0), f"{key}.power.{name}.joules"),
                )
        off = at.amount(watts["off"], f"{key}.power.off") if "off" in watts else None
        power = NodePower(idle, full, off, **switches, pstates=pstates, pstate=start)
    return NodeType(kind, count, cores, frozen_amounts(resources), power)


def _pstates(at: _Where, watts: Mapping[str, Any], key: str) -> tuple[Pstate, ...]:
    """A power table's ``pstates`` list (empty when it has none); pstate 0's watts replace ``idle``/``full``."""
    if "pstates" not in watts:
        return ()
    raw = watts["pstates"]
    if not isinstance(raw, list) or not raw:
        raise at.error(f"{key}.pstates", "must be a non-empty list of {speed, idle, full} tables", raw)
    for w in ("idle", "full"):
        if w in watts:
            raise at.error(f"{key}.{w}", "give pstate 0's watts in pstates[0], not beside pstates", watts[w])
    out = []
    for n, item in enumerate(raw):
        where = f"{key}.pstates[{n}]"
        table = at.table(item, where)
        at.known(table, where, _PSTATE)
        for name in _PSTATE:
            if name not in table:
                raise at.error(f"{where}.{name}", "is missing: a pstate needs speed, idle and full", show=False)
        speed = at.amount(table["speed"], f"{where}.speed", positive=True)
        idle, full = at.amount(table["idle"], f"{where}.idle"), at.amount(table["full"], f"{where}.full")
        if full < idle:
            raise at.error(f"{where}.full", f"must be >= idle ({idle:g} W)", table["full"])
        out.append(Pstate(speed, idle, full))
    return tuple(out)


def _partition(at: _Where, name: str, raw: Any, types: tuple[NodeType, ...], nodes: tuple[Node, ...]) -> Partition:
    key = f"partitions.{name}"
    table = at.table(raw, key)
    at.known(table, key, _PARTITION)
    members = table.get("nodes")
    if members is None:
        chosen = tuple(range(len(nodes)))
    else:
        if not isinstance(members, list) or not members:
            raise at.error(f"{key}.nodes", "must be a non-empty list of node types or node names", members)
        type_names = {t.name for t in types}
        index = {n.name: i for i, n in enumerate(nodes)}
        picked: dict[int, None] = {}
        for i, member in enumerate(members):
            if not isinstance(member, str):
                raise at.error(f"{key}.nodes[{i}]", "must be a node type or a node name (a string)", member)
            if member in type_names:
                picked.update(dict.fromkeys(j for j, n in enumerate(nodes) if n.kind == member))
            elif member in index:
                picked[index[member]] = None
            else:
                raise at.error(f"{key}.nodes[{i}]", "is neither a node type nor a node name", member)
        chosen = tuple(sorted(picked))
    limit = at.amount(table["max_runtime"], f"{key}.max_runtime", positive=True) if "max_runtime" in table else math.inf
    default = table.get("default", False)
    if not isinstance(default, bool):
        raise at.error(f"{key}.default", "must be true or false", default)
    return Partition(name, chosen, _swf_id(at, table, key), limit, default)


def _queue(at: _Where, name: str, raw: Any, partitions: Mapping[str, Partition], resources: set[str]) -> Queue:
    key = f"queues.{name}"
    table = at.table(raw, key)
    at.known(table, key, _QUEUE)
    priority = table.get("priority", 0)
    if not is_int(priority):
        raise at.error(f"{key}.priority", "must be a whole number", priority)
    weight = at.amount(table.get("weight", 1.0), f"{key}.weight", positive=True)
    limit = at.amount(table["max_runtime"], f"{key}.max_runtime", positive=True) if "max_runtime" in table else math.inf
    partition = table.get("partition")
    if partition is not None and (not isinstance(partition, str) or partition not in partitions):
        raise at.error(
            f"{key}.partition", f"names no partition (there are: {', '.join(partitions) or 'none'})", partition
        )
    demands: dict[str, float] = {}
    for r, a in at.table(table.get("demands", {}), f"{key}.demands").items():
        if r not in resources:
            raise at.error(
                f"{key}.demands.{r}",
                f"no node has this resource (they have: {', '.join(sorted(resources)) or 'cores only'})",
                a,
            )
        demands[r] = at.amount(a, f"{key}.demands.{r}")
    walltime = table.get("walltime")
    if walltime is not None and walltime not in ("kill", "run-on"):
        raise at.error(f"{key}.walltime", 'must be "kill" or "run-on"', walltime)
    return Queue(name, _swf_id(at, table, key), priority, weight, limit, partition, frozen_amounts(demands), walltime)


def _swf_id(at: _Where, table: Mapping[str, Any], key: str) -> int | None:
    if "swf_id" not in table:
        return None
    return at.whole(table["swf_id"], f"{key}.swf_id", 0)


def _unique_ids(at: _Where, key: str, table: Mapping[str, Partition] | Mapping[str, Queue]) -> None:
    seen: dict[int, str] = {}
    for name, item in table.items():
        if item.swf_id is None:
            continue
        if item.swf_id in seen:
            raise at.error(f"{key}.{name}.swf_id", f"is already the swf_id of {key}.{seen[item.swf_id]}", item.swf_id)
        seen[item.swf_id] = name

"""A log's platform, from its SWF header: nodes, queues and partitions as a platform file.

The Parallel Workloads Archive's headers describe the machine a log came from:
``MaxNodes`` and ``MaxProcs``, and, for some logs, one ``Queue:`` and ``Partition:``
line per queue and partition (its SWF number and its name). :func:`swf_platform_toml`
turns them into the text of a platform file (``docs/platforms.md``). A header gives
no queue's runtime limit, so each queue's limit is read from the log itself: the
largest requested time (SWF field 9) among the queue's jobs, since a queue's limit
bounds what its jobs may ask for. (On LPC-EGEE it is also what most of each queue's
jobs carry: PBS writes the queue's limit for a job that asks for none. Taking the most
common request instead would be wrong where users give their own: on SDSC-SP2 it would
kill 894 of a 4,096-job window's jobs, against 274 by their own requests.) The text says
where each number came from, so it can be checked and edited before use.
"""

from __future__ import annotations

import os
import re
from collections import Counter, defaultdict

from schedlab.model.formats.swf.reader import read_swf

__all__ = ["swf_platform_toml"]

#: "1   test" or "1 - Normal jobs queue - ...": the number, then a name
_NUMBERED = re.compile(r"^\s*(\d+)\s*(?:-\s*)?(.*)$")


def _named(entries: tuple[tuple[str, str], ...], key: str) -> dict[int, str]:
    """``{number: name}`` of a header's ``Queue:``/``Partition:`` lines (the name's first word, or ``q<N>``)."""
    out: dict[int, str] = {}
    for k, value in entries:
        if k != key:
            continue
        match = _NUMBERED.match(value.splitlines()[0])
        if match is None:
            continue
        words = match.group(2).split()
        out[int(match.group(1))] = words[0] if words else f"{key.lower()}{match.group(1)}"
    return out


def _quote(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else '"' + name.replace('"', '\\"') + '"'


def swf_platform_toml(path: str | os.PathLike[str], *, name: str | None = None) -> str:
    """The text of a platform file for the log at ``path``, read from its header and requested times.

    Nodes: ``MaxNodes`` nodes of ``MaxProcs / MaxNodes`` cores (one node of
    ``MaxProcs`` cores when the header gives no ``MaxNodes``); where that is not a
    whole number, some nodes (type ``wide``) get one core more, so the cores add up to
    ``MaxProcs``. Queues and partitions:
    one per ``Queue:``/``Partition:`` header line, with its SWF number as ``swf_id``.
    A queue's ``max_runtime`` is the largest requested time among its jobs (none if
    its jobs carry none). Partitions get every node: a header does not say which nodes
    each held.

    Raises
    ------
    SWFError
        The header gives no ``MaxProcs`` (and no ``MaxNodes``).
    """
    trace = read_swf(path, nodes_as_procs=True)
    header = trace.header
    procs = trace.machine_procs
    # "MaxNodes: 70  (dual)" is not a bare number: the header reader leaves it out; its leading number is it
    written = _NUMBERED.match(header.fields.get("MaxNodes", ""))
    nodes = header.max_nodes or (int(written.group(1)) if written else 1)
    per_node, wider = divmod(procs, nodes)
    queues = _named(header.entries, "Queue")
    partitions = _named(header.entries, "Partition")
    requested: dict[int, Counter[int | float]] = defaultdict(Counter)
    if queues:
        for record in trace.records():
            if record.requested_time > 0:
                requested[int(record.queue)][record.requested_time] += 1
    label = name or os.path.basename(os.fspath(path)).split(".swf")[0]
    lines = [
        f"# read from the header of {os.path.basename(os.fspath(path))} by schedlab's swf_platform_toml",
        f'name = "{label}"',
    ]
    if wider:  # MaxProcs / MaxNodes is not whole: some nodes get one core more, so the cores add up
        lines += [
            f"# MaxProcs {procs} / MaxNodes {nodes} is not a whole number: {nodes - wider} nodes of "
            f"{per_node} cores and {wider} of {per_node + 1}"
        ]
    lines += ["", "[nodes.node]", f"count = {nodes - wider}", f"cores = {per_node}"]
    if wider:
        lines += ["", "[nodes.wide]", f"count = {wider}", f"cores = {per_node + 1}"]
    for number, partition in sorted(partitions.items()):
        lines += [
            "",
            f"[partitions.{_quote(partition)}]  # every node: the header does not say which",
            f"swf_id = {number}",
        ]
    for number, queue in sorted(queues.items()):
        lines += ["", f"[queues.{_quote(queue)}]", f"swf_id = {number}"]
        counts = requested.get(number)
        if counts:
            limit = max(counts)
            lines.append(
                f"max_runtime = {limit:g}  # the largest requested time of its {sum(counts.values())} "
                f"jobs that give one ({counts[limit]} ask for exactly this)"
            )
    return "\n".join(lines) + "\n"

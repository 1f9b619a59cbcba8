"""The header of an SWF file: the ``; Key: value`` comments before the first job, parsed as :class:`SWFHeader`."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any
from urllib.parse import unquote

from schedlab.model.formats.swf.errors import DropReason, _Problems
from schedlab.model.formats.swf.records import _BadLine, _number

__all__ = ["SWFHeader"]

#: header keys that SWF allows more than once (one line per queue, partition, note)
_REPEATABLE = frozenset({"Note", "Queue", "Partition"})

#: the header keys of SWF version 2.2, so that ``maxprocs:`` in a hand-made file still counts
_KNOWN_KEYS = (
    "Version",
    "Computer",
    "Installation",
    "Acknowledge",
    "Information",
    "Conversion",
    "MaxJobs",
    "MaxRecords",
    "Preemption",
    "UnixStartTime",
    "TimeZone",
    "TimeZoneString",
    "StartTime",
    "EndTime",
    "MaxNodes",
    "MaxProcs",
    "MaxRuntime",
    "MaxMemory",
    "AllowOveruse",
    "MaxQueues",
    "Queues",
    "Queue",
    "MaxPartitions",
    "Partitions",
    "Partition",
    "Note",
    "SchedlabGroups",
    "SchedlabClasses",
)
_CANONICAL = {key.lower(): key for key in _KNOWN_KEYS}

#: header keys whose values :class:`SWFHeader` holds typed, and the attribute of each
_TYPED_KEYS = {
    "Version": "version",
    "Computer": "computer",
    "UnixStartTime": "unix_start_time",
    "MaxJobs": "max_jobs",
    "MaxRecords": "max_records",
    "MaxNodes": "max_nodes",
    "MaxProcs": "max_procs",
}
_LABEL_KEYS = {"SchedlabGroups": "group_labels", "SchedlabClasses": "class_labels"}

#: ``; Key: value``. The lookahead keeps a URL continuing the line above (``http://...``) from
#: reading as a key ``http``.
_HEADER_LINE = re.compile(r";\s*([A-Za-z][A-Za-z0-9_]*)\s*:(?!//)\s*(.*?)\s*$")


# --------------------------------------------------------------------------- header


@dataclass(frozen=True)
class SWFHeader:
    """What an SWF file's header comments say about the machine and the log.

    Parameters
    ----------
    max_procs, max_nodes
        ``MaxProcs`` and ``MaxNodes``: CPUs and nodes of the machine.
    unix_start_time
        ``UnixStartTime``: the wall-clock time (epoch seconds) of time 0 in the log.
    max_jobs, max_records
        ``MaxJobs``, ``MaxRecords``: counts in the *original* log (a cleaned log keeps them,
        so they may exceed the lines in the file).
    version, computer
        ``Version`` and ``Computer``, as written.
    notes
        Every ``; Note:`` in order, with its continuation lines joined by newlines.
    fields
        Every ``; Key: value`` pair, raw; a key given more than once (``Queue``,
        ``Partition``, ``Note``) keeps its first value here.
    entries
        Every pair in file order, repeats included; continuation lines (a comment line
        without a key right under a keyed one) are joined to the value by newlines.
        Not part of equality.
    group_labels, class_labels
        Group and class names schedlab wrote as numbers (``; SchedlabGroups: 0=atlas``),
        by number; empty for other files.

    Notes
    -----
    Missing numbers are ``None`` (a value of ``-1`` is read as missing too).
    """

    max_procs: int | None = None
    max_nodes: int | None = None
    unix_start_time: int | None = None
    max_jobs: int | None = None
    max_records: int | None = None
    version: str | None = None
    computer: str | None = None
    notes: tuple[str, ...] = ()
    fields: Mapping[str, str] = field(default_factory=dict, hash=False)
    entries: tuple[tuple[str, str], ...] = field(default=(), compare=False)
    group_labels: Mapping[int, str] = field(default_factory=dict, hash=False)
    class_labels: Mapping[int, str] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        # Read-only copies: a header read from a file must not change under its trace.
        for name in ("fields", "group_labels", "class_labels"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))

    @property
    def procs_per_node(self) -> int | None:
        """``max_procs // max_nodes`` when both are known (and the header is consistent)."""
        if self.max_procs is None or self.max_nodes is None or self.max_procs < self.max_nodes:
            return None
        return self.max_procs // self.max_nodes


def _header_int(text: str) -> int | None:
    """A count from the header; ``-1`` is missing. Raises ValueError for anything else."""
    try:
        number = _number(text.strip(), 0)
    except _BadLine:
        raise ValueError(text) from None
    if number == -1:
        return None
    if not isinstance(number, int) or number < 0:
        raise ValueError(text)
    return number


def _parse_labels(text: str) -> dict[int, str]:
    """``0=atlas 1=my%20group`` -> ``{0: "atlas", 1: "my group"}``. Raises ValueError."""
    labels = {}
    for item in text.split():
        code, sep, label = item.partition("=")
        if not sep or not label:
            raise ValueError(item)
        labels[int(code)] = unquote(label)
    return labels


def _parse_header(lines: Iterable[tuple[int, str]], problems: _Problems) -> SWFHeader:
    """The header from the comment lines (number, text stripped) before the first data line."""
    entries: list[list[Any]] = []  # [key, value, line], value growing with continuations
    open_entry = False  # a keyless comment line right under a keyed one continues it
    for number, text in lines:
        match = _HEADER_LINE.match(text)
        if match:
            key = _CANONICAL.get(match[1].lower(), match[1])
            entries.append([key, match[2], number])
            open_entry = True
        elif text.strip("; \t"):
            if open_entry:
                entries[-1][1] += "\n" + text[1:].strip()
        else:
            open_entry = False
    fields: dict[str, str] = {}
    first_line: dict[str, int] = {}
    for key, value, number in entries:
        if key not in fields:
            fields[key], first_line[key] = value, number
        elif key not in _REPEATABLE and value != fields[key]:
            problems.add(
                DropReason.CONTRADICTORY_HEADER,
                number,
                key,
                value,
                f"contradicts {fields[key]!r} given on line {first_line[key]}",
            )
    typed: dict[str, Any] = {}
    for key, name in _TYPED_KEYS.items():
        if key not in fields:
            continue
        if name in ("version", "computer"):
            typed[name] = fields[key]
            continue
        try:
            typed[name] = _header_int(fields[key])
            if name in ("max_procs", "max_nodes") and typed[name] == 0:
                raise ValueError(fields[key])
        except ValueError:
            typed[name] = None
            whole = "a whole number > 0" if name in ("max_procs", "max_nodes") else "a whole number >= 0"
            problems.add(DropReason.BAD_HEADER, first_line[key], key, fields[key], f"is not {whole} (or -1)")
    for key, name in _LABEL_KEYS.items():
        if key in fields:
            try:
                typed[name] = _parse_labels(fields[key])
            except ValueError:
                problems.add(
                    DropReason.BAD_HEADER,
                    first_line[key],
                    key,
                    fields[key],
                    "is not a list of number=label pairs",
                )
    procs, nodes = typed.get("max_procs"), typed.get("max_nodes")
    if procs is not None and nodes is not None and procs < nodes:
        later = max(first_line["MaxProcs"], first_line["MaxNodes"])
        problems.add(
            DropReason.CONTRADICTORY_HEADER,
            later,
            "MaxProcs",
            procs,
            f"is less than MaxNodes {nodes}: a node has at least one CPU",
        )
    return SWFHeader(
        notes=tuple(value for key, value, _ in entries if key == "Note"),
        fields=fields,
        entries=tuple((key, value) for key, value, _ in entries),
        **typed,
    )

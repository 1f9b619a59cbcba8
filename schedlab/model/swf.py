"""Standard Workload Format (SWF): read real traces as jobs, and write workloads as SWF.

SWF is the Parallel Workloads Archive's format: ``;`` comment lines with ``Key: value``
pairs describe the machine (the header), then one line per job with 18
whitespace-separated numbers, ``-1`` where a value is missing (see :data:`SWF_FIELDS`).

:func:`read_swf` parses the header at once and streams the rest: :meth:`SWFTrace.records`
and :meth:`SWFTrace.jobs` read the (plain or gzip) file again on each call, one line at a
time, so a million-line log never needs a million objects at once. Every data line ends
up either kept or counted under a reason in :class:`DropReport`; nothing is dropped
silently, and with ``strict=True`` the first bad line raises :class:`SWFError` naming the
file, line, field and value.

:func:`write_swf` writes jobs (or records read from a trace) back as SWF, losslessly for
everything a :class:`~schedlab.model.job.Job` can carry in SWF.
"""

from __future__ import annotations

import gzip
import io
import math
import os
import re
import shutil
import tempfile
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from numbers import Integral
from operator import attrgetter
from types import MappingProxyType
from typing import IO, Any, ClassVar, TextIO
from urllib.parse import quote, unquote

from schedlab.model.job import Job

__all__ = [
    "COMPAT_MODES",
    "FILE_REASONS",
    "SWF_FIELDS",
    "DropReason",
    "DropReport",
    "SWFError",
    "SWFHeader",
    "SWFRecord",
    "SWFTrace",
    "read_swf",
    "to_job",
    "write_swf",
]

#: the 18 SWF fields, in column order (snake_case names of :class:`SWFRecord`)
SWF_FIELDS: tuple[str, ...] = (
    "job_number", "submit_time", "wait_time", "run_time", "allocated_procs", "avg_cpu_time",
    "used_memory", "requested_procs", "requested_time", "requested_memory", "status", "user_id",
    "group_id", "executable", "queue", "partition", "preceding_job", "think_time",
)

#: ways of reading a trace as another tool does; see :func:`read_swf`
COMPAT_MODES: tuple[str, ...] = ("rlscheduler",)

#: RLScheduler's replacement for a negative run time (deep-batch-scheduler job.py)
_RLSCHEDULER_NEGATIVE_RUNTIME = 10

#: integral floats below this are written (and read) as ints without losing a bit
_EXACT_INT = 2**53

#: header keys that SWF allows more than once (one line per queue, partition, note)
_REPEATABLE = frozenset({"Note", "Queue", "Partition"})

#: the header keys of SWF version 2.2, so that ``maxprocs:`` in a hand-made file still counts
_KNOWN_KEYS = (
    "Version", "Computer", "Installation", "Acknowledge", "Information", "Conversion", "MaxJobs",
    "MaxRecords", "Preemption", "UnixStartTime", "TimeZone", "TimeZoneString", "StartTime", "EndTime",
    "MaxNodes", "MaxProcs", "MaxRuntime", "MaxMemory", "AllowOveruse", "MaxQueues", "Queues", "Queue",
    "MaxPartitions", "Partitions", "Partition", "Note", "SchedlabGroups", "SchedlabClasses",
)
_CANONICAL = {key.lower(): key for key in _KNOWN_KEYS}

#: header keys whose values :class:`SWFHeader` holds typed, and the attribute of each
_TYPED_KEYS = {
    "Version": "version", "Computer": "computer", "UnixStartTime": "unix_start_time",
    "MaxJobs": "max_jobs", "MaxRecords": "max_records", "MaxNodes": "max_nodes", "MaxProcs": "max_procs",
}
_LABEL_KEYS = {"SchedlabGroups": "group_labels", "SchedlabClasses": "class_labels"}

#: ``; Key: value``. The lookahead keeps a URL continuing the line above (``http://...``) from
#: reading as a key ``http``.
_HEADER_LINE = re.compile(r";\s*([A-Za-z][A-Za-z0-9_]*)\s*:(?!//)\s*(.*?)\s*$")

_GZIP_MAGIC = b"\x1f\x8b"


class SWFError(ValueError):
    """An SWF file that cannot be read as asked: malformed line, contradictory header...

    Attributes
    ----------
    path
        The file, as given to :func:`read_swf`.
    line
        1-based line number, or ``None`` for a problem of the whole file.
    field
        The SWF field (snake_case name, e.g. ``"run_time"``) or header key (``"MaxProcs"``),
        or ``None``.
    value
        The offending value (the raw text where it did not parse), or ``None``.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        field: str | None = None,
        value: object = None,
    ) -> None:
        super().__init__(message)
        self.path, self.line, self.field, self.value = path, line, field, value


def _error(path: str, line: int | None, field: str | None, value: object, problem: str) -> SWFError:
    """The error with the message ``path:line: field 'name' (column): value problem``."""
    where = f"{path}:{line}" if line is not None else path
    if field in SWF_FIELDS:
        text = f"{where}: field {field!r} ({SWF_FIELDS.index(field) + 1}): {value!r} {problem}"
    elif field is not None:
        text = f"{where}: header {field!r}: {value!r} {problem}"
    else:
        text = f"{where}: {problem}"
    return SWFError(text, path=path, line=line, field=field, value=value)


# --------------------------------------------------------------------------- header


@dataclass(frozen=True)
class SWFHeader:
    """What an SWF file's header comments say about the machine and the log.

    Parameters
    ----------
    max_procs, max_nodes
        ``MaxProcs`` and ``MaxNodes``: processors and nodes of the machine.
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


class _Problems:
    """Where header problems go: raised at once (strict), or counted for the report."""

    def __init__(self, path: str, strict: bool) -> None:
        self.path, self.strict = path, strict
        self.counts: dict[str, int] = {}
        self.examples: dict[str, list[int]] = {}
        self.notes: list[str] = []

    def add(self, reason: DropReason, line: int | None, key: str | None, value: object, problem: str) -> None:
        error = _error(self.path, line, key, value, problem)
        if self.strict:
            raise error
        self.counts[reason] = self.counts.get(reason, 0) + 1
        if line is not None and len(lines := self.examples.setdefault(reason, [])) < DropReport.EXAMPLES:
            lines.append(line)
        self.notes.append(str(error))


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
                DropReason.CONTRADICTORY_HEADER, number, key, value,
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
                    DropReason.BAD_HEADER, first_line[key], key, fields[key],
                    "is not a list of number=label pairs",
                )
    procs, nodes = typed.get("max_procs"), typed.get("max_nodes")
    if procs is not None and nodes is not None and procs < nodes:
        later = max(first_line["MaxProcs"], first_line["MaxNodes"])
        problems.add(
            DropReason.CONTRADICTORY_HEADER, later, "MaxProcs", procs,
            f"is less than MaxNodes {nodes}: a node has at least one processor",
        )
    return SWFHeader(
        notes=tuple(value for key, value, _ in entries if key == "Note"),
        fields=fields,
        entries=tuple((key, value) for key, value, _ in entries),
        **typed,
    )


# --------------------------------------------------------------------------- records


@dataclass(frozen=True, slots=True)
class SWFRecord:
    """One data line of an SWF file: the 18 fields in column order.

    Values are ints where integral, floats otherwise; ``-1`` means missing. ``line`` is
    the line's number in its file (not part of equality, so records read from two files
    compare by content). Units as in SWF: seconds, kilobytes per processor.
    """

    job_number: int
    submit_time: int | float
    wait_time: int | float
    run_time: int | float
    allocated_procs: int | float
    avg_cpu_time: int | float
    used_memory: int | float
    requested_procs: int | float
    requested_time: int | float
    requested_memory: int | float
    status: int | float
    user_id: int | float
    group_id: int | float
    executable: int | float
    queue: int | float
    partition: int | float
    preceding_job: int | float
    think_time: int | float
    line: int = field(default=0, compare=False)


_RECORD_VALUES = attrgetter(*SWF_FIELDS)


class _BadLine(Exception):
    """A data line that does not parse: why, which field (index), and the raw value."""

    def __init__(self, reason: DropReason, index: int | None, value: str, problem: str) -> None:
        super().__init__(problem)
        self.reason, self.index, self.value, self.problem = reason, index, value, problem


def _number(token: str, index: int) -> int | float:
    # Only plain ASCII numbers: int() and float() would also take "1_000", "nan" or Arabic
    # digits, none of which is SWF.
    if token.isascii() and "_" not in token:
        try:
            return int(token)
        except ValueError:
            try:
                value = float(token)
            except ValueError:
                pass
            else:
                if math.isfinite(value):
                    return int(value) if value.is_integer() and abs(value) < _EXACT_INT else value
    raise _BadLine(DropReason.NON_NUMERIC, index, token, "is not a number")


def _parse_values(text: str) -> list[int | float]:
    """The 18 numbers of a data line. Raises _BadLine."""
    tokens = text.split()
    if len(tokens) != len(SWF_FIELDS):
        raise _BadLine(
            DropReason.FIELD_COUNT, None, text, f"expected {len(SWF_FIELDS)} fields, found {len(tokens)}"
        )
    if text.isascii() and "_" not in text:
        try:  # the common case, all integers, at C speed
            return list(map(int, tokens))
        except ValueError:
            pass
    return [_number(token, i) for i, token in enumerate(tokens)]


def _procs_and_runtime(record: SWFRecord, compat: str | None) -> tuple[int | float, int | float]:
    """The processors and run time a job gets from ``record``, as the compat mode reads them."""
    alloc, requested, run = record.allocated_procs, record.requested_procs, record.run_time
    if compat == "rlscheduler":
        return max(alloc, requested), (_RLSCHEDULER_NEGATIVE_RUNTIME if run < 0 else run)
    return (requested if alloc == -1 else alloc), run


def _label(code: int | float, labels: Mapping[int, str]) -> str:
    if code == -1:
        return ""
    return labels.get(code, str(code)) if labels else str(code)  # type: ignore[call-overload]


def _job(
    record: SWFRecord,
    procs: int | float,
    run: int | float,
    compat: str | None,
    group_labels: Mapping[int, str],
    class_labels: Mapping[int, str],
) -> Job:
    requested = record.requested_time
    if requested > 0:
        estimate: float | None = float(requested)
    elif compat == "rlscheduler":
        estimate = float(run)  # RLScheduler fills a missing requested time with the run time
    else:
        estimate = None
    job = Job(
        id=record.job_number,
        submit=float(record.submit_time),
        runtime=float(run),
        cpus=int(procs),
        estimate=estimate,
        job_class=_label(record.queue, class_labels),
        group=_label(record.group_id, group_labels),
    )
    memory = record.requested_memory
    if memory > 0:  # rare in real logs: only these jobs pay for a demands mapping
        return replace(job, demands={"memory": float(memory)})
    return job


def to_job(
    record: SWFRecord,
    *,
    compat: str | None = None,
    group_labels: Mapping[int, str] | None = None,
    class_labels: Mapping[int, str] | None = None,
) -> Job:
    """The :class:`~schedlab.model.job.Job` of one SWF record.

    ``id`` = job number, ``submit`` = submit time, ``runtime`` = run time, ``cpus`` =
    allocated processors (requested ones where allocated is missing), ``estimate`` =
    requested time if > 0, ``group`` and ``job_class`` = group and queue numbers as
    text (``""`` where missing, or the label in ``group_labels``/``class_labels``),
    ``demands["memory"]`` = requested memory if > 0. Times become floats.

    Raises
    ------
    JobError
        The record cannot be a job (run time <= 0, no processors, negative submit time).
    """
    _check_compat(compat)
    procs, run = _procs_and_runtime(record, compat)
    return _job(record, procs, run, compat, group_labels or {}, class_labels or {})


# --------------------------------------------------------------------------- report


class DropReason(StrEnum):
    """Why a data line did not become a record or job (and the problems of a whole file).

    The members are strings, so ``report.counts["run time <= 0"]`` works.
    """

    FIELD_COUNT = "wrong number of fields"
    NON_NUMERIC = "non-numeric field"
    RUN_TIME = "run time <= 0"
    PROCS = "processors <= 0"
    FRACTIONAL_PROCS = "fractional processors"
    SUBMIT = "submit time < 0"
    TOO_WIDE = "wider than the machine"
    STATUS = "status filtered"
    TIME_WINDOW = "outside time window"
    INDEX = "outside index range"
    #: file-level (not data lines): the same header key with two values, or MaxProcs < MaxNodes
    CONTRADICTORY_HEADER = "contradictory header"
    #: file-level: a header value that does not parse (``MaxProcs: many``)
    BAD_HEADER = "bad header value"
    #: file-level: the file has no data lines at all ("no jobs")
    EMPTY = "empty"


#: reasons that count problems of the file, not dropped data lines
FILE_REASONS = frozenset({DropReason.CONTRADICTORY_HEADER, DropReason.BAD_HEADER, DropReason.EMPTY})


@dataclass
class DropReport:
    """What happened to the data lines of one pass over a trace.

    Every data line read is either kept or counted under exactly one reason, so
    ``read == kept + total_dropped``. File-level problems (contradictory or unparsable
    header, empty file) are counted in ``counts`` too, but not in ``total_dropped``.

    Attributes
    ----------
    source
        The file.
    counts
        Reason -> number of lines (or header problems).
    examples
        Reason -> the first :attr:`EXAMPLES` line numbers.
    read
        Data lines read (comments and blank lines are not data lines).
    kept
        Records or jobs handed out.
    finished
        Whether the pass reached the end of the file; ``False`` while iterating, when
        the consumer stopped early, or when ``index`` let the reader stop.
    notes
        File-level messages: header problems, an empty file, checks that could not run.
    """

    #: line numbers kept as examples per reason
    EXAMPLES: ClassVar[int] = 5

    source: str = ""
    counts: dict[str, int] = field(default_factory=dict)
    examples: dict[str, list[int]] = field(default_factory=dict)
    read: int = 0
    kept: int = 0
    finished: bool = False
    notes: list[str] = field(default_factory=list)

    def drop(self, reason: str, line: int | None) -> None:
        """Count one line dropped for ``reason``, remembering the first few line numbers."""
        self.counts[reason] = self.counts.get(reason, 0) + 1
        if line is not None and len(lines := self.examples.setdefault(reason, [])) < self.EXAMPLES:
            lines.append(line)

    @property
    def total_dropped(self) -> int:
        """Data lines dropped, all reasons together (file-level problems excluded)."""
        return sum(n for reason, n in self.counts.items() if reason not in FILE_REASONS)

    def __str__(self) -> str:
        head = f"{self.source or 'SWF'}: read {self.read} data lines, kept {self.kept}, dropped {self.total_dropped}"
        lines = [head if self.finished else head + " (the file was not read to the end)"]
        for reason, n in self.counts.items():
            at = self.examples.get(reason)
            more = ", ..." if at and n > len(at) else ""
            where = f" (line{'s' if len(at) > 1 else ''} {', '.join(map(str, at))}{more})" if at else ""
            lines.append(f"  {reason}: {n}{where}")
        lines.extend(f"  note: {note}" for note in self.notes)
        return "\n".join(lines)


# --------------------------------------------------------------------------- reading


def _open_text(path: str | os.PathLike[str]) -> TextIO:
    """The file as text, gunzipped if it starts with the gzip magic bytes (whatever its name)."""
    with open(path, "rb") as probe:
        magic = probe.read(2)
    # utf-8-sig drops a byte-order mark; "replace" turns stray bytes into a character that
    # then fails as a number, so a corrupt line is a bad line, never a UnicodeDecodeError.
    if magic == _GZIP_MAGIC:
        return gzip.open(path, "rt", encoding="utf-8-sig", errors="replace")
    return open(path, encoding="utf-8-sig", errors="replace")  # the caller closes it


#: what a truncated or corrupt gzip stream raises while being read
_STREAM_ERRORS = (OSError, EOFError, zlib.error)


def _check_compat(compat: str | None) -> None:
    if compat is not None and compat not in COMPAT_MODES:
        raise ValueError(f"compat must be None or one of {', '.join(map(repr, COMPAT_MODES))}, got {compat!r}")


class SWFTrace:
    """A parsed header and a way to stream an SWF file's records and jobs; see :func:`read_swf`.

    Iterating over a trace gives its jobs, so a trace is a workload.

    Attributes
    ----------
    path
        The file, as given.
    header
        The :class:`SWFHeader`, parsed when the trace was opened.
    report
        The :class:`DropReport` of the latest pass (:meth:`records`, :meth:`jobs` or
        :meth:`load`), filled as that pass proceeds.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        header: SWFHeader,
        problems: _Problems,
        *,
        strict: bool,
        clean: bool,
        statuses: frozenset[int | float] | None,
        start_time: float | None,
        end_time: float | None,
        index: tuple[int, int | None] | None,
        compat: str | None,
        machine_procs: int | None,
    ) -> None:
        self.path = path
        self.header = header
        self._problems = problems
        self._strict, self._clean, self._compat = strict, clean, compat
        self._statuses, self._start, self._end, self._index = statuses, start_time, end_time, index
        self._machine_procs = machine_procs
        self._width = machine_procs or self._header_procs()
        self.report = self._new_report()

    def _header_procs(self) -> int | None:
        procs = self.header.max_procs
        if procs is None and self._compat == "rlscheduler":
            procs = self.header.max_nodes  # RLScheduler: no MaxProcs means a processor per node
        return procs

    @property
    def machine_procs(self) -> int:
        """Processors of the machine: ``machine_procs=`` if given, else the header's MaxProcs.

        Raises
        ------
        SWFError
            Neither is known.
        """
        if self._width is not None:
            return self._width
        nodes = self.header.max_nodes
        problem = "the header gives no MaxProcs: pass machine_procs= to read_swf"
        if nodes:
            problem = (f"the header gives no MaxProcs, only MaxNodes: {nodes}: pass machine_procs= to read_swf "
                       f"(machine_procs={nodes} if each node has one processor)")
        raise _error(os.fspath(self.path), None, None, None, problem)

    def _new_report(self) -> DropReport:
        problems = self._problems
        report = DropReport(
            source=os.fspath(self.path),
            counts=dict(problems.counts),
            examples={reason: list(lines) for reason, lines in problems.examples.items()},
            notes=list(problems.notes),
        )
        if self._clean and self._width is None:
            report.notes.append(
                "no machine size (no MaxProcs in the header, no machine_procs=): job widths were not checked"
            )
        return report

    def records(self) -> Iterator[SWFRecord]:
        """The records that pass cleaning and filters, in file order, read lazily.

        Records are as written in the file (a compat mode changes only the jobs made
        from them), so they can be written back with ``write_swf(records=...)``. With
        ``clean=False`` records that could not be jobs are kept too.
        """
        self.report = report = self._new_report()
        return (record for record, _ in self._scan(report, make_jobs=False))

    def jobs(self) -> Iterator[Job]:
        """The jobs of the records that pass cleaning and filters, read lazily.

        With ``clean=False`` a record that cannot be a job (run time <= 0, no
        processors, negative submit time) is still dropped, and counted.
        """
        self.report = report = self._new_report()
        return (job for _, job in self._scan(report, make_jobs=True))  # type: ignore[misc]

    def pairs(self) -> Iterator[tuple[SWFRecord, Job]]:
        """Each kept record with its job, as :meth:`jobs` keeps them (for the fields a Job lacks, e.g. wait)."""
        self.report = report = self._new_report()
        return self._scan(report, make_jobs=True)  # type: ignore[return-value]

    def load(self) -> list[Job]:
        """All the jobs at once: ``list(trace.jobs())``."""
        return list(self.jobs())

    def __iter__(self) -> Iterator[Job]:
        return self.jobs()

    def __repr__(self) -> str:
        return f"SWFTrace({os.fspath(self.path)!r}, max_procs={self.header.max_procs})"

    def _scan(self, report: DropReport, *, make_jobs: bool) -> Iterator[tuple[SWFRecord, Job | None]]:
        path, strict, clean, compat = os.fspath(self.path), self._strict, self._clean, self._compat
        statuses, start, end = self._statuses, self._start, self._end
        lo, hi = self._index if self._index is not None else (0, None)
        width = self._width if clean else None
        # A job wider than the header's machine contradicts the file (an error under strict);
        # wider than a machine_procs= the user chose is just a filter.
        width_is_error = strict and self._machine_procs is None
        check_job = clean or make_jobs
        groups, classes = self.header.group_labels, self.header.class_labels
        drop = report.drop
        passed = 0  # records past every check but the index range: the position of the next one
        if hi is not None and hi <= lo:
            report.finished = True
            return
        number = 0
        stream = _open_text(self.path)
        try:
            with stream:
                for number, raw in enumerate(stream, 1):
                    text = raw.strip()
                    if not text or text[0] == ";":
                        continue  # comments are tolerated anywhere; only those before the data are the header
                    report.read += 1
                    try:
                        values = _parse_values(text)
                    except _BadLine as bad:
                        if strict:
                            name = SWF_FIELDS[bad.index] if bad.index is not None else None
                            raise _error(path, number, name, bad.value, bad.problem) from None
                        drop(bad.reason, number)
                        continue
                    record = SWFRecord(*values, line=number)
                    procs, run = _procs_and_runtime(record, compat)
                    if check_job:
                        if run <= 0:
                            drop(DropReason.RUN_TIME, number)
                            continue
                        if procs <= 0:
                            drop(DropReason.PROCS, number)
                            continue
                        if procs != int(procs):
                            drop(DropReason.FRACTIONAL_PROCS, number)
                            continue
                        if record.submit_time < 0:
                            drop(DropReason.SUBMIT, number)
                            continue
                    if width is not None and procs > width:
                        if width_is_error:
                            name = "requested_procs" if record.allocated_procs == -1 else "allocated_procs"
                            raise _error(
                                path, number, name, procs,
                                f"processors: job {record.job_number} is wider than the machine (MaxProcs {width})",
                            )
                        drop(DropReason.TOO_WIDE, number)
                        continue
                    if statuses is not None and record.status not in statuses:
                        drop(DropReason.STATUS, number)
                        continue
                    submit = record.submit_time
                    if (start is not None and submit < start) or (end is not None and submit >= end):
                        drop(DropReason.TIME_WINDOW, number)
                        continue
                    if passed < lo:
                        passed += 1
                        drop(DropReason.INDEX, number)
                        continue
                    passed += 1
                    job = _job(record, procs, run, compat, groups, classes) if make_jobs else None
                    report.kept += 1
                    yield record, job
                    if hi is not None and passed >= hi:
                        return  # the range is done: the rest of the file need not be read
        except _STREAM_ERRORS as exc:
            raise _error(path, number + 1, None, None, f"cannot be read further: {exc}") from exc
        report.finished = True


def read_swf(
    path: str | os.PathLike[str],
    *,
    strict: bool = False,
    clean: bool = True,
    statuses: Iterable[int] | int | None = None,
    start_time: float | None = None,
    end_time: float | None = None,
    index: tuple[int, int | None] | None = None,
    compat: str | None = None,
    machine_procs: int | None = None,
) -> SWFTrace:
    """Open an SWF file (plain or gzip): parse its header now, stream its jobs later.

    Parameters
    ----------
    path
        The file. Gzip is recognised by its first bytes, whatever the name.
    strict
        Raise :class:`SWFError` (naming file, line, field and value) at the first
        malformed line, contradictory or unparsable header, job wider than the header's
        MaxProcs, or empty file. Otherwise such lines are skipped and counted in
        :attr:`SWFTrace.report`. Cleaning drops are never errors.
    clean
        Drop (and count) records with run time <= 0, processors <= 0 (allocated, or
        requested where allocated is missing), fractional processors or a negative
        submit time, and jobs wider than the machine (when its size is known). With
        ``clean=False`` :meth:`SWFTrace.records` keeps them all; :meth:`SWFTrace.jobs`
        still drops, and counts, those that cannot be jobs.
    statuses
        Keep only records with these status codes (1 completed, 0 failed, 5 cancelled).
    start_time, end_time
        Keep only records submitted in ``[start_time, end_time)`` (seconds, log time).
    index
        ``(lo, hi)``: keep only positions ``lo <= i < hi`` (0-based; ``hi`` may be
        ``None``) of the sequence left after cleaning and every other filter, so
        positions count kept jobs only. Reading stops after position ``hi - 1``.
    compat
        ``"rlscheduler"`` reads as RLScheduler's loader (DIR-LAB/deep-batch-scheduler
        ``job.py``): processors = max(allocated, requested), a missing requested time
        is the run time, a negative run time becomes 10, run time 0 is dropped (and
        counted), and a header without MaxProcs means one processor per node.
    machine_procs
        Processors of the machine, instead of the header's MaxProcs.

    Returns
    -------
    SWFTrace
        The header, and :meth:`~SWFTrace.records`, :meth:`~SWFTrace.jobs`,
        :meth:`~SWFTrace.load` to read the data.

    Raises
    ------
    SWFError
        Under ``strict``, for a bad header or an empty file (bad lines raise while
        iterating); in any mode, for a gzip stream that is corrupt.
    ValueError
        An impossible argument (unknown ``compat``, ``end_time < start_time``...).
    """
    _check_compat(compat)
    if machine_procs is not None and not (isinstance(machine_procs, Integral) and machine_procs >= 1):
        raise ValueError(f"machine_procs must be a whole number >= 1, got {machine_procs!r}")
    if start_time is not None and end_time is not None and end_time < start_time:
        raise ValueError(f"end_time {end_time!r} is before start_time {start_time!r}")
    if index is not None:
        lo, hi = index
        if not (isinstance(lo, Integral) and lo >= 0 and (hi is None or (isinstance(hi, Integral) and hi >= lo))):
            raise ValueError(f"index must be (lo, hi) with 0 <= lo <= hi (hi may be None), got {index!r}")
    kept_statuses = None
    if statuses is not None:
        kept_statuses = frozenset([statuses] if isinstance(statuses, int | float) else statuses)
    name = os.fspath(path)
    problems = _Problems(name, strict)
    comments: list[tuple[int, str]] = []
    has_data = False
    try:
        with _open_text(path) as stream:
            for number, raw in enumerate(stream, 1):
                text = raw.strip()
                if text.startswith(";"):
                    comments.append((number, text))
                elif text:
                    has_data = True
                    break
    except _STREAM_ERRORS as exc:
        if isinstance(exc, FileNotFoundError | IsADirectoryError | PermissionError):
            raise
        raise _error(name, None, None, None, f"cannot be read: {exc}") from exc
    header = _parse_header(comments, problems)
    if not has_data:
        problems.add(DropReason.EMPTY, None, None, None, "no jobs: the file has no data lines")
    return SWFTrace(
        path, header, problems, strict=strict, clean=clean, statuses=kept_statuses,
        start_time=start_time, end_time=end_time, index=index, compat=compat,
        machine_procs=None if machine_procs is None else int(machine_procs),
    )


# --------------------------------------------------------------------------- writing


def _format(value: object) -> str:
    """An SWF number: ints as ints, integral floats as ints, other floats by ``repr``."""
    if isinstance(value, Integral):
        return str(int(value))
    number = float(value)  # type: ignore[arg-type]
    if not math.isfinite(number):
        raise ValueError(f"SWF numbers must be finite, got {value!r}")
    if number.is_integer() and abs(number) < _EXACT_INT:
        return str(int(number))
    return repr(number)  # the shortest text that reads back as the same float


def _is_code(label: str) -> bool:
    """Whether a label can be written as itself: a canonical whole number >= 0 (``"3"``, not ``"03"``)."""
    return label.isascii() and label.isdigit() and str(int(label)) == label


def _label_codes(labels: Iterable[str]) -> dict[str, int] | None:
    """Numbers for labels, or ``None`` if every label is already a number to write as is."""
    distinct = sorted({label for label in labels if label})
    if all(_is_code(label) for label in distinct):
        return None
    return {label: code for code, label in enumerate(distinct)}


def _code(label: str, codes: dict[str, int] | None) -> int:
    if not label:
        return -1
    return int(label) if codes is None else codes[label]


def _codes_text(codes: Mapping[str, int]) -> str:
    return " ".join(f"{code}={quote(label, safe='')}" for label, code in codes.items())


def _job_line(job: Job, groups: dict[str, int] | None, classes: dict[str, int] | None) -> str:
    if not isinstance(job.id, Integral):
        raise ValueError(f"job {job.id!r}: SWF job numbers are whole numbers")
    memory = job.demands.get("memory", 0)
    values = (
        job.id, job.submit, -1, job.runtime, job.cpus, -1, -1, job.cpus,
        -1 if job.estimate is None else job.estimate, memory if memory > 0 else -1, -1, -1,
        _code(job.group, groups), -1, _code(job.job_class, classes), -1, -1, -1,
    )
    return " ".join(map(_format, values)) + "\n"


def _header_pairs(header: SWFHeader | Mapping[str, object] | None) -> list[tuple[str, str]]:
    """The (key, value) lines a header asks for, repeats included."""
    if header is None:
        return []
    if isinstance(header, SWFHeader):
        pairs = [
            (key, str(getattr(header, name)))
            for key, name in _TYPED_KEYS.items()
            if getattr(header, name) is not None
        ]
        pairs += [(key, _codes_text({v: k for k, v in getattr(header, name).items()}))
                  for key, name in _LABEL_KEYS.items() if getattr(header, name)]
        rest = header.entries or tuple(header.fields.items())
        skip = {*_TYPED_KEYS, *_LABEL_KEYS, "Note"}
        pairs += [(key, value) for key, value in rest if key not in skip]
        pairs += [("Note", note) for note in header.notes]
        return pairs
    pairs = []
    for key, value in header.items():
        values = value if isinstance(value, list | tuple) else [value]
        pairs += [(key, _format(v) if isinstance(v, int | float) else str(v)) for v in values]
    return pairs


def _header_text(pairs: Sequence[tuple[str, str]]) -> str:
    lines = []
    for key, value in pairs:
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", key):
            raise ValueError(f"SWF header keys are words of letters, digits and _, got {key!r}")
        first, *more = [part.strip() for part in str(value).splitlines()] or [""]
        lines.append(f"; {key}: {first}".rstrip())
        # PWA style: a value's further lines are comments indented under it, which the reader joins back
        lines.extend(f";       {part}" for part in more if part)
    return "".join(line + "\n" for line in lines)


def _complete_header(
    pairs: list[tuple[str, str]], count: int, max_procs: int | None, drop_labels: bool
) -> list[tuple[str, str]]:
    """Version and Computer first, the given pairs, then the counts the header lacks."""
    keys = {key for key, _ in pairs}
    if drop_labels:
        pairs = [(key, value) for key, value in pairs if key not in _LABEL_KEYS]
    top = [(key, value) for key, value in pairs if key in ("Version", "Computer")]
    top = ([] if "Version" in keys else [("Version", "2.2")]) + top
    top += [] if "Computer" in keys else [("Computer", "schedlab")]
    rest = [pair for pair in pairs if pair[0] not in ("Version", "Computer")]
    for key, value in (("MaxJobs", count), ("MaxRecords", count), ("MaxProcs", max_procs)):
        if key not in keys and value is not None:
            rest.append((key, str(value)))
    return top + rest


def _open_output(path: str | os.PathLike[str]) -> IO[str]:
    if os.fspath(path).endswith(".gz"):
        # mtime=0: the same jobs give the same bytes, so outputs can be compared and cached
        raw = open(path, "wb")  # noqa: SIM115 - closed with the wrapper
        packed = gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0)
        text = io.TextIOWrapper(packed, encoding="utf-8", newline="\n")
        text._schedlab_raw = raw  # type: ignore[attr-defined]
        return text
    return open(path, "w", encoding="utf-8", newline="\n")  # the caller closes it


def _close_output(stream: IO[str]) -> None:
    stream.close()
    raw = getattr(stream, "_schedlab_raw", None)
    if raw is not None:
        raw.close()  # GzipFile does not close a fileobj it was given


def write_swf(
    path: str | os.PathLike[str],
    jobs: Iterable[Job] | None = None,
    *,
    header: SWFHeader | Mapping[str, object] | None = None,
    records: Iterable[SWFRecord] | None = None,
) -> int:
    """Write jobs (or SWF records) as an SWF file, gzip-compressed if ``path`` ends in ``.gz``.

    Parameters
    ----------
    path
        The file to write (replaced if it exists).
    jobs
        The jobs, one line each: job number = ``id``, submit, run time = ``runtime``,
        allocated and requested processors = ``cpus``, requested time = ``estimate``,
        requested memory = ``demands["memory"]``, group = ``group``, queue =
        ``job_class``; -1 for the rest. ``weight``, ``utility``, ``origin`` and other
        demands have no SWF field and are not written.
    header
        Header comments: an :class:`SWFHeader` (e.g. a trace's, to re-save it), or a
        mapping key -> value (a list of values for a repeated key such as ``Note``).
        ``Version: 2.2``, ``Computer: schedlab``, ``MaxJobs``, ``MaxRecords`` and
        ``MaxProcs`` (the widest job) are added where missing.
    records
        Instead of ``jobs``: SWF records, written back field for field (so a trace can
        be filtered and saved), streamed through a temporary file.

    Returns
    -------
    int
        The data lines written.

    Notes
    -----
    Standard SWF fields are integers. schedlab writes integral values as integers and
    other times as decimals (``repr``, the shortest text that reads back as the same
    float), so :func:`read_swf` gives back the same floats bit for bit; tools that
    expect integers may not read them. Group and class labels that are not whole numbers
    (``"atlas"``, ``"interactive"``) are written as numbers 0, 1, ... in label order,
    with the labels in the header (``; SchedlabGroups: 0=atlas 1=biomed``,
    ``; SchedlabClasses: 0=batch 1=interactive``) so that :func:`read_swf` restores
    them. A memory demand of 0 reads back as no memory demand.

    Raises
    ------
    ValueError
        Both or neither of ``jobs`` and ``records``; a job wider than the given MaxProcs;
        a non-numeric job id or header key that SWF cannot hold.
    """
    if (jobs is None) == (records is None):
        raise ValueError("give either jobs or records to write_swf, not both or neither")
    pairs = _header_pairs(header)
    given = dict(pairs)  # first value of each key, as the reader takes it
    if records is not None:
        return _write_records(path, records, pairs, given)
    job_list = list(jobs)  # type: ignore[arg-type]  # labels and MaxProcs need every job first
    widest = max((job.cpus for job in job_list), default=None)
    if "MaxProcs" in given:
        try:
            max_procs = _header_int(given["MaxProcs"])
        except ValueError:
            raise ValueError(f"header MaxProcs must be a whole number, got {given['MaxProcs']!r}") from None
        if max_procs is not None and widest is not None and widest > max_procs:
            job = next(job for job in job_list if job.cpus == widest)
            raise ValueError(f"job {job.id} needs {widest} CPUs, more than the header's MaxProcs {max_procs}")
    elif widest is not None and "MaxNodes" in given:
        widest = max(widest, _header_int(given["MaxNodes"]) or 0)  # MaxProcs < MaxNodes would contradict
    groups = _label_codes(job.group for job in job_list)
    classes = _label_codes(job.job_class for job in job_list)
    pairs = _complete_header(pairs, len(job_list), widest, drop_labels=True)
    if groups is not None:
        pairs.append(("SchedlabGroups", _codes_text(groups)))
    if classes is not None:
        pairs.append(("SchedlabClasses", _codes_text(classes)))
    lines = [_job_line(job, groups, classes) for job in job_list]  # errors before the file is touched
    stream = _open_output(path)
    try:
        stream.write(_header_text(pairs))
        stream.writelines(lines)
    finally:
        _close_output(stream)
    return len(lines)


def _write_records(
    path: str | os.PathLike[str],
    records: Iterable[SWFRecord],
    pairs: list[tuple[str, str]],
    given: dict[str, str],
) -> int:
    count, widest = 0, None
    # The header's counts come before the lines: spool the lines (to disk past a few MB)
    with tempfile.SpooledTemporaryFile(max_size=8 << 20, mode="w+", encoding="utf-8", newline="\n") as spool:
        for record in records:
            values = _RECORD_VALUES(record)
            spool.write(" ".join(map(_format, values)) + "\n")
            count += 1
            procs = max(record.allocated_procs, record.requested_procs)
            if procs > 0 and (widest is None or procs > widest):
                widest = procs
        pairs = _complete_header(pairs, count, None if widest is None else math.ceil(widest), drop_labels=False)
        spool.seek(0)
        stream = _open_output(path)
        try:
            stream.write(_header_text(pairs))
            shutil.copyfileobj(spool, stream)
        finally:
            _close_output(stream)
    return count

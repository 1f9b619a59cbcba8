"""What goes wrong reading SWF: :class:`SWFError`, and lines dropped by :class:`DropReason` in a :class:`DropReport`."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import ClassVar

from schedlab.model.formats.swf.fields import SWF_FIELDS

__all__ = ["FILE_REASONS", "DropReason", "DropReport", "SWFError"]


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


# --------------------------------------------------------------------------- report


class DropReason(StrEnum):
    """Why a data line did not become a record or job (and the problems of a whole file).

    The members are strings, so ``report.counts["run time <= 0"]`` works.
    """

    FIELD_COUNT = "wrong number of fields"
    NON_NUMERIC = "non-numeric field"
    #: fields separated by whitespace other than space and tab (NBSP, U+3000, U+2028, U+001C-1F, \v, \f):
    #: ``str.split`` would read them as spaces, and the strict reader refuses them
    SEPARATOR = "separator other than space or tab"
    #: a number too large for any SWF quantity (|value| >= 2**63): it would overflow floats and arrays
    OUT_OF_RANGE = "number out of range"
    RUN_TIME = "run time <= 0"
    PROCS = "processors <= 0"
    FRACTIONAL_PROCS = "fractional CPUs"
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

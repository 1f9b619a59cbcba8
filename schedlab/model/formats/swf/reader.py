"""Reading an SWF file (plain or gzip): :func:`read_swf` parses the header, :class:`SWFLog` streams the jobs."""

from __future__ import annotations

import gzip
import os
import re
import zlib
from collections.abc import Iterable, Iterator
from numbers import Integral
from typing import TextIO

from schedlab.model.core.job import Job
from schedlab.model.formats.swf.errors import DropReason, DropReport, _error, _Problems
from schedlab.model.formats.swf.fields import SWF_FIELDS
from schedlab.model.formats.swf.header import SWFHeader, _parse_header
from schedlab.model.formats.swf.records import (
    SWFRecord,
    _BadLine,
    _check_compat,
    _job,
    _parse_values,
    _procs_and_runtime,
)

#: whitespace str.split() takes that SWF does not (NBSP, U+3000, U+2028, \x1c-\x1f, \v, \f): refused when strict
_ODD_SPACE = re.compile(r"[^\S \t]")

__all__ = ["SWFLog", "read_swf"]

_GZIP_MAGIC = b"\x1f\x8b"


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


class SWFLog:
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
            procs = self.header.max_nodes  # RLScheduler: no MaxProcs means a CPU per node
        return procs

    @property
    def machine_procs(self) -> int:
        """CPUs of the machine: ``machine_procs=`` if given, else the header's MaxProcs.

        Raises
        ------
        SWFError
            Neither is known.
        """
        if self._width is not None:
            return self._width
        nodes = self.header.max_nodes
        # said for both readers of the message: the API's caller and the replay command's user
        how = "give the machine's CPU count (machine_procs= to read_swf; schedlab replay --cpus N)"
        problem = f"the header gives no MaxProcs: {how}"
        if nodes:
            problem = (
                f"the header gives no MaxProcs, only MaxNodes: {nodes}: {how}; machine_procs={nodes} "
                f"(--cpus {nodes}) if each node has one CPU"
            )
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
        CPUs, negative submit time) is still dropped, and counted.
        """
        self.report = report = self._new_report()
        return (job for _, job in self._scan(report, make_jobs=True))  # type: ignore[misc]  # make_jobs=True: every job is made

    def pairs(self) -> Iterator[tuple[SWFRecord, Job]]:
        """Each kept record with its job, as :meth:`jobs` keeps them (for the fields a Job lacks, e.g. wait)."""
        self.report = report = self._new_report()
        return self._scan(report, make_jobs=True)  # type: ignore[return-value]  # make_jobs=True: every job is made

    def load(self) -> list[Job]:
        """All the jobs at once: ``list(trace.jobs())``."""
        return list(self.jobs())

    def __iter__(self) -> Iterator[Job]:
        return self.jobs()

    def __repr__(self) -> str:
        return f"SWFLog({os.fspath(self.path)!r}, max_procs={self.header.max_procs})"

    def _scan(self, report: DropReport, *, make_jobs: bool) -> Iterator[tuple[SWFRecord, Job | None]]:
        """Each record that passes every check, with its job (``make_jobs``); every other line counted."""
        lo, hi = self._index if self._index is not None else (0, None)
        if hi is not None and hi <= lo:
            report.finished = True
            return
        groups, classes = self.header.group_labels, self.header.class_labels
        passed = 0  # records past every check but the index range: the position of the next one
        for number, text in self._data_lines(report):
            record = self._record(text, number, report)
            if record is None:
                continue
            procs, run = _procs_and_runtime(record, self._compat)
            reason = self._drop_reason(record, procs, run, number, check_job=self._clean or make_jobs)
            if reason is None and passed < lo:
                passed += 1
                reason = DropReason.INDEX
            if reason is not None:
                report.drop(reason, number)
                continue
            passed += 1
            report.kept += 1
            yield record, (_job(record, procs, run, self._compat, groups, classes) if make_jobs else None)
            if hi is not None and passed >= hi:
                return  # the range is done: the rest of the file need not be read
        report.finished = True

    def _data_lines(self, report: DropReport) -> Iterator[tuple[int, str]]:
        """(line number, stripped text) of each data line, counted as read; comments are skipped anywhere."""
        path, number = os.fspath(self.path), 0
        try:
            with _open_text(self.path) as stream:
                for number, raw in enumerate(stream, 1):
                    text = raw.strip()
                    if text and text[0] != ";":  # only comments before the data are the header
                        report.read += 1
                        yield number, text
        except _STREAM_ERRORS as exc:
            raise _error(path, number + 1, None, None, f"cannot be read further: {exc}") from exc

    def _record(self, text: str, number: int, report: DropReport) -> SWFRecord | None:
        """The line's record; None for a malformed line (counted), or SWFError under strict."""
        path = os.fspath(self.path)
        # isprintable() is False for every whitespace but the space: the regex runs on few lines
        if not text.isprintable() and (odd := _ODD_SPACE.search(text)):
            # str.split() would take it as a space: the lenient reader must not read what strict refuses
            if self._strict:
                raise _error(
                    path,
                    number,
                    None,
                    None,
                    f"separates fields with U+{ord(odd[0]):04X}: SWF fields are separated by spaces or tabs",
                )
            report.drop(DropReason.SEPARATOR, number)
            return None
        try:
            return SWFRecord(*_parse_values(text), line=number)  # type: ignore[arg-type,misc]  # 18 fields (_parse_values counted them); a job number may parse as a float
        except _BadLine as bad:
            if self._strict:
                name = SWF_FIELDS[bad.index] if bad.index is not None else None
                raise _error(path, number, name, bad.value, bad.problem) from None
            report.drop(bad.reason, number)
            return None

    def _drop_reason(
        self, record: SWFRecord, procs: float, run: float, number: int, *, check_job: bool
    ) -> DropReason | None:
        """Why cleaning or a filter drops ``record`` (None: kept); SWFError for a job wider than the header's machine.

        Cleaning comes first (a record that cannot be a job), then the machine's
        width, then the filters the caller asked for, in this order.
        """
        if check_job:
            if run <= 0:
                return DropReason.RUN_TIME
            if procs <= 0:
                return DropReason.PROCS
            if procs != int(procs):
                return DropReason.FRACTIONAL_PROCS
            if record.submit_time < 0:
                return DropReason.SUBMIT
        width = self._width if self._clean else None
        if width is not None and procs > width:
            # wider than the header's machine contradicts the file (an error under strict);
            # wider than a machine_procs= the user chose is just a filter
            if self._strict and self._machine_procs is None:
                name = "requested_procs" if record.allocated_procs == -1 else "allocated_procs"
                raise _error(
                    os.fspath(self.path),
                    number,
                    name,
                    procs,
                    f"CPUs: job {record.job_number} is wider than the machine (MaxProcs {width})",
                )
            return DropReason.TOO_WIDE
        if self._statuses is not None and record.status not in self._statuses:
            return DropReason.STATUS
        submit = record.submit_time
        if (self._start is not None and submit < self._start) or (self._end is not None and submit >= self._end):
            return DropReason.TIME_WINDOW
        return None


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
    nodes_as_procs: bool = False,
) -> SWFLog:
    """Open an SWF file (plain or gzip): parse its header now, stream its jobs later.

    Parameters
    ----------
    path
        The file. Gzip is recognised by its first bytes, whatever the name.
    strict
        Raise :class:`SWFError` (naming file, line, field and value) at the first
        malformed line, contradictory or unparsable header, job wider than the header's
        MaxProcs, or empty file. Otherwise such lines are skipped and counted in
        :attr:`SWFLog.report`. Cleaning drops are never errors.
    clean
        Drop (and count) records with run time <= 0, processors <= 0 (allocated, or
        requested where allocated is missing), fractional CPUs or a negative
        submit time, and jobs wider than the machine (when its size is known). With
        ``clean=False`` :meth:`SWFLog.records` keeps them all; :meth:`SWFLog.jobs`
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
        ``job.py``): CPUs = max(allocated, requested), a missing requested time
        is the run time, a negative run time becomes 10, run time 0 is dropped (and
        counted), and a header without MaxProcs means one CPU per node.
    machine_procs
        CPUs of the machine, instead of the header's MaxProcs.
    nodes_as_procs
        Where the header gives MaxNodes but no MaxProcs (the Lublin model's logs),
        read the machine as MaxNodes CPUs, one per node, as if
        ``machine_procs=MaxNodes`` had been given. Off by default: the reader does not
        guess a machine's size.

    Returns
    -------
    SWFLog
        The header, and :meth:`~SWFLog.records`, :meth:`~SWFLog.jobs`,
        :meth:`~SWFLog.load` to read the data.

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
    if machine_procs is None and nodes_as_procs and header.max_procs is None and header.max_nodes:
        machine_procs = header.max_nodes
    if not has_data:
        problems.add(DropReason.EMPTY, None, None, None, "no jobs: the file has no data lines")
    return SWFLog(
        path,
        header,
        problems,
        strict=strict,
        clean=clean,
        statuses=kept_statuses,
        start_time=start_time,
        end_time=end_time,
        index=index,
        compat=compat,
        machine_procs=None if machine_procs is None else int(machine_procs),
    )

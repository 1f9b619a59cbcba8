"""Writing jobs, or records read from a trace, as an SWF file (plain or gzip): :func:`write_swf`."""

from __future__ import annotations

import gzip
import io
import math
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from numbers import Integral
from typing import IO
from urllib.parse import quote

from schedlab.model.core.job import Job
from schedlab.model.formats.swf.fields import _EXACT_INT
from schedlab.model.formats.swf.header import _LABEL_KEYS, _TYPED_KEYS, SWFHeader, _header_int
from schedlab.model.formats.swf.records import _RECORD_VALUES, SWFRecord

__all__ = ["write_swf"]


# --------------------------------------------------------------------------- writing


def _format(value: object) -> str:
    """An SWF number: ints as ints, integral floats as ints, other floats by ``repr``."""
    if isinstance(value, Integral):
        return str(int(value))
    number = float(value)  # type: ignore[arg-type]  # anything else float() refuses, with its own error
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
        job.id,
        job.submit,
        -1,
        job.runtime,
        job.cpus,
        -1,
        -1,
        job.cpus,
        -1 if job.estimate is None else job.estimate,
        memory if memory > 0 else -1,
        -1,
        -1,
        _code(job.group, groups),
        -1,
        _code(job.job_class, classes),
        int(job.partition) if _is_code(job.partition) else -1,
        -1,
        -1,
    )
    return " ".join(map(_format, values)) + "\n"


def _header_pairs(header: SWFHeader | Mapping[str, object] | None) -> list[tuple[str, str]]:
    """The (key, value) lines a header asks for, repeats included."""
    if header is None:
        return []
    if isinstance(header, SWFHeader):
        pairs = [
            (key, str(getattr(header, name))) for key, name in _TYPED_KEYS.items() if getattr(header, name) is not None
        ]
        pairs += [
            (key, _codes_text({v: k for k, v in getattr(header, name).items()}))
            for key, name in _LABEL_KEYS.items()
            if getattr(header, name)
        ]
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
        text._schedlab_raw = raw  # type: ignore[attr-defined]  # the file rides on the wrapper, for _close_output
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
        allocated and requested CPUs = ``cpus``, requested time = ``estimate``,
        requested memory = ``demands["memory"]``, group = ``group``, queue =
        ``job_class``, partition = ``partition`` where it is a whole number; -1 for the
        rest. ``weight``, ``utility``, ``origin``, other demands and a partition named by
        text have no SWF field and are not written.
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

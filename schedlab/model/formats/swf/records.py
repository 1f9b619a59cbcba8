"""SWF data lines: :class:`SWFRecord`, parsing a line's 18 numbers, and the job of a record (:func:`to_job`)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from operator import attrgetter

from schedlab.model.core.job import Job
from schedlab.model.formats.swf.errors import DropReason
from schedlab.model.formats.swf.fields import _EXACT_INT, SWF_FIELDS

__all__ = ["COMPAT_MODES", "SWFRecord", "to_job"]

#: ways of reading a trace as another tool does; see :func:`read_swf`
COMPAT_MODES: tuple[str, ...] = ("rlscheduler",)

#: RLScheduler's replacement for a negative run time (deep-batch-scheduler job.py)
_RLSCHEDULER_NEGATIVE_RUNTIME = 10


# --------------------------------------------------------------------------- records


@dataclass(frozen=True, slots=True)
class SWFRecord:
    """One data line of an SWF file: the 18 fields in column order.

    Values are ints where integral, floats otherwise; ``-1`` means missing. ``line`` is
    the line's number in its file (not part of equality, so records read from two files
    compare by content). Units as in SWF: seconds, kilobytes per CPU.
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


#: SWF numbers are 64-bit at most; a larger one (a 309-digit integer) would overflow float()
_LIMIT = 2**63


def _out_of_range(token: str, index: int) -> _BadLine:
    problem = f"is out of range (|value| >= 2**63, {len(token)} characters)"
    return _BadLine(DropReason.OUT_OF_RANGE, index, token, problem)


def _number(token: str, index: int) -> int | float:
    # Only plain ASCII numbers: int() and float() would also take "1_000", "nan" or Arabic
    # digits, none of which is SWF.
    if token.isascii() and "_" not in token:
        value: int | float
        try:
            value = int(token)
        except ValueError:
            try:
                value = float(token)
            except ValueError:
                pass
            else:
                if math.isfinite(value) and abs(value) >= _LIMIT:
                    raise _out_of_range(token, index)
                if math.isfinite(value):
                    return int(value) if value.is_integer() and abs(value) < _EXACT_INT else value
        else:
            if -_LIMIT < value < _LIMIT:
                return value
            raise _out_of_range(token, index)
    raise _BadLine(DropReason.NON_NUMERIC, index, token, "is not a number")


def _parse_values(text: str) -> list[int | float]:
    """The 18 numbers of a data line. Raises _BadLine."""
    tokens = text.split()
    if len(tokens) != len(SWF_FIELDS):
        raise _BadLine(DropReason.FIELD_COUNT, None, text, f"expected {len(SWF_FIELDS)} fields, found {len(tokens)}")
    if text.isascii() and "_" not in text:
        try:  # the common case, all integers, at C speed
            values: list[int | float] = list(map(int, tokens))
        except ValueError:
            pass
        else:
            if min(values) > -_LIMIT and max(values) < _LIMIT:
                return values
    return [_number(token, i) for i, token in enumerate(tokens)]


def _check_compat(compat: str | None) -> None:
    if compat is not None and compat not in COMPAT_MODES:
        raise ValueError(f"compat must be None or one of {', '.join(map(repr, COMPAT_MODES))}, got {compat!r}")


def _procs_and_runtime(record: SWFRecord, compat: str | None) -> tuple[int | float, int | float]:
    """The CPUs and run time a job gets from ``record``, as the compat mode reads them."""
    alloc, requested, run = record.allocated_procs, record.requested_procs, record.run_time
    if compat == "rlscheduler":
        return max(alloc, requested), (_RLSCHEDULER_NEGATIVE_RUNTIME if run < 0 else run)
    return (requested if alloc == -1 else alloc), run


def _label(code: int | float, labels: Mapping[int, str]) -> str:
    if code == -1:
        return ""
    return labels.get(code, str(code)) if labels else str(code)  # type: ignore[arg-type]  # a float code is just not found


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
        partition=_label(record.partition, {}),
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
    """The :class:`~schedlab.model.core.job.Job` of one SWF record.

    ``id`` = job number, ``submit`` = submit time, ``runtime`` = run time, ``cpus`` =
    allocated CPUs (requested ones where allocated is missing), ``estimate`` =
    requested time if > 0, ``group`` and ``job_class`` = group and queue numbers as
    text (``""`` where missing, or the label in ``group_labels``/``class_labels``),
    ``partition`` = partition number as text (``""`` where missing),
    ``demands["memory"]`` = requested memory if > 0. Times become floats.

    Raises
    ------
    JobError
        The record cannot be a job (run time <= 0, no CPUs, negative submit time).
    """
    _check_compat(compat)
    procs, run = _procs_and_runtime(record, compat)
    return _job(record, procs, run, compat, group_labels or {}, class_labels or {})

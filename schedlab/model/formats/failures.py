"""Failure logs in Alea's format, read as :class:`~schedlab.model.core.failures.NodeFailure`\\ s.

Alea (Klusáček's grid and cluster simulator) replays machine failures from a
``<data set>.failures`` file, one failure per line (``FailureLoaderNew.java``)::

    time <TAB> cluster <TAB> duration <TAB> id id id ...

- ``time``: when the machines fail, in seconds (Alea subtracts the data set's start
  epoch; pass it as ``epoch=``);
- ``cluster``: the resource's name;
- ``duration``: seconds until the repair;
- the machine ids, separated by spaces. A line with only the first three fields is a
  failure of the whole cluster.

Fields may be separated by tabs or by any run of spaces (the ids are then the rest of
the line). Lines end at ``\n`` (a ``\r`` before it is dropped), as Alea's line reader
has them end, and are numbered so, as ``grep -n`` numbers them: no other character
ends a line or parts fields, so a stray Unicode separator or space (U+2028, which
``str.splitlines`` would split at, or U+00A0) is a bad value of its line's field.
Lines that are empty or start with ``#`` or ``;`` are skipped. Alea also skips
failures shorter than 60 s; schedlab keeps them unless ``min_duration=60`` is passed
(a skip that is counted in :attr:`FailureLog.skipped`, never silent). A line that
cannot be read raises :class:`FailureLogError`, one line naming the file, the line, the
field and the value; so does a ``.gz`` file cut short or not gzip (naming the last line
read), rather than keeping the failures read before the break.
"""

from __future__ import annotations

import gzip
import math
import re
import zlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from schedlab.model.core.failures import NodeFailure

__all__ = ["FailureLog", "FailureLogError", "cached_failure_log", "read_failure_log"]


#: what parts a line's fields: tabs, else runs of ASCII spaces (never other Unicode whitespace)
_SPACES = re.compile(r" +")
#: the blanks stripped around a line and its fields: ASCII space and tab only
_BLANKS = " \t"


class FailureLogError(ValueError):
    """A failure-log line that cannot be read: one line naming the file, line, field and value."""


@dataclass(frozen=True)
class FailureLog:
    """The failures a log gives, sorted by time, and how many lines were skipped (and why)."""

    path: str
    failures: tuple[NodeFailure, ...]
    #: lines read as failures of another cluster (``cluster=`` was given)
    other_clusters: int = 0
    #: failures shorter than ``min_duration``
    skipped: int = 0


def _number(path: str, line: int, field: str, text: str, *, whole: bool) -> float:
    try:
        # float() would strip Unicode whitespace (U+2028, U+00A0) around the digits: refuse it instead
        value = float(text) if not any(c.isspace() for c in text) else math.nan
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or (whole and not value.is_integer()) or (field != "time" and value < 0):
        kind = "a whole number >= 0" if whole else ("a number" if field == "time" else "a number >= 0")
        raise FailureLogError(f"{path}, line {line}: field {field!r} is {text!r}, not {kind}")
    return value


def read_failure_log(
    path: str | Path,
    *,
    epoch: float = 0.0,
    cluster: str | None = None,
    min_duration: float = 0.0,
) -> FailureLog:
    """Read an Alea failure log (plain or gzip).

    Parameters
    ----------
    epoch
        Subtracted from every time (Alea's start epoch of the data set), so that times
        are those of the job log replayed.
    cluster
        Keep only this cluster's lines (the others are counted in ``other_clusters``);
        ``None`` keeps every line, for a log of one machine.
    min_duration
        Failures shorter than this are skipped and counted (Alea uses 60 s).
    """
    name = str(path)
    opener = gzip.open if name.endswith(".gz") else open
    failures: list[NodeFailure] = []
    other = skipped = 0
    number = 0
    try:
        # newline="\n": lines end at \n only (not at \r alone, nor U+2028 as str.splitlines would)
        with opener(path, "rt", encoding="utf-8", errors="replace", newline="\n") as f:
            for number, raw in enumerate(f, start=1):
                text = raw.removesuffix("\n").removesuffix("\r").strip(_BLANKS)
                if not text or text[0] in "#;":
                    continue
                fields = text.split("\t") if "\t" in text else _SPACES.split(text, maxsplit=3)
                fields = [x.strip(_BLANKS) for x in fields]
                if len(fields) < 3:
                    raise FailureLogError(
                        f"{name}, line {number}: {len(fields)} fields ({text!r}); "
                        "expected time, cluster, duration[, machine ids]"
                    )
                time = _number(name, number, "time", fields[0], whole=False) - epoch
                duration = _number(name, number, "duration", fields[2], whole=False)
                nodes: tuple[int, ...] | None = None
                if len(fields) > 3 and fields[3]:
                    ids = [x for x in _SPACES.split(" ".join(fields[3:])) if x]
                    nodes = tuple(int(_number(name, number, "machine ids", x, whole=True)) for x in ids)
                if cluster is not None and fields[1] != cluster:
                    other += 1
                    continue
                if duration < min_duration:
                    skipped += 1
                    continue
                failures.append(NodeFailure(time, duration, nodes, fields[1], number))
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:  # cut short, or not gzip: say so, keep nothing
        raise FailureLogError(
            f"{name}, {f'after line {number}' if number else 'line 1'}: cannot be read, "
            f"the gzip file is truncated or not gzip ({exc})"
        ) from None
    failures.sort(key=lambda x: x.time)  # stable: a log's order among equal times
    return FailureLog(name, tuple(failures), other, skipped)


@lru_cache(maxsize=8)
def cached_failure_log(
    path: str, *, epoch: float = 0.0, cluster: str | None = None, min_duration: float = 0.0
) -> FailureLog:
    """:func:`read_failure_log`, once per process and arguments (every window of a replay shares it).

    Safe to share: a :class:`FailureLog` is frozen and holds a tuple of frozen failures.
    """
    return read_failure_log(path, epoch=epoch, cluster=cluster, min_duration=min_duration)

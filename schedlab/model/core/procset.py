"""Sets of resource ids written as Batsim writes them: ``"0-3 7"`` (intervals, space-separated).

Batsim's ``jobs.csv`` names the resources a job held as an interval set: closed
intervals ``a-b`` and single ids ``c``, in increasing order, separated by spaces
(the syntax of the ``procset`` package, which evalys reads). schedlab's machines and
clusters record allocations in the same syntax, so a schedule can be drawn over its
resources and read by Batsim's tools.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["format_procset", "parse_procset"]


def format_procset(ids: Iterable[int]) -> str:
    """``[0, 1, 2, 3, 7]`` -> ``"0-3 7"``: sorted, duplicates merged; ``""`` for no id."""
    out: list[str] = []
    first = last = None
    for i in sorted(set(ids)):
        if last is not None and i == last + 1:
            last = i
            continue
        if first is not None:
            out.append(str(first) if first == last else f"{first}-{last}")
        first = last = i
    if first is not None:
        out.append(str(first) if first == last else f"{first}-{last}")
    return " ".join(out)


def parse_procset(text: str, where: str = "procset") -> list[int]:
    """``"0-3 7"`` -> ``[0, 1, 2, 3, 7]``; a malformed set raises ValueError naming ``where`` and the part.

    Intervals may come in any order and overlap; the ids come back sorted, once each.
    """
    ids: set[int] = set()
    for part in str(text).split():
        lo, sep, hi = part.partition("-")
        try:
            a = int(lo)
            b = int(hi) if sep else a
        except ValueError:
            raise ValueError(f"{where}: {part!r} is not an id or an interval a-b of whole numbers") from None
        if a < 0 or b < a:
            raise ValueError(f"{where}: {part!r} is not an interval a-b with 0 <= a <= b")
        ids.update(range(a, b + 1))
    return sorted(ids)

"""Comparing a quick run's values with the stored ones: tolerances, their reasons, and a readable diff.

Integers, text, ids, statuses and counts compare exactly. A float compares within
``abs + rel * max(|stored|, |new|)`` (a column's sum over a group of records within
``abs + rel * sum of |x|``), by one of three rules:

- :data:`SUMMATION_ORDER` (rel 1e-9, abs 1e-12), for every value that only the order of
  a float summation can change. ``np.mean`` and pandas' reductions sum in blocks whose
  layout differs between numpy versions and between CPUs (numpy's AVX2 and AVX-512
  kernels), and Python 3.12's ``sum()`` is compensated; each moves a mean in its last
  bits. Measured: at most 2e-13 relative over every value of every quick run between
  Python 3.11 (numpy 2.4.6, torch 2.13) and 3.12 (numpy 2.5.5, torch 2.14), and between
  AVX-512 and AVX2 kernels on one machine, so 1e-9 leaves a margin of over 1000. The
  abs part is for values near 0 (a mean of differences), where a relative bound means
  nothing. Any change a refactoring or a bug makes to a simulation moves some value far
  more.
- :data:`HALF_WIDTH` (rel 1e-6), for a row's ``<metric>_ci95``: the t quantile it is
  made of (``scipy.special.stdtrit``) is an iterative special function whose value
  moves between scipy releases: scipy 1.11.1 and 1.17.1 differ by up to 1.3e-9
  relative at 4 degrees of freedom (``utility_scheduling``'s half-widths), beyond
  summation order. 1e-6 leaves a margin of over 500; the replications' values that a
  half-width is made of keep :data:`SUMMATION_ORDER`.
- :data:`LEARNED`, for the cells whose decisions a learner makes in float32 torch
  (``responsive_grid``'s SARSA over an echo state network: RL..., RIG-..., ELA-...).
  Its Q-values differ in their last bits between torch's AVX2 and AVX-512 kernels
  (``ATEN_CPU_CAPABILITY=avx2`` on an AVX-512 machine shows it); one near tie elected
  the other way and the rest of the run follows another path. So its decided values
  (waits, starts, ends, pool sizes) are not a function of the code alone: ELA-EST-0.5's
  interactive mean wait was 1318, 1869 and 1909 s under three kernel choices. No
  relative tolerance both holds there and catches a bug. So a learned cell's mean of
  each metric must lie within the stored 95% half-width of that mean (the worst seen
  under other kernels: 0.35 of it). What those means are made of is not compared again:
  each replication's value, a half-width, a group's sums of start, end and wait, the
  records kept in full (in completion order, which the decisions set). A run on another
  kernel is close to another draw of the learner's path, and for such values, from two
  replications, any bound that holds would be wide enough to mean nothing. Everything
  the decisions do not set (the jobs: counts, ids, submits, runtimes, classes, statuses,
  summed per replication) keeps :data:`SUMMATION_ORDER`. ``tools/digests.py`` checks
  them all bit for bit in one environment.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Tolerance:
    """How far a float may move: ``abs + rel * max(|stored|, |new|)`` (or ``rel * scale``), and why."""

    rel: float
    abs: float
    why: str

    def holds(self, stored: float, new: float, scale: float | None = None) -> bool:
        if math.isnan(stored) or math.isnan(new):
            return math.isnan(stored) and math.isnan(new)
        if math.isinf(stored) or math.isinf(new):
            return stored == new
        bound = self.abs + self.rel * (max(abs(stored), abs(new)) if scale is None else scale)
        return abs(stored - new) <= bound

    def __str__(self) -> str:
        return f"rel {self.rel:g} + abs {self.abs:g}"


SUMMATION_ORDER = Tolerance(1e-9, 1e-12, "only the order of a float sum differs (numpy, Python, CPU)")
HALF_WIDTH = Tolerance(1e-6, 1e-12, "a 95% half-width: scipy's t quantile moves between releases")


@dataclass(frozen=True)
class Learned:
    """The cells of a scenario whose decisions a float32 learner makes (see the module's docstring)."""

    factor: str  # the factor column that names a cell's setting
    prefixes: tuple[str, ...]  # the settings, by prefix, whose decisions are learned
    decided: tuple[str, ...]  # record columns the decisions set

    def covers(self, row: Mapping[str, Any]) -> bool:
        return str(row.get(self.factor, "")).startswith(self.prefixes)


LEARNED = {
    "responsive_grid": Learned("setting", ("RL", "RIG-", "ELA-"), ("start", "end", "wait")),
}


def spread(half_width: Any) -> Tolerance:
    """A learned cell's mean's bound: the stored 95% half-width (never tighter than summation order)."""
    hw = half_width if isinstance(half_width, float | int) and math.isfinite(half_width) else 0.0
    return Tolerance(SUMMATION_ORDER.rel, max(SUMMATION_ORDER.abs, hw), "learned in float32: the stored 95% half-width")


@dataclass(frozen=True)
class Difference:
    """One value that moved: where (scenario, table, row and its cell, column), from what to what."""

    scenario: str
    table: str
    where: str
    column: str
    stored: Any
    new: Any
    tol: Tolerance | None  # None: compared exactly

    def __str__(self) -> str:
        bound = "exact" if self.tol is None else f"tolerance {self.tol}"
        if self.tol is not None and _is_number(self.stored) and _is_number(self.new):
            bound += f", |diff| {abs(self.stored - self.new):.3g}"
        where = f"{self.scenario} {self.table} {self.where} {self.column}"
        return f"{where}: stored {self.stored!r}, new {self.new!r} ({bound})"


def _is_number(v: Any) -> bool:
    return isinstance(v, float | int) and not isinstance(v, bool)


def same(stored: Any, new: Any, tol: Tolerance, scale: float | None = None) -> tuple[bool, bool]:
    """``(equal, by_tolerance)``: two numbers one of which is a float within ``tol``; all else exactly."""
    if (isinstance(stored, float) or isinstance(new, float)) and _is_number(stored) and _is_number(new):
        return tol.holds(float(stored), float(new), scale), True
    return stored == new and type(stored) is type(new), False


ToleranceOf = Callable[[str], Tolerance | None]  # None: not compared (a learned cell's decided value)


def _default(column: str) -> Tolerance:
    return HALF_WIDTH if column.endswith("_ci95") else SUMMATION_ORDER


def _label(row: Mapping[str, Any], keys: Sequence[str], index: int | str) -> str:
    cell = ", ".join(f"{k}={row.get(k)!r}" for k in keys)
    return f"[{index}]" + (f" ({cell})" if cell else "")


def factors(row: Mapping[str, Any]) -> list[str]:
    """A summary row's factor columns: those before its first metric (a column with a ``_ci95`` partner)."""
    keys = []
    for k in row:
        if f"{k}_ci95" in row:
            break
        keys.append(k)
    return keys


def up_to_rep(columns: Sequence[str]) -> list[str]:
    """A replication's or a record's cell and replication: its columns up to ``rep``."""
    columns = list(columns)
    return columns[: columns.index("rep") + 1] if "rep" in columns else []


def _row(scenario: str, table: str, where: str, s: Mapping, n: Mapping, tol_of: ToleranceOf) -> Iterator[Difference]:
    for column in [*s, *(k for k in n if k not in s)]:
        if column not in n or column not in s:
            yield Difference(scenario, table, where, column, s.get(column, "<absent>"), n.get(column, "<absent>"), None)
            continue
        tol = tol_of(column)
        if tol is None:
            continue
        equal, by_tol = same(s[column], n[column], tol)
        if not equal:
            yield Difference(scenario, table, where, column, s[column], n[column], tol if by_tol else None)


class _Cells:
    """A scenario's learned cells and, for each, its stored summary row (whose half-widths bound it)."""

    def __init__(self, scenario: str, rows: Sequence[Mapping[str, Any]]) -> None:
        self.learned = LEARNED.get(scenario)
        self.rows = {self._key(r, factors(r)): r for r in rows}

    @staticmethod
    def _key(row: Mapping[str, Any], keys: Sequence[str]) -> tuple:
        return tuple((k, row.get(k)) for k in keys)

    def row_of(self, row: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """The stored summary row of a learned cell's row (a replication, a group's key), else None."""
        if self.learned is None or not self.learned.covers(row):
            return None
        keys = [k for k in up_to_rep(row) if k not in ("rep", "row")]  # "row": a kept record's index
        return self.rows.get(self._key(row, keys or factors(row)))

    def for_row(self, summary: Mapping[str, Any] | None) -> ToleranceOf:
        """A summary row's columns: a learned cell's means within their half-widths, its half-widths not compared."""
        if summary is None:
            return _default
        return lambda c: None if c.endswith("_ci95") else spread(summary.get(f"{c}_ci95"))

    @staticmethod
    def for_replication(summary: Mapping[str, Any] | None) -> ToleranceOf:
        """A replication's columns: a learned cell's metrics not compared (its means are), its cell exactly."""
        if summary is None:
            return _default
        keys = set(factors(summary)) | {"rep"}
        return lambda c: SUMMATION_ORDER if c in keys else None


def _table(scenario: str, table: str, stored: Sequence[Mapping], new: Sequence[Mapping],
           keys_of: Callable[[Mapping], list[str]],
           tol_of: Callable[[Mapping], ToleranceOf]) -> Iterator[Difference]:  # fmt: skip
    if len(stored) != len(new):
        yield Difference(scenario, table, "", "number of rows", len(stored), len(new), None)
    for i, (s, n) in enumerate(zip(stored, new, strict=False)):
        yield from _row(scenario, table, _label(s, keys_of(s), i), s, n, tol_of(s))


def _records(scenario: str, stored: Mapping, new: Mapping, cells: _Cells) -> Iterator[Difference]:
    table, groups = "records", "records group"
    for field in ("columns", "n", "sample_every"):
        if stored[field] != new[field]:
            yield Difference(scenario, table, "", field, stored[field], new[field], None)
    keys = up_to_rep(stored["columns"])
    if len(stored["groups"]) != len(new["groups"]):
        yield Difference(scenario, groups, "", "number of groups", len(stored["groups"]), len(new["groups"]), None)
    for i, (s, n) in enumerate(zip(stored["groups"], new["groups"], strict=False)):
        where = _label(s["key"], keys, i)
        yield from _row(scenario, groups, where, s["key"], n["key"], _default)
        if s["n"] != n["n"]:
            yield Difference(scenario, groups, where, "number of records", s["n"], n["n"], None)
        learned = cells.row_of(s["key"]) is not None
        for column, stats in s["columns"].items():
            if learned and column in cells.learned.decided:
                continue  # its sums follow the learner's path (see the module's docstring)
            got = n["columns"].get(column, {})
            for stat, value in stats.items():
                scale = max(stats.get("abs", 0.0), got.get("abs", 0.0)) if stat in ("sum", "abs") else None
                equal, by_tol = same(value, got.get(stat, "<absent>"), SUMMATION_ORDER, scale)
                if not equal:
                    yield Difference(scenario, groups, where, f"{column} ({stat})", value, got.get(stat, "<absent>"),
                                     SUMMATION_ORDER if by_tol else None)  # fmt: skip
    for s, n in zip(stored["sample"], new["sample"], strict=False):
        if cells.row_of(s) is None:  # a learned cell's records are in completion order, which it decides
            yield from _row(scenario, table, _label(s, keys, f"row {s['row']}"), s, n, _default)


def compare(scenario: str, stored: Mapping[str, Any], new: Mapping[str, Any]) -> list[Difference]:
    """Every value of ``new`` that is not ``stored``'s within its tolerance (empty: the same results)."""
    diffs: list[Difference] = []
    for table in ("rows", "replications", "records"):
        if (table in stored) != (table in new):
            diffs.append(Difference(scenario, table, "", "table present", table in stored, table in new, None))
    cells = _Cells(scenario, stored.get("rows", []))
    if "rows" in stored and "rows" in new:
        rows = stored["rows"], new["rows"]
        diffs += _table(scenario, "rows", *rows, factors, lambda r: cells.for_row(cells.row_of(r)))
    if "replications" in stored and "replications" in new:
        diffs += _table(scenario, "replications", stored["replications"], new["replications"], up_to_rep,
                        lambda r: cells.for_replication(cells.row_of(r)))  # fmt: skip
    if "records" in stored and "records" in new:
        diffs += _records(scenario, stored["records"], new["records"], cells)
    return diffs


def report(scenario: str, diffs: Sequence[Difference], stored_at: str, regenerate: str, limit: int = 40) -> str:
    """The readable diff printed when a quick run's values moved."""
    lines = [f"{scenario}: {len(diffs)} value(s) differ from {stored_at}",
             "  (scenario table [row] (cell) column: stored value, new value (tolerance))"]  # fmt: skip
    lines += [f"  {d}" for d in diffs[:limit]]
    if len(diffs) > limit:
        lines.append(f"  ... and {len(diffs) - limit} more")
    lines.append(f"  if the change is meant: {regenerate} {scenario}   (and say why in the commit message)")
    return "\n".join(lines)

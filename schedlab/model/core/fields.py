"""Checked config fields: one mechanism, declared beside the field, for scenarios and learners.

A config is a frozen dataclass. A field says what values it takes where it is
declared::

    @dataclass(frozen=True)
    class Config:
        #: arrivals per unit of time
        arrival_rate: float = number(3.6, gt=0)
        #: customers per replication
        customers: int = number(50_000, low=2, work=True)
        #: policies compared
        policies: tuple[str, ...] = items(("fcfs", "sjf"))

        def __post_init__(self) -> None:
            validate(self)

:func:`validate` checks every field. A field without a declaration still gets the
rule of its type, so nothing numeric is ever unchecked:

- ``float``: finite (``inf`` and ``nan`` are refused), ``>= 0`` and at most ``10**9``;
- ``int``: ``>= 0`` and at most ``10**9``;
- a tuple whose default is not empty: not empty, and each number in it as above;
- ``str``: anything (a name or a path), unless declared with :func:`text`, which
  can refuse the empty string or what does not match a pattern.

``10**9`` (:data:`SANE`) is more jobs, CPUs, steps or seconds than any run can take; a
value beyond it is a typo or a probe, and would run until memory or time is gone. A
field that may be negative, infinite, larger or empty says so:
``number(-1.0, low=None)``, ``number(math.inf, finite=False, high=None)``,
``number(0, high=INT_MAX)`` (a seed), ``items((), nonempty=False)``;
``text("auto", pattern=r"auto|[0-9]*", what='"auto", "" or a queue number')``. A text field
naming a folder the run writes into is declared with :func:`folder`. Fields marked
``work=True`` scale the work of one replication (jobs, steps, customers); a runner
multiplies them to estimate a run's size before it starts (see :func:`work_units`).

Outside configs, a constructor's whole-number argument is checked with the same rule
through one helper: :func:`is_int` (a whole number by type, as a count or an index is),
:func:`is_whole` (by value: ``4.0`` passes, as a CPU count computed in floats may be)
and :func:`whole` (the check and its one-line error, ``steps must be a whole number >= 1,
got 0``).
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import re
import typing
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "INT_MAX",
    "SANE",
    "Check",
    "FieldValueError",
    "folder",
    "is_int",
    "is_whole",
    "items",
    "number",
    "renamed_fields",
    "text",
    "validate",
    "validate_values",
    "whole",
    "work_units",
]

#: config fields renamed for issue 34's vocabulary (docs/architecture.md), old -> new: a setting
#: that still gives the old name (a tutorial's, ``--set traces=...``) is read as the new one
RENAMED_FIELDS = {
    "traces": "logs",  # old name kept
    "trace": "log",  # old name kept
    "traces_dir": "logs_dir",  # old name kept
    "trace_window": "log_window",  # old name kept
    "procs": "cpus",  # old name kept
    # responsive_grid's log-driven experiment (the paper's "trace" experiment)
    "trace_weeks": "log_weeks",  # old name kept
    "trace_week": "log_week",  # old name kept
    "trace_jobs": "log_jobs",  # old name kept
    "trace_cores": "log_cores",  # old name kept
    "trace_reading": "log_reading",  # old name kept
    "reps_trace": "reps_log",  # old name kept
}

INT_MAX = 2**63 - 1
#: the upper bound of a number that declares none
SANE = 10**9


def is_int(value: Any, low: float | None = None) -> bool:
    """Whether ``value`` is a whole number by type (an ``int`` or a numpy integer, never a ``bool``), >= ``low``.

    Counts, sizes and indices take this rule: ``3.0`` is refused, since a float there
    is more often a mistake (a rate or a time in the wrong argument) than a count.
    """
    # the exact type first: an int is by far the most common, and an ABC check costs more
    if type(value) is not int and (isinstance(value, bool) or not isinstance(value, numbers.Integral)):
        return False
    return low is None or value >= low  # type: ignore[operator, unused-ignore]  # ints and numpy integers compare with floats (Integral's stub says no)


def is_whole(value: Any, low: float | None = None) -> bool:
    """Whether ``value`` is a whole number by value (an integer, or a finite float like ``4.0``), >= ``low``.

    For numbers that arrive as floats but must hold whole values: CPU counts set by a
    policy, a capacity read from a file. A ``bool``, ``nan`` and ``inf`` are refused.
    """
    kind = type(value)
    if kind is float:  # the exact types first (an ABC check costs more): nan and inf are not integers
        if not value.is_integer():
            return False
    elif kind is not int:
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            return False
        if not isinstance(value, numbers.Integral) and not (math.isfinite(value) and float(value).is_integer()):
            return False
    return low is None or value >= low


def whole(name: str, value: Any, low: int = 0) -> int:
    """``value`` as an ``int``, checked by :func:`is_int` to be >= ``low``; else a one-line error naming ``name``."""
    if not is_int(value, low):
        raise ValueError(f"{name} must be a whole number >= {low}, got {value!r}")
    return int(value)


class FieldValueError(ValueError):
    """A config field holds a value outside what it declares; the message names the field and value."""


@dataclass(frozen=True)
class Check:
    """What a numeric field (or each number of a tuple field) accepts."""

    low: float | None = 0  #: inclusive lower bound (None: no bound)
    high: float | None = SANE  #: inclusive upper bound (None: no bound)
    gt: float | None = None  #: exclusive lower bound
    lt: float | None = None  #: exclusive upper bound
    integer: bool = False  #: a whole number
    finite: bool = True  #: refuse inf and nan
    nonempty: bool = True  #: a tuple field must hold at least one item
    distinct: bool = False  #: a tuple field must name each item once (training seeds: a repeat would count twice)
    work: bool = False  #: the field scales the work of one replication
    #: a text field: the empty string is refused (``nonempty``) and a value must match ``pattern`` (whole)
    pattern: str | None = None
    #: what ``pattern`` accepts, in words, for the message
    what: str = ""
    #: a text field naming a folder the run writes into (empty: none): tried before any cell runs
    output: bool = False

    def problem(self, value: Any) -> str | None:
        """Why ``value`` is refused, or None when it is accepted."""
        if isinstance(value, str):
            return self._text_problem(value)
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            return None  # not a number: types are the parser's business
        x = float(value) if not isinstance(value, int) else value
        if isinstance(x, float) and math.isnan(x):
            return "is not a number (nan)"
        if self.finite and isinstance(x, float) and math.isinf(x):
            return "must be finite"
        if self.integer and not is_whole(x):
            return "must be a whole number"
        if isinstance(value, int) and abs(value) > INT_MAX:
            return f"is out of range (|value| <= {INT_MAX})"
        if self.gt is not None and not x > self.gt:  # before low: a gt=0 field keeps number()'s default low=0
            return f"must be > {self.gt:g}"
        if self.low is not None and x < self.low:
            return f"must be >= {self.low:g}"
        if self.high is not None and x > self.high:
            return f"must be <= {self.high:g}"
        if self.lt is not None and not x < self.lt:
            return f"must be < {self.lt:g}"
        return None

    def _text_problem(self, value: str) -> str | None:
        if self.pattern is None and not self.what:
            return None  # a text field without a declared rule: any name or path
        if self.nonempty and not value.strip():
            return f"must not be empty{f' (give {self.what})' if self.what else ''}"
        if self.pattern is not None and not re.fullmatch(self.pattern, value):
            return f"must be {self.what or f'of the form {self.pattern}'}"
        return None


def _meta(check: Check, help: str | None) -> dict[str, Any]:
    return {"check": check, **({"help": help} if help else {})}


def number(
    default: Any,
    *,
    low: float | None = 0,
    high: float | None = SANE,
    gt: float | None = None,
    lt: float | None = None,
    integer: bool = False,
    finite: bool = True,
    work: bool = False,
    help: str | None = None,
) -> Any:
    """A numeric field and what it accepts (bounds inclusive; ``gt``/``lt`` exclusive).

    Parameters
    ----------
    default
        The field's default value.
    low, high, gt, lt
        Bounds; ``low`` is 0 and ``high`` :data:`SANE` unless given (``None``: unbounded).
    integer
        Refuse values that are not whole numbers (for a float field).
    finite
        Refuse ``inf`` (``nan`` is always refused).
    work
        The field scales a replication's work (see :func:`work_units`); it has no
        upper bound unless given: the run's work estimate bounds it instead.
    """
    if work and high == SANE:
        high = None  # a work field is bounded by the run's estimate, which --force may pass
    check = Check(low=low, high=high, gt=gt, lt=lt, integer=integer, finite=finite, work=work)
    return dataclasses.field(default=default, metadata=_meta(check, help))


def items(
    default: tuple[Any, ...],
    *,
    nonempty: bool = True,
    low: float | None = 0,
    high: float | None = SANE,
    gt: float | None = None,
    lt: float | None = None,
    distinct: bool = False,
    help: str | None = None,
) -> Any:
    """A tuple field: not empty unless ``nonempty=False``, each item once with ``distinct``; numbers in it are
    checked like :func:`number`'s."""
    check = Check(low=low, high=high, gt=gt, lt=lt, nonempty=nonempty, distinct=distinct)
    return dataclasses.field(default=default, metadata=_meta(check, help))


def text(
    default: str, *, nonempty: bool = False, pattern: str | None = None, what: str = "", help: str | None = None
) -> Any:
    """A text field (a name, a path, a spec) and what it accepts.

    Parameters
    ----------
    default
        The field's default value.
    nonempty
        Refuse the empty string (and blanks).
    pattern
        A regular expression the whole value must match (the empty string too, unless
        ``nonempty``: write ``|`` alternatives that include it where it means something).
    what
        What the field takes, in words, for the message (``"a log's path or name"``).
    """
    check = Check(nonempty=nonempty, pattern=pattern, what=what or ("a value" if nonempty else ""))
    return dataclasses.field(default=default, metadata=_meta(check, help))


def folder(default: str = "", *, help: str | None = None) -> Any:
    """A text field naming a folder the run writes into (``""``: none), as ``series_dir``.

    A runner tries every such folder before any cell runs
    (:func:`schedlab.experiment.output_folders.check_output_folders`): one that cannot be
    written stops the run at once, not after hours of cells and with a journal left behind.
    """
    return dataclasses.field(default=default, metadata=_meta(Check(output=True), help))


def _implicit(f: dataclasses.Field, hint: Any) -> Check:
    """The rule of a field declared without a check: by its type (and, for tuples, its default)."""
    if f.default is not dataclasses.MISSING and isinstance(f.default, tuple):
        return Check(nonempty=bool(f.default))
    return Check(integer=hint is int)


def field_checks(config_type: type) -> dict[str, Check]:
    """Each field's check: declared in its metadata, or implied by its type."""
    try:
        hints = typing.get_type_hints(config_type)
    except Exception:  # a hint that cannot be resolved: fall back to no type knowledge
        hints = {}
    return {f.name: f.metadata.get("check") or _implicit(f, hints.get(f.name)) for f in dataclasses.fields(config_type)}


def validate(config: Any) -> None:
    """Check every field of the dataclass ``config``; raise :class:`FieldValueError` naming the first bad one."""
    _check_values(field_checks(type(config)), {f.name: getattr(config, f.name) for f in dataclasses.fields(config)})


def validate_values(config_type: type, values: dict[str, Any]) -> None:
    """Check ``values`` (field -> value) against ``config_type``'s fields, before the config is made.

    A loader calls this first, so the field's own rule speaks (``arrival_rate=inf must be
    finite``) before a check in ``__post_init__`` that relates fields trips on the value.
    """
    _check_values(field_checks(config_type), values, empty=False)


def _check_values(checks: dict[str, Check], values: dict[str, Any], *, empty: bool = True) -> None:
    # empty=False leaves an empty tuple to __post_init__, whose message may list the valid choices
    for name, value in values.items():
        check = checks.get(name)
        if check is None:
            continue
        if isinstance(value, tuple | list):
            if empty and check.nonempty and not value:
                raise FieldValueError(f"{name} must not be empty")
            repeated = [item for i, item in enumerate(value) if item in value[:i]]
            if check.distinct and repeated:
                raise FieldValueError(f"{name}={value!r} names {repeated[0]!r} twice: give each once")
            for i, item in enumerate(value):
                why = check.problem(item)
                if why:
                    raise FieldValueError(f"{name}[{i}]={item!r} {why}")
            continue
        why = check.problem(value)
        if why:
            raise FieldValueError(f"{name}={value!r} {why}")


def work_units(config: Any) -> float:
    """The product of the fields declared ``work=True`` (1 when none is): a replication's size, roughly."""
    total = 1.0
    for name, check in field_checks(type(config)).items():
        value = getattr(config, name)
        if check.work and isinstance(value, numbers.Real) and not isinstance(value, bool):
            total *= max(float(value), 1.0)
    return total


def renamed_fields(config_type: type, values: Mapping[str, Any], where: str = "config") -> dict[str, Any]:
    """``values`` with each old field name of :data:`RENAMED_FIELDS` turned into its new one.

    Only where ``config_type`` has the new field and not the old one (``procs`` stays
    ``procs`` in a config that has it); each old name read says so with a
    :class:`DeprecationWarning`, and an old and a new name together are refused.
    """
    names = {f.name for f in dataclasses.fields(config_type)}
    out = dict(values)
    for old, new in RENAMED_FIELDS.items():
        if old in out and old not in names and new in names:
            if new in out:
                raise ValueError(f"{where}: {old!r} is the old name of {new!r}: give {new!r} only")
            warnings.warn(f"{where}: the setting {old!r} is now {new!r}", DeprecationWarning, stacklevel=3)
            out[new] = out.pop(old)
    return out

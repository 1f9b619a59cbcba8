"""Size distributions for synthetic workloads: small, frozen, picklable, vectorised.

Each distribution draws ``n`` values at once from a :class:`numpy.random.Generator`;
workload generators draw in blocks so that a million jobs cost a few numpy calls,
not a million.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["Distribution", "Exponential", "Fixed", "Uniform", "UniformInt", "as_distribution"]


@runtime_checkable
class Distribution(Protocol):
    """Anything that draws ``n`` values from a Generator and knows its mean."""

    def draw(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` values drawn from ``rng``."""
        ...

    @property
    def mean(self) -> float:
        """The distribution's mean, for loads and rates computed before any draw."""
        ...


def _check(cond: bool, what: str) -> None:
    if not cond:
        raise ValueError(what)


@dataclass(frozen=True, slots=True)
class Fixed:
    """Always ``value``."""

    value: float

    def __post_init__(self) -> None:
        _check(math.isfinite(self.value), f"Fixed: value must be finite, got {self.value!r}")

    def draw(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` times the value (``rng`` is not drawn from)."""
        return np.full(n, self.value, dtype=float)

    @property
    def mean(self) -> float:
        """The value itself."""
        return float(self.value)


@dataclass(frozen=True, slots=True)
class Exponential:
    """Exponential with the given ``mean`` (rate ``1 / mean``)."""

    mean: float

    def __post_init__(self) -> None:
        _check(
            math.isfinite(self.mean) and self.mean > 0,
            f"Exponential: mean must be finite and > 0, got {self.mean!r}",
        )

    def draw(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` exponential draws of this mean."""
        return rng.exponential(self.mean, n)

    @classmethod
    def from_rate(cls, rate: float) -> Exponential:
        """The exponential of rate ``rate`` (mean ``1 / rate``), as queueing texts give it."""
        _check(math.isfinite(rate) and rate > 0, f"Exponential: rate must be finite and > 0, got {rate!r}")
        return cls(1.0 / rate)


@dataclass(frozen=True, slots=True)
class Uniform:
    """Continuous uniform on ``[low, high]``."""

    low: float
    high: float

    def __post_init__(self) -> None:
        _check(
            math.isfinite(self.low) and math.isfinite(self.high) and self.low <= self.high,
            f"Uniform: need finite low <= high, got [{self.low!r}, {self.high!r}]",
        )

    def draw(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` uniform draws in ``[low, high)``."""
        return rng.uniform(self.low, self.high, n)

    @property
    def mean(self) -> float:
        """``(low + high) / 2``."""
        return (self.low + self.high) / 2


@dataclass(frozen=True, slots=True)
class UniformInt:
    """Discrete uniform on ``{low, ..., high}`` (both ends included)."""

    low: int
    high: int

    def __post_init__(self) -> None:
        _check(
            int(self.low) == self.low and int(self.high) == self.high and self.low <= self.high,
            f"UniformInt: need whole numbers low <= high, got {{{self.low!r}..{self.high!r}}}",
        )

    def draw(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` uniform whole numbers in ``[low, high]``, both ends included."""
        return rng.integers(self.low, self.high, n, endpoint=True)

    @property
    def mean(self) -> float:
        """``(low + high) / 2``."""
        return (self.low + self.high) / 2


def as_distribution(value: Distribution | float) -> Distribution:
    """A number means :class:`Fixed`; a distribution passes through."""
    if isinstance(value, Distribution):
        return value
    if isinstance(value, int | float | np.integer | np.floating):
        return Fixed(float(value))
    raise TypeError(f"expected a number or a Distribution, got {type(value).__name__}: {value!r}")

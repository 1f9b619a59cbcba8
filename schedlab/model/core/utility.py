"""Time-utility functions (TUFs): what finishing a job at a given time is worth.

A TUF maps a job's *response time* (waiting plus execution, measured from its
submission) to a *unit utility* in [0, 1]. The *final* utility of a completed job is
its unit utility times ``cpus * runtime`` (K * L), so that a scheduler is indifferent
between one K-CPU job of ideal length L and K * L one-CPU jobs of length 1
(Vengerov 2007, section 2; ../shared/seeds/000).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

__all__ = ["Constant", "LinearDecay", "TimeUtility", "final_utility"]


@runtime_checkable
class TimeUtility(Protocol):
    """Anything with ``unit(response_time) -> float`` in [0, 1]."""

    def unit(self, response_time: float) -> float:
        """The utility per unit of work of a job that completes ``response_time`` after its submission."""
        ...


@dataclass(frozen=True, slots=True)
class LinearDecay:
    """Unit utility 1 until ``ideal``, then decaying to 0 at ``2 * ideal``.

    ``f(t) = clip(2 - t / ideal, 0, 1) ** exponent``. ``exponent = 1`` is the linear
    TUF of seed 000 figure 1; ``exponent = 2`` its convex variant (f^2) and
    ``exponent = 0.5`` its concave variant (f^1/2) of figure 5.

    Parameters
    ----------
    ideal
        The job's ideal execution time L: no utility is lost before it.
    exponent
        Shape of the decay between L and 2L.

    References
    ----------
    D. Vengerov, "A Reinforcement Learning Framework for Utility-Based Scheduling in
    Resource-Constrained Systems", figures 1 and 5.
    """

    ideal: float
    exponent: float = 1.0

    def __post_init__(self) -> None:
        if not (self.ideal > 0 and math.isfinite(self.ideal)):
            raise ValueError(f"LinearDecay: ideal must be finite and > 0, got {self.ideal!r}")
        if not (self.exponent > 0 and math.isfinite(self.exponent)):
            raise ValueError(f"LinearDecay: exponent must be finite and > 0, got {self.exponent!r}")

    def unit(self, response_time: float) -> float:
        """1 up to the ideal time, then ``(2 - t / ideal) ** exponent`` down to 0 at twice the ideal."""
        f = 2.0 - response_time / self.ideal
        if f >= 1.0:
            return 1.0
        if f <= 0.0:
            return 0.0
        return f**self.exponent

    @classmethod
    def convex(cls, ideal: float) -> LinearDecay:
        """The f^2 variant of seed 000 figure 5."""
        return cls(ideal, 2.0)

    @classmethod
    def concave(cls, ideal: float) -> LinearDecay:
        """The f^1/2 variant of seed 000 figure 5."""
        return cls(ideal, 0.5)


@dataclass(frozen=True, slots=True)
class Constant:
    """The same unit utility whenever the job finishes (a job with no deadline)."""

    value: float = 1.0

    def __post_init__(self) -> None:
        if not 0.0 <= self.value <= 1.0:  # also refuses nan
            raise ValueError(f"Constant: a unit utility is in [0, 1], got {self.value!r}")

    def unit(self, response_time: float) -> float:
        """The same value, whatever the response time."""
        return self.value


def final_utility(tuf: TimeUtility | None, response_time: float, cpus: int, runtime: float) -> float:
    """Final utility of a job: unit utility times ``cpus * runtime`` (seed 000, section 2).

    A job without a TUF is worth nothing (``nan`` would poison sums over records).
    """
    if tuf is None:
        return 0.0
    return tuf.unit(response_time) * cpus * runtime

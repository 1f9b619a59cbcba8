"""Fair share and responsiveness utilities of seed 001 (eqs. 1-2), computed as jobs are elected.

A site serves several groups (virtual organisations, VOs), each entitled to a target
share ``w_k`` of the service. :class:`FairShare` follows the service each group has
been granted, election by election, and gives the fairness utility of each election:
``F_j = 1 - D_j / M`` with ``D_j = max_k (w_k - S_kj)_+`` the deficit distance and
``M = max_k w_k`` its bound (eq. 2). The responsiveness utility of a job is
``W_j = exec_j / (exec_j + wait_j)`` (eq. 1).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

__all__ = ["FairShare", "FairShareError", "responsiveness_utility"]


class FairShareError(ValueError):
    """Fair-share targets that are not shares (negative, or not summing to 1)."""


def responsiveness_utility(execution: float, wait: float) -> float:
    """``W = exec / (exec + wait)`` in [0, 1] (seed 001 eq. 1); 1 for a job of no length that did not wait."""
    total = execution + wait
    return 1.0 if total <= 0 else execution / total


class FairShare:
    """The fairness utility of each election, against target shares (seed 001 eq. 2).

    Parameters
    ----------
    targets
        Group -> target share ``w_k``; shares are >= 0 and sum to 1. A group not
        listed has target 0 (its service still counts in the total).

    Attributes
    ----------
    served
        Service granted to each group so far.
    total
        Service granted to all groups so far.

    Examples
    --------
    The unfeasible schedule of seed 001 section 5.2: targets 0.4/0.2/0.2/0.2 for a load
    of 0.7/0.2/0.05/0.05. The best any schedule can do is F = 1 - 0.15 / 0.4 = 0.625:

    >>> fs = FairShare({"a": 0.4, "b": 0.2, "c": 0.2, "d": 0.2})
    >>> for group, amount in [("a", 70), ("b", 20), ("c", 5), ("d", 5)]:
    ...     f = fs.elect(group, amount)
    >>> round(f, 3)
    0.625
    """

    def __init__(self, targets: Mapping[str, float]) -> None:
        if not targets:
            raise FairShareError("fair-share targets: give at least one group")
        bad = {g: w for g, w in targets.items() if not (math.isfinite(w) and w >= 0)}
        if bad:
            raise FairShareError(f"fair-share targets must be finite and >= 0, got {bad}")
        total = math.fsum(targets.values())
        if abs(total - 1.0) > 1e-6:
            raise FairShareError(f"fair-share targets must sum to 1, got {dict(targets)} (sum {total:.6g})")
        self.targets = dict(targets)
        self.bound = max(self.targets.values())  # M of eq. 2
        self.served: dict[str, float] = dict.fromkeys(self.targets, 0.0)
        self.total = 0.0

    def deficit(self) -> float:
        """``D = max_k (w_k - S_k)_+`` for the service granted so far (0 before any)."""
        if self.total <= 0:
            return 0.0
        return max(0.0, max(w - self.served[g] / self.total for g, w in self.targets.items()))

    def utility(self) -> float:
        """``F = 1 - D / M`` for the service granted so far."""
        return 1.0 - self.deficit() / self.bound if self.bound > 0 else 1.0

    def utility_if(self, group: str, amount: float) -> float:
        """``F`` if ``amount`` of service went to ``group`` now, without granting it (a look ahead)."""
        total = self.total + amount
        if total <= 0 or self.bound <= 0:
            return 1.0
        served = {g: s + (amount if g == group else 0.0) for g, s in self.served.items()}
        deficit = max(0.0, max(w - served[g] / total for g, w in self.targets.items()))
        return 1.0 - deficit / self.bound

    def elect(self, group: str, amount: float) -> float:
        """Grant ``amount`` of service to ``group``; returns ``F_j`` after this election."""
        if not (math.isfinite(amount) and amount >= 0):
            raise FairShareError(f"service granted must be finite and >= 0, got {amount!r}")
        if group in self.served:
            self.served[group] += amount
        self.total += amount
        return self.utility()

    def shares(self) -> dict[str, float]:
        """Each target group's fraction of the service granted so far."""
        return {g: (s / self.total if self.total > 0 else 0.0) for g, s in self.served.items()}

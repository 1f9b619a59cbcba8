"""The batch policies named on the command line: a priority order, with or without EASY backfilling."""

from __future__ import annotations

from schedlab.model.decisions import Policy
from schedlab.policies.backfilling import EASY, Committed
from schedlab.policies.scoring import SCORES, Priority

__all__ = ["BACKFILLS", "make_policy"]

BACKFILLS = ("none", "easy")


def make_policy(score: str, backfill: str = "none", compat: str = "none") -> Policy:
    """The policy named on the command line: a score, with or without EASY backfilling."""
    if score not in SCORES:
        raise ValueError(f"unknown policy {score!r}; choose from {', '.join(SCORES)}")
    if backfill not in BACKFILLS:
        raise ValueError(f"unknown backfill {backfill!r}; choose from {', '.join(BACKFILLS)}")
    if compat == "rlscheduler":
        return Committed(score, backfill=backfill == "easy")
    order = Priority(score)
    return EASY(order) if backfill == "easy" else order

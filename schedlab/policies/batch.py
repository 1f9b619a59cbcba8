"""The batch policies named on the command line: a priority order, with or without backfilling."""

from __future__ import annotations

from schedlab.model.contracts.machine import Policy
from schedlab.policies.backfilling import EASY, Committed
from schedlab.policies.conservative import Conservative
from schedlab.policies.conservative_rebuild import RebuildConservative
from schedlab.policies.scoring import SCORES, Priority

__all__ = ["BACKFILLS", "make_policy"]

#: backfilling variants: none (strict priority order), EASY, conservative (Mu'alem & Feitelson's:
#: reservations at arrival, compressed on early ends), conservative-rebuild (rebuilt at each decision)
BACKFILLS = ("none", "easy", "conservative", "conservative-rebuild")


def make_policy(score: str, backfill: str = "none", compat: str = "none") -> Policy:
    """The policy named on the command line: a score, with EASY, conservative or no backfilling.

    ``score`` is a name in :data:`~schedlab.policies.scoring.SCORES` (``"sjf"`` ranks by
    the estimate, the requested time: ``SJF()``'s order). Without backfilling the policy
    is the strict :class:`~schedlab.policies.scoring.Priority` order itself.
    """
    if score not in SCORES:
        raise ValueError(f"unknown policy {score!r}; choose from {', '.join(SCORES)}")
    if backfill not in BACKFILLS:
        raise ValueError(f"unknown backfill {backfill!r}; choose from {', '.join(BACKFILLS)}")
    if compat == "rlscheduler":
        if backfill.startswith("conservative"):
            raise ValueError(
                "--compat rlscheduler has no conservative backfilling (RLScheduler's loop "
                "backfills only before the committed job); use backfill none or easy"
            )
        return Committed(score, backfill=backfill == "easy")
    order = Priority(score)
    if backfill == "easy":
        return EASY(order)
    if backfill == "conservative":
        return Conservative(order)
    if backfill == "conservative-rebuild":
        return RebuildConservative(order)
    return order

"""The reward of an election at the grid site: seed 001's, or the one its text describes.

Both follow the fair share election by election (:class:`~schedlab.model.analysis.fair_share.FairShare`,
``F_j`` right after job ``j``'s election, eq. 2) and weigh responsiveness by ``lambda``:

- ``paper``: ``R_j = lambda W_j + (1 - lambda) F_j`` with ``W_j = exec / (exec + wait)``
  (eq. 1), the scheduling MDP's reward as printed. The paper computes it when the job
  completes; with the oracle's execution times it is known at the election, and an
  episode's return is the same either way.
- ``overhead``: ``-(lambda V_j + (1 - lambda) (1 - F_j))`` with ``V_j = wait / max(exec, d)``,
  the relative overhead that section 2.1 names as the supervisors' target ("minimizing
  the relative overhead will be target of the supervisors"), bounded by the delay
  ``d`` that section 2.2 calls acceptable (two minutes), so a job of a few seconds does
  not weigh thousands of times a batch job. ``W_j = 1 / (1 + V_j)``: the paper's
  utility is a concave function of the wait, so it pays little for a job that has
  already waited long and invites starvation; ``V_j`` is linear in the wait, so every
  second of a job's wait costs the same, more for a short job.
"""

from __future__ import annotations

from collections.abc import Mapping

from schedlab.model.analysis.fair_share import FairShare, responsiveness_utility
from schedlab.model.core.job import Job

__all__ = ["ElectionReward"]


class ElectionReward:
    """The reward of each election in one episode (the fair share it follows starts empty).

    Parameters
    ----------
    targets
        Each VO's fair-share target.
    kind
        ``"paper"`` or ``"overhead"`` (see the module's notes).
    weight
        ``lambda``: the weight of responsiveness against fairness.
    acceptable_delay
        ``d`` of the overhead reward, in seconds.
    """

    def __init__(self, targets: Mapping[str, float], kind: str, weight: float, acceptable_delay: float) -> None:
        self.fair_share = FairShare(targets)
        self.kind, self.weight, self.delay = kind, weight, acceptable_delay

    def _value(self, job: Job, now: float, fairness: float) -> float:
        wait = now - job.submit
        if self.kind == "paper":
            return self.weight * responsiveness_utility(job.runtime, wait) + (1 - self.weight) * fairness
        overhead = wait / max(job.runtime, self.delay)
        return -(self.weight * overhead + (1 - self.weight) * (1 - fairness))

    def peek(self, job: Job, now: float) -> float:
        """The reward electing ``job`` at ``now`` would earn, the fair share left as it is."""
        return self._value(job, now, self.fair_share.utility_if(job.group, job.cpus * job.runtime))

    def elect(self, job: Job, now: float) -> float:
        """The reward of electing ``job`` at ``now``; the fair share then counts its service."""
        return self._value(job, now, self.fair_share.elect(job.group, job.cpus * job.runtime))

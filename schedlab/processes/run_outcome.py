"""What one run of the seed-004 network did: the state of eqs. 4-5 that the utilities score.

Kept apart from :mod:`schedlab.processes.ring` (the network that produces it) so the
utilities, the bounds and the tests can build one by hand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

__all__ = ["TOUCHES", "RunOutcome"]

#: what makes an agent "touch" a job (I_k^eta = 1), see :class:`~schedlab.processes.ring.ServerNetwork`
TOUCHES = ("visit", "decision")


@dataclass(frozen=True)
class RunOutcome:
    """What one run did: per job of the run (index = job id minus the run's first id), and the touches.

    Attributes
    ----------
    run
        Index of the run (t in the paper).
    weights
        w_k of each job that entered during the run.
    executed
        e_k: whether the job completed within the run.
    touch_agent, touch_job
        Each (agent, job) pair with I_k^eta = 1 in the run, once per pair.
    agents
        Number of agents (N * 2^K).
    executed_agent
        The agent at whose server the job completed (server * 2^K + the job's class),
        -1 when it did not complete; e_k^{eta,t} of eq. 4 is ``executed_agent[k] == eta``.
        Empty when not recorded.
    requirements
        ``(jobs, K)`` integer requirements (column 0 the cycles); empty when not recorded.
    """

    run: int
    weights: np.ndarray
    executed: np.ndarray
    touch_agent: np.ndarray
    touch_job: np.ndarray
    agents: int
    executed_agent: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    requirements: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))

    @property
    def efficiency(self) -> float:
        """G of eq. 6: the weighted fraction of the run's jobs that were executed within it."""
        total = float(self.weights.sum())
        return float(self.weights @ self.executed) / total if total > 0 else math.nan

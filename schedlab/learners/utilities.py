"""World and private utilities of a run (seed 004, eqs. 6-9): G, team game, Wonderful Life, selfish.

A run's state (eqs. 4-5) is, per job k that entered during the run, its weight w_k,
whether it was executed e_k, and for each agent eta whether eta touched it,
I_k^eta (what counts as a touch is the network's choice, see
:class:`~schedlab.processes.network.network.ServerNetwork`). Utilities are computed for all
agents at once from a :class:`~schedlab.model.contracts.network.RunOutcome`-like object
with ``weights``, ``executed``, ``touch_agent``, ``touch_job`` and ``agents`` (and
``executed_agent`` for the selfish utility's ``"agent"`` reading).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Protocol

import numpy as np

__all__ = [
    "SU_EXECUTED",
    "UTILITIES",
    "clamped_world_utility",
    "selfish",
    "selfish_at_agent",
    "team_game",
    "touch_matrix",
    "wonderful_life",
    "world_utility",
]


class RunState(Protocol):
    """What the utilities read of a run: :class:`~schedlab.model.contracts.network.RunOutcome`'s fields, read-only."""

    @property
    def weights(self) -> np.ndarray:
        """Each job's weight."""
        ...

    @property
    def executed(self) -> np.ndarray:
        """Whether each job completed within the run (e_k)."""
        ...

    @property
    def touch_agent(self) -> np.ndarray:
        """The agent of each (agent, job) pair that touched (I_k^eta = 1) in the run."""
        ...

    @property
    def touch_job(self) -> np.ndarray:
        """The job of each such pair."""
        ...

    @property
    def agents(self) -> int:
        """How many agents there are."""
        ...

    @property
    def executed_agent(self) -> np.ndarray:
        """The agent that executed each job (-1: not completed); only ``selfish(executed="agent")`` reads it."""
        ...


def world_utility(state: RunState) -> float:
    """G (eq. 6): sum_k w_k e_k / sum_k w_k; ``nan`` when no job entered."""
    total = float(np.sum(state.weights))
    # a masked sum, not np.dot: see RunOutcome.efficiency (OpenBLAS's threads on a run's jobs)
    executed = np.asarray(state.executed, dtype=bool)
    return float(np.asarray(state.weights)[executed].sum()) / total if total > 0 else math.nan


def touch_matrix(state: RunState) -> np.ndarray:
    """The indicator I as a dense ``(agents, jobs)`` boolean array (for small examples and checks)."""
    out = np.zeros((state.agents, len(state.weights)), dtype=bool)
    out[state.touch_agent, state.touch_job] = True
    return out


def clamped_world_utility(state: RunState, agent: int) -> float:
    """G(z_eta, CL_eta) with the null clamp: ``agent``'s touches set to 0 (the second term of eq. 7).

    Clamping agent eta's row of I to zero removes from the numerator every job eta
    touched; the denominator, the weight of all jobs that entered, stays (eq. 7).
    Written from the definition, one agent at a time: the reference the vectorised
    :func:`wonderful_life` is checked against.
    """
    total = float(np.sum(state.weights))
    if total <= 0:
        return math.nan
    touched = np.zeros(len(state.weights), dtype=bool)
    touched[state.touch_job[state.touch_agent == agent]] = True
    return float(np.dot(state.weights, state.executed & ~touched)) / total


def _touched_executed_weight(state: RunState) -> np.ndarray:
    """Per agent: sum_k w_k e_k I_k^eta (each touched job once: the pairs are unique)."""
    w = np.asarray(state.weights, dtype=float)[state.touch_job] * np.asarray(state.executed)[state.touch_job]
    return np.bincount(state.touch_agent, weights=w, minlength=state.agents)


def team_game(state: RunState) -> np.ndarray:
    """TG: every agent's reward is G (eq. 6)."""
    return np.full(state.agents, world_utility(state))


def wonderful_life(state: RunState) -> np.ndarray:
    """WLU (eq. 8): G - G(clamped) = sum_k w_k e_k I_k^eta / sum_k w_k, per agent."""
    total = float(np.sum(state.weights))
    if total <= 0:
        return np.full(state.agents, math.nan)
    return _touched_executed_weight(state) / total


#: the two readings of e_k in the selfish utility: eq. 9's e_k^t, or eq. 4's e_k^{eta,t}
SU_EXECUTED = ("system", "agent")


def selfish(state: RunState, executed: str = "system") -> np.ndarray:
    """SU (eq. 9): sum_k w_k e_k I_k^eta / sum_k w_k I_k^eta; ``nan`` for an agent that touched no job.

    Parameters
    ----------
    state
        The run's state.
    executed
        ``"system"`` (eq. 9 as printed, e_k^t: job k was executed anywhere) or ``"agent"``
        (eq. 4's e_k^{eta,t}: executed *at agent eta*, i.e. at eta's server; needs
        ``state.executed_agent``). The paper writes both; see ``docs/collectives.md``.
    """
    if executed not in SU_EXECUTED:
        raise ValueError(f"executed: unknown {executed!r}; choose from {', '.join(SU_EXECUTED)}")
    weights = np.asarray(state.weights, dtype=float)
    touched_weight = np.bincount(state.touch_agent, weights=weights[state.touch_job], minlength=state.agents)
    if executed == "system":
        numerator = _touched_executed_weight(state)
    else:
        here = np.asarray(state.executed_agent)[state.touch_job] == state.touch_agent
        numerator = np.bincount(state.touch_agent, weights=weights[state.touch_job] * here, minlength=state.agents)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(touched_weight > 0, numerator / touched_weight, math.nan)


def selfish_at_agent(state: RunState) -> np.ndarray:
    """SU with eq. 4's e_k^{eta,t}: the share of the jobs eta touched that were executed at eta's server."""
    return selfish(state, "agent")


#: the private utilities by the names the scenario uses
UTILITIES: dict[str, Callable[[RunState], np.ndarray]] = {
    "tg": team_game,
    "wlu": wonderful_life,
    "su": selfish,
    "su_agent": selfish_at_agent,
}

"""Probability-vector learning of a collective (seed 004, section 3.2): eq. 3 estimates, Boltzmann choice.

Each agent keeps a training set of (run t_i, vector p_i, reward g_i). For the first
``warmup`` runs the vectors are drawn at random (data collection). After that, at the
start of each run an agent draws candidate vectors from a Gaussian about its current
vector, estimates each candidate's reward by eq. 3,

    R = sum_i g_i exp(-dT_i) exp(-dP_i) / sum_i exp(-dT_i) exp(-dP_i),
    dT_i = alpha_T (T - t_i),   dP_i = alpha_P ||P - p_i||,

and samples its new vector from a Boltzmann distribution over the estimates. All
agents are updated at once as rows of arrays.

:class:`CollectiveLearner` connects a :class:`VectorLearner` to a network: it
subscribes to the network's ``run_started`` signal (set the run's vectors on the
shipping agents) and ``run_ended`` (score the run with a private utility and record it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from schedlab.learners.utilities import UTILITIES, RunState
from schedlab.model.contracts.network import RunOutcome, random_vectors
from schedlab.model.core.fields import whole

__all__ = ["CollectiveLearner", "VectorLearner"]


class _Agents(Protocol):
    """The shipping agents a learner sets (:class:`~schedlab.policies.shipping.ShippingAgents`)."""

    mask: np.ndarray
    vectors: np.ndarray

    def set_vectors(self, vectors: np.ndarray) -> None: ...


class _Signals(Protocol):
    """The network's run signals (:class:`~schedlab.processes.network.network.ServerNetwork`)."""

    run_started: Any
    run_ended: Any


class VectorLearner:
    """Training sets and the vector choice of ``agents`` agents with masked action sets.

    Parameters
    ----------
    mask
        ``(agents, actions)`` booleans: the actions each agent has.
    runs
        How many runs the training set must hold.
    rng
        The ``exploration`` stream (random vectors, candidates, Boltzmann draws).
    warmup
        Runs with random vectors before learning starts (100 in the paper).
    candidates
        Gaussian candidates per agent and run (the current vector is a candidate too).
    sigma
        Standard deviation of the Gaussian perturbation of each probability.
    alpha_t, alpha_p
        The data-aging and distance rates of eq. 3.
    temperature
        Boltzmann temperature, in units of the spread (standard deviation) of the
        agent's recorded rewards, so one setting serves utilities of any scale.
    """

    def __init__(
        self,
        mask: np.ndarray,
        runs: int,
        rng: np.random.Generator,
        *,
        warmup: int = 100,
        candidates: int = 20,
        sigma: float = 0.1,
        alpha_t: float = 0.01,
        alpha_p: float = 5.0,
        temperature: float = 0.2,
    ) -> None:
        for name, value, low in (("runs", runs, 1), ("warmup", warmup, 0), ("candidates", candidates, 1)):
            whole(name, value, low)
        for name, rate in (("sigma", sigma), ("alpha_t", alpha_t), ("alpha_p", alpha_p)):
            if not rate >= 0:
                raise ValueError(f"{name} must be >= 0, got {rate!r}")
        if not temperature > 0:
            raise ValueError(f"temperature must be > 0, got {temperature!r}")
        self.mask = np.asarray(mask, dtype=bool)
        self.agents, self.actions = (int(n) for n in self.mask.shape)
        self.rng = rng
        self.warmup, self.candidates = int(warmup), int(candidates)
        self.sigma, self.alpha_t, self.alpha_p, self.temperature = sigma, alpha_t, alpha_p, temperature
        self.current = self.mask / self.mask.sum(axis=1, keepdims=True)
        self.data_run = np.zeros(runs)
        self.data_vectors = np.zeros((self.agents, runs, self.actions))
        self.data_rewards = np.zeros((self.agents, runs))
        self.data_valid = np.zeros((self.agents, runs), dtype=bool)
        self.size = 0

    def record(self, run: int, vectors: np.ndarray, rewards: np.ndarray) -> None:
        """Add each agent's (run, vector, reward); a ``nan`` reward (no information) is not kept."""
        if self.size >= self.data_run.size:
            raise ValueError(f"training set full: it holds {self.data_run.size} runs")
        k = self.size
        self.data_run[k] = run
        self.data_vectors[:, k] = vectors
        valid = np.isfinite(rewards)
        self.data_rewards[:, k] = np.where(valid, rewards, 0.0)
        self.data_valid[:, k] = valid
        self.size += 1

    def estimate(self, run: int, candidates: np.ndarray) -> np.ndarray:
        """Eq. 3 for ``(agents, c, actions)`` candidates: ``(agents, c)`` estimates, ``nan`` without data."""
        n = self.size
        vec, rew, ok = self.data_vectors[:, :n], self.data_rewards[:, :n], self.data_valid[:, :n]
        # ||P - p_i||^2 = |P|^2 + |p_i|^2 - 2 P.p_i: no (agents, c, n, actions) temporary
        sq = (
            (candidates**2).sum(-1)[:, :, None]
            + (vec**2).sum(-1)[:, None, :]
            - 2 * np.einsum("acd,and->acn", candidates, vec)
        )
        distance = np.sqrt(np.maximum(sq, 0.0))
        log_w = -self.alpha_t * (run - self.data_run[:n])[None, None, :] - self.alpha_p * distance
        log_w = np.where(ok[:, None, :], log_w, -np.inf)
        top = log_w.max(axis=2, keepdims=True)
        with np.errstate(invalid="ignore"):
            w = np.exp(log_w - top)  # scaled by the largest weight: the ratio of eq. 3 is unchanged
            return (w * rew[:, None, :]).sum(-1) / w.sum(-1)

    def candidates_about(self, current: np.ndarray) -> np.ndarray:
        """``(agents, 1 + candidates, actions)``: the current vectors, then Gaussian perturbations of them.

        Each probability moves by N(0, sigma^2); negatives are cut to 0 and the vector
        renormalised on the agent's actions (a candidate that vanishes is the current vector).
        """
        noise = self.rng.normal(0.0, self.sigma, (self.agents, self.candidates, self.actions))
        cand = np.maximum(current[:, None, :] + noise, 0.0) * self.mask[:, None, :]
        sums = cand.sum(-1, keepdims=True)
        cand = np.where(sums > 0, cand / np.where(sums > 0, sums, 1.0), current[:, None, :])
        return np.concatenate([current[:, None, :], cand], axis=1)

    def choose(self, run: int, candidates: np.ndarray) -> np.ndarray:
        """Sample one candidate per agent from the Boltzmann distribution over its eq. 3 estimates.

        P(c) is proportional to exp(R_c / (temperature * spread)), spread the standard
        deviation of the agent's recorded rewards (1 when it has fewer than two). An
        agent without data picks uniformly.
        """
        est = self.estimate(run, candidates)
        n = self.size
        rewards = np.where(self.data_valid[:, :n], self.data_rewards[:, :n], np.nan)
        count = self.data_valid[:, :n].sum(axis=1)
        mean = np.nansum(rewards, axis=1) / np.maximum(count, 1)
        var = np.nansum((rewards - mean[:, None]) ** 2, axis=1) / np.maximum(count, 1)
        spread = np.sqrt(var)
        spread = np.where((count > 1) & (spread > 0), spread, 1.0)
        best = np.max(np.where(np.isfinite(est), est, -np.inf), axis=1, keepdims=True)
        with np.errstate(invalid="ignore"):
            z = (est - best) / (self.temperature * spread[:, None])
        z = np.where(np.isfinite(z), z, 0.0)  # no estimate anywhere: every candidate equally likely
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        u = self.rng.random(self.agents)[:, None]
        choice = np.minimum((np.cumsum(p, axis=1) < u).sum(axis=1), p.shape[1] - 1)
        return candidates[np.arange(self.agents), choice]

    def propose(self, run: int) -> np.ndarray:
        """The vectors of run ``run``: random during warm-up, then a Boltzmann draw among candidates."""
        if run < self.warmup or self.size == 0:
            self.current = random_vectors(self.mask, self.rng)
        else:
            self.current = self.choose(run, self.candidates_about(self.current))
        return self.current


class CollectiveLearner:
    """Agents learning their vectors from a private utility: ``"wlu"``, ``"tg"`` or ``"su"``.

    Parameters
    ----------
    agents
        The network's shipping agents (:class:`~schedlab.policies.ShippingAgents`), the
        rule the network runs; the learner sets their vectors.
    utility
        ``"wlu"`` (eq. 8), ``"tg"`` (G, eq. 6), ``"su"`` (eq. 9), or a function of a
        :class:`~schedlab.model.contracts.network.RunOutcome` giving one reward per agent.
    learner
        The :class:`VectorLearner` (its mask must be ``agents.mask``).

    Notes
    -----
    Each run's rewards are recorded with the run's vectors when the run ends (the
    network's queues already cleared); the next run's vectors are chosen when it begins.
    Connect it with :meth:`subscribe` before the model runs.

    Examples
    --------
    >>> # network = ServerNetwork(env, graph, caps, r, m, agents, ...)   # the agents ship
    >>> # CollectiveLearner(agents, "wlu", learner).subscribe(network)   # the learner listens
    """

    def __init__(
        self,
        agents: _Agents,
        utility: str | Callable[[RunState], np.ndarray],
        learner: VectorLearner,
    ) -> None:
        if isinstance(utility, str) and utility not in UTILITIES:
            raise ValueError(f"utility: unknown {utility!r}; choose from {', '.join(UTILITIES)}")
        if learner.mask.shape != agents.mask.shape or (learner.mask != agents.mask).any():
            raise ValueError("learner: its mask must be the agents' action mask")
        self.utility: Callable[[RunState], np.ndarray] = UTILITIES[utility] if isinstance(utility, str) else utility
        self.agents, self.learner = agents, learner
        self.rewards: list[np.ndarray] = []

    def subscribe(self, network: _Signals) -> CollectiveLearner:
        """Listen to ``network``'s run signals; returns the learner, for chaining."""
        network.run_started.connect(self.begin_run)
        network.run_ended.connect(self.end_run)
        return self

    def begin_run(self, run: int) -> None:
        """The ``run_started`` signal: the run's vectors (random during warm-up, then learned)."""
        self.agents.set_vectors(self.learner.propose(run))

    def end_run(self, outcome: RunOutcome) -> None:
        """The ``run_ended`` signal: each agent's reward for the run, recorded with its vector."""
        rewards = np.asarray(self.utility(outcome), dtype=float)
        self.learner.record(outcome.run, self.agents.vectors, rewards)

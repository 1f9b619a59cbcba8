"""SARSA with delayed rewards over a continuous state-action space (seed 001, Algorithm 1).

At each decision the learner scores every candidate action ``a`` (a waiting job, a
pool size) in the current state ``s`` with ``Q(s, a)``, takes the best with
probability ``1 - epsilon`` and a uniformly random one otherwise, and remembers the
decision. Rewards come later and out of order: a job's reward is known when it
completes. Decision t becomes a training example once both its reward ``r_t`` and
the next decision ``(s_t+1, a_t+1)`` are known, with the SARSA target::

    y_t = Q(s_t, a_t) + eta * (r_t + gamma * Q(s_t+1, a_t+1) - Q(s_t, a_t))

(both Q as the approximator scored them when the decisions were made). Under the
semi-Markov reading (``discount_time > 0``) the discount is ``gamma ** (dt /
discount_time)``, ``dt`` the time between the two decisions: a decision followed
at once by another is not discounted as one an hour before its successor. Every
``refit_every`` new examples the approximator is re-fit on the most recent ``window``
of them: the batch re-learning of section 3.3.

A *behaviour* choice can be forced (``choose(..., forced=i)``): that is how the
learner is pre-trained on an earliest-deadline-first schedule before it acts.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from schedlab.learners.approximators import QApproximator
from schedlab.model.contracts.site import DecisionReward
from schedlab.model.core.fields import number, validate

__all__ = ["Sarsa", "SarsaConfig"]


@dataclass(frozen=True)
class SarsaConfig:
    """Settings of :class:`Sarsa` (one line of help per field; defaults from seed 001 section 4.1)."""

    #: probability of a random action (epsilon-greedy)
    epsilon: float = number(0.05, high=1)
    #: discount factor gamma
    gamma: float = number(0.8, high=1)
    #: learning rate eta of the SARSA target
    eta: float = number(0.2, high=1)
    #: new training examples between two batch re-fits of the approximator
    refit_every: int = number(50, low=1, integer=True)
    #: most recent examples a re-fit uses
    window: int = number(5000, low=1, integer=True)
    #: semi-Markov reading: discount gamma per this much elapsed time (0: gamma per decision, the paper's)
    discount_time: float = number(0.0)

    def __post_init__(self) -> None:
        validate(self)  # every field finite and in range (model/fields)


class _Decision:
    __slots__ = ("at", "discount", "next_q", "q", "reward", "z")

    def __init__(self, z: torch.Tensor, q: float, at: float = 0.0) -> None:
        self.z, self.q, self.at = z, q, at
        self.reward: float | None = None
        self.next_q: float | None = None
        self.discount = 1.0  # gamma's exponent's scale: dt / discount_time, or 1 per decision


class Sarsa:
    """An epsilon-greedy SARSA learner whose rewards arrive after later decisions.

    Parameters
    ----------
    approximator
        Q over state-action features (:mod:`schedlab.learners.approximators`).
    config
        epsilon, gamma, eta and the re-fit schedule.
    rng
        The exploration stream.

    Attributes
    ----------
    decisions
        Decisions made so far; the id :meth:`choose` returns is the decision's index.
    examples
        Training examples made so far.
    """

    def __init__(self, approximator: QApproximator, config: SarsaConfig, rng: np.random.Generator) -> None:
        self.approximator, self.config, self.rng = approximator, config, rng
        self.decisions = 0
        self.examples = 0
        self._open: dict[int, _Decision] = {}  # decisions not yet turned into examples
        self._z: deque[torch.Tensor] = deque(maxlen=config.window)
        self._y: deque[float] = deque(maxlen=config.window)
        self._since_fit = 0

    def choose(self, x: np.ndarray | torch.Tensor, forced: int | None = None, at: float = 0.0) -> tuple[int, int]:
        """Pick one of the candidate rows of ``x``; returns (row, decision id).

        ``forced`` makes the choice (a behaviour policy's), still scored and learned from.
        ``at`` is the decision's time, used by the semi-Markov discount only.
        """
        x = torch.as_tensor(x, dtype=torch.float32)
        if x.ndim != 2 or len(x) == 0:
            raise ValueError(f"choose() needs a non-empty batch of candidate rows, got shape {tuple(x.shape)}")
        z = self.approximator.features(x)
        q = self.approximator.predict(z)
        if forced is not None:
            row = int(forced)
        elif self.rng.random() < self.config.epsilon:
            row = int(self.rng.integers(len(x)))
        else:
            row = int(torch.argmax(q))
        self.approximator.commit(z[row])
        decision = self.decisions
        self.decisions += 1
        previous = self._open.get(decision - 1)
        if previous is not None:
            previous.next_q = float(q[row])
            if self.config.discount_time > 0:
                previous.discount = max(at - previous.at, 0.0) / self.config.discount_time
            self._close(decision - 1)
        self._open[decision] = _Decision(z[row].clone(), float(q[row]), float(at))
        return row, decision

    def reward(self, decision: int, r: float) -> None:
        """The reward of a decision, when it is known (a job's completion, the end of a period)."""
        if not math.isfinite(r):
            raise ValueError(f"reward of decision {decision} must be finite, got {r!r}")
        pending = self._open.get(decision)
        if pending is None:
            raise KeyError(f"decision {decision} is unknown or already rewarded")
        pending.reward = float(r)
        self._close(decision)

    def rewarded(self, event: DecisionReward) -> None:
        """A receiver for a model's reward signal (``pool.period_ended.connect(learner.rewarded)``)."""
        self.reward(event.decision, event.reward)

    def _close(self, decision: int) -> None:
        d = self._open[decision]
        if d.reward is None or d.next_q is None:
            return
        del self._open[decision]
        c = self.config
        self._z.append(d.z)
        self._y.append(d.q + c.eta * (d.reward + c.gamma**d.discount * d.next_q - d.q))
        self.examples += 1
        self._since_fit += 1
        if self._since_fit >= c.refit_every:
            self.refit()

    def refit(self) -> None:
        """Re-fit the approximator on the current window of examples."""
        self._since_fit = 0
        if self._z:
            self.approximator.fit(torch.stack(list(self._z)), torch.tensor(list(self._y), dtype=torch.float32))

    # ------------------------------------------------------------------ checkpoints
    def state_dict(self) -> dict[str, Any]:
        """Everything needed to continue exactly: weights, memory, examples, open decisions, RNG."""
        opened = sorted(self._open)
        return {
            "approximator": self.approximator.state_dict(),
            "decisions": self.decisions,
            "examples": self.examples,
            "since_fit": self._since_fit,
            "z": torch.stack(list(self._z)) if self._z else torch.empty(0),
            "y": torch.tensor(list(self._y), dtype=torch.float32),
            "open_ids": opened,
            "open_z": torch.stack([self._open[i].z for i in opened]) if opened else torch.empty(0),
            "open_q": [self._open[i].q for i in opened],
            "open_reward": [self._open[i].reward for i in opened],
            "open_next_q": [self._open[i].next_q for i in opened],
            "open_at": [self._open[i].at for i in opened],
            "open_discount": [self._open[i].discount for i in opened],
            "rng": _rng_state(self.rng),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Take over a :meth:`state_dict`: the approximator, the training window and the open decisions."""
        self.approximator.load_state_dict(state["approximator"])
        self.decisions, self.examples, self._since_fit = state["decisions"], state["examples"], state["since_fit"]
        self._z = deque(state["z"], maxlen=self.config.window) if len(state["y"]) else deque(maxlen=self.config.window)
        self._y = deque(state["y"].tolist(), maxlen=self.config.window)
        self._open = {}
        n = len(state["open_ids"])
        at, discount = state.get("open_at", [0.0] * n), state.get("open_discount", [1.0] * n)  # older checkpoints
        for k, i in enumerate(state["open_ids"]):
            d = _Decision(state["open_z"][k], state["open_q"][k], at[k])
            d.reward, d.next_q, d.discount = state["open_reward"][k], state["open_next_q"][k], discount[k]
            self._open[i] = d
        self.rng.bit_generator.state = _rng_from(state["rng"])

    def save(self, path: str) -> None:
        """Write :meth:`state_dict` to ``path`` (``torch.save``)."""
        torch.save(self.state_dict(), path)

    def load(self, path: str) -> None:
        """Load a checkpoint written by :meth:`save` (tensors and plain data only: ``weights_only``)."""
        self.load_state_dict(torch.load(path, weights_only=True))


def _rng_state(rng: np.random.Generator) -> dict[str, Any]:
    # 128-bit PCG64 words as decimal strings: a weights_only checkpoint holds plain data only
    s = rng.bit_generator.state
    return {
        "bit_generator": s["bit_generator"],
        "state": str(s["state"]["state"]),
        "inc": str(s["state"]["inc"]),
        "has_uint32": s["has_uint32"],
        "uinteger": s["uinteger"],
    }


def _rng_from(saved: dict[str, Any]) -> dict[str, Any]:
    return {
        "bit_generator": saved["bit_generator"],
        "state": {"state": int(saved["state"]), "inc": int(saved["inc"])},
        "has_uint32": saved["has_uint32"],
        "uinteger": saved["uinteger"],
    }

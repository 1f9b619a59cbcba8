"""TD(0) average-reward learning of a linear state-value function (seed 000, eqs. 4-6).

The learner keeps ``p`` (one output per basis function) and ``rho`` (the average
reward per transition). At each *update point* it moves ``p`` along the TD error
times the basis of the state the transition started from::

    delta = r - rho + V(s') - V(s)
    p    <- p + alpha_t * delta * phi(s)          (eq. 6)
    rho  <- (1 - alpha_t) * rho + alpha_t * r     (eq. 5)

``r`` is the total final utility of the jobs completed between the two update points;
it reaches the learner through a machine's completion signal (``machine.completed.
connect(learner)``). *When* the update points are is the scheduler's business: seed
000 section 3.4 samples the state after a decision, and updates only when a job was
preempted or squeezed, or when a completion or a start follows a decision point at
which preempting or squeezing was considered but not done. :meth:`decision_point`
implements that rule; :meth:`update` is the bare eq. 4-6 step.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from schedlab.model.core.fields import SANE, number, validate
from schedlab.model.records.job_record import JobRecord

__all__ = ["AverageRewardTD", "Basis", "LearningRate", "TDConfig"]


class Basis(Protocol):
    """A linear architecture's basis: ``size`` functions of a state vector."""

    @property
    def size(self) -> int:
        """How many basis functions there are."""
        ...

    def basis(self, x: Sequence[float]) -> Sequence[float]:
        """The basis functions' values at state ``x``."""
        ...

    def value(self, p: Sequence[float], x: Sequence[float]) -> float:
        """``p . basis(x)`` (an architecture may have a faster way to it)."""
        ...


@dataclass(frozen=True)
class LearningRate:
    """``alpha_t = initial * half_life / (half_life + t)``, t the number of updates made.

    ``half_life = inf`` (the default) is a constant rate. A finite one is the "1/t-like"
    schedule that meets the conditions ``sum alpha_t = inf``, ``sum alpha_t^2 < inf``
    under which TD(0) converges (seed 000 section 3.4): the rate halves after
    ``half_life`` updates.
    """

    #: alpha_0, the first update's rate
    initial: float = number(0.001, gt=0, high=1)
    #: updates after which the rate has halved; inf for a constant rate
    half_life: float = number(math.inf, gt=0, finite=False, high=None)

    def __post_init__(self) -> None:
        validate(self)  # every field finite (half_life may be inf) and in range (model/fields)

    def __call__(self, t: int) -> float:
        if math.isinf(self.half_life):
            return self.initial
        return self.initial * self.half_life / (self.half_life + t)


@dataclass(frozen=True)
class TDConfig:
    """Settings of :class:`AverageRewardTD` (one line of help per field)."""

    #: step size schedule alpha_t of eqs. 5-6
    learning_rate: LearningRate = field(default_factory=LearningRate)
    #: starting value of every rule output p^i (seed 000 starts from 0)
    initial_p: float = number(0.0, low=-SANE)
    #: starting estimate of the average reward per transition
    initial_rho: float = number(0.0, low=-SANE)

    def __post_init__(self) -> None:
        validate(self)  # initial_p and initial_rho finite, |value| <= 10**9 (model/fields)


class AverageRewardTD:
    """TD(0) with average reward over a linear architecture ``V(x) = p . phi(x)``.

    Parameters
    ----------
    basis
        The architecture's basis functions, e.g.
        :class:`~schedlab.learners.fuzzy_rulebase.FuzzyRulebase`.
    config
        Learning-rate schedule and starting values.

    Attributes
    ----------
    p
        Current parameters, one per basis function (a list of floats).
    rho
        Current average-reward estimate.
    updates
        Number of updates made.
    frozen
        When true, rewards and decision points are ignored and ``p`` stays as it is
        (evaluation of a learned value function).

    References
    ----------
    D. Vengerov, "A Reinforcement Learning Framework for Utility-Based Scheduling in
    Resource-Constrained Systems", section 3.4 (../shared/seeds/000).
    """

    def __init__(self, basis: Basis, config: TDConfig | None = None) -> None:
        self.basis_functions = basis
        self.config = config or TDConfig()
        self.p: list[float] = [float(self.config.initial_p)] * basis.size
        self.rho = float(self.config.initial_rho)
        self.updates = 0
        self.frozen = False
        self._state: list[float] | None = None  # phi of the state the open transition started from
        self._reward = 0.0  # utility of completions since that state
        self._armed = False  # a "free action" (not preempting/squeezing) awaits the next change
        self._changed = False  # a completion happened since the last decision point

    # ------------------------------------------------------------------ the value
    def value(self, x: Sequence[float]) -> float:
        """``V(x) = p . phi(x)``."""
        return self.basis_functions.value(self.p, x)

    # ------------------------------------------------------------------ the update
    def update(self, phi: Sequence[float], reward: float, phi_next: Sequence[float]) -> float:
        """One TD(0) step from basis ``phi`` of s_t to ``phi_next`` of s_t+1; returns delta.

        The TD error uses ``rho`` as it stood before this transition; ``rho`` is
        moved towards ``reward`` afterwards (eq. 5 read in that order).
        """
        alpha = self.config.learning_rate(self.updates)
        p = self.p
        v = sum(a * b for a, b in zip(p, phi, strict=True))
        v_next = sum(a * b for a, b in zip(p, phi_next, strict=True))
        delta = reward - self.rho + v_next - v
        self.p = [pi + alpha * delta * f for pi, f in zip(p, phi, strict=True)]
        self.rho = (1.0 - alpha) * self.rho + alpha * reward
        self.updates += 1
        return delta

    # ------------------------------------------------------------------ the sampling of seed 000 section 3.4
    def __call__(self, record: JobRecord) -> None:
        """Completion-signal receiver: the job's final utility joins the open transition's reward."""
        if self.frozen:
            return
        self._reward += record.utility
        self._changed = True

    def decision_point(self, x: Sequence[float], *, acted: bool, considered: bool, started: bool) -> bool:
        """Tell the learner the state ``x`` after a decision; returns whether it updated.

        Parameters
        ----------
        x
            The state observed after the decision (post-decision state).
        acted
            A job was preempted or squeezed at this decision point.
        considered
            Preempting or squeezing was considered (jobs were still waiting after the
            ordinary scheduling step) but not done.
        started
            A job was started without preemption or squeezing at this decision point.

        Notes
        -----
        An update closes the open transition at ``x`` and opens the next one there.
        Update points are the decision points where a job was preempted or squeezed,
        and the first decision point after a considered-but-not-made one at which the
        state changed by a completion or a start. The first decision point only opens
        a transition.
        """
        if self.frozen:
            return False
        changed, self._changed = self._changed or started, False
        updated = False
        if self._state is None:
            self._state = list(self.basis_functions.basis(x))
            self._reward = 0.0
        elif acted or (self._armed and changed):
            phi_next = list(self.basis_functions.basis(x))
            self.update(self._state, self._reward, phi_next)
            self._state, self._reward, self._armed = phi_next, 0.0, False
            updated = True
        if considered and not acted:
            self._armed = True
        return updated

    def __repr__(self) -> str:
        p = ", ".join(f"{v:.3g}" for v in self.p)
        return f"AverageRewardTD(p=[{p}], rho={self.rho:.4g}, updates={self.updates})"

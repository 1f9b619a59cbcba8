"""An elastic pool of cores whose size a rule chooses every period (seed 001, elastic MDP).

Every ``period`` the pool's size is chosen among ``sizes``: never below ``floor`` and
never below the cores running jobs use (a running job is never cut). The choice is a
SARSA decision over (site state, pool size) rows; its reward, known at the end of
the period, is ``R_e = lambda W + (1 - lambda) U``:

- ``W``: mean responsiveness of the jobs that completed in the period (if none did,
  the responsiveness the waiting jobs would have if started now; 1 if none waits);
- ``U``: the period's utilization, busy core-time over provisioned core-time, both
  exact integrals from the machine (eq. 3 taken over the period the decision governs).

Until ``pretrain`` periods have passed the size follows the demand (the smallest size
that holds the busy cores plus the queued jobs' cores), and the learner learns from
that behaviour before it chooses.

The pool calls only its sizing rule's decision hook, ``choose(rows, forced=...)``; the
reward reaches a learner through the pool's ``period_ended`` signal
(``pool.period_ended.connect(learner.rewarded)``), as completions reach learners
through a machine's ``completed``.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence

import numpy as np
import simpy

from schedlab.model.analysis.estimates import RuntimeEstimate
from schedlab.model.analysis.fair_share import responsiveness_utility
from schedlab.model.contracts.site import DecisionReward, SiteFeatures
from schedlab.model.records.job_record import JobRecord
from schedlab.processes.machine.machine import Machine
from schedlab.processes.signal import Signal

__all__ = ["ElasticPool"]


class ElasticPool:
    """Resize ``machine`` every ``period`` as ``sizer`` chooses.

    Parameters
    ----------
    env, machine
        The environment and the machine whose pool is elastic (its ``max_capacity`` is
        the largest pool).
    sizer
        The sizing rule: ``sizer.choose(rows, forced=...) -> (row, decision)`` over rows of
        ``features.state_size + 1`` (the state, then the size over ``max_capacity``),
        e.g. a :class:`~schedlab.learners.sarsa.Sarsa`, which also subscribes to
        :attr:`period_ended` for its rewards.
    features, estimate
        How the site is described, and the execution times the supervisor believes.
    sizes
        Candidate pool sizes (each <= ``max_capacity``; ``max_capacity`` is always a candidate).
    period
        Time between two decisions (seed 001: 15 minutes).
    floor
        The fewest cores the pool may have (seed 001: 30).
    weight
        ``lambda_e``: weight of responsiveness against utilization, in [0, 1].
    pretrain
        Periods sized by demand (and learned from) before the learner chooses.

    Attributes
    ----------
    history
        ``(time, size)`` of every decision, for plots and checks.
    period_ended
        Signal: a :class:`~schedlab.model.contracts.site.DecisionReward` at each period's end
        (the decision that sized the period, and ``R_e``).
    """

    def __init__(
        self,
        env: simpy.Environment,
        machine: Machine,
        sizer,
        features: SiteFeatures,
        estimate: RuntimeEstimate,
        *,
        sizes: Sequence[int],
        period: float = 900.0,
        floor: int = 30,
        weight: float = 0.5,
        pretrain: int = 20,
    ) -> None:
        if not period > 0:
            raise ValueError(f"elastic pool: period must be > 0, got {period!r}")
        if not 1 <= floor <= machine.max_capacity:
            raise ValueError(f"elastic pool: floor must be in 1..{machine.max_capacity}, got {floor!r}")
        if not 0.0 <= weight <= 1.0:
            raise ValueError(f"elastic pool: lambda must be in [0, 1], got {weight!r}")
        bad = [s for s in sizes if not 1 <= s <= machine.max_capacity]
        if bad:
            raise ValueError(f"elastic pool: sizes {bad} outside 1..{machine.max_capacity}")
        self.env, self.machine, self.sizer = env, machine, sizer
        self.period_ended: Signal[DecisionReward] = Signal()
        self.features, self.estimate = features, estimate
        self.sizes = sorted({max(int(s), floor) for s in sizes} | {machine.max_capacity})
        self.period, self.floor, self.weight, self.pretrain = period, floor, weight, pretrain
        self.history: list[tuple[float, int]] = []
        self._completed: list[JobRecord] = []
        machine.completed.connect(self._completed.append)
        self.process = env.process(self._run())

    def _reward(self, busy0: float, provisioned0: float) -> float:
        m = self.machine
        provisioned = m.capacity_time() - provisioned0
        # busy <= provisioned exactly; the two integrals' float rounding can say 1 + 4e-16
        u = min(1.0, (m.busy_time() - busy0) / provisioned) if provisioned > 0 else 0.0
        if self._completed:
            w = float(np.mean([responsiveness_utility(r.service, r.wait) for r in self._completed]))
        elif m.waiting:
            now = self.env.now
            w = float(np.mean([responsiveness_utility(self.estimate.estimate(j), now - j.submit) for j in m.waiting]))
        else:
            w = 1.0
        self._completed.clear()
        return self.weight * w + (1.0 - self.weight) * u

    def _by_demand(self, candidates: Sequence[int]) -> int:
        need = self.machine.busy + sum(j.cpus for j in self.machine.waiting)
        return next((i for i, s in enumerate(candidates) if s >= need), len(candidates) - 1)

    def _run(self) -> Generator[simpy.Event, None, None]:
        m = self.machine
        decision = None
        while True:
            busy0, provisioned0 = m.busy_time(), m.capacity_time()
            floor = max(self.floor, m.busy)
            candidates = [s for s in self.sizes if s >= floor]
            state = self.features.state(m.view, self.estimate)
            rows = np.hstack(
                [
                    np.broadcast_to(state, (len(candidates), len(state))),
                    np.array(candidates, dtype=float)[:, None] / m.max_capacity,
                ]
            )
            forced = self._by_demand(candidates) if len(self.history) < self.pretrain else None
            row, decision = self.sizer.choose(rows, forced=forced)
            m.set_capacity(candidates[row])
            self.history.append((self.env.now, candidates[row]))
            yield self.env.timeout(self.period)
            self.period_ended.emit(DecisionReward(decision, self._reward(busy0, provisioned0)))

    def mean_size(self, start: float, end: float) -> float:
        """Time-weighted mean pool size over ``[start, end)``."""
        times = [t for t, _ in self.history] + [end]
        total = 0.0
        for (t, size), t_next in zip(self.history, times[1:], strict=True):
            lo, hi = max(t, start), min(t_next, end)
            if hi > lo:
                total += size * (hi - lo)
        return total / (end - start) if end > start else float("nan")

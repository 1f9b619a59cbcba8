"""DeepRM job sequences (seed 002, after Mao et al.): short and long jobs, one dominant resource, Bernoulli arrivals.

Jobs are drawn as in Mao et al. (HotNets 2016), section 4: 80% of jobs are short
(1 to 3 time steps), the rest long (10 to 15); each job has a dominant resource,
drawn at random, whose demand is uniform in [0.25, 0.5] of that resource's capacity,
and a demand uniform in [0.05, 0.1] of the capacity of every other resource. Demands
are whole units of capacity (a resource of capacity 20 is 20 cells wide in the
image), so the ranges are rounded inwards: ``ceil(0.25 C) .. floor(0.5 C)``.

Arrivals are Bernoulli: in each time step, each of ``trials`` independent trials
brings a job with probability ``p``. One trial per step cannot reach DeepRM's
loads above ~90% with these job sizes (a job carries 0.92 step-capacities of work on
average), so several trials share the step; ``p`` is solved from the target load.

References
----------
H. Mao, M. Alizadeh, I. Menache, S. Kandula, "Resource management with deep
reinforcement learning", HotNets 2016.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from schedlab.model.core.fields import is_int, items, number, validate
from schedlab.model.core.job import Job

__all__ = ["DeepRMJobs"]


def _range(lo: float, hi: float, capacity: int, what: str) -> tuple[int, int]:
    a, b = math.ceil(lo * capacity - 1e-9), math.floor(hi * capacity + 1e-9)
    if a < 1 or b < a:
        raise ValueError(
            f"a capacity of {capacity} has no whole-unit {what} demand in [{lo}, {hi}] of it; use a capacity >= "
            f"{math.ceil(1 / max(hi - lo, 1e-9))} (20 is DeepRM's scale)"
        )
    return a, b


@dataclass(frozen=True)
class DeepRMJobs:
    """The DeepRM job distribution over named resources of whole-unit capacities.

    Parameters
    ----------
    capacities
        Capacity of each resource, in units; the first is the machine's CPUs.
    short_share
        Fraction of short jobs.
    short_len, long_len
        Inclusive ranges of the short and long jobs' lengths, in time steps.
    dominant, other
        Demand of the dominant resource and of the others, as fractions of capacity.
    trials
        Bernoulli trials per time step (the most jobs one step can bring).
    """

    capacities: Mapping[str, int]
    short_share: float = number(0.8, high=1)
    short_len: tuple[int, int] = items((1, 3), low=1)
    long_len: tuple[int, int] = items((10, 15), low=1)
    dominant: tuple[float, float] = items((0.25, 0.5), high=1)
    other: tuple[float, float] = items((0.05, 0.1), high=1)
    trials: int = number(3, low=1, integer=True)

    def __post_init__(self) -> None:
        validate(self)  # every number finite and in range (model/fields); the rules below relate them
        if not self.capacities:
            raise ValueError("capacities: need at least one resource")
        for name, cap in self.capacities.items():
            if not is_int(cap, 1):
                raise ValueError(f"capacity of {name!r} must be a whole number > 0, got {cap!r}")
        for what, (lo, hi) in (("short_len", self.short_len), ("long_len", self.long_len)):
            if not (isinstance(lo, int) and isinstance(hi, int) and 1 <= lo <= hi):
                raise ValueError(f"{what} must be whole numbers 1 <= lo <= hi, got {(lo, hi)!r}")
        for cap in self.capacities.values():
            _range(*self.dominant, int(cap), "dominant")
            if len(self.capacities) > 1:
                _range(*self.other, int(cap), "non-dominant")

    @property
    def max_len(self) -> int:
        """The longest job this distribution makes."""
        return max(self.long_len[1], self.short_len[1]) if self.short_share < 1 else self.short_len[1]

    def mean_load_per_job(self) -> float:
        """Expected work of one job, in step-capacities, averaged over resources.

        ``E[len] * E[demand / capacity]``: length and demands are drawn independently.
        """
        mean_len = self.short_share * sum(self.short_len) / 2 + (1 - self.short_share) * sum(self.long_len) / 2
        d = len(self.capacities)
        fractions = []
        for cap in self.capacities.values():
            dom = sum(_range(*self.dominant, int(cap), "dominant")) / 2 / cap
            oth = sum(_range(*self.other, int(cap), "other")) / 2 / cap if d > 1 else 0.0
            # each resource is dominant for 1/d of the jobs
            fractions.append(dom / d + oth * (d - 1) / d)
        return mean_len * float(np.mean(fractions))

    def rate(self, load: float) -> float:
        """Probability ``p`` of a job per trial for an expected cluster load ``load``."""
        if not (load > 0 and math.isfinite(load)):
            raise ValueError(f"load must be finite and > 0, got {load!r}")
        p = load / (self.trials * self.mean_load_per_job())
        if p > 1:
            top = self.trials * self.mean_load_per_job()
            raise ValueError(
                f"load {load} needs p = {p:.3g} > 1 with trials={self.trials} (at most {top:.3g}); raise trials"
            )
        return p

    def sample(self, load: float, steps: int, rng: np.random.Generator, *, first_id: int = 0) -> list[Job]:
        """Jobs arriving in time steps ``0 .. steps - 1`` at ``load``, in submission order.

        All draws come from ``rng``: the counts per step, then per job its class,
        length, dominant resource and demands, in blocks.
        """
        if steps < 1:
            raise ValueError(f"steps must be >= 1, got {steps!r}")
        p = self.rate(load)
        counts = rng.binomial(self.trials, p, size=steps)
        n = int(counts.sum())
        submits = np.repeat(np.arange(steps), counts)
        short = rng.random(n) < self.short_share
        lens = np.where(
            short,
            rng.integers(self.short_len[0], self.short_len[1] + 1, size=n),
            rng.integers(self.long_len[0], self.long_len[1] + 1, size=n),
        )
        names = list(self.capacities)
        d = len(names)
        dominant = rng.integers(0, d, size=n)
        demand = np.empty((n, d), dtype=np.int64)
        for r, name in enumerate(names):
            cap = int(self.capacities[name])
            dom_lo, dom_hi = _range(*self.dominant, cap, "dominant")
            big = rng.integers(dom_lo, dom_hi + 1, size=n)
            if d > 1:
                oth_lo, oth_hi = _range(*self.other, cap, "other")
                small = rng.integers(oth_lo, oth_hi + 1, size=n)
                demand[:, r] = np.where(dominant == r, big, small)
            else:
                demand[:, r] = big
        return [
            Job(
                id=first_id + i,
                submit=float(submits[i]),
                runtime=float(lens[i]),
                cpus=int(demand[i, 0]),
                demands={name: float(demand[i, r]) for r, name in enumerate(names[1:], start=1)},
                job_class="short" if short[i] else "long",
            )
            for i in range(n)
        ]

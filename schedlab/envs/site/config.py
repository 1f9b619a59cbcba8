"""What a site-supervisor episode is: :class:`SiteEnvConfig`, checked when the environment is made.

The synthetic feasible workload of seed 001 section 5.1: M/M/P at ``rho`` with
``P = 50`` single-core jobs, a share of interactive jobs (execution under 15 minutes),
four VOs whose shares of the jobs are also their fair-share targets. Each episode's
jobs are drawn from the ``arrivals`` stream of the episode's seed
(:class:`~schedlab.model.core.streams.Streams`), so episode ``k`` is the same jobs in the
environment, in a scenario and in a benchmark.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from schedlab.model.contracts.site import synthetic_site_jobs
from schedlab.model.core.fields import number, validate
from schedlab.model.core.job import Job
from schedlab.model.core.streams import Streams

__all__ = ["REWARDS", "VOS", "SiteEnvConfig"]

#: the VOs of seed 001's synthetic workload, in the order of their shares
VOS = ("vo1", "vo2", "vo3", "vo4")

#: ``paper``: seed 001's ``lambda W + (1 - lambda) F`` per election; ``overhead``: its text's target, the
#: relative overhead (bounded by the two minutes it calls acceptable), with the same fairness term
REWARDS = ("paper", "overhead")


def _shares(name: str, value: Any) -> tuple[float, ...]:
    """``value`` as four shares >= 0 summing to 1 (a list from ``--set`` too), or a one-line error naming ``name``."""
    try:
        shares = tuple(float(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be {len(VOS)} shares, got {value!r}") from None
    ok = len(shares) == len(VOS) and all(math.isfinite(s) and s >= 0 for s in shares)
    if not ok or abs(math.fsum(shares) - 1.0) > 1e-9:
        raise ValueError(f"{name} must be {len(VOS)} shares >= 0 summing to 1, got {value!r}")
    return shares


@dataclass(frozen=True)
class SiteEnvConfig:
    """The site supervisor's episode: the workload, the site, the reward and what the agent sees."""

    cores: int = number(50, low=1, integer=True, help="cores P of the site")
    rho: float = number(0.99, gt=0, lt=1, help="utilization factor lambda / (mu P) of the M/M/P workload")
    jobs: int = number(1500, low=2, integer=True, help="jobs per episode (seed 001: 6000; 1500 keeps training small)")
    interactive: float = number(0.2, gt=0, lt=1, help="share of interactive jobs (execution under 15 minutes)")
    vo_shares: tuple[float, ...] = (0.7, 0.2, 0.05, 0.05)  # each VO's share of the jobs (seed 001 section 5.1)
    targets: tuple[float, ...] = (0.7, 0.2, 0.05, 0.05)  # fair-share targets (feasible: the jobs' shares)
    reward: str = "paper"  # "paper" or "overhead" (REWARDS; the environment's notes)
    weight: float = number(0.5, high=1, help="lambda_s: the weight of responsiveness against fairness in the reward")
    acceptable_delay: float = number(120.0, gt=0, help="overhead reward: the wait (s) every job may have (2 minutes)")
    per_group: int = number(1, low=1, high=64, integer=True, help="candidates per (class, VO): its oldest jobs")
    waited: bool = False  # also show each candidate's wait so far (seed 001's action has no wait: off)
    time_scale: float = number(3600.0, gt=0, help="times are shown as log1p(t / time_scale)")

    def __post_init__(self) -> None:
        validate(self)  # every number finite and in range, one line naming the field
        object.__setattr__(self, "vo_shares", _shares("vo_shares", self.vo_shares))
        object.__setattr__(self, "targets", _shares("targets", self.targets))
        if self.reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {self.reward!r}")
        if not isinstance(self.waited, bool):
            raise ValueError(f"waited must be true or false, got {self.waited!r}")

    def episode_jobs(self, seed: int) -> list[Job]:
        """Episode ``seed``'s jobs: Table 1's workload from the ``arrivals`` stream of ``Streams(seed)``."""
        shares = dict(zip(VOS, self.vo_shares, strict=True))
        return synthetic_site_jobs(self.cores, self.rho, self.jobs, self.interactive, shares, Streams(seed)["arrivals"])

    def fair_targets(self) -> dict[str, float]:
        """Each VO's fair-share target."""
        return dict(zip(VOS, self.targets, strict=True))

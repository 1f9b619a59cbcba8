"""Synthetic workloads: iterators of :class:`~schedlab.model.core.job.Job`, finite or infinite.

A workload is any iterable of jobs in submission order. The generators here draw
arrival gaps, classes, groups, runtimes and CPU counts in blocks from one
``numpy.random.Generator``; given the same seed they give the same jobs whatever
consumes them, and they are lazy, so an infinite workload costs only what is read.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from schedlab.model.core.distributions import Distribution, as_distribution
from schedlab.model.core.fields import is_whole
from schedlab.model.core.job import Job, frozen_demands, trusted_job
from schedlab.model.core.utility import TimeUtility

__all__ = ["JobClass", "PoissonJobs", "WorkloadError", "as_generator", "poisson_workload"]

#: jobs drawn per block; part of the stream's definition (changing it changes draws)
BLOCK = 1024

#: the demands of a workload's jobs (CPUs only): the one shared empty mapping
NO_DEMANDS = frozen_demands(None)

UtilityFactory = Callable[[float], TimeUtility]


class WorkloadError(ValueError):
    """A workload was described with an impossible parameter."""


def as_generator(seed: int | np.random.Generator | np.random.SeedSequence | None) -> np.random.Generator:
    """A Generator from an int, a SeedSequence or a Generator (passed through), as NetworkX's ``seed=``.

    ``None`` draws fresh OS entropy: fine for exploring, never for an experiment.
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.SeedSequence):
        return np.random.Generator(np.random.PCG64(seed))
    if isinstance(seed, int | np.integer) and not isinstance(seed, bool) and seed < 0:
        raise ValueError(f"seed must be a whole number >= 0, a SeedSequence, a Generator or None, got {seed!r}")
    if seed is None or (isinstance(seed, int | np.integer) and not isinstance(seed, bool)):
        return np.random.default_rng(seed)
    raise TypeError(f"seed must be an int, a SeedSequence, a Generator or None, got {seed!r}")


@dataclass(frozen=True)
class JobClass:
    """One class of a class mix: its share of arrivals and its size distributions.

    Parameters
    ----------
    name
        The label records carry (``job_class``).
    share
        Relative frequency among arrivals (shares are normalised).
    runtime
        Distribution (or fixed value) of the ideal runtime.
    cpus
        Distribution (or fixed value) of requested CPUs; rounded, at least 1.
    """

    name: str
    share: float
    runtime: Distribution | float
    cpus: Distribution | float = 1

    def __post_init__(self) -> None:
        if not (math.isfinite(self.share) and self.share >= 0):
            raise WorkloadError(f"JobClass {self.name!r}: share must be finite and >= 0, got {self.share!r}")


def _probabilities(weights: Sequence[float], what: str) -> np.ndarray:
    p = np.asarray(weights, dtype=float)
    if p.size == 0 or np.any(~np.isfinite(p)) or np.any(p < 0) or p.sum() <= 0:
        raise WorkloadError(f"{what} must be finite, >= 0 and not all zero, got {list(weights)!r}")
    return p / p.sum()


def poisson_workload(
    rate: float,
    runtime: Distribution | float = 1.0,
    cpus: Distribution | float = 1,
    *,
    count: int | None = None,
    until: float | None = None,
    classes: Sequence[JobClass] | None = None,
    groups: Mapping[str, float] | None = None,
    utility: UtilityFactory | None = None,
    start: float = 0.0,
    first_id: int = 0,
    seed: int | np.random.Generator | np.random.SeedSequence | None = None,
) -> Iterator[Job]:
    """Jobs arriving as a Poisson process of the given ``rate``.

    Parameters
    ----------
    rate
        Arrivals per unit of time (> 0).
    runtime, cpus
        Size distributions (or fixed values) when no ``classes`` are given.
    count
        Stop after this many jobs; ``None`` for no limit.
    until
        Stop before the first arrival after this time; ``None`` for no limit.
    classes
        A class mix: each job's class is drawn by ``share``, then its sizes from
        that class's distributions (``runtime`` and ``cpus`` are then ignored).
    groups
        Group (VO) name -> share; each job's group is drawn by share.
    utility
        Makes each job's time-utility function from its runtime, e.g.
        ``LinearDecay`` or ``LinearDecay.concave``.
    start
        Time origin: the first arrival is one exponential gap after it.
    first_id
        Id of the first job; ids count up from it.
    seed
        An int, SeedSequence or Generator (see :func:`as_generator`).

    Yields
    ------
    Job
        In submission order, ids consecutive.

    Notes
    -----
    Per block of :data:`BLOCK` jobs the draws are made in a fixed order (gaps,
    classes, groups, then each class's runtimes and CPUs), so the jobs depend only on
    the seed and the parameters, never on how many jobs a consumer reads. With no
    ``count`` and no ``until`` the iterator never ends: give the simulation an end.
    """
    if isinstance(rate, bool) or not isinstance(rate, numbers.Real) or not (math.isfinite(rate) and rate > 0):
        raise WorkloadError(f"arrival rate must be a finite number > 0, got {rate!r}")
    rate = float(rate)
    if count is not None and not is_whole(count, 0):
        raise WorkloadError(f"count must be a whole number >= 0, got {count!r}")
    mix = list(classes) if classes else [JobClass("", 1.0, runtime, cpus)]
    class_p = _probabilities([c.share for c in mix], "class shares")
    runtimes = [as_distribution(c.runtime) for c in mix]
    cpu_dists = [as_distribution(c.cpus) for c in mix]
    group_names = list(groups) if groups else [""]
    group_p = _probabilities(list(groups.values()), "group shares") if groups else np.ones(1)
    rng = as_generator(seed)
    return _generate(
        rate, mix, class_p, runtimes, cpu_dists, group_names, group_p, utility, count, until, start, first_id, rng
    )


def _generate(
    rate: float,
    mix: list[JobClass],
    class_p: np.ndarray,
    runtimes: list[Distribution],
    cpu_dists: list[Distribution],
    group_names: list[str],
    group_p: np.ndarray,
    utility: UtilityFactory | None,
    count: int | None,
    until: float | None,
    clock: float,
    next_id: int,
    rng: np.random.Generator,
) -> Iterator[Job]:
    made = 0
    many_classes, many_groups = len(mix) > 1, len(group_names) > 1
    names = [c.name for c in mix]
    while count is None or made < count:
        gaps = rng.exponential(1.0 / rate, BLOCK)
        kinds = rng.choice(len(mix), BLOCK, p=class_p) if many_classes else np.zeros(BLOCK, int)
        grps = rng.choice(len(group_names), BLOCK, p=group_p) if many_groups else np.zeros(BLOCK, int)
        # One tolist() per block gives the same Python floats and ints as converting
        # numpy scalars job by job, at a fraction of the cost per job.
        drawn = [np.asarray(d.draw(rng, BLOCK), dtype=float) for d in runtimes]
        wide = [np.maximum(1, np.rint(d.draw(rng, BLOCK))).astype(int) for d in cpu_dists]
        times = clock + np.cumsum(gaps)
        # Job's checks for the whole block at once (a job made per arrival is on the engine's
        # hot path); a block with a value they refuse, even one no job takes, is made job by
        # job with Job's own checks, which name the job and the value.
        checked = bool(
            np.all((times >= 0) & (times < math.inf))
            and all(np.all((s > 0) & (s < math.inf)) for s in drawn)
            and all(np.all(w >= 1) for w in wide)
        )
        sizes, widths = [s.tolist() for s in drawn], [w.tolist() for w in wide]
        block = zip(times.tolist(), kinds.tolist(), grps.tolist(), strict=True)
        for i, (t, k, g) in enumerate(block):
            if (count is not None and made >= count) or (until is not None and t > until):
                return
            run = sizes[k][i]
            tuf = utility(run) if utility is not None else None
            job = trusted_job(next_id, t, run, widths[k][i], NO_DEMANDS, None, names[k], group_names[g], 1.0, tuf)
            if not checked:
                job._check()
            yield job
            next_id += 1
            made += 1
        clock = float(times[-1])


class PoissonJobs:
    """Poisson(``rate``) jobs per agent per step, lengths uniform in ``[low, high]``: a grid's job source.

    It is a :class:`~schedlab.model.contracts.grid.JobSource` (seed 003's workload).

    Counts come from the ``arrivals`` Generator, lengths from ``lengths``, all agents
    of a step in one draw each, so every policy sees the same jobs for the same seeds.
    """

    def __init__(
        self, rate: float, low: float, high: float, arrivals: np.random.Generator, lengths: np.random.Generator
    ) -> None:
        if not (math.isfinite(rate) and rate >= 0):
            raise ValueError(f"arrival rate xi must be finite and >= 0, got {rate!r}")
        if not (math.isfinite(low) and low > 0):
            raise ValueError(f"job length range: Jmin must be finite and > 0, got {low!r}")
        if not (math.isfinite(high) and high >= low):
            raise ValueError(f"job length range [Jmin, Jmax] = [{low!r}, {high!r}] is empty")
        self.rate, self.low, self.high = float(rate), float(low), float(high)
        self._arrivals, self._lengths = arrivals, lengths

    #: every length is a float in [low, high], bounds checked finite and > 0 above (see JobSource)
    lengths_checked = True

    @property
    def mean_length(self) -> float:
        """The mean job length, ``(low + high) / 2``: the J_av of the system load."""
        return (self.low + self.high) / 2

    def lengths(self, step: int, agents: int) -> list[list[float]]:
        """Step ``step``'s new jobs, per agent: a Poisson count each, uniform lengths in ``[low, high)``."""
        counts = self._arrivals.poisson(self.rate, agents).tolist()
        drawn = self._lengths.uniform(self.low, self.high, sum(counts)).tolist()
        out, k = [], 0
        for c in counts:  # plain slices: np.split into N arrays costs more than the whole step's draws
            out.append(drawn[k : k + c])
            k += c
        return out

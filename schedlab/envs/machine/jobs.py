"""Job sequences for :class:`~schedlab.envs.machine.env.MachineEnv`: one drawn per episode.

A workload for the environment is any callable ``jobs(rng) -> list[Job]`` that draws
a finite job sequence, in submission order, from the episode's Generator. Two are
provided:

- :class:`SyntheticJobs`: Poisson arrivals at a given load of a machine of ``cpus``
  CPUs, exponential runtimes, uniform widths, user estimates that overestimate;
- :class:`LogWindows`: a window of consecutive jobs of a real SWF log, its start
  drawn at random per episode, its clock shifted so the window's first job arrives at 0.

Both say which machine they are meant for (``cpus``) and a typical runtime
(``time_scale``); the environment takes these as defaults.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from schedlab.model.core.distributions import Exponential, UniformInt
from schedlab.model.core.fields import is_int
from schedlab.model.core.job import Job
from schedlab.model.core.workloads import poisson_workload
from schedlab.model.formats.swf.reader import read_swf

__all__ = ["LogWindows", "SyntheticJobs"]


@dataclass(frozen=True)
class SyntheticJobs:
    """``count`` jobs arriving as a Poisson process that loads ``cpus`` CPUs to ``load``.

    Parameters
    ----------
    count
        Jobs per episode.
    load
        Offered load: arrival rate x mean runtime x mean width / ``cpus``.
    cpus
        CPUs of the machine the load is meant for.
    mean_runtime
        Mean of the exponential runtimes.
    max_width
        Widths are uniform on ``1..max_width`` CPUs.
    overestimate
        Each user estimate is the runtime times a factor uniform on ``[1, overestimate]``
        (1: exact estimates).
    """

    count: int = 64
    load: float = 0.9
    cpus: int = 16
    mean_runtime: float = 10.0
    max_width: int = 8
    overestimate: float = 3.0

    def __post_init__(self) -> None:
        for key in ("count", "cpus", "max_width"):
            value = getattr(self, key)
            if not is_int(value, 1):
                raise ValueError(f"SyntheticJobs: {key} must be a whole number >= 1, got {value!r}")
        if self.max_width > self.cpus:
            raise ValueError(f"SyntheticJobs: max_width={self.max_width} is more than cpus={self.cpus}")
        for key in ("load", "mean_runtime"):
            value = getattr(self, key)
            if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
                raise ValueError(f"SyntheticJobs: {key} must be a finite number > 0, got {value!r}")
        if not (isinstance(self.overestimate, int | float) and 1 <= self.overestimate < math.inf):
            raise ValueError(f"SyntheticJobs: overestimate must be a finite number >= 1, got {self.overestimate!r}")

    @property
    def time_scale(self) -> float:
        """The time scale of observations: the mean run time, so times read in multiples of it."""
        return float(self.mean_runtime)

    def __call__(self, rng: np.random.Generator) -> list[Job]:
        rate = self.load * self.cpus / (self.mean_runtime * (1 + self.max_width) / 2)
        jobs = list(
            poisson_workload(
                rate, Exponential(self.mean_runtime), UniformInt(1, self.max_width), count=self.count, seed=rng
            )
        )
        factors = rng.uniform(1.0, self.overestimate, len(jobs))
        return [replace(job, estimate=job.runtime * float(f)) for job, f in zip(jobs, factors, strict=True)]


@lru_cache(maxsize=4)
def _log_jobs(path: str) -> tuple[tuple[Job, ...], int]:
    """The cleaned jobs of an SWF log and its CPUs, read once per process."""
    log = read_swf(path, nodes_as_procs=True)  # as schedlab replay reads the Lublin model's MaxNodes-only logs
    return tuple(log.jobs()), log.machine_procs


@dataclass(frozen=True)
class LogWindows:
    """Windows of ``length`` consecutive jobs of an SWF log, one drawn at random per episode.

    Jobs are the log's cleaned ones (:func:`schedlab.model.formats.swf.reader.read_swf`'s defaults:
    jobs wider than the machine, with no runtime or no CPUs, are dropped and
    counted there). The window's submit times are shifted so that its first job
    arrives at time 0; ids, runtimes, estimates and widths are the log's.

    Parameters
    ----------
    path
        The SWF file (plain or gzip).
    length
        Jobs per window (per episode).
    span
        The part of the log windows are drawn from, as fractions of its jobs by position:
        ``(0, 0.75)`` keeps every window within the first three quarters (a training
        part, the rest left for testing), ``(0.75, 1)`` within the last quarter. The
        part runs from job ``int(n * lo)`` to job ``int(n * hi)``, excluded.
    """

    path: str | os.PathLike[str]
    length: int = 128
    span: tuple[float, float] = (0.0, 1.0)

    def __post_init__(self) -> None:
        if not is_int(self.length, 1):
            raise ValueError(f"LogWindows: length must be a whole number >= 1, got {self.length!r}")
        lo, hi = self.span
        if not 0 <= lo < hi <= 1:
            raise ValueError(f"LogWindows: span must be (lo, hi) with 0 <= lo < hi <= 1, got {self.span!r}")
        if not os.path.isfile(self.path):
            raise FileNotFoundError(f"LogWindows: no SWF file at {os.fspath(self.path)!r}")
        first, end = self.part
        if self.length > end - first:
            part = "" if self.span == (0.0, 1.0) else f" in span={self.span!r} ({end - first} jobs)"
            raise ValueError(
                f"LogWindows: length={self.length} is more than the {len(self._loaded[0])} jobs of {self.path}{part}"
            )

    @property
    def part(self) -> tuple[int, int]:
        """The positions windows are drawn from: the first job, and the one after the last."""
        n = len(self._loaded[0])
        return int(n * self.span[0]), int(n * self.span[1])

    @property
    def _loaded(self) -> tuple[tuple[Job, ...], int]:
        return _log_jobs(os.fspath(self.path))

    @property
    def cpus(self) -> int:
        """CPUs of the log's machine (MaxProcs, or MaxNodes where that is all it gives)."""
        return self._loaded[1]

    @property
    def time_scale(self) -> float:
        """Median runtime of the log's jobs."""
        return float(np.median([job.runtime for job in self._loaded[0]]))

    def __call__(self, rng: np.random.Generator) -> list[Job]:
        jobs = self._loaded[0]
        first, end = self.part
        # the whole log (span (0, 1)) draws as before spans were added: the same windows from the same seeds
        lo = int(rng.integers(end - self.length + 1)) if first == 0 else int(rng.integers(first, end - self.length + 1))
        window = jobs[lo : lo + self.length]
        origin = window[0].submit
        return [replace(job, submit=job.submit - origin) for job in window]

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

import numpy as np

from schedlab.model.core.distributions import Exponential, UniformInt
from schedlab.model.core.fields import is_int
from schedlab.model.core.job import Job
from schedlab.model.core.workloads import poisson_workload
from schedlab.model.formats.logs import LoadedLog, load_log

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


@dataclass(frozen=True)
class LogWindows:
    """Windows of ``length`` consecutive jobs of an SWF log, one drawn at random per episode.

    Jobs are the log as :func:`schedlab.model.formats.logs.load_log` reads it for a replay:
    cleaned (jobs wider than the machine, with no runtime or no CPUs, are dropped and
    counted in its report), in submit order, and without memory requests, since the
    machine models CPUs (HPC2N's would otherwise never fit). The window's submit times
    are shifted so that its first job arrives at time 0; ids, runtimes, estimates and
    widths are the log's. :meth:`draw_start` and :meth:`at` split a draw in two, for a
    caller that records where each window starts.

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
            where = "" if self.span == (0.0, 1.0) else f" in span={self.span!r}"
            raise ValueError(
                f"LogWindows: length={self.length} is more than the {end - first} jobs of {self.path}{where}. "
                f"Reading it: {self._loaded.report}".replace("\n  ", "; ")
            )

    @property
    def part(self) -> tuple[int, int]:
        """The positions windows are drawn from: the first job, and the one after the last."""
        n = len(self._loaded.jobs)
        return int(n * self.span[0]), int(n * self.span[1])

    @property
    def _loaded(self) -> LoadedLog:
        return load_log(os.fspath(self.path))  # read once per process (load_log caches)

    @property
    def jobs(self) -> tuple[Job, ...]:
        """The jobs of the part windows are drawn from, in submit order."""
        first, end = self.part
        return self._loaded.jobs[first:end]

    @property
    def cpus(self) -> int:
        """CPUs of the log's machine (MaxProcs, or MaxNodes where that is all it gives)."""
        return self._loaded.cpus

    @property
    def time_scale(self) -> float:
        """Median runtime of the log's jobs (all of them, whatever the span)."""
        return float(np.median([job.runtime for job in self._loaded.jobs]))

    def draw_start(self, rng: np.random.Generator) -> int:
        """The position of a window's first job, uniform over the windows that fit in the part."""
        first, end = self.part
        return int(rng.integers(first, end - self.length + 1))

    def at(self, start: int) -> list[Job]:
        """The window whose first job is at position ``start``, its clock shifted to start at 0."""
        if not (is_int(start, 0) and start + self.length <= len(self._loaded.jobs)):
            raise ValueError(f"LogWindows: no window of {self.length} jobs starts at position {start!r} of {self.path}")
        window = self._loaded.jobs[start : start + self.length]
        origin = window[0].submit
        return [replace(job, submit=job.submit - origin) for job in window]

    def __call__(self, rng: np.random.Generator) -> list[Job]:
        return self.at(self.draw_start(rng))

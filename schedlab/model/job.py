"""The job: what a user submits, as plain immutable data.

A :class:`Job` says what the job asks for (CPUs and any other named resource), how
long it would run with everything it asked for (``runtime``), what the user told the
scheduler (``estimate``), and who it belongs to (class, group/VO, origin). It knows
nothing about SimPy: the processes in :mod:`schedlab.processes` decide when it runs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from schedlab.model.utility import TimeUtility

__all__ = ["Job", "JobError"]


class JobError(ValueError):
    """A job was described with an impossible value (negative runtime, zero CPUs...)."""


def _frozen_demands(demands: Mapping[str, float] | None) -> Mapping[str, float]:
    return MappingProxyType(dict(demands or {}))


@dataclass(frozen=True, slots=True, eq=False)
class Job:
    """One unit of work submitted to a scheduler.

    Parameters
    ----------
    id
        Identifier, unique within a workload.
    submit
        Arrival time, in simulated time units.
    runtime
        Ideal execution time: how long the job runs when it holds all ``cpus``.
    cpus
        CPUs requested (the job's ideal allocation). At least 1.
    demands
        Other named resources the job needs while it runs (memory, disk, ...), as
        amounts of each machine's capacity of that name. ``cpus`` is not repeated
        here; :meth:`demand` reads both.
    estimate
        The user's runtime estimate (SWF "requested time"); ``runtime`` if not given.
    job_class
        A label such as ``"interactive"`` or ``"batch"``.
    group
        Group, user or virtual organisation (VO), for fair share.
    weight
        Importance of the job (seed 004 eq. 6 weights; priority classes).
    utility
        Time-utility function of the job's response time; ``None`` for none.
    origin
        Where the job entered the system (an agent or server index), if anywhere.

    Notes
    -----
    Jobs compare by identity (``eq=False``): two jobs with equal fields are still
    two jobs. Records (:class:`~schedlab.model.records.JobRecord`) are what compare
    by value.
    """

    id: int
    submit: float
    runtime: float
    cpus: int = 1
    demands: Mapping[str, float] = field(default_factory=dict)
    estimate: float | None = None
    job_class: str = ""
    group: str = ""
    weight: float = 1.0
    utility: TimeUtility | None = None
    origin: int | None = None

    def __post_init__(self) -> None:
        if not (math.isfinite(self.submit) and self.submit >= 0):
            raise JobError(f"job {self.id}: submit time must be finite and >= 0, got {self.submit!r}")
        if not (math.isfinite(self.runtime) and self.runtime > 0):
            raise JobError(f"job {self.id}: runtime must be finite and > 0, got {self.runtime!r}")
        if int(self.cpus) != self.cpus or self.cpus < 1:
            raise JobError(f"job {self.id}: cpus must be a whole number >= 1, got {self.cpus!r}")
        if self.estimate is not None and not (self.estimate > 0):
            raise JobError(f"job {self.id}: estimate must be > 0, got {self.estimate!r}")
        if not (self.weight >= 0):
            raise JobError(f"job {self.id}: weight must be >= 0, got {self.weight!r}")
        for name, amount in self.demands.items():
            if name == "cpus":
                raise JobError(f"job {self.id}: give CPUs as cpus=, not in demands")
            if not (amount >= 0):
                raise JobError(f"job {self.id}: demand {name!r} must be >= 0, got {amount!r}")
        object.__setattr__(self, "demands", _frozen_demands(self.demands))

    def __getstate__(self) -> dict[str, object]:
        # MappingProxyType does not pickle; process pools and Dask need jobs to.
        state = {name: getattr(self, name) for name in self.__dataclass_fields__}
        state["demands"] = dict(self.demands)
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "demands", _frozen_demands(state["demands"]))  # type: ignore[arg-type]

    @property
    def requested_time(self) -> float:
        """The runtime the scheduler is told: ``estimate``, or ``runtime`` without one."""
        return self.runtime if self.estimate is None else self.estimate

    @property
    def work(self) -> float:
        """CPU-time the job needs: ``cpus * runtime``."""
        return self.cpus * self.runtime

    def demand(self, resource: str) -> float:
        """Amount of ``resource`` the job needs; ``"cpus"`` reads :attr:`cpus`."""
        if resource == "cpus":
            return float(self.cpus)
        return float(self.demands.get(resource, 0.0))

    def __repr__(self) -> str:
        extra = f", class={self.job_class!r}" if self.job_class else ""
        return f"Job(id={self.id}, submit={self.submit:g}, runtime={self.runtime:g}, cpus={self.cpus}{extra})"

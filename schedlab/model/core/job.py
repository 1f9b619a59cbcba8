"""The job: what a user submits, as plain immutable data.

A :class:`Job` says what the job asks for (CPUs and any other named resource), how
long it would run with everything it asked for (``runtime``), what the user told the
scheduler (``estimate``), and who it belongs to (class, group/VO, origin). It knows
nothing about SimPy: the processes in :mod:`schedlab.processes` decide when it runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field, fields, make_dataclass
from types import MappingProxyType
from typing import Any

from schedlab.model.core.utility import TimeUtility

__all__ = ["Job", "JobBody", "JobError", "ProcessJob", "frozen_demands", "new_job", "trusted_job", "with_body"]


class JobError(ValueError):
    """A job was described with an impossible value (negative runtime, zero CPUs...)."""


#: the demands of every job that needs nothing but CPUs: one shared read-only mapping,
#: so that the common job costs no dict and no proxy of its own
_NO_DEMANDS: Mapping[str, float] = MappingProxyType({})

#: ``submit`` and ``runtime`` must lie below this (a chained comparison is also false for nan)
_INF = math.inf


def frozen_demands(demands: Mapping[str, float] | None) -> Mapping[str, float]:
    """A read-only copy of ``demands`` (the shared empty mapping for none), as a :class:`Job` keeps them.

    Being read-only, one such mapping can be shared by many jobs (see :func:`trusted_job`).
    """
    return MappingProxyType(dict(demands)) if demands else _NO_DEMANDS


def _no_demands() -> Mapping[str, float]:
    return _NO_DEMANDS


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
    partition
        The partition the job was submitted to (SWF field 16, as text), ``""`` for
        none. The queue it was submitted to is ``job_class`` (SWF field 15). A
        :class:`~schedlab.model.core.platform.Platform` binds partitions to nodes.

    Notes
    -----
    Jobs compare by identity (``eq=False``): two jobs with equal fields are still
    two jobs. Records (:class:`~schedlab.model.records.job_record.JobRecord`) are what compare
    by value.
    """

    id: int
    submit: float
    runtime: float
    cpus: int = 1
    demands: Mapping[str, float] = field(default_factory=_no_demands)
    estimate: float | None = None
    job_class: str = ""
    group: str = ""
    weight: float = 1.0
    utility: TimeUtility | None = None
    origin: int | None = None
    partition: str = ""

    def __post_init__(self) -> None:
        if self._check():
            # A private read-only copy: the caller's dict may change later, the job must not.
            object.__setattr__(self, "demands", frozen_demands(self.demands))

    def _check(self) -> bool:
        """Raise JobError on an impossible field; say whether there are demands to freeze."""
        # Every job of a workload passes here, so the checks are plain comparisons on
        # locals; ``0 <= x < inf`` is false for nan and inf alike.
        submit, runtime, cpus, demands = self.submit, self.runtime, self.cpus, self.demands
        if not 0 <= submit < _INF:
            raise JobError(f"job {self.id}: submit time must be finite and >= 0, got {submit!r}")
        if not 0 < runtime < _INF:
            raise JobError(f"job {self.id}: runtime must be finite and > 0, got {runtime!r}")
        # fields.is_whole's rule, written out: once per job, and a numpy cpus count (a trace's) is compared
        # here without the ABC check is_whole makes of a type other than int or float
        if not 1 <= cpus < _INF or int(cpus) != cpus:  # nan and inf fail the first test, not int()
            raise JobError(f"job {self.id}: cpus must be a whole number >= 1, got {cpus!r}")
        if self.estimate is not None and not (self.estimate > 0):
            raise JobError(f"job {self.id}: estimate must be > 0, got {self.estimate!r}")
        if not (self.weight >= 0):
            raise JobError(f"job {self.id}: weight must be >= 0, got {self.weight!r}")
        if demands is _NO_DEMANDS:  # the default: nothing to check or copy
            return False
        for name, amount in demands.items():
            if name == "cpus":
                raise JobError(f"job {self.id}: give CPUs as cpus=, not in demands")
            if not (amount >= 0):
                raise JobError(f"job {self.id}: demand {name!r} must be >= 0, got {amount!r}")
        return True

    def __getstate__(self) -> dict[str, object]:
        # MappingProxyType does not pickle; process pools and Dask need jobs to.
        state = {name: getattr(self, name) for name in self.__dataclass_fields__}
        state["demands"] = dict(self.demands)
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "demands", frozen_demands(state["demands"]))  # type: ignore[arg-type]  # __getstate__ wrote a dict

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


#: a job's process body: ``body(env, alloc)`` returns a generator of SimPy events (what the job
#: does on its allocation; :mod:`schedlab.processes.machine.job_body` says what ``alloc`` holds)
JobBody = Callable[[Any, Any], Generator[Any, Any, Any]]


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class ProcessJob(Job):
    """A :class:`Job` that carries a process body: what it does on the CPUs it is given.

    A machine runs ``body(env, alloc)`` as a SimPy process when the job gets CPUs, and
    the job completes when the body returns (:mod:`schedlab.processes.machine.job_body`).
    ``runtime`` is still what the job tells the scheduler it needs (its records and
    backfilling read it); the body decides how long it really runs. A body to be run
    in a process pool must pickle: a module-level function, not a lambda.
    """

    body: JobBody | None = None

    def __post_init__(self) -> None:
        Job.__post_init__(self)
        if not callable(self.body):
            raise JobError(f"job {self.id}: body must be a function (env, alloc) -> generator, got {self.body!r}")

    # Job's pickling (its demands are a read-only proxy); slots=True would write its own
    __getstate__ = Job.__getstate__
    __setstate__ = Job.__setstate__


def with_body(job: Job, body: JobBody) -> ProcessJob:
    """``job`` (every field kept) carrying ``body``: a log's job given what it does."""
    return ProcessJob(**{f.name: getattr(job, f.name) for f in fields(Job)}, body=body)


# Making jobs fast. Workload generators and time-stepped models make jobs by the million.
# The __init__ that dataclass writes for a frozen class must get past the class's own
# __setattr__, so it sets each of the 12 fields with object.__setattr__, which costs more
# than all the rest of making a job. trusted_job fills a writable twin of Job instead
# (plain slot stores) and makes it a Job by __class__ assignment, which Python allows
# between classes of the same slots: the result is an ordinary Job in every respect.
# new_job adds the checks of Job(...). Reconsidered in issue 16 against the plain ways,
# the swap stays: it is the cheapest of them (measured: benchmarks/README.md). The
# workloads (model/core/workloads), the grid's arrivals and the server network's arrivals
# make their jobs this way, hundreds of thousands a run.
# (typed Any: a class built at run time, whose fields mypy cannot see)
_JobDraft: Any = make_dataclass("_JobDraft", [f.name for f in fields(Job)], slots=True)
if _JobDraft.__slots__ != Job.__slots__:  # the __class__ assignment would fail on the first job
    raise TypeError("Job's slots changed: _JobDraft must keep the same layout")


def trusted_job(
    id: int,
    submit: float,
    runtime: float,
    cpus: int = 1,
    demands: Mapping[str, float] = _NO_DEMANDS,
    estimate: float | None = None,
    job_class: str = "",
    group: str = "",
    weight: float = 1.0,
    utility: TimeUtility | None = None,
    origin: int | None = None,
    partition: str = "",
) -> Job:
    """A :class:`Job` from fields its maker has already checked: no checks, and ``demands`` kept as given.

    For a model that makes jobs by the million from values it has validated once (the
    server network draws requirements from ``integers(1, M + 1)`` with M checked when
    it was built). ``demands`` must be read-only, made by :func:`frozen_demands`, and
    may be shared between jobs: the network keeps one mapping per distinct requirement
    instead of a dict and a proxy per job. A field the checks of :class:`Job` would
    refuse gives a job that is not valid, and nothing says so: use :func:`new_job`
    wherever the values come from outside.
    """
    # Positional, in field order.
    draft = _JobDraft(
        id, submit, runtime, cpus, demands, estimate, job_class, group, weight, utility, origin, partition
    )
    draft.__class__ = Job
    return draft  # a Job now (_JobDraft is typed Any, so no typing.cast: a call per job)


def new_job(
    id: int,
    submit: float,
    runtime: float,
    cpus: int = 1,
    demands: dict[str, float] | None = None,
    estimate: float | None = None,
    job_class: str = "",
    group: str = "",
    weight: float = 1.0,
    utility: TimeUtility | None = None,
    origin: int | None = None,
    partition: str = "",
) -> Job:
    """``Job(...)`` with the same fields and checks, made in less than half its time (see above).

    ``demands`` is handed over: the job keeps this dict (behind a read-only proxy)
    instead of copying it, so the caller must make a fresh one and not touch it again.
    """
    frozen = MappingProxyType(demands) if demands else _NO_DEMANDS
    job = trusted_job(id, submit, runtime, cpus, frozen, estimate, job_class, group, weight, utility, origin, partition)
    job._check()
    return job

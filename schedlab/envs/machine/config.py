"""What a :class:`~schedlab.envs.machine.env.MachineEnv` episode is built from.

Three pieces the environment and the scenarios that run its agents share, apart from
the environment's stepping:

- :class:`MachineEnvConfig`, the environment's settings, checked when made (the
  workload, the machine's size and resources, the window, the reward and its energy
  term), and what they resolve to: the workload as a callable, the machine's CPUs,
  the observer;
- :func:`agent_machine`, the kind of Machine an episode runs (deciding once per
  instant, refusing jobs that never fit), which a scenario builds to run a trained
  agent as an ordinary policy and decide as in the environment;
- :func:`check_jobs`, the check that refuses, in one line, a job sequence the machine
  could not run to its end.

Kept apart from :mod:`schedlab.envs.machine.env` so that the environment module reads
as the episode itself (the model run to each decision, the step, the reward's
measure), and a scenario that only needs the Machine or the settings does not read
the Gymnasium class.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import simpy

from schedlab.envs.machine.jobs import LogWindows, SyntheticJobs
from schedlab.envs.machine.obs import MachineObserver
from schedlab.model.contracts.machine import Policy
from schedlab.model.core.fields import number, validate, whole
from schedlab.model.core.job import Job
from schedlab.processes.machine.machine import Machine

__all__ = ["REWARDS", "MachineEnvConfig", "agent_machine", "check_jobs"]

REWARDS = ("slowdown", "bounded_slowdown", "response", "utilization")

Workload = Callable[[np.random.Generator], Sequence[Job]]


@dataclass(frozen=True)
class MachineEnvConfig:
    """The generic machine environment's settings.

    Parameters
    ----------
    workload
        Draws each episode's jobs: a callable ``jobs(rng) -> list[Job]``, the path of
        an SWF log (windows of ``log_window`` jobs, :class:`LogWindows`), or
        ``None`` for :class:`SyntheticJobs`' defaults.
    cpus
        CPUs of the machine; ``None`` takes the workload's ``cpus`` (the synthetic
        load's machine, the log's MaxProcs).
    resources
        Capacities of other named resources (``{"memory": 64}``) that jobs' demands use.
    window
        ``K``: waiting jobs the agent sees and may start (actions ``0..K-1``; ``K`` waits).
    runtime
        What the agent is told of a job's length: ``"estimate"`` or ``"runtime"`` (true).
    time_scale
        A typical runtime, scaling the observation's times; ``None`` takes the
        workload's ``time_scale`` (else 1).
    reward
        ``"slowdown"``, ``"bounded_slowdown"``, ``"response"`` or ``"utilization"`` (see
        :mod:`schedlab.envs.machine.env`'s notes).
    slowdown_bound
        ``"bounded_slowdown"``'s threshold: runtimes below it count as it (10 s, as usual).
    reward_scale
        Multiplies every reward (e.g. 1/3600 for response times of a trace in seconds).
    backfill
        An order's name (``"sjf"``...): each window slot of the observation also says
        whether EASY backfilling under that order may start its job now
        (:class:`~schedlab.envs.machine.obs.MachineObserver`); ``"strict-"`` and an
        order's name: whether that order kept strictly may; ``None`` (the default): the
        observation without it, which models trained before it was added expect.
    log_window
        Jobs per episode when ``workload`` is an SWF file.
    log_span
        The part of that log windows are drawn from, as fractions of its jobs
        (:class:`LogWindows`' ``span``): ``(0, 0.75)`` trains on the first three quarters.
    cpu_power
        ``(idle, full)`` watts of one CPU, for ``energy_weight``.
    energy_weight
        Reward lost per joule drawn (``0``: energy is not in the reward); needs ``cpu_power``.
    """

    workload: Workload | str | os.PathLike[str] | None = None
    cpus: int | None = number(None, low=1, integer=True)
    resources: Mapping[str, float] = field(default_factory=dict)
    window: int = number(8, low=1, integer=True)
    runtime: Literal["estimate", "runtime"] = "estimate"
    backfill: str | None = None
    time_scale: float | None = number(None, gt=0)
    reward: Literal["slowdown", "bounded_slowdown", "response", "utilization"] = "slowdown"
    slowdown_bound: float = number(10.0, gt=0)
    reward_scale: float = number(1.0, gt=0)
    log_window: int = number(128, low=1, integer=True)
    log_span: tuple[float, float] = (0.0, 1.0)
    cpu_power: tuple[float, float] | None = None
    energy_weight: float = number(0.0)

    def __post_init__(self) -> None:
        validate(self)  # every number finite and in range (model/fields); the rules below relate fields
        if isinstance(self.log_span, list):  # as JSON gives it back (training's env settings)
            object.__setattr__(self, "log_span", tuple(self.log_span))
        span = self.log_span
        if not (isinstance(span, tuple) and len(span) == 2 and all(isinstance(x, int | float) for x in span)) or not (
            0 <= span[0] < span[1] <= 1
        ):
            raise ValueError(f"log_span must be (lo, hi) fractions with 0 <= lo < hi <= 1, got {span!r}")
        if self.cpu_power is not None:
            idle, full = self.cpu_power
            if not (math.isfinite(idle) and math.isfinite(full) and 0 <= idle <= full):
                raise ValueError(f"cpu_power must be (idle, full) watts with 0 <= idle <= full, got {self.cpu_power!r}")
        if self.energy_weight > 0 and self.cpu_power is None:
            raise ValueError(f"energy_weight={self.energy_weight:g} needs cpu_power=(idle, full) watts per CPU")
        if self.reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {self.reward!r}")
        for name, cap in dict(self.resources).items():
            if name == "cpus":
                raise ValueError("resources: give the CPUs as cpus=, not as resources['cpus']")
            if not (isinstance(cap, int | float) and math.isfinite(cap) and cap > 0):
                raise ValueError(f"resources[{name!r}] must be a finite capacity > 0, got {cap!r}")
        cpus = self.machine_cpus  # checks cpus, and that a workload without a size got one
        whole("cpus", cpus, 1)
        self.observer  # checks runtime, and a time_scale taken from the workload  # noqa: B018

    @property
    def jobs(self) -> Workload:
        """The workload as a callable: the given one, a :class:`LogWindows`, or :class:`SyntheticJobs`."""
        if self.workload is None:
            return SyntheticJobs()
        if isinstance(self.workload, str | os.PathLike):
            return LogWindows(self.workload, self.log_window, self.log_span)
        if not callable(self.workload):
            raise ValueError(f"workload must be a callable jobs(rng), an SWF path or None, got {self.workload!r}")
        return self.workload

    @property
    def machine_cpus(self) -> int:
        """The machine's CPUs: ``cpus``, else the workload's own size (an error names the workload when it has none)."""
        if self.cpus is not None:
            return self.cpus
        cpus = getattr(self.jobs, "cpus", None)
        if cpus is None:
            raise ValueError(f"cpus: the workload {self.workload!r} does not say its machine's size; give cpus=")
        return int(cpus)

    @property
    def observer(self) -> MachineObserver:
        """The observer for these resources, window, time scale (the workload's by default), runtime and backfill."""
        scale = self.time_scale if self.time_scale is not None else getattr(self.jobs, "time_scale", 1.0)
        return MachineObserver(tuple(self.resources), self.window, scale, self.runtime, self.backfill)


def agent_machine(
    sim: simpy.Environment,
    cpus: int,
    policy: Policy,
    *,
    resources: Mapping[str, float] | None = None,
    name: str = "machine",
) -> Machine:
    """The environment's kind of Machine on ``sim``: deciding once per instant, refusing jobs that never fit.

    Run :class:`~schedlab.envs.machine.agent_policy.AgentPolicy` on such a Machine (or on any
    Machine with ``batch_decisions=True``) and it decides exactly as in the
    environment: there the agent answers once every arrival and completion of an
    instant is in, and so it must here.
    """
    return Machine(sim, cpus, policy, name=name, resources=resources, oversize="raise", batch_decisions=True)


def check_jobs(jobs: Sequence[Job], cpus: int, resources: Mapping[str, float]) -> None:
    """Refuse, naming the job and the setting, a sequence the machine could not run to its end."""
    if not jobs:
        raise ValueError("workload: it drew no jobs; an episode needs at least one")
    last = -math.inf
    for job in jobs:
        if job.cpus > cpus:
            raise ValueError(f"workload job {job.id} asks for {job.cpus} cpus, more than the machine's cpus={cpus}")
        for name, amount in job.demands.items():
            if amount > 0 and amount > resources.get(name, 0.0) * (1 + 1e-9):
                raise ValueError(
                    f"workload job {job.id} demands {amount:g} of {name!r}; the machine's "
                    f"resources[{name!r}]={resources.get(name, 0.0)!r}"
                )
        if job.submit < last:
            raise ValueError(f"workload job {job.id} submits at {job.submit}, before the job ahead of it ({last})")
        last = job.submit

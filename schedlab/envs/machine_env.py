"""Any schedlab machine as a Gymnasium environment: the agent is the machine's scheduler.

Each episode builds a fresh SimPy model: a schedlab :class:`~schedlab.processes.Machine`
(``cpus`` CPUs and optional named resources) fed by a :class:`~schedlab.processes.Source`
with a job sequence drawn from the workload (:mod:`schedlab.envs.machine_jobs`). The
model runs event by event, in continuous time, until a *decision event*: a moment the
Machine asks its policy (once per instant, after every arrival and completion of that
instant) and at least one job of the window (the ``K`` oldest waiting jobs) fits now.
There the agent picks a window job to start, or waits (until the next arrival or
completion); after a start it decides again at the same instant while a window job
still fits. Observation, mask and the meaning of invalid actions are those of
:class:`~schedlab.envs.machine_obs.MachineObserver`.

Rewards (``reward=``), each the change over the step of an integral over simulated
time, times ``reward_scale``:

- ``"slowdown"``: minus the integral of ``sum 1/runtime`` over the jobs in the system
  (waiting or running); each job costs ``response / runtime``, so the return is minus
  the episode's total slowdown (as DeepRM's reward);
- ``"response"``: minus the integral of the number of jobs in the system; the return
  is minus the total response time;
- ``"utilization"``: the integral of the busy fraction of the CPUs; the return is the
  CPU utilization times the episode's length.

Energy (``energy_weight``, with ``cpu_power``): each CPU draws ``idle`` watts, and
``full`` while a job holds it (a one-core node of a platform's power model); the reward
also loses ``energy_weight`` per joule the machine drew over the step, so the return
falls by ``energy_weight`` times the episode's energy. On a machine whose CPUs are never
switched off that energy is the idle power times the episode's length plus the jobs'
work, so the agent is paid for a shorter schedule; switching nodes off is a powered
cluster's (:mod:`schedlab.processes.power`), which this environment does not drive.

The episode terminates when every job has arrived and completed: it always does,
since waiting is only valid while a job runs. ``info`` carries ``time`` (the clock),
``action_mask``, ``invalid`` (this step's action was invalid) and ``invalid_actions``
(their count this episode), ``waiting``, ``running`` and ``completed``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import gymnasium as gym
import numpy as np
import simpy

from schedlab.envs.machine_jobs import SyntheticJobs, TraceWindows
from schedlab.envs.machine_obs import MachineObserver
from schedlab.model.contracts.machine import MachineView, Policy
from schedlab.model.core.fields import number, validate, whole
from schedlab.model.core.job import Job
from schedlab.model.records.job_record import JobRecord
from schedlab.processes.machine import Machine
from schedlab.processes.source import Source

__all__ = ["REWARDS", "MachineEnv", "MachineEnvConfig", "agent_machine", "check_jobs"]

REWARDS = ("slowdown", "response", "utilization")

Workload = Callable[[np.random.Generator], Sequence[Job]]


@dataclass(frozen=True)
class MachineEnvConfig:
    """The generic machine environment's settings.

    Parameters
    ----------
    workload
        Draws each episode's jobs: a callable ``jobs(rng) -> list[Job]``, the path of
        an SWF log (windows of ``trace_window`` jobs, :class:`TraceWindows`), or
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
        ``"slowdown"``, ``"response"`` or ``"utilization"`` (see the module's notes).
    reward_scale
        Multiplies every reward (e.g. 1/3600 for response times of a trace in seconds).
    trace_window
        Jobs per episode when ``workload`` is an SWF file.
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
    time_scale: float | None = number(None, gt=0)
    reward: Literal["slowdown", "response", "utilization"] = "slowdown"
    reward_scale: float = number(1.0, gt=0)
    trace_window: int = number(128, low=1, integer=True)
    cpu_power: tuple[float, float] | None = None
    energy_weight: float = number(0.0)

    def __post_init__(self) -> None:
        validate(self)  # every number finite and in range (model/fields); the rules below relate fields
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
        """The workload as a callable: the given one, a :class:`TraceWindows`, or :class:`SyntheticJobs`."""
        if self.workload is None:
            return SyntheticJobs()
        if isinstance(self.workload, str | os.PathLike):
            return TraceWindows(self.workload, self.trace_window)
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
        """The observer for these resources, window, time scale (the workload's by default) and runtime view."""
        scale = self.time_scale if self.time_scale is not None else getattr(self.jobs, "time_scale", 1.0)
        return MachineObserver(tuple(self.resources), self.window, scale, self.runtime)


def agent_machine(
    sim: simpy.Environment,
    cpus: int,
    policy: Policy,
    *,
    resources: Mapping[str, float] | None = None,
    name: str = "machine",
) -> Machine:
    """The environment's kind of Machine on ``sim``: deciding once per instant, refusing jobs that never fit.

    Run :class:`~schedlab.envs.agent_policy.AgentPolicy` on such a Machine (or on any
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


class _SystemIntegral:
    """The Source's target, in front of the Machine: integrates a per-job weight over the jobs in the system.

    The weight sum changes only at arrivals and completions, so the integral is exact:
    booked at each change, read at any time as ``area + rate * (now - since)``.
    """

    def __init__(self, machine: Machine, weight: Callable[[float], float]) -> None:
        self.machine, self.weight = machine, weight
        self.rate = 0.0
        self.present = 0
        self.area = 0.0
        self.since = machine.env.now
        machine.completed.connect(self._completed)

    def _book(self) -> None:
        now = self.machine.env.now
        self.area += self.rate * (now - self.since)
        self.since = now

    def submit(self, job: Job) -> None:
        self._book()
        self.rate += self.weight(job.runtime)
        self.present += 1
        self.machine.submit(job)

    def _completed(self, record: JobRecord) -> None:
        self._book()
        self.present -= 1
        # an empty system has rate 0 exactly: no float residue carried from one busy period to the next
        self.rate = self.rate - self.weight(record.runtime) if self.present else 0.0

    def value(self) -> float:
        return self.area + self.rate * (self.machine.env.now - self.since)


_WEIGHTS: dict[str, Callable[[float], float]] = {
    "slowdown": lambda runtime: 1.0 / runtime,
    "response": lambda runtime: 1.0,
    "utilization": lambda runtime: 0.0,
}


class MachineEnv(gym.Env[np.ndarray, np.int64]):
    """A schedlab Machine whose scheduler is the agent (see the module's notes).

    Parameters
    ----------
    config
        A :class:`MachineEnvConfig`; keyword arguments override its fields.

    Notes
    -----
    ``reset(options={"jobs": [...]})`` replays a given job sequence instead of drawing
    one. After an episode ``env.unwrapped.machine`` is its Machine (``records``,
    ``busy_time()``...). :meth:`as_policy` turns an agent into a machine policy that
    sees the same observations, for scenarios.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "render_fps": 4}  # type: ignore[misc]  # gymnasium.Env annotates it as an instance variable; it is class data (ruff: ClassVar)

    def __init__(
        self, config: MachineEnvConfig | None = None, *, render_mode: str | None = None, **overrides: Any
    ) -> None:
        cfg = config or MachineEnvConfig()
        if overrides:
            cfg = MachineEnvConfig(**{**cfg.__dict__, **overrides})
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.config = cfg
        self.render_mode = render_mode
        self.cpus = cfg.machine_cpus
        self.resources = dict(cfg.resources)
        self.observer = cfg.observer
        self.workload = cfg.jobs
        self.observation_space = self.observer.observation_space()
        self.action_space = self.observer.action_space()
        self.sim: simpy.Environment | None = None
        self.machine: Machine | None = None
        self._integral: _SystemIntegral | None = None
        self._asked = False
        self._mask = np.zeros(self.observer.n_actions, dtype=bool)
        self._last = 0.0
        self._invalid = 0
        self._done = False
        self.n_jobs = 0

    # ------------------------------------------------------------------ the model
    def _ask(self, view: MachineView) -> None:
        """The Machine's policy: start nothing, note that the Machine asked (the agent answers in step)."""
        self._asked = True
        return None

    def _run_to_decision(self) -> bool:
        """Run the model to the next decision event; False when no event is left (every job done)."""
        sim, machine, observer = self.sim, self.machine, self.observer
        assert sim is not None and machine is not None
        while True:
            if self._asked:
                self._asked = False
                self._mask = observer.mask(machine.view)
                if self._mask[: observer.window].any():
                    return True
            if sim.peek() == math.inf:
                return False
            sim.step()

    def _measure(self) -> float:
        """The reward's integral from time 0 to now (unscaled, with the reward's sign)."""
        assert self._integral is not None and self.machine is not None
        value = self.machine.busy_time() / self.cpus if self.config.reward == "utilization" else -self._integral.value()
        if self.config.energy_weight:
            value -= self.config.energy_weight * self.energy()
        return value

    def energy(self) -> float:
        """Joules the machine drew from time 0 to now: every CPU's idle watts, and what its jobs added."""
        assert self.machine is not None and self.sim is not None and self.config.cpu_power is not None
        idle, full = self.config.cpu_power
        return self.cpus * idle * self.sim.now + (full - idle) * self.machine.busy_time()

    # ------------------------------------------------------------------ Gymnasium
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """A new episode: ``options["jobs"]`` or the workload's draw from ``seed``, run to the first decision."""
        super().reset(seed=seed)
        options = options or {}
        jobs = list(options["jobs"]) if "jobs" in options else list(self.workload(self.np_random))
        check_jobs(jobs, self.cpus, self.resources)
        self.sim = sim = simpy.Environment()
        self.machine = agent_machine(sim, self.cpus, self._ask, resources=self.resources)
        self._integral = _SystemIntegral(self.machine, _WEIGHTS[self.config.reward])
        Source(sim, jobs, self._integral, name="machine-source")
        self.n_jobs = len(jobs)
        self._asked, self._invalid, self._done = False, 0, False
        self._last = self._measure()
        decided = self._run_to_decision()
        assert decided, "the first arrival always finds the idle machine able to start it"
        return self._observe(), self._info(invalid=False)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Start the window slot's job (or wait), then run the machine to the next decision or the end."""
        machine = self.machine
        if machine is None:
            raise RuntimeError("call reset() before step()")
        if self._done:
            raise RuntimeError("the episode has terminated: call reset()")
        slot, valid = self.observer.resolve(action, self._mask)
        self._invalid += not valid
        decided = True
        if slot is not None:
            machine.start(machine.waiting[slot])
            self._mask = self.observer.mask(machine.view)
            # the Machine would ask its policy again at once: decide again now if a window job still fits
            if not self._mask[: self.observer.window].any():
                decided = self._run_to_decision()
        else:
            decided = self._run_to_decision()
        now = self._measure()
        reward = (now - self._last) * self.config.reward_scale
        self._last = now
        if not decided:
            self._done = True
            self._mask = np.zeros(self.observer.n_actions, dtype=bool)
            self._mask[-1] = True  # nothing left to do: only "wait" is offered, so no mask is all false
        return self._observe(), float(reward), not decided, False, self._info(invalid=not valid)

    def action_masks(self) -> np.ndarray:
        """The valid actions now (bool, length ``K + 1``): window jobs that fit now, and wait while a job runs."""
        if self.machine is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._mask.copy()

    # ------------------------------------------------------------------ helpers
    def _observe(self) -> np.ndarray:
        assert self.machine is not None
        return self.observer.observe(self.machine.view, self._mask)

    def _info(self, *, invalid: bool) -> dict[str, Any]:
        machine = self.machine
        assert machine is not None
        return {
            "time": machine.env.now,
            "action_mask": self._mask.copy(),
            "invalid": invalid,
            "invalid_actions": self._invalid,
            "waiting": len(machine.waiting),
            "running": len(machine.running),
            "completed": len(machine.records),
        }

    def render(self) -> str | None:
        """The state as text (``render_mode="ansi"``): the clock, free resources, the window and the running jobs."""
        if self.render_mode is None:
            return None
        machine = self.machine
        if machine is None:
            return "MachineEnv (not reset)"
        view = machine.view
        free = [f"cpus {view.free}/{view.capacity}"]
        free += [f"{r} {cap - view.used.get(r, 0.0):g}/{cap:g}" for r, cap in view.resources.items()]
        lines = [
            f"t={view.now:g}  free: {', '.join(free)}  waiting={len(view.waiting)}  running={len(view.running)}  "
            f"completed={len(machine.records)}/{self.n_jobs}"
        ]
        for i, job in enumerate(view.waiting[: self.observer.window]):
            fits = "fits" if self._mask[i] else "    "
            lines.append(f"  slot {i}: {fits} job {job.id}: {job.cpus} cpus, estimate {job.requested_time:g}")
        for run in view.running:
            lines.append(f"  running job {run.job.id}: {run.cpus} cpus until ~{run.expected_end(view.now):g}")
        return "\n".join(lines)

    def records(self) -> list[JobRecord]:
        """The episode's job records (completed first, then any still running or waiting)."""
        if self.machine is None:
            raise RuntimeError("call reset() before records()")
        return self.machine.all_records()

    def as_policy(self, agent: Any) -> Policy:
        """``agent`` (``act(obs, mask)`` or a callable) as a machine policy seeing this environment's observations."""
        from schedlab.envs.agent_policy import AgentPolicy

        return AgentPolicy(agent, self.observer)

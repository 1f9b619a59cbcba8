"""Any schedlab machine as a Gymnasium environment: the agent is the machine's scheduler.

Each episode builds a fresh SimPy model: a schedlab :class:`~schedlab.processes.Machine`
(``cpus`` CPUs and optional named resources) fed by a :class:`~schedlab.processes.Source`
with a job sequence drawn from the workload (:mod:`schedlab.envs.machine.jobs`). The
model runs event by event, in continuous time, until a *decision event*: a moment the
Machine asks its policy (once per instant, after every arrival and completion of that
instant) and at least one job of the window (the ``K`` oldest waiting jobs) fits now.
There the agent picks a window job to start, or waits (until the next arrival or
completion); after a start it decides again at the same instant while a window job
still fits. Observation, mask and the meaning of invalid actions are those of
:class:`~schedlab.envs.machine.obs.MachineObserver`.

Rewards (``reward=``), each the change over the step of an integral over simulated
time, times ``reward_scale``:

- ``"slowdown"``: minus the integral of ``sum 1/runtime`` over the jobs in the system
  (waiting or running); each job costs ``response / runtime``, so the return is minus
  the episode's total slowdown (as DeepRM's reward);
- ``"bounded_slowdown"``: as ``"slowdown"`` with ``1/max(runtime, slowdown_bound)``,
  and at each completion what lifts the job's cost to at least 1; the return is minus
  the episode's total bounded slowdown (:mod:`schedlab.envs.machine.reward`);
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
cluster's (:mod:`schedlab.processes.cluster.power`), which this environment does not drive.

The episode terminates when every job has arrived and completed: it always does,
since waiting is only valid while a job runs. ``info`` carries ``time`` (the clock),
``action_mask``, ``invalid`` (this step's action was invalid) and ``invalid_actions``
(their count this episode), ``waiting``, ``running`` and ``completed``.

The episode is also kept as what replays it: ``episode_jobs`` (the job sequence drawn
or given at reset) and ``episode_actions`` (every action passed to ``step`` since), so
that ``reset(options={"jobs": episode_jobs})`` and the same actions reach the same
state. SimPy models cannot be copied; a lookahead (the rollout teacher,
:mod:`schedlab.training.rollout`) simulates a branch by replaying it in a second env.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
import simpy

from schedlab.envs.machine.config import REWARDS, MachineEnvConfig, agent_machine, check_jobs
from schedlab.envs.machine.reward import SystemIntegral, job_weight
from schedlab.model.contracts.machine import MachineView, Policy
from schedlab.model.core.fields import renamed_fields
from schedlab.model.core.job import Job
from schedlab.model.records.job_record import JobRecord
from schedlab.processes.machine.machine import Machine
from schedlab.processes.source import Source

# the settings, the Machine and the job check live in envs/machine/config.py; still importable from here
__all__ = ["REWARDS", "MachineEnv", "MachineEnvConfig", "agent_machine", "check_jobs"]


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
            cfg = MachineEnvConfig(**{**cfg.__dict__, **renamed_fields(MachineEnvConfig, overrides, "MachineEnv")})
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
        self._integral: SystemIntegral | None = None
        self._asked = False
        self._mask = np.zeros(self.observer.n_actions, dtype=bool)
        self._last = 0.0
        self._invalid = 0
        self._done = False
        self.n_jobs = 0
        self.episode_jobs: tuple[Job, ...] = ()  # this episode's jobs, for a replay
        self.episode_actions: list[Any] = []  # the actions stepped this episode, for a replay

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
        reward = self.config.reward
        weight = job_weight(reward, self.config.slowdown_bound)
        self._integral = SystemIntegral(self.machine, weight, floor=reward == "bounded_slowdown")
        Source(sim, jobs, self._integral, name="machine-source")
        self.n_jobs = len(jobs)
        self.episode_jobs, self.episode_actions = tuple(jobs), []
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
        self.episode_actions.append(action)
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

    def render(self) -> str | None:  # type: ignore[override, unused-ignore]  # gymnasium 1.0-1.2 type it as a TypeVar
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
        from schedlab.envs.machine.agent_policy import AgentPolicy

        return AgentPolicy(agent, self.observer)

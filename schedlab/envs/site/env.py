"""Seed 001's site supervisor as a Gymnasium environment (``schedlab/SiteSupervisor-v0``).

Each episode is a fresh SimPy model: a site of ``cores`` cores (a schedlab
:class:`~schedlab.processes.Machine` deciding once per instant) fed the episode's jobs
(:meth:`~schedlab.envs.site.config.SiteEnvConfig.episode_jobs`, drawn from the reset
seed's named streams). A *decision epoch* is a moment a core is free and a job waits:
the supervisor elects one of the candidates (:mod:`schedlab.envs.site.slots`), and
elects again at the same instant while cores stay free and jobs wait; it is
work-conserving, as the paper's scheduling MDP, so there is no "wait" action. The step's
reward is the election's (:mod:`schedlab.envs.site.reward`); the return over an episode
is the sum over every job of its election's reward. The episode terminates when every
job has completed.

``info`` carries ``time``, ``action_mask``, ``waiting``, ``running`` and ``completed``.
An invalid action (an empty slot) is refused with a ValueError: masks are part of the
contract (``action_masks()``).
"""

from __future__ import annotations

import math
from typing import Any

import gymnasium as gym
import numpy as np
import simpy

from schedlab.envs.machine.config import agent_machine
from schedlab.envs.site.config import VOS, SiteEnvConfig
from schedlab.envs.site.reward import ElectionReward
from schedlab.envs.site.slots import SiteSlots
from schedlab.model.contracts.machine import MachineView
from schedlab.model.core.job import Job
from schedlab.model.records.job_record import JobRecord
from schedlab.processes.machine.machine import Machine
from schedlab.processes.source import Source

__all__ = ["SiteSupervisorEnv"]


class SiteSupervisorEnv(gym.Env[np.ndarray, np.int64]):
    """The site supervisor's scheduling MDP (see the module's notes).

    Parameters
    ----------
    config
        A :class:`SiteEnvConfig`; keyword arguments override its fields.

    Notes
    -----
    ``reset(options={"jobs": [...]})`` plays the given jobs instead of the seed's draw.
    After an episode, :meth:`records` are its job records. :meth:`election_reward` is
    the reward electing a waiting job now would earn (the myopic heuristic's measure).
    """

    def __init__(self, config: SiteEnvConfig | None = None, **overrides: Any) -> None:
        cfg = config or SiteEnvConfig()
        if overrides:
            cfg = SiteEnvConfig(**{**cfg.__dict__, **overrides})
        self.config = cfg
        self.slots = SiteSlots(VOS, cfg.cores, cfg.per_group, cfg.waited, cfg.time_scale)
        size = self.slots.obs_size
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, shape=(size,), dtype=np.float32)
        self.action_space = gym.spaces.Discrete(self.slots.n_actions)
        self.sim: simpy.Environment | None = None
        self.machine: Machine | None = None
        self.rewards: ElectionReward | None = None
        self.candidates: list[Job | None] = []
        self._asked = False
        self._done = False

    # ------------------------------------------------------------------ the model
    def _ask(self, view: MachineView) -> None:
        """The Machine's policy: start nothing, note that it asked (the agent answers in step)."""
        self._asked = True

    def _decision(self) -> bool:
        """Whether the site can elect now (a free core and a candidate); refreshes the candidates."""
        assert self.machine is not None
        view = self.machine.view
        self.candidates = self.slots.candidates(view) if view.free > 0 else [None] * self.slots.n_actions
        return any(job is not None for job in self.candidates)

    def _run_to_decision(self) -> bool:
        """Run the model to the next decision epoch; False when every job is done."""
        sim = self.sim
        assert sim is not None
        while True:
            if self._asked:
                self._asked = False
                if self._decision():
                    return True
            if sim.peek() == math.inf:
                return False
            sim.step()

    # ------------------------------------------------------------------ Gymnasium
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """A new episode: ``options["jobs"]``, or the jobs of ``seed`` (a fresh one if None), run to the first epoch."""
        super().reset(seed=seed)
        options = options or {}
        if "jobs" in options:
            jobs = list(options["jobs"])
        else:
            episode = int(seed) if seed is not None else int(self.np_random.integers(2**31))
            jobs = self.config.episode_jobs(episode)
        self.sim = sim = simpy.Environment()
        self.machine = agent_machine(sim, self.config.cores, self._ask, name="site")
        self.rewards = ElectionReward(
            self.config.fair_targets(), self.config.reward, self.config.weight, self.config.acceptable_delay
        )
        Source(sim, jobs, self.machine, name="site-source")
        self._asked, self._done = False, False
        decided = self._run_to_decision()
        assert decided, "the first arrival always finds the idle site able to start it"
        return self._observe(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Elect the slot's job, then run the site to the next decision epoch or the end."""
        machine, rewards = self.machine, self.rewards
        if machine is None or rewards is None:
            raise RuntimeError("call reset() before step()")
        if self._done:
            raise RuntimeError("the episode has terminated: call reset()")
        slot = int(action)
        job = self.candidates[slot] if 0 <= slot < len(self.candidates) else None
        if job is None:
            raise ValueError(f"action {action!r} is not a valid slot now (mask {self.action_masks().tolist()})")
        reward = rewards.elect(job, machine.env.now)
        machine.start(job)
        decided = self._decision() or self._run_to_decision()  # again at once while a core is free and a job waits
        self._done = not decided
        if self._done:
            self.candidates = [None] * self.slots.n_actions
        return self._observe(), float(reward), self._done, False, self._info()

    def action_masks(self) -> np.ndarray:
        """The valid actions now: the slots holding a job."""
        return self.slots.mask(self.candidates)

    def election_reward(self, job: Job) -> float:
        """The reward electing ``job`` now would earn (nothing is elected)."""
        assert self.rewards is not None and self.machine is not None
        return self.rewards.peek(job, self.machine.env.now)

    # ------------------------------------------------------------------ helpers
    def _observe(self) -> np.ndarray:
        assert self.machine is not None
        return self.slots.observe(self.machine.view, self.candidates)

    def _info(self) -> dict[str, Any]:
        machine = self.machine
        assert machine is not None
        return {
            "time": machine.env.now,
            "action_mask": self.action_masks(),
            "waiting": len(machine.waiting),
            "running": len(machine.running),
            "completed": len(machine.records),
        }

    def records(self) -> list[JobRecord]:
        """The episode's job records."""
        if self.machine is None:
            raise RuntimeError("call reset() before records()")
        return self.machine.all_records()

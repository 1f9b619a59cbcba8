"""A Gymnasium environment over the DeepRM machine (seed 002, section 6).

Each episode builds a fresh SimPy model: a :class:`~schedlab.processes.slotted.slotted.SlottedMachine`
fed a DeepRM job sequence drawn from the episode's seed. A step is one decision:

- action ``i < M`` places the job of slot ``i`` at its earliest fit in the horizon;
  no time passes and the reward is 0;
- action ``M`` advances time one step, and so does picking an empty slot or a job
  that fits nowhere in the horizon (section 6): the model runs to the next decision
  event and the reward is ``-sum(1/T_j)`` over the jobs in the system during the step
  (DeepRM), so an episode's return is minus the total slowdown; with
  ``reward="slowdown_mean"`` it is divided by the episode's number of jobs, making the
  return minus the mean slowdown.

The episode terminates when every job has arrived and completed, and is truncated at
``max_time`` steps.

The mask (``action_masks()``, ``info["action_mask"]``) is work-conserving by default
(``work_conserving=True``, as ``scenarios/deeprm.py`` trains): it hides the void action
while a visible job fits now, so an agent chooses which job, not whether to idle.

Observations suit Stable-Baselines3 as they are: a Dict of 1-D float32 vectors
(``backlog``, ``machine``: the occupation image row by row, ``slots``: the slot images
one after the other), or with ``flatten=True`` one vector, in the order of
``gymnasium.spaces.flatten``. ``images=True`` keeps the pictures' shapes
(``(horizon, d, C)`` and ``(slots, horizon, d, C)``) for feature extractors of one's
own; SB3's ``check_env`` warns about such float "images". ``render_mode="ansi"``
renders the state as text.

References
----------
H. Mao, M. Alizadeh, I. Menache, S. Kandula, "Resource management with deep
reinforcement learning", HotNets 2016.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import gymnasium as gym
import numpy as np
import simpy
from gymnasium import spaces

from schedlab.model.core.deeprm_jobs import DeepRMJobs
from schedlab.model.core.fields import number, validate
from schedlab.model.core.job import Job
from schedlab.processes.slotted.slotted import SlottedMachine

__all__ = ["DeepRMConfig", "DeepRMEnv"]


def _default_resources() -> dict[str, int]:
    return {"cpus": 20, "memory": 20}


@dataclass(frozen=True)
class DeepRMConfig:
    """The DeepRM environment's settings (defaults after Mao et al. 2016)."""

    #: capacity of each resource in whole units; the first is the machine's CPUs
    resources: Mapping[str, int] = field(default_factory=_default_resources)
    #: time steps of the occupation and slot images
    horizon: int = number(20, low=1, integer=True)
    #: visible job slots M (actions 0..M-1 place them, M advances time)
    slots: int = number(5, low=1, integer=True)
    #: largest backlog count shown
    backlog: int = number(60, low=1, integer=True)
    #: cluster load of the job sequences; a tuple draws one per episode
    load: float | tuple[float, ...] = number(0.7, gt=0)
    #: time steps in which jobs arrive
    arrival_steps: int = number(50, low=1, integer=True)
    #: Bernoulli trials per arrival step (the most jobs one step brings)
    trials: int = number(3, low=1, integer=True)
    #: steps after which an unfinished episode is truncated
    max_time: int = number(1000, low=1, integer=True)
    #: per-step reward: minus sum(1/T_j) (return = -total slowdown) or that over the job count
    reward: Literal["slowdown_sum", "slowdown_mean"] = "slowdown_sum"
    #: observe one flat float32 vector (backlog, machine, slots) instead of a Dict
    flatten: bool = False
    #: the Dict's machine and slots as pictures (horizon, d, C) instead of 1-D vectors
    images: bool = False
    #: the action mask hides the void action while a visible job fits now (a work-conserving agent)
    work_conserving: bool = True

    def __post_init__(self) -> None:
        validate(self)  # every number finite and in range (model/fields); the rules below relate fields
        if self.flatten and self.images:
            raise ValueError("flatten and images exclude each other: a flat vector has no pictures")
        if self.reward not in ("slowdown_sum", "slowdown_mean"):
            raise ValueError(f"reward must be 'slowdown_sum' or 'slowdown_mean', got {self.reward!r}")
        jobs = self.jobs  # checks the capacities and the job ranges
        if self.horizon < jobs.max_len:
            raise ValueError(f"horizon {self.horizon} is shorter than the longest job ({jobs.max_len} steps)")
        for load in self.loads:
            jobs.rate(load)

    @property
    def loads(self) -> tuple[float, ...]:
        """The loads episodes are drawn at: ``load`` as a tuple (one value, or several to pick from)."""
        return self.load if isinstance(self.load, tuple) else (float(self.load),)

    @property
    def jobs(self) -> DeepRMJobs:
        """The job distribution over these resources."""
        return DeepRMJobs(dict(self.resources), trials=self.trials)


class DeepRMEnv(gym.Env[Any, np.int64]):
    """DeepRM's single machine as a Gymnasium environment, over a schedlab SimPy model.

    Parameters
    ----------
    config
        A :class:`DeepRMConfig`; keyword arguments override its fields.

    Notes
    -----
    ``reset(options={"jobs": [...]})`` replays a given job sequence (whole-number
    submit times and lengths) instead of drawing one; ``options={"load": x}`` draws
    one at load ``x``. After an episode, ``env.unwrapped.model`` holds the model: its
    records, utilization and Machine.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "render_fps": 4}  # type: ignore[misc]  # gymnasium.Env annotates it as an instance variable; it is class data (ruff: ClassVar)

    def __init__(self, config: DeepRMConfig | None = None, *, render_mode: str | None = None, **overrides: Any) -> None:
        cfg = config or DeepRMConfig()
        if overrides:
            cfg = DeepRMConfig(**{**cfg.__dict__, **overrides})
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.config = cfg
        self.render_mode = render_mode
        d, cap = len(cfg.resources), max(cfg.resources.values())
        t, m = cfg.horizon, cfg.slots
        self._shapes = {"machine": (t, d, cap), "slots": (m, t, d, cap)}
        if not cfg.images:  # 1-D vectors: SB3's MultiInputPolicy takes them as they are
            self._shapes = {"machine": (t * d * cap,), "slots": (m * t * d * cap,)}
        self._dict_space = spaces.Dict(
            {
                "backlog": spaces.Box(0.0, float(cfg.backlog), shape=(1,), dtype=np.float32),
                "machine": spaces.Box(0.0, 1.0, shape=self._shapes["machine"], dtype=np.float32),
                "slots": spaces.Box(0.0, 1.0, shape=self._shapes["slots"], dtype=np.float32),
            }
        )
        if cfg.flatten:
            high = np.concatenate([[cfg.backlog], np.ones(t * d * cap * (m + 1))]).astype(np.float32)
            self.observation_space = spaces.Box(np.zeros_like(high), high, dtype=np.float32)
        else:
            self.observation_space = self._dict_space
        self.action_space = spaces.Discrete(m + 1)
        self.model: SlottedMachine | None = None
        self._scale = 1.0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict]:
        """A new episode: jobs from ``options["jobs"]``, else drawn at ``options["load"]`` or a config load."""
        super().reset(seed=seed)
        cfg, options = self.config, options or {}
        jobs: list[Job] | None = options.get("jobs")
        if jobs is None:
            loads = (float(options["load"]),) if "load" in options else cfg.loads
            load = loads[int(self.np_random.integers(len(loads)))] if len(loads) > 1 else loads[0]
            jobs = cfg.jobs.sample(load, cfg.arrival_steps, self.np_random)
        sim = simpy.Environment()
        self.model = SlottedMachine(sim, cfg.resources, jobs, horizon=cfg.horizon, slots=cfg.slots, backlog=cfg.backlog)
        self._scale = 1.0 / max(1, len(jobs)) if cfg.reward == "slowdown_mean" else 1.0
        sim.run(until=self.model.tick(0))  # the arrivals of time 0
        return self._observe(), self._info(scheduled=False)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        """Place slot ``action``'s job (no reward yet); the void action, or a job not placed, ends the time step."""
        model = self.model
        if model is None:
            raise RuntimeError("call reset() before step()")
        a = int(action)
        if a != action or not 0 <= a <= self.config.slots:
            raise ValueError(f"action must be a whole number in 0..{self.config.slots}, got {action!r}")
        if a < self.config.slots and model.place(a):
            return self._observe(), 0.0, False, False, self._info(scheduled=True)
        # the void action, an empty slot, or a job that fits nowhere: time moves on
        reward = -model.end_step() * self._scale
        model.sim.run(until=model.tick())
        terminated = model.done
        truncated = not terminated and model.now >= self.config.max_time
        return self._observe(), reward, terminated, truncated, self._info(scheduled=False)

    def action_masks(self) -> np.ndarray:
        """The valid actions now (bool, one per action): slots whose job fits in the horizon, and void.

        The masked-out actions are legal and advance time as the void action does; the
        mask (also in ``info["action_mask"]``, and named as sb3-contrib's MaskablePPO
        reads it) only tells a learner which actions differ from waiting. With
        ``work_conserving``, it also hides waiting while a visible job fits now.
        """
        if self.model is None:
            raise RuntimeError("call reset() before action_masks()")
        return self.model.action_mask(work_conserving=self.config.work_conserving)

    def _observe(self) -> Any:
        assert self.model is not None
        obs = self.model.observation(flat=self.config.flatten)
        if self.config.flatten or self.config.images:
            return obs
        assert isinstance(obs, dict)
        return {"backlog": obs["backlog"], **{k: obs[k].reshape(shape) for k, shape in self._shapes.items()}}

    def render(self) -> str | None:  # type: ignore[override, unused-ignore]  # gymnasium 1.0-1.2 type it as a TypeVar
        """The state as text (``render_mode="ansi"``): the clock, the plan and the visible slots.

        One line per resource and time step ahead would be long; instead each resource's
        row shows the units held in each step of the horizon (``.`` for none, a digit
        for tens of percent, ``#`` for full), then each slot's job as ``len x demands``.
        """
        if self.render_mode is None:
            return None
        model = self.model
        if model is None:
            return "DeepRMEnv (not reset)"
        lines = [
            f"t={model.now}  waiting={len(model.queue)} (backlog {model.backlog})  "
            f"running={len(model.machine.running)}  completed={model.n_completed}/{model.n_jobs}"
        ]
        for r, name in enumerate(model.names):
            share = model.occ[:, r] / model.capacities[r]
            row = "".join("." if x == 0 else "#" if x >= 1 else str(min(9, int(x * 10))) for x in share)
            lines.append(f"  {name:>8} |{row}|")
        for i in range(model.slots):
            job = model.slot(i)
            what = "-" if job is None else f"job {job.id}: {model.length(job)} x {model.demand(job).tolist()}"
            lines.append(f"  slot {i}: {what}")
        return "\n".join(lines)

    def _info(self, *, scheduled: bool) -> dict[str, Any]:
        model = self.model
        assert model is not None
        return {
            "time": model.now,
            "scheduled": scheduled,
            "backlog": model.backlog,
            "completed": model.n_completed,
            "action_mask": model.action_mask(work_conserving=self.config.work_conserving),
        }

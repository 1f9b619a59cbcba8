"""Training a kernel policy on RLScheduler's protocol, and evaluating it there beside the heuristics.

:func:`train` runs sb3-contrib's ``MaskablePPO`` with
:class:`~schedlab.envs.kernel_policy.MaskableKernelPolicy` on
:class:`~schedlab.envs.rlscheduler_env.RLSchedulerEnv` episodes; every ``eval_every``
steps it scores the greedy policy on fixed validation sequences (its learning curve)
and keeps the best weights. By default it learns from the reward divided by the
sequence's SJF score (``relative=True``): a sequence's slowdown under any order
depends mostly on its load, and the ratio keeps one heavy sequence from drowning a
batch's signal; the environment's own reward is unchanged (``relative=False`` learns
from it as it is, as RLScheduler does). :func:`evaluate` replays given windows with
a model (greedy) and returns each window's score.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
import simpy

from schedlab.envs.rlscheduler_env import RLSchedulerConfig, RLSchedulerEnv, sequence_score
from schedlab.policies.backfilling import Committed
from schedlab.processes.replay import replay_model

__all__ = ["TrainSettings", "evaluate", "heuristic_scores", "train"]


@dataclass(frozen=True)
class TrainSettings:
    """PPO's settings (RLScheduler's in brackets where it has one)."""

    steps: int = 100_000
    seed: int = 0
    learning_rate: float = 3e-4  # (pi_lr 3e-4)
    n_steps: int = 2048
    batch_size: int = 256
    n_epochs: int = 10
    gamma: float = 1.0  # (--gamma 1)
    gae_lambda: float = 0.97  # (lam 0.97)
    target_kl: float = 0.01  # (target_kl 0.01)
    relative: bool = True
    eval_every: int = 10_000
    validation: int = 6
    device: str = "cpu"

    def __post_init__(self) -> None:
        for name in ("learning_rate", "gamma", "gae_lambda", "target_kl"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
        for name in ("steps", "n_steps", "batch_size", "n_epochs", "eval_every", "validation"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a whole number >= 1, got {value!r}")


def heuristic_scores(cfg: RLSchedulerConfig, policy: str, starts: Sequence[int], length: int) -> list[float]:
    """Each window's score under a heuristic (RLScheduler's loop and reading), as the environment scores."""
    trace = cfg.trace
    out = []
    for s in starts:
        jobs = list(trace.jobs[s : s + length])
        model = replay_model(simpy.Environment(), jobs, trace.procs, Committed(policy, cfg.backfill),
                             compat="rlscheduler").run()
        starts_ = {r.id: r.start for r in model.records()}
        out.append(sequence_score(jobs, starts_, cfg.score_type, trace.procs))
    return out


class _RelativeReward(gym.Wrapper):
    """The end reward divided by the same sequence's SJF score (a per-sequence baseline; see the module)."""

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        obs, reward, done, trunc, info = self.env.step(action)
        if done:
            env: RLSchedulerEnv = self.env.unwrapped  # type: ignore[assignment]
            base = heuristic_scores(env.config, "sjf", [env.start], env.config.sequence)[0]
            reward = reward / max(base, 1e-9)
        return obs, reward, done, trunc, info

    def action_masks(self) -> np.ndarray:
        return self.env.unwrapped.action_masks()  # type: ignore[attr-defined]


def evaluate(model: Any, cfg: RLSchedulerConfig, starts: Sequence[int], length: int,
             deterministic: bool = True) -> list[float]:
    """Each window's score with ``model`` choosing (greedy unless ``deterministic=False``)."""
    env = RLSchedulerEnv(cfg)
    out = []
    for s in starts:
        obs, _ = env.reset(options={"start": s, "sequence": length})
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=deterministic)
            obs, _, done, _, _ = env.step(int(action))
        out.append(env.score)
    return out


def train(cfg: RLSchedulerConfig, settings: TrainSettings,
          progress: Callable[[dict[str, float]], None] | None = None) -> tuple[Any, list[dict[str, float]]]:
    """Train a kernel policy; returns the model (best validation weights) and its learning curve."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from schedlab.envs.kernel_policy import MaskableKernelPolicy

    env: gym.Env = RLSchedulerEnv(cfg)
    if settings.relative:
        env = _RelativeReward(env)
    model = MaskablePPO(MaskableKernelPolicy, env, learning_rate=settings.learning_rate, n_steps=settings.n_steps,
                        batch_size=settings.batch_size, n_epochs=settings.n_epochs, gamma=settings.gamma,
                        gae_lambda=settings.gae_lambda, target_kl=settings.target_kl, seed=settings.seed,
                        device=settings.device, verbose=0)
    # validation sequences: fixed by the seed, from the training draw's range
    rng = np.random.default_rng(np.random.SeedSequence(settings.seed, spawn_key=(0x7A1,)))
    valid = [int(s) for s in rng.integers(cfg.sequence, cfg.n_jobs - cfg.sequence - 1, size=settings.validation)]
    curve: list[dict[str, float]] = []
    best: dict[str, Any] = {"score": math.inf, "state": None}
    clock = {"cpu": time.process_time()}

    def check(step: int) -> None:
        score = float(np.mean(evaluate(model, cfg, valid, cfg.sequence)))
        if cfg.score_type == "utilization":
            score = -score
        point = {"step": step, "validation": abs(score), "cpu_s": time.process_time() - clock["cpu"]}
        curve.append(point)
        if score < best["score"]:
            best["score"] = score
            best["state"] = {k: v.clone() for k, v in model.policy.state_dict().items()}
        if progress is not None:
            progress(point)

    class _Every(BaseCallback):
        def _on_step(self) -> bool:
            if self.num_timesteps % settings.eval_every == 0:
                check(self.num_timesteps)
            return True

    check(0)
    model.learn(settings.steps, callback=_Every())
    if not curve or curve[-1]["step"] != model.num_timesteps:
        check(model.num_timesteps)
    if best["state"] is not None:
        model.policy.load_state_dict(best["state"])
    _ = torch  # torch is SB3's; imported here so that a missing rl extra fails in one place
    return model, curve

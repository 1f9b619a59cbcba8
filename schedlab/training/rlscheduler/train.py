"""Training a kernel policy on RLScheduler's protocol, and evaluating it there beside the heuristics.

:func:`train` makes an sb3-contrib ``MaskablePPO`` with
:class:`~schedlab.envs.kernel_policy.MaskableKernelPolicy` on
:class:`~schedlab.envs.rlscheduler.env.RLSchedulerEnv` episodes and trains it in up to
three stages, each optional and each going on from the weights of the one before:

1. ``imitate``: behaviour cloning of a heuristic's choices (one order, or ``best``: the
   best of :data:`HEURISTICS` on the validation sequences, by the validation's own
   measure), so that the stages after it start from a known order instead of from noise;
2. ``search_generations``: evolution strategies on the scorer's weights, scored on
   whole sequences (:mod:`schedlab.training.rlscheduler.search`);
3. ``steps``: PPO, as RLScheduler trains. By default it learns from the reward divided
   by the sequence's SJF score (``relative=True``): a sequence's slowdown under any
   order depends mostly on its load, and the ratio keeps one heavy sequence from
   drowning a batch's signal; the environment's own reward is unchanged
   (``relative=False`` learns from it as it is, as RLScheduler does).

Along the way the greedy policy is scored on fixed validation sequences (the learning
curve: after imitation, every ``search_eval_every`` generations and every ``eval_every``
PPO steps), relative to SJF's score on the same sequences, in both backfilling settings
with ``both_backfills``; the best weights seen are the ones returned. Given a
``checkpoint`` path, the training is saved at every validation of the search and
resumes from the file when started again (:mod:`schedlab.training.rlscheduler.checkpoint`).
:func:`evaluate` replays given windows with a model (greedy) and returns each window's
score.

Given a :class:`~schedlab.envs.rlscheduler.mixture.Mixture` of logs in place of one
log's settings, every stage draws each sequence's log from a named stream of the seed
(the search: ``search_mixture``; imitation and PPO: :class:`~schedlab.envs.rlscheduler.mixture.MixtureEnv`),
and the validation windows are spread over the logs; a validation is the mean over
settings and logs of the model's mean score over SJF's on that log's windows
(:mod:`schedlab.training.rlscheduler.validation` measures a model, for one log or a
mixture; :mod:`schedlab.training.rlscheduler.settings` holds :class:`TrainSettings`).
"""

from __future__ import annotations

import dataclasses
import math
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from schedlab.envs.rlscheduler.env import RLSchedulerConfig, RLSchedulerEnv
from schedlab.envs.rlscheduler.mixture import Mixture, MixtureEnv, make_env
from schedlab.envs.rlscheduler.model_files import env_settings, save_model
from schedlab.envs.rlscheduler.scorer import greedy_policy
from schedlab.policies.scoring import RLSCHEDULER_SCORES as SCORES
from schedlab.training.rlscheduler.checkpoint import load_checkpoint, restore, save_checkpoint, snapshot
from schedlab.training.rlscheduler.search import SearchState, evolve
from schedlab.training.rlscheduler.settings import HEURISTICS, TrainSettings
from schedlab.training.rlscheduler.validation import (
    heuristic_scores,
    log_ratios,
    mixture_relative,
    mixture_sjf,
    mixture_validation,
    ranked,
    relative_to_sjf,
    sjf_means,
    validation_configs,
    validation_windows,
)
from schedlab.training.search import gather

__all__ = ["checkpoint_path", "evaluate", "train", "train_into"]


class _RelativeReward(gym.Wrapper):
    """The end reward divided by the same sequence's SJF score (a per-sequence baseline; see the module)."""

    @property
    def scheduler_env(self) -> RLSchedulerEnv:
        """The :class:`RLSchedulerEnv` under the wrappers (a mixture's current one): the baseline's sequence."""
        env = self.env.unwrapped
        if isinstance(env, MixtureEnv):
            env = env.current
        if not isinstance(env, RLSchedulerEnv):
            raise TypeError(f"_RelativeReward wraps an RLSchedulerEnv, not {type(env).__name__}")
        return env

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The wrapped step; at the episode's end, the reward over the SJF score of the same sequence."""
        obs, reward, done, trunc, info = self.env.step(action)
        value = float(reward)  # Gymnasium types it SupportsFloat; RLSchedulerEnv gives a float
        if done:
            env = self.scheduler_env
            base = heuristic_scores(env.config, "sjf", [env.start], env.config.sequence)[0]
            value = value / max(base, 1e-9)
        return obs, value, done, trunc, info

    def action_masks(self) -> np.ndarray:
        """The wrapped environment's valid slots (MaskablePPO reads them through the wrapper)."""
        return self.scheduler_env.action_masks()


def evaluate(
    model: Any, cfg: RLSchedulerConfig, starts: Sequence[int], length: int, deterministic: bool = True
) -> list[float]:
    """Each window's score with ``model`` choosing (greedy unless ``deterministic=False``).

    Greedy, a kernel model chooses through its scorer (:func:`greedy_policy`), as the
    training validates it and :class:`~schedlab.envs.rlscheduler.env.ModelChooser` runs it.
    """
    env = RLSchedulerEnv(cfg)
    chooser = greedy_policy(model) if deterministic else model
    out = []
    for s in starts:
        obs, _ = env.reset(options={"start": s, "sequence": length})
        done = env.done  # a window with no choice at all is over at once
        while not done:
            action, _ = chooser.predict(obs, action_masks=env.action_masks(), deterministic=deterministic)
            obs, _, done, _, _ = env.step(int(action))
        out.append(env.score)
    return out


def _imitate(model: Any, cfg: RLSchedulerConfig | Mixture, settings: TrainSettings, teacher: str) -> None:
    """Behaviour cloning: fit the policy's logits to a heuristic's choices on training episodes.

    The kernel scores jobs one by one, so a score-based heuristic (SJF's requested time)
    is in its reach; PPO then starts from that order instead of from noise, which saves
    most of the steps a small CPU budget has. The episodes come from the training draw.
    """
    import torch

    env = make_env(cfg)
    env.reset(seed=settings.seed + 10_000)  # episodes apart from PPO's own
    fn = SCORES[teacher]
    observations, actions = [], []
    for _ in range(settings.imitate_episodes):
        obs, _ = env.reset()
        done = env.done
        while not done:
            inner = env.current if isinstance(env, MixtureEnv) else env
            shown, now = inner._shown, inner._machine.env.now
            action = min(range(len(shown)), key=lambda i: (fn(shown[i], now), i))
            observations.append(obs)
            actions.append(action)
            obs, _, done, _, _ = env.step(action)
    policy = model.policy
    x = torch.as_tensor(np.array(observations), device=policy.device)
    y = torch.as_tensor(actions, device=policy.device)
    optimizer = torch.optim.Adam(policy.mlp_extractor.scorer.parameters(), lr=3e-3)
    gen = torch.Generator().manual_seed(settings.seed)
    for _ in range(settings.imitate_epochs):
        for idx in torch.randperm(len(y), generator=gen).split(256):
            logits = policy.mlp_extractor.forward_actor(x[idx])
            loss = torch.nn.functional.cross_entropy(logits, y[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


def train(
    cfg: RLSchedulerConfig | Mixture,
    settings: TrainSettings,
    progress: Callable[[dict[str, Any]], None] | None = None,
    checkpoint: Path | None = None,
    executor: Executor | None = None,
) -> tuple[Any, list[dict[str, Any]]]:
    """Train a kernel policy; returns the model (best validation weights) and its learning curve.

    With ``checkpoint``, the training is saved there at each validation of the search, and
    goes on from it if the file exists (refused in one line if it was written with other
    settings); the caller deletes it once the model is saved.

    The search's members and the validation windows are tasks on ``executor`` (any
    ``concurrent.futures.Executor``; None: here); imitation and PPO run here. The model is
    the same for any number of workers.

    PyTorch runs on one thread meanwhile (restored after): the imitation's and PPO's
    float32 sums depend on how many threads share them, so the same seed gives other
    weights with another thread count (docs/rl.md, "Reproducibility"); the network is
    small enough that one thread costs little.
    """
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _train(cfg, settings, progress, checkpoint, executor)
    finally:
        torch.set_num_threads(threads)


def checkpoint_path(path: Path) -> Path:
    """Where the training of the model saved at ``path`` (``seed<k>.zip``) is kept until it is saved."""
    return path.with_name(f"{path.stem}.checkpoint.npz")


def train_into(
    path: Path, cfg: RLSchedulerConfig | Mixture, settings: TrainSettings, name: str, executor: Executor | None = None
) -> Any:
    """Train a model and save it at ``path`` with its settings and curve (:func:`save_model`); the model.

    A checkpoint (:func:`checkpoint_path`) found there is gone on from, and deleted once
    the model is saved. Each validation prints one line on stderr, named by ``name`` (the
    log and seed), so a long training shows where it is and what it has kept so far.
    """
    clock = time.process_time()

    def show(point: dict[str, Any]) -> None:
        other = point.get("validation_other_backfill")
        print(
            f"rlscheduler: {name}: {point['phase']} generation {point.get('generation', '-')} "
            f"step {point['step']}, validation {cfg.score_type} {point['validation']:.2f}"
            f"{'' if other is None else f' / {other:.2f}'} ({point['relative_to_sjf']:.3f} of SJF's), "
            f"{point['cpu_s']:.0f} CPU s",
            file=sys.stderr,
            flush=True,
        )

    checkpoint = checkpoint_path(path)
    if checkpoint.is_file():
        print(f"rlscheduler: {name}: resuming from {checkpoint}", file=sys.stderr)
    model, curve = train(cfg, settings, progress=show, checkpoint=checkpoint, executor=executor)
    save_model(model, path.parent, cfg, settings, curve, name=path.stem)
    checkpoint.unlink(missing_ok=True)
    print(f"rlscheduler: saved {path} ({time.process_time() - clock:.0f} CPU s here)", file=sys.stderr)
    return model


def _train(
    cfg: RLSchedulerConfig | Mixture,
    settings: TrainSettings,
    progress: Callable[[dict[str, Any]], None] | None,
    checkpoint: Path | None,
    executor: Executor | None,
) -> tuple[Any, list[dict[str, Any]]]:
    """:func:`train`'s work, with PyTorch's threads already pinned."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from schedlab.envs.kernel_policy import MaskableKernelPolicy

    env: gym.Env = make_env(cfg)
    if settings.relative:
        env = _RelativeReward(env)
    model = MaskablePPO(
        MaskableKernelPolicy,
        env,
        learning_rate=settings.learning_rate,
        n_steps=settings.n_steps,
        batch_size=settings.batch_size,
        n_epochs=settings.n_epochs,
        gamma=settings.gamma,
        gae_lambda=settings.gae_lambda,
        target_kl=settings.target_kl,
        seed=settings.seed,
        device=settings.device,
        verbose=0,
    )
    configs = validation_configs(cfg, settings)
    if isinstance(cfg, Mixture):
        windows, length = mixture_validation(cfg, settings)
        sjf_each = mixture_sjf(configs, windows, length, executor)

        def validate(model: Any) -> tuple[list[float], float]:
            return mixture_relative(model, configs, windows, length, sjf_each, executor)

        def teacher_cost(heuristic: str) -> float:  # as validate() measures a model
            ratios = []
            for c, base in zip(configs, sjf_each, strict=True):
                calls = [(c.configs[w], heuristic, [s], length) for w, s in windows]
                ratios += log_ratios([v for [v] in gather(executor, heuristic_scores, calls)], base, windows)
            return ranked(cfg, float(np.mean(ratios)))
    else:
        valid, length = validation_windows(cfg, settings)
        sjf = sjf_means(configs, valid, length, executor)

        def validate(model: Any) -> tuple[list[float], float]:
            return relative_to_sjf(model, configs, valid, length, sjf, executor)

        def teacher_cost(heuristic: str) -> float:  # as validate() measures a model
            means = []
            for c in configs:
                calls = [(c, heuristic, [int(s)], length) for s in valid]
                means.append(float(np.mean([v for [v] in gather(executor, heuristic_scores, calls)])))
            return ranked(cfg, float(np.mean([m / b for m, b in zip(means, sjf, strict=True)])))

    curve: list[dict[str, Any]] = []
    best: dict[str, Any] = {"score": math.inf, "state": None}
    clock = {"cpu": time.process_time()}
    resumed = None
    if checkpoint is not None and Path(checkpoint).is_file():
        resumed = load_checkpoint(Path(checkpoint), env_settings(cfg), dataclasses.asdict(settings))
        restore(model, resumed, curve, best, clock)

    def check(point: dict[str, Any]) -> None:
        values, relative = validate(model)
        point |= {"validation": values[0], "relative_to_sjf": relative}
        if len(values) > 1:
            point["validation_other_backfill"] = values[1]
        point |= {"cpu_s": time.process_time() - clock["cpu"], "teacher": best.get("teacher", "")}
        curve.append(point)
        score = ranked(cfg, relative)
        if score < best["score"]:
            best["score"] = score
            best["state"] = {k: v.clone() for k, v in model.policy.state_dict().items()}
        if progress is not None:
            progress(point)

    class _Every(BaseCallback):
        def _on_step(self) -> bool:
            if self.num_timesteps % settings.eval_every == 0:
                check({"phase": "ppo", "step": self.num_timesteps})
            return True

    if settings.imitate and resumed is None:
        teacher = settings.imitate
        if teacher == "best":
            teacher = min(HEURISTICS, key=teacher_cost)
        _imitate(model, cfg, settings, teacher)
        best["teacher"] = teacher
    if resumed is None:
        check({"phase": "start", "step": 0})
    done = resumed.search.generation if resumed is not None else 0
    if settings.search_generations > done:

        def searched(state: SearchState) -> None:
            if state.generation % settings.search_eval_every == 0 or state.generation == settings.search_generations:
                check({"phase": "search", "step": 0, "generation": state.generation, "search_cost": state.cost})
                if checkpoint is not None:
                    save_checkpoint(
                        Path(checkpoint),
                        snapshot(model, env_settings(cfg), dataclasses.asdict(settings), state, curve, best, clock),
                    )

        evolve(
            model,
            cfg,
            generations=settings.search_generations,
            pairs=settings.search_pairs,
            episodes=settings.search_episodes,
            sigma=settings.search_sigma,
            learning_rate=settings.search_learning_rate,
            both_backfills=settings.both_backfills,
            seed=settings.seed,
            on_generation=searched,
            resume=resumed.search if resumed is not None else None,
            executor=executor,
        )
    if settings.steps:
        if best["state"] is not None:  # PPO goes on from the best weights so far
            model.policy.load_state_dict(best["state"])
        model.learn(settings.steps, callback=_Every())
        if curve[-1].get("step") != model.num_timesteps:
            check({"phase": "ppo", "step": model.num_timesteps})
    if best["state"] is not None:
        model.policy.load_state_dict(best["state"])
    _ = torch  # torch is SB3's; imported here so that a missing rl extra fails in one place
    return model, curve

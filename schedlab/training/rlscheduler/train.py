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
and the validation windows (:func:`mixture_validation`) are spread over the logs; a
validation is the mean over settings and logs of the model's mean score over SJF's on
that log's windows (:func:`mixture_relative`).
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from schedlab.envs.rlscheduler.env import RLSchedulerConfig, RLSchedulerEnv, sequence_scores, tail_start
from schedlab.envs.rlscheduler.mixture import Mixture, MixtureEnv, make_env
from schedlab.envs.rlscheduler.model_files import env_settings
from schedlab.envs.rlscheduler.scorer import greedy_policy, scorer_layout, scorer_vector
from schedlab.model.core.streams import Streams
from schedlab.policies.backfilling import Committed
from schedlab.policies.scoring import RLSCHEDULER_SCORES as SCORES
from schedlab.training.rlscheduler.checkpoint import load_checkpoint, restore, save_checkpoint, snapshot
from schedlab.training.rlscheduler.search import SearchState, evolve, greedy_scores, window_scores
from schedlab.training.search import gather

__all__ = [
    "HEURISTICS",
    "TrainSettings",
    "evaluate",
    "heuristic_scores",
    "log_ratios",
    "mixture_relative",
    "mixture_sjf",
    "mixture_validation",
    "ranked",
    "relative_to_sjf",
    "sjf_means",
    "train",
    "validation_configs",
    "validation_windows",
]


#: the heuristics RLScheduler's protocol is compared with: RLScheduler's five (FCFS, WFP3,
#: UNICEP, SJF, F1), then F2, F3, F4 (Carastan-Santos and de Camargo, SC 2017) and SAF;
#: ``imitate="best"`` chooses among them (``sjf-runtime`` reads the true runtime: not a teacher)
HEURISTICS = ("fcfs", "wfp3", "unicep", "sjf", "f1", "f2", "f3", "f4", "saf")


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
    #: first imitate this heuristic's choices (sjf, f1, ...; "best": the best of HEURISTICS on the
    #: validation sequences, measured as a validation measures a model; "" for none)
    imitate: str = "best"
    #: episodes of the heuristic's choices to imitate, and passes over them
    imitate_episodes: int = 40
    imitate_epochs: int = 30
    eval_every: int = 10_000
    #: validation sequences (from the training draw's range, fixed by the seed) and their length: the
    #: evaluation's (1,024), since which order is best differs between 256 and 1,024 jobs; a log's
    #: windows differ widely (SDSC-SP2's bounded slowdown from tens to thousands), so there are many
    validation: int = 16
    validation_length: int = 1024
    #: draw the validation sequences from the last this share of the training draw's range only (1: all of
    #: it): on a log whose load drifts, the jobs nearest those a model will meet next choose its weights
    validation_tail: float = 1.0
    #: train and validate with and without EASY backfilling: the one model of a log serves both settings
    both_backfills: bool = False
    #: generations of evolution strategies on the scorer's weights before PPO (0: none; see
    #: :mod:`schedlab.training.rlscheduler.search`), validated every ``search_eval_every``
    search_generations: int = 0
    search_eval_every: int = 10
    #: antithetic pairs per generation, and the training sequences every member is scored on
    search_pairs: int = 16
    search_episodes: int = 8
    #: the noise's scale on the weights, and Adam's step size on the search's gradient
    search_sigma: float = 0.05
    search_learning_rate: float = 0.02
    device: str = "cpu"

    def __post_init__(self) -> None:
        for name in ("learning_rate", "gamma", "gae_lambda", "target_kl", "search_sigma", "search_learning_rate"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
        tail = self.validation_tail
        if isinstance(tail, bool) or not (isinstance(tail, int | float) and 0 < tail <= 1):
            raise ValueError(f"validation_tail must be a share in (0, 1], got {tail!r}")
        if self.imitate not in ("", "best", *SCORES):
            raise ValueError(f"imitate must be empty, best or one of {', '.join(SCORES)}, got {self.imitate!r}")
        wholes = (
            "n_steps",
            "batch_size",
            "n_epochs",
            "eval_every",
            "validation",
            "validation_length",
            "search_eval_every",
            "search_pairs",
            "search_episodes",
        )
        for name in ("steps", "search_generations", *wholes):
            value = getattr(self, name)
            low = 0 if name in ("steps", "search_generations") else 1
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"{name} must be a whole number >= {low}, got {value!r}")


def validation_windows(cfg: RLSchedulerConfig, settings: TrainSettings) -> tuple[list[int], int]:
    """The validation sequences' starts and their length: fixed by the seed, from the training draw's range.

    With ``validation_tail`` below 1, the starts are drawn from the range's last share only.
    """
    rng = np.random.default_rng(np.random.SeedSequence(settings.seed, spawn_key=(0x7A1,)))
    length = min(settings.validation_length, (cfg.n_jobs - 2) // 2)
    low = tail_start(cfg.n_jobs, length, settings.validation_tail)
    return [int(s) for s in rng.integers(low, cfg.n_jobs - length - 1, size=settings.validation)], length


def validation_configs(cfg: Any, settings: TrainSettings) -> list[Any]:
    """The settings a model is validated in: its training setting, and the other too when it serves both.

    ``cfg`` is one log's :class:`RLSchedulerConfig` or a :class:`Mixture`; the list holds the same kind.
    """
    modes = (cfg.backfill, not cfg.backfill) if settings.both_backfills else (cfg.backfill,)
    if isinstance(cfg, Mixture):
        return [cfg.with_backfill(b) for b in modes]
    return [dataclasses.replace(cfg, backfill=b) for b in modes]


def mixture_validation(mix: Mixture, settings: TrainSettings) -> tuple[list[tuple[int, int]], int]:
    """A mixture's validation windows, ``(log index, start)`` each, and their length: fixed by the seed.

    The ``mixture_validation`` stream of the seed spreads the windows over the logs (as
    evenly as their number allows, in an order it draws), and ``mixture_validation_starts``
    draws each start within its log's range (its last ``validation_tail`` share), as
    :func:`validation_windows` does for one log.
    """
    streams = Streams(settings.seed)
    logs = mix.configs
    length = min(settings.validation_length, *((c.n_jobs - 2) // 2 for c in logs))
    which = streams["mixture_validation"].permutation(np.arange(settings.validation) % len(logs))
    lows = np.array([tail_start(logs[i].n_jobs, length, settings.validation_tail) for i in which])
    highs = np.array([logs[i].n_jobs - length - 1 for i in which])
    starts = streams["mixture_validation_starts"].integers(lows, highs)
    return [(int(w), int(s)) for w, s in zip(which, starts, strict=True)], length


def _mixture_scores(
    layout: Any, vector: Any, mix: Mixture, windows: Sequence[tuple[int, int]], length: int, executor: Executor | None
) -> list[float]:
    calls = [(mix.configs[w], layout, vector, [s], length) for w, s in windows]
    return [score for [score] in gather(executor, window_scores, calls)]


def mixture_sjf(
    configs: Sequence[Mixture], windows: Sequence[tuple[int, int]], length: int, executor: Executor | None = None
) -> list[list[float]]:
    """SJF's score on each window of a mixture, in each setting (one task per window)."""
    return [[max(v, 1e-9) for v in _mixture_scores(None, None, c, windows, length, executor)] for c in configs]


def mixture_relative(
    model: Any,
    configs: Sequence[Mixture],
    windows: Sequence[tuple[int, int]],
    length: int,
    sjf: Sequence[Sequence[float]],
    executor: Executor | None = None,
) -> tuple[list[float], float]:
    """The model's mean score in each setting, and the mean over settings and logs of its ratio to SJF's.

    Per log, the ratio is of the means over that log's windows (as :func:`relative_to_sjf`
    for one log); the logs then count alike, whatever their scale (SDSC-SP2's bounded
    slowdown runs to hundreds where a Lublin log's stays in tens).
    """
    layout, vector = scorer_layout(model), scorer_vector(model)
    values, ratios = [], []
    for c, base in zip(configs, sjf, strict=True):
        scores = _mixture_scores(layout, vector, c, windows, length, executor)
        values.append(float(np.mean(scores)))
        ratios += log_ratios(scores, base, windows)
    return values, float(np.mean(ratios))


def log_ratios(scores: Sequence[float], sjf: Sequence[float], windows: Sequence[tuple[int, int]]) -> list[float]:
    """Per log of a mixture's windows, in log order: the mean of ``scores`` over the mean of SJF's."""
    ratios = []
    for log in sorted({w for w, _ in windows}):
        mine = [i for i, (w, _) in enumerate(windows) if w == log]
        ratios.append(float(np.mean([scores[i] for i in mine]) / np.mean([sjf[i] for i in mine])))
    return ratios


def sjf_means(
    configs: Sequence[RLSchedulerConfig], starts: Sequence[int], length: int, executor: Executor | None = None
) -> list[float]:
    """SJF's mean score on the windows in each setting (one task per window): what a validation is relative to."""
    means = []
    for c in configs:
        scores = gather(executor, window_scores, [(c, None, None, [int(s)], length) for s in starts])
        means.append(max(float(np.mean([score for [score] in scores])), 1e-9))
    return means


def relative_to_sjf(
    model: Any,
    configs: Sequence[RLSchedulerConfig],
    starts: Sequence[int],
    length: int,
    sjf: Sequence[float],
    executor: Executor | None = None,
) -> tuple[list[float], float]:
    """The model's mean score in each setting (greedy), and the mean over settings of its ratio to SJF's."""
    values = [float(np.mean(greedy_scores(model, c, starts, length, executor))) for c in configs]
    return values, float(np.mean([v / b for v, b in zip(values, sjf, strict=True)]))


def ranked(cfg: RLSchedulerConfig | Mixture, relative: float) -> float:
    """``relative`` turned so that lower is better whatever the score type (a higher utilization is better)."""
    return -relative if cfg.score_type == "utilization" else relative


def heuristic_scores(cfg: RLSchedulerConfig, policy: str, starts: Sequence[int], length: int) -> list[float]:
    """Each window's score under a heuristic (RLScheduler's loop and reading), as the environment scores."""
    return sequence_scores(cfg, lambda backfill: Committed(policy, backfill), starts, length)


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

"""The validation of RLScheduler's kernel policy: which windows, and relative to what.

A training keeps the weights best on validation windows of 1,024 jobs, fixed by its
seed and drawn from the training range (:func:`validation_windows`; a mixture's spread
over its logs, :func:`mixture_validation`). A window's bounded slowdown depends mostly
on its load, so a validation is relative: the model's mean score over SJF's mean on the
same windows (:func:`relative_to_sjf`), in each backfilling setting the model serves
(:func:`validation_configs`), averaged over settings (and, for a mixture, over logs,
which then count alike whatever their scale). :func:`ranked` turns it so that lower is
better for every score type. The training (:mod:`schedlab.training.rlscheduler.train`)
and the choice among seeds (:mod:`schedlab.training.rlscheduler.select`) both measure a
model so.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from concurrent.futures import Executor
from typing import Any

import numpy as np

from schedlab.envs.rlscheduler.env import RLSchedulerConfig, sequence_scores, tail_start
from schedlab.envs.rlscheduler.mixture import Mixture
from schedlab.envs.rlscheduler.scorer import scorer_layout, scorer_vector
from schedlab.model.core.streams import Streams
from schedlab.policies.backfilling import Committed
from schedlab.training.rlscheduler.search import greedy_scores, window_scores
from schedlab.training.rlscheduler.settings import TrainSettings
from schedlab.training.search import gather

__all__ = [
    "heuristic_scores",
    "log_ratios",
    "mixture_relative",
    "mixture_sjf",
    "mixture_validation",
    "ranked",
    "relative_to_sjf",
    "sjf_means",
    "validation_configs",
    "validation_windows",
]


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

"""Evolution strategies for the kernel scorer: search its weights on the sequences' scores themselves.

PPO (:mod:`schedlab.training.rlscheduler.train`) learns a queue order from one reward at
the end of an episode, shared by the hundreds of choices before it, and needs millions
of steps to sort out which choice mattered. The scorer of the kernel policy is small
(about a thousand weights), and its greedy order can be scored directly: run it on a
few sequences, compare with SJF on the same sequences. So this module searches the
weights with OpenAI's evolution strategies (Salimans et al., 2017):

1. draw ``pairs`` noise vectors ``e`` and try the weights ``w + sigma * e`` and
   ``w - sigma * e`` (antithetic pairs) on the same ``episodes`` training sequences,
   drawn anew each generation as the environment draws them;
2. a member's cost is its mean, over those sequences, of the sequence's score divided
   by SJF's score of the same sequence (the relative reward PPO also learns from);
3. rank the costs (centred ranks in [-0.5, 0.5], so one heavy sequence cannot dominate)
   and step ``w`` against the ranks' weighted sum of noise, with Adam.

The weights found are the same SB3 policy's (:class:`~schedlab.envs.kernel_policy.MaskableKernelPolicy`):
PPO can go on from them, and the model saves and loads as any SB3 model. With
``both_backfills``, half the sequences of a generation run with EASY backfilling, since
one model per log serves both settings.

Every draw comes from named streams of the training seed: ``search_episodes`` (the
sequences) and ``search_noise`` (the perturbations); on a
:class:`~schedlab.envs.rlscheduler.mixture.Mixture` of logs, ``search_mixture`` picks
each sequence's log first, and its start is drawn within that log's range (each
sequence is still scored against SJF on the same sequence). After each generation the search's
whole state (the weights, Adam's moments and both streams' positions) is handed to the
caller as a :class:`SearchState`; a search started again from it draws and steps exactly
as the search that was stopped would have, so a long training can be resumed.

References
----------
T. Salimans, J. Ho, X. Chen, S. Sidor, I. Sutskever. Evolution Strategies as a Scalable
Alternative to Reinforcement Learning. arXiv:1703.03864, 2017.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, replace
from itertools import chain
from typing import Any

import numpy as np

from schedlab.envs.rlscheduler.env import ModelChooser, RLSchedulerConfig, sequence_scores
from schedlab.envs.rlscheduler.lockstep import lockstep_scores
from schedlab.envs.rlscheduler.mixture import Mixture
from schedlab.envs.rlscheduler.obs import log_features
from schedlab.envs.rlscheduler.scorer import ScorerLayout, scorer_layout, scorer_vector
from schedlab.model.core.streams import Streams
from schedlab.policies.backfilling import Committed
from schedlab.training.search import gather

__all__ = ["SearchState", "cost", "evolve", "greedy_scores", "plan_scores", "scorer_vector", "window_scores"]

#: sequences of a member scored in one task: small enough that 16 workers share a generation evenly
CHUNK = 8


@dataclass
class SearchState:
    """Where a search stands after a generation: enough to go on from it as if never stopped."""

    #: the generation just done (from 1), and its population's mean cost
    generation: int
    cost: float
    #: the scorer's weights (float64, ``parameters()`` order) and Adam's first and second moments
    weights: np.ndarray
    m: np.ndarray
    v: np.ndarray
    #: the ``bit_generator.state`` of the ``search_episodes`` and ``search_noise`` streams
    episodes_stream: Mapping[str, Any]
    noise_stream: Mapping[str, Any]
    #: and of ``search_mixture`` (which log each sequence is drawn from), for a mixture of logs
    mixture_stream: Mapping[str, Any] | None = None


def _set_vector(model: Any, vector: np.ndarray) -> None:
    import torch

    scorer = model.policy.mlp_extractor.scorer
    value = torch.as_tensor(vector, dtype=torch.float32, device=model.policy.device)
    torch.nn.utils.vector_to_parameters(value, scorer.parameters())


def window_scores(
    cfg: RLSchedulerConfig,
    layout: ScorerLayout | None,
    vector: np.ndarray | None,
    starts: list[int],
    length: int | None,
) -> list[float]:
    """Each sequence's score under the scorer ``layout`` with weights ``vector``, or under SJF when ``layout`` is None.

    A task for an executor's worker: its arguments are small and picklable, and the log
    and its features are loaded once per process (both are cached).
    """
    if layout is None or vector is None:
        return sequence_scores(cfg, lambda b: Committed("sjf", b), starts, length)
    loaded = cfg.loaded
    features = log_features(str(cfg.path), loaded.cpus * loaded.procs_per_node)
    scorer = layout.scorer(vector)
    return sequence_scores(cfg, lambda b: ModelChooser(scorer, features, cfg.queue, b), starts, length)


def cost(scores: list[float], baselines: list[float], score_type: str) -> float:
    """A member's cost: its mean over the sequences of its score over SJF's (negated for utilization)."""
    mean = float(np.mean([score / base for score, base in zip(scores, baselines, strict=True)]))
    return -mean if score_type == "utilization" else mean  # utilization: higher is better


def plan_scores(
    layout: ScorerLayout | None, vector: np.ndarray | None, plan: list[tuple[RLSchedulerConfig, int]]
) -> list[float]:
    """The score of each ``(setting, start)`` sequence of ``plan`` under the scorer (SJF when ``layout`` is None).

    Under a scorer, the sequences are replayed in lockstep and each round of their
    pending choices is scored in one batched pass (:func:`~schedlab.envs.rlscheduler.lockstep.lockstep_scores`):
    the same scores as one sequence at a time (:func:`window_scores`), in less time
    (measured: benchmarks/README.md, "train_profile.py").
    """
    if layout is None or vector is None:
        return [window_scores(c, None, None, [s], None)[0] for c, s in plan]
    return lockstep_scores(layout.scorer(vector), plan)


def greedy_scores(
    model: Any,
    cfg: RLSchedulerConfig,
    starts: Sequence[int],
    length: int | None = None,
    executor: Executor | None = None,
) -> list[float]:
    """Each sequence's score with the scorer of ``model`` choosing greedily, one task per sequence on ``executor``.

    The same scorer and choices as every greedy evaluation of the model
    (:func:`~schedlab.envs.rlscheduler.scorer.greedy_policy`), so a recorded validation
    is the saved model's own score; SB3's float32 ``predict`` may break exact ties otherwise.
    """
    layout, vector = scorer_layout(model), scorer_vector(model)
    calls = [(cfg, layout, vector, [int(s)], length) for s in starts]
    return [score for [score] in gather(executor, window_scores, calls)]


def evolve(
    model: Any,
    cfg: RLSchedulerConfig | Mixture,
    *,
    generations: int,
    pairs: int,
    episodes: int,
    sigma: float,
    learning_rate: float,
    both_backfills: bool,
    seed: int,
    on_generation: Callable[[SearchState], None] | None = None,
    resume: SearchState | None = None,
    executor: Executor | None = None,
) -> None:
    """Search the scorer's weights of ``model`` (an SB3 kernel model) for ``generations``; see the module.

    The model's weights are updated in place after each generation, and
    ``on_generation(state)`` is called with the search's :class:`SearchState`, so that
    the caller can validate, keep the best and save the state. ``resume`` goes on from
    such a state (from its generation + 1), with the same arguments as the search that
    gave it.

    Each chunk of ``CHUNK`` sequences of a member is one task on ``executor`` (any
    ``concurrent.futures.Executor``; None: here), and so is each new sequence's SJF score,
    all sent at once; the costs are computed here from the scores. The noise is drawn here
    and the scores come back in the tasks' order, so the weights are the same for any
    number of workers.
    """
    streams = Streams(seed)
    draw, noise_rng = streams["search_episodes"], streams["search_noise"]
    logs = cfg.configs if isinstance(cfg, Mixture) else (cfg,)
    pick = streams["search_mixture"] if isinstance(cfg, Mixture) else None
    settings = (False, True) if both_backfills else (cfg.backfill,)
    configs = {(i, b): replace(c, backfill=b) for i, c in enumerate(logs) for b in settings}
    layout = scorer_layout(model)
    sjf: dict[tuple[int, int, bool], float] = {}  # each sequence's SJF score (log, start, backfill), computed once

    weights = scorer_vector(model)
    m, v = np.zeros_like(weights), np.zeros_like(weights)
    first = 1
    if resume is not None:
        weights, m, v = resume.weights.copy(), resume.m.copy(), resume.v.copy()
        draw.bit_generator.state = resume.episodes_stream
        noise_rng.bit_generator.state = resume.noise_stream
        if pick is not None and resume.mixture_stream is not None:
            pick.bit_generator.state = resume.mixture_stream
        first = resume.generation + 1
        _set_vector(model, weights)
    beta1, beta2 = 0.9, 0.999
    sequence = logs[0].sequence
    for g in range(first, generations + 1):
        if pick is None:  # one log: the draw as it always was
            which = np.zeros(episodes, dtype=int)
            starts = draw.integers(logs[0].first_start, logs[0].n_jobs - sequence - 1, size=episodes)
        else:  # each sequence's log from its stream, then its start within that log's range
            which = pick.integers(len(logs), size=episodes)
            lows = np.array([logs[i].first_start for i in which])
            starts = draw.integers(lows, np.array([logs[i].n_jobs - sequence - 1 for i in which]))
        keys = [
            (int(w), int(s), settings[i % len(settings)]) for i, (w, s) in enumerate(zip(which, starts, strict=True))
        ]
        new = sorted(set(keys) - set(sjf))
        plan = [(configs[w, b], s) for w, s, b in keys]
        noise = noise_rng.standard_normal((pairs, weights.size))
        members = [weights + sign * sigma * e for e in noise for sign in (1.0, -1.0)]
        # one task per chunk of a member's sequences, and per new sequence's SJF score, all sent at once
        chunks = [plan[at : at + CHUNK] for at in range(0, len(plan), CHUNK)]
        calls: list[tuple[ScorerLayout | None, np.ndarray | None, list[tuple[RLSchedulerConfig, int]]]]
        calls = [(None, None, [(configs[w, b], s)]) for w, s, b in new]
        calls += [(layout, member, chunk) for member in members for chunk in chunks]
        results = gather(executor, plan_scores, calls)
        sjf.update({key: max(score, 1e-9) for key, [score] in zip(new, results[: len(new)], strict=True)})
        parts = results[len(new) :]  # each member's chunks, in order
        scores = [list(chain.from_iterable(parts[i : i + len(chunks)])) for i in range(0, len(parts), len(chunks))]
        costs = np.asarray([cost(row, [sjf[key] for key in keys], cfg.score_type) for row in scores]).reshape(pairs, 2)
        ranks = np.argsort(np.argsort(costs.ravel())).reshape(costs.shape) / max(costs.size - 1, 1) - 0.5
        grad = ((ranks[:, 0] - ranks[:, 1])[:, None] * noise).sum(0) / (pairs * sigma)
        m = beta1 * m + (1 - beta1) * grad
        v = beta2 * v + (1 - beta2) * grad**2
        step = (m / (1 - beta1**g)) / (np.sqrt(v / (1 - beta2**g)) + 1e-8)
        weights = weights - learning_rate * step  # against the cost's gradient
        _set_vector(model, weights)
        if on_generation is not None:
            streams_now = (draw.bit_generator.state, noise_rng.bit_generator.state)
            mixture_now = None if pick is None else pick.bit_generator.state
            on_generation(
                SearchState(g, float(costs.mean()), weights.copy(), m.copy(), v.copy(), *streams_now, mixture_now)
            )

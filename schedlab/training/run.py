"""The training, top to bottom: imitation of a heuristic, evolution strategies on whole episodes, optional PPO.

1. **Set up.** The env (``TrainConfig.env``) and the scorer of ``TrainConfig.policy``
   (an :class:`~schedlab.training.policy.MLPPolicy`, or with ``kernel`` a
   :class:`~schedlab.training.kernel.KernelScorer`) drawn from the ``init`` stream; the
   validation episodes (``validation_episodes`` stream) and, with a teacher, the
   teacher's cost on each.
2. **Imitate** (with a teacher, or ``imitate``): behaviour cloning of the actions of
   ``imitate`` (else the teacher) (:mod:`schedlab.training.imitation`) on
   ``imitation_episodes`` episodes; ``imitate="best"`` copies the env's heuristic that
   scores best on the validation episodes, as the weights are chosen (:func:`best_heuristic`;
   clairvoyant ones left out), and ``settings.json`` names it (``imitated``). The teacher
   stays the yardstick of every cost, so a slow teacher to copy (``rollout-easy-sjf``,
   clairvoyant: learning by cheating) is asked only on the imitation episodes, and the
   fast one prices the search's. Then
   ``dagger`` rounds of DAgger: the learner plays ``imitation_episodes`` new episodes
   (``dagger_episodes`` stream), the copied heuristic labels every state it visits, and
   cloning refits on all the decisions so far.
3. **Search**: each generation draws ``episodes`` training episodes
   (``train_episodes`` stream) and takes one evolution-strategies step
   (:mod:`schedlab.training.search`), the population scored on ``executor``; the new
   weights are scored on the validation episodes, and the best so far are kept.
4. **PPO** (``ppo_steps > 0``, :mod:`schedlab.training.ppo`; in a PettingZoo Parallel
   env one actor and one critic shared by every agent) from the search's best weights,
   validated greedily on the same episodes every ``ppo_validate`` steps; its weights
   replace the search's only where they validate better, so a PPO stage that gets worse
   changes nothing.
5. **Save** after each generation and each PPO validation: the checkpoint
   (``--resume``), ``curve.csv`` and ``curve.png`` (a ``phase`` column: ``start`` after
   imitation, ``search``, ``ppo``, and PPO's ``steps``); at the end ``model.pt`` and
   ``settings.json`` hold the best weights.

The checkpoint holds the search and, after each PPO validation, the PPO stage
(:class:`~schedlab.training.checkpoint.PPOState`: the learner's actor, critic, Adam's
state, steps and draws, the episode stream, the best so far and PPO's curve rows): a run
stopped during PPO, resumed, goes on from the last saved validation and ends with the
same weights as if never stopped. Resumed with a larger ``ppo_steps``, a stage goes on
where it stopped, as more ``generations`` do for the search. A finished search may be
resumed with other PPO settings (``ppo_*``): then the saved PPO stage is not used and
PPO runs again from the search's best weights, as it does from a checkpoint made before
PPO was saved, or after a search generation run on resuming.

Episode seeds come from disjoint ranges: validation in ``[10**5, 10**6)``, training
and imitation in ``[10**6, 2**31)``, so held-out evaluations may use seeds below
``10**5`` (``docs/rl.md`` uses ``0..n-1``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.model.core.streams import Streams
from schedlab.training.checkpoint import Checkpoint, PPOState, load_checkpoint, save_checkpoint
from schedlab.training.config import TrainConfig
from schedlab.training.episodes import EnvSpec, episode_costs, make_env, spaces
from schedlab.training.heuristics import heuristic, heuristic_names, is_clairvoyant
from schedlab.training.imitation import imitate, teacher_decisions
from schedlab.training.kernel import make_scorer
from schedlab.training.outputs import save_model, write_curve
from schedlab.training.policy import Scorer
from schedlab.training.ppo import PPO
from schedlab.training.search import Adam, gather, generation_step, relative

__all__ = ["TrainResult", "best_heuristic", "scored", "train", "validation_seeds"]

VALIDATION_SEEDS = (10**5, 10**6)
TRAINING_SEEDS = (10**6, 2**31)


def validation_seeds(seed: int, validation: int) -> list[int]:
    """The episode seeds a training of seed ``seed`` validates on (``validation`` of them): fixed by the seed."""
    return [int(s) for s in Streams(seed)["validation_episodes"].integers(*VALIDATION_SEEDS, size=validation)]


@dataclass(frozen=True)
class TrainResult:
    """What a training produced: the model's path, its weights' SHA-256 and validation score, and their stage."""

    model: Path
    sha256: str
    validation_score: float
    generation: int
    phase: str = "search"  # the stage the kept weights come from: "search" (with imitation's start) or "ppo"
    ppo_steps: int = 0  # with phase "ppo", the PPO steps they were validated after


def scored(
    spec: EnvSpec, vector: np.ndarray | None, teacher: str | None, seeds: list[int], executor: Executor | None
) -> np.ndarray:
    """Costs of each episode seed, one task per episode (the validation's and the teacher's)."""
    return np.asarray([c for [c] in gather(executor, episode_costs, [(spec, vector, teacher, [s]) for s in seeds])])


def best_heuristic(
    spec: EnvSpec, seeds: list[int], baseline: np.ndarray | None, executor: Executor | None
) -> tuple[str, dict[str, float]]:
    """The env's heuristic best on the episodes ``seeds`` (the first of equals), and each one's score.

    A score is what a validation gives weights: the mean cost relative to the teacher's
    (``baseline``), or the mean cost without a teacher. Clairvoyant heuristics
    (:func:`~schedlab.training.heuristics.is_clairvoyant`) are not candidates.
    """
    names = [name for name in heuristic_names(spec.env_id) if not is_clairvoyant(name)]
    if not names:
        raise ValueError(f"imitate: 'best' needs heuristics, and {spec.env_id} has none")
    scores = {name: float(relative(scored(spec, None, name, seeds, executor), baseline)) for name in names}
    return min(scores, key=scores.__getitem__), scores


def env_spec(config: TrainConfig) -> EnvSpec:
    """The env and scorer of ``config``, as the tasks that score weights on episodes name them."""
    settings_json = json.dumps(dict(config.env_settings), sort_keys=True)
    return EnvSpec(config.env, settings_json, tuple(config.hidden), config.policy)


def copied_heuristic(
    config: TrainConfig, executor: Executor | None = None, baseline: np.ndarray | None = None
) -> tuple[str, dict[str, float]]:
    """The heuristic behaviour cloning copies (``imitate``, else the teacher; ``""``: none) and what chose it.

    With ``imitate="best"`` (and imitation episodes to copy) it is :func:`best_heuristic`
    on the validation episodes, and the second value is every candidate's score; otherwise
    it is the named one, and the second value is empty. ``baseline``: the teacher's costs on
    those episodes, where the caller has them already (else they are scored here).
    """
    copied = config.imitate or config.teacher
    if copied != "best" or not config.imitation_episodes:
        return copied, {}
    spec, seeds = env_spec(config), validation_seeds(config.seed, config.validation)
    if baseline is None and config.teacher:
        baseline = scored(spec, None, config.teacher, seeds, executor)
    return best_heuristic(spec, seeds, baseline, executor)


def train(
    config: TrainConfig,
    out: str | Path,
    *,
    executor: Executor | None = None,
    resume: bool = False,
    progress: bool | None = False,
) -> TrainResult:
    """Train a policy for ``config.env`` into ``out``; see the module for the stages."""
    import torch

    torch.set_num_threads(1)
    out = Path(out)
    settings = config.search_part()
    if not resume and (out / "checkpoint.pkl").exists():
        raise ValueError(f"--out {out} holds a training already: add --resume to go on with it, or choose another")
    env = make_env(config.env, dict(config.env_settings))
    for setting in ("teacher", "imitate"):
        if getattr(config, setting) and (setting, getattr(config, setting)) != ("imitate", "best"):
            heuristic(config.env, getattr(config, setting), setting)  # an unknown name refused before any work
    spec = env_spec(config)
    streams = Streams(config.seed)
    policy = make_scorer(config.policy, env, spaces(env), config.hidden, streams["init"])
    teacher = config.teacher or None
    validation = validation_seeds(config.seed, config.validation)
    val_base = scored(spec, None, teacher, validation, executor) if teacher else None

    def validate(vector: np.ndarray) -> float:
        return float(relative(scored(spec, vector, None, validation, executor), val_base))

    copied, choice = copied_heuristic(config, executor, val_base)  # chosen again on resuming: the same choice

    draw = streams["train_episodes"]
    out.mkdir(parents=True, exist_ok=True)
    if resume:
        state = load_checkpoint(out, settings)
        draw.bit_generator.state = state.episodes_stream
    else:
        start = time.perf_counter()
        if copied and config.imitation_episodes:
            seeds = [int(s) for s in streams["imitation_episodes"].integers(*TRAINING_SEEDS, config.imitation_episodes)]
            data = teacher_decisions(env, config.env, copied, seeds)
            for dagger_round in range(config.dagger + 1):
                if dagger_round:  # DAgger: the teacher labels the states the learner visits
                    drawn = streams["dagger_episodes"].integers(*TRAINING_SEEDS, config.imitation_episodes)
                    more = teacher_decisions(env, config.env, copied, [int(s) for s in drawn], learner=policy)
                    data = tuple(np.concatenate(pair) for pair in zip(data, more, strict=True))
                rate, rng = config.imitation_rate, streams["imitation"]
                imitate(policy, data, epochs=config.imitation_epochs, rate=rate, rng=rng)
        weights = policy.vector()
        score = validate(weights)
        row = {"generation": 0, "phase": "start", "steps": 0, "train_cost": float("nan"), "validation_score": score}
        row["wall_s"] = time.perf_counter() - start
        zeros = np.zeros_like(weights)
        state = Checkpoint(settings, 0, weights, zeros, zeros.copy(), 0, draw.bit_generator.state, weights, score, 0)
        state.rows.append(row)
        save_checkpoint(out, state)
    adam = Adam(state.m, state.v, state.adam_steps)
    from tqdm.auto import tqdm

    bar = tqdm(total=config.generations, initial=min(state.generation, config.generations), disable=progress is False)
    with bar:
        for g in range(state.generation + 1, config.generations + 1):
            start = time.perf_counter()
            seeds = [int(s) for s in draw.integers(*TRAINING_SEEDS, size=config.episodes)]
            base = scored(spec, None, teacher, seeds, executor) if teacher else None
            weights, cost = generation_step(
                spec, state.weights, adam, seed=config.seed, generation=g, pairs=config.pairs, sigma=config.sigma,
                learning_rate=config.learning_rate, seeds=seeds, baseline=base, executor=executor,
            )  # fmt: skip
            score = validate(weights)
            state.weights, state.m, state.v, state.adam_steps = weights, adam.m, adam.v, adam.steps
            state.generation, state.episodes_stream = g, draw.bit_generator.state
            state.ppo = None  # a PPO stage saved after an earlier generation started from other weights
            if score < state.best_score:
                state.best, state.best_score, state.best_generation = weights, score, g
            state.rows.append({"generation": g, "phase": "search", "steps": 0, "train_cost": cost})
            state.rows[-1]["validation_score"] = score
            state.rows[-1]["wall_s"] = time.perf_counter() - start
            save_checkpoint(out, state)
            write_curve(out, state.rows)
            bar.set_postfix(validation=f"{score:.4f}", best=f"{state.best_score:.4f}")
            bar.update(1)
    rows = list(state.rows)  # the checkpoint's rows stay the search's
    best, best_score, best_steps = state.best, state.best_score, 0
    if config.ppo_steps > 0:
        best, best_score, best_steps = _ppo_stage(config, env, spec, policy, streams, state, validate, out, rows)
    write_curve(out, rows)
    policy.set_vector(best)
    phase = "ppo" if best_steps else "search"
    extra = {"best_generation": state.best_generation, "best_phase": phase, "best_ppo_steps": best_steps}
    if choice:
        extra |= {"imitated": copied, "imitation_choice": choice}
    path = save_model(out, policy, config.env, config.as_dict(), {**extra, "validation_score": best_score})
    return TrainResult(path, policy.sha256(), best_score, state.best_generation, phase, best_steps)


def _ppo_stage(
    config: TrainConfig,
    env: Any,
    spec: EnvSpec,
    policy: Scorer,
    streams: Streams,
    state: Checkpoint,
    validate: Callable[[np.ndarray], float],
    out: Path,
    rows: list[dict[str, Any]],
) -> tuple[np.ndarray, float, int]:
    """PPO from the search's best weights, validated every ``ppo_validate`` steps; the best weights of all stages.

    Returns the best weights, their validation score and the PPO steps they come after
    (0: the search's, which PPO did not better). Appends a row per validation to ``rows``.
    After each validation the stage's state goes into the checkpoint (``state.ppo``); one
    saved with the same PPO settings is gone on from, one saved with others is not used.
    """
    teacher = config.teacher or None
    baseline = (lambda seed: episode_costs(spec, None, teacher, [seed])[0]) if teacher else None
    draw = streams["ppo_episodes"]
    saved = getattr(state, "ppo", None)  # a checkpoint from before PPO was saved has no such attribute
    # a checkpoint saved before ppo_steps could grow holds ppo_steps among its settings
    if saved is not None and {k: v for k, v in saved.settings.items() if k != "ppo_steps"} != config.ppo_part():
        saved = None  # made with other PPO settings: PPO again from the search's best, never a mix
    policy.set_vector(state.best)
    learner = PPO(config, env, policy, streams, baseline, lambda: int(draw.integers(*TRAINING_SEEDS)))
    first = len(rows)
    if saved is None:
        best, best_score, best_steps = state.best, state.best_score, 0
        row = {"generation": state.generation, "phase": "ppo", "steps": 0, "train_cost": float("nan")}
        rows.append({**row, "validation_score": best_score, "wall_s": 0.0})
    else:
        learner.load_state(saved.learner)
        draw.bit_generator.state = saved.episodes_stream
        best, best_score, best_steps = saved.best, saved.best_score, saved.best_steps
        rows += saved.rows
    while learner.steps < config.ppo_steps:
        start = time.perf_counter()
        cost = learner.learn(min(config.ppo_validate, config.ppo_steps - learner.steps))
        score = validate(policy.vector())
        if score < best_score:
            best, best_score, best_steps = policy.vector(), score, learner.steps
        row = {"generation": state.generation, "phase": "ppo", "steps": learner.steps, "train_cost": cost}
        rows.append({**row, "validation_score": score, "wall_s": time.perf_counter() - start})
        ppo_rows = [dict(r) for r in rows[first:]]
        stream = draw.bit_generator.state
        state.ppo = PPOState(config.ppo_part(), learner.save_state(), stream, best, best_score, best_steps, ppo_rows)
        save_checkpoint(out, state)
        write_curve(out, rows)
    return best, best_score, best_steps

"""Evolution strategies on the kernel scorer: the numpy scorer is the policy's greedy choice, and a search is seeded."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO

from schedlab.envs.kernel_policy import MaskableKernelPolicy
from schedlab.envs.rlscheduler.env import ModelChooser, RLSchedulerConfig, RLSchedulerEnv, sequence_scores
from schedlab.envs.rlscheduler.model_files import load_model, save_model
from schedlab.envs.rlscheduler.obs import FEATURES, log_features
from schedlab.envs.rlscheduler.scorer import KernelScorer, greedy_policy, kernel_scorer
from schedlab.training.rlscheduler.search import SearchState, evolve, greedy_scores, scorer_vector
from schedlab.training.rlscheduler.settings import TrainSettings
from schedlab.training.rlscheduler.train import evaluate, train
from schedlab.training.rlscheduler.validation import relative_to_sjf, sjf_means, validation_configs, validation_windows

TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces"
pytestmark = pytest.mark.skipif(not (TRACES / "lublin_256.swf.gz").exists(), reason="needs ../shared/traces")


def _model(seed: int = 0) -> tuple[MaskablePPO, RLSchedulerConfig]:
    cfg = RLSchedulerConfig(logs_dir=str(TRACES))
    return MaskablePPO(MaskableKernelPolicy, RLSchedulerEnv(cfg), seed=seed, n_steps=64, batch_size=32), cfg


def test_the_numpy_scorer_picks_what_the_sb3_policy_picks():
    """The search scores weights with a numpy copy of the scorer: its choice is the model's greedy one.

    The numpy scorer computes in float64 (rounded to float32), SB3's policy in float32,
    so the scores agree to float32 rounding (rtol 1e-4), and the choices wherever the best
    job leads the next by more than that.
    """
    import torch

    model, _ = _model()
    scorer = kernel_scorer(model, scorer_vector(model))
    rng = np.random.default_rng(5)
    for n in (2, 7, 128):
        obs = np.tile(np.array([0, 1, 1, 1, 1, 1, 1, 0, 0], dtype=np.float32), 128)
        rows = obs.reshape(128, FEATURES)
        rows[:n, :8] = rng.random((n, 8), dtype=np.float32)
        rows[:n, 8] = 1.0
        mask = np.zeros(128, dtype=bool)
        mask[:n] = True
        with torch.no_grad():
            logits = model.policy.mlp_extractor.forward_actor(torch.as_tensor(obs[None]))[0, :n].numpy()
        h = rows[:n, :8]
        for weight, bias in scorer.layers[:-1]:
            h = np.maximum(h @ weight.T + bias, 0.0)
        ours = (h @ scorer.layers[-1][0].T + scorer.layers[-1][1])[:, 0]
        np.testing.assert_allclose(ours, logits, rtol=1e-4, atol=1e-6)
        top = np.sort(logits)[::-1]
        if n == 1 or top[0] - top[1] > 1e-4 * max(1.0, abs(top[0])):
            action, _ = model.predict(obs, action_masks=mask, deterministic=True)
            assert scorer.predict(obs, action_masks=mask)[0] == int(action)


def test_a_search_is_seeded_and_moves_the_weights():
    """Same seed, same weights after the search; another seed, other weights; the SB3 model holds the result."""

    def search(seed: int, generations: int = 2, resume: SearchState | None = None) -> tuple[np.ndarray, list]:
        model, cfg = _model()
        before = scorer_vector(model)
        states: list[SearchState] = []
        evolve(
            model,
            cfg,
            generations=generations,
            pairs=2,
            episodes=1,
            sigma=0.05,
            learning_rate=0.02,
            both_backfills=True,
            seed=seed,
            on_generation=states.append,
            resume=resume,
        )
        after = scorer_vector(model)
        assert not np.allclose(before, after)
        return after, states

    first, states = search(3)
    assert [s.generation for s in states] == [1, 2] and all(s.cost > 0 for s in states)
    assert np.array_equal(first, states[-1].weights.astype(np.float32))
    assert np.array_equal(first, search(3)[0])
    assert not np.array_equal(first, search(4)[0])
    # going on from generation 1's state draws and steps as the unbroken search did
    resumed, later = search(3, resume=states[0])
    assert [s.generation for s in later] == [2]
    assert np.array_equal(resumed, first) and np.array_equal(later[0].v, states[1].v)


def test_training_with_the_search_keeps_the_best_validated_weights():
    """The curve holds one point after each validated stage; the model returned is the best point's."""
    cfg = RLSchedulerConfig(logs_dir=str(TRACES))
    settings = TrainSettings(
        steps=0,
        imitate="",
        search_generations=2,
        search_eval_every=1,
        search_pairs=2,
        search_episodes=1,
        both_backfills=True,
        validation=1,
        validation_length=256,
    )
    model, curve = train(cfg, settings)
    assert [p["phase"] for p in curve] == ["start", "search", "search"]
    assert all("validation_other_backfill" in p for p in curve)
    best = min(curve, key=lambda p: p["relative_to_sjf"])
    _, again = train(cfg, settings)  # the same seed: the same curve, to the last digit (one environment)
    assert [p["validation"] for p in again] == [p["validation"] for p in curve]
    # the model returned scores what its best point scored, in the training setting (the same numpy path)
    length = 256
    rng = np.random.default_rng(np.random.SeedSequence(settings.seed, spawn_key=(0x7A1,)))
    valid = [int(s) for s in rng.integers(length, cfg.n_jobs - length - 1, size=1)]
    assert greedy_scores(model, cfg, valid, length)[0] == pytest.approx(best["validation"], rel=1e-12)


def test_bad_search_settings_are_one_line_errors():
    with pytest.raises(ValueError, match="search_sigma must be a finite number > 0"):
        TrainSettings(search_sigma=float("nan"))
    with pytest.raises(ValueError, match="search_generations must be a whole number >= 0, got -1"):
        TrainSettings(search_generations=-1)
    with pytest.raises(ValueError, match="search_pairs must be a whole number >= 1, got 0"):
        TrainSettings(search_pairs=0)


def test_identical_jobs_score_alike_and_the_first_is_chosen():
    """A job array's identical rows get one score wherever they sit, so the greedy choice is the first of them.

    In float32 a BLAS kernel may round identical rows differently by their position, and
    which of them is chosen then depends on the CPU (docs/rl.md, "Reproducibility").
    """
    model, _ = _model(seed=1)
    scorer = greedy_policy(model)
    assert isinstance(scorer, KernelScorer)
    rng = np.random.default_rng(2)
    for n in (2, 5, 9, 37, 128):
        obs = np.zeros((128, FEATURES), dtype=np.float32)
        obs[:n, :8] = rng.random(8, dtype=np.float32)  # one job's features, n times
        obs[:n, 8] = 1.0
        scores = scorer.scores(obs[:n])
        assert np.all(scores == scores[0])
        mask = np.arange(128) < n
        assert scorer.predict(obs.ravel(), action_masks=mask)[0] == 0
        assert scorer.predict(obs.ravel())[0] == 0  # without a mask: the rows marked present


def test_a_records_score_is_its_saved_models_own(tmp_path):
    """The score a training records for its best point is the saved model's, re-validated after loading, exactly.

    Exactly, since the training validates, and a loaded model is evaluated, through one
    scorer (:func:`greedy_policy`): the validation path, :class:`ModelChooser` and
    :func:`evaluate` all give the recorded values (one process, one machine).
    """
    cfg = RLSchedulerConfig(logs_dir=str(TRACES))
    settings = TrainSettings(
        steps=0,
        imitate="",
        search_generations=3,
        search_eval_every=1,
        search_pairs=2,
        search_episodes=1,
        both_backfills=True,
        validation=2,
        validation_length=256,
    )
    model, curve = train(cfg, settings)
    save_model(model, tmp_path, cfg, settings, curve, name="seed0")
    recorded = json.loads((tmp_path / "seed0.json").read_text())["curve"]
    best = min(recorded, key=lambda p: p["relative_to_sjf"])
    loaded = load_model(tmp_path / "seed0.zip", cfg)

    valid, length = validation_windows(cfg, settings)
    configs = validation_configs(cfg, settings)
    values, relative = relative_to_sjf(loaded, configs, valid, length, sjf_means(configs, valid, length))
    assert (values, relative) == ([best["validation"], best["validation_other_backfill"]], best["relative_to_sjf"])
    for c, value in zip(configs, values, strict=True):
        features = log_features(str(c.path), c.loaded.cpus * c.loaded.procs_per_node)
        chosen = sequence_scores(c, partial(ModelChooser, loaded, features, c.queue), valid, length)
        assert float(np.mean(chosen)) == value
        assert float(np.mean(evaluate(loaded, c, valid, length))) == value


def test_the_search_on_a_process_pool_steps_as_it_does_here():
    """Each member is one task, its noise drawn before it is sent: two workers give the serial search's weights."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    def search(executor: object) -> np.ndarray:
        model, cfg = _model()
        evolve(model, cfg, generations=2, pairs=2, episodes=2, sigma=0.05, learning_rate=0.02,
               both_backfills=True, seed=5, executor=executor)  # fmt: skip
        return scorer_vector(model)

    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        pooled = search(pool)
        model, cfg = _model()
        starts = [300, 900]
        assert greedy_scores(model, cfg, starts, 256, pool) == greedy_scores(model, cfg, starts, 256)
    assert np.array_equal(pooled, search(None))


def test_draw_tail_keeps_the_searchs_and_ppos_sequences_in_the_ranges_last_share(monkeypatch):
    """``draw_tail=0.25``: every sequence drawn for training starts in the last quarter; 1 draws as RLScheduler does."""
    from schedlab.training.rlscheduler import search as search_module

    cfg = RLSchedulerConfig(logs_dir=str(TRACES), draw_tail=0.25)
    n, tail = cfg.n_jobs, cfg.n_jobs - round(cfg.n_jobs / 4)
    assert cfg.first_start == tail and RLSchedulerConfig(logs_dir=str(TRACES)).first_start == cfg.sequence
    env = RLSchedulerEnv(cfg)
    drawn = [env.reset(seed=k)[1]["start"] for k in range(20)]  # PPO's episodes
    assert all(tail <= s < n - cfg.sequence - 1 for s in drawn)

    planned: list[int] = []

    def spy(layout, vector, plan):
        planned.extend(start for _, start in plan)
        return [1.0] * len(plan)

    monkeypatch.setattr(search_module, "plan_scores", spy)
    model = MaskablePPO(MaskableKernelPolicy, env, seed=0, n_steps=64, batch_size=32)
    evolve(model, cfg, generations=2, pairs=1, episodes=6, sigma=0.05, learning_rate=0.02,
           both_backfills=True, seed=3)  # fmt: skip
    assert len(planned) >= 12 and all(tail <= s < n - cfg.sequence - 1 for s in planned)
    with pytest.raises(ValueError, match="draw_tail"):
        RLSchedulerConfig(logs_dir=str(TRACES), draw_tail=0.0)

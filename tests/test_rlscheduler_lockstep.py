"""The search's faster paths choose as the plain one: the rows-only chooser, and sequences replayed in lockstep."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO

import schedlab.training.rlscheduler.search as search
from schedlab.envs.kernel_policy import MaskableKernelPolicy
from schedlab.envs.rlscheduler.env import ModelChooser, RLSchedulerConfig, RLSchedulerEnv, sequence_scores
from schedlab.envs.rlscheduler.lockstep import lockstep_scores
from schedlab.envs.rlscheduler.obs import FEATURES, log_features, observe, shown_rows, visible_jobs
from schedlab.envs.rlscheduler.scorer import KernelScorer, scorer_layout, scorer_vector

TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces"
LOGS = ("lublin_256", "SDSC-SP2-1998-4.2-cln")
pytestmark = pytest.mark.skipif(
    not all((TRACES / f"{log}.swf.gz").exists() for log in LOGS), reason="needs ../shared/traces"
)


class _Padded:
    """A scorer seen only through ``predict`` (not a KernelScorer): ModelChooser's padded observation path."""

    def __init__(self, scorer: KernelScorer) -> None:
        self.scorer = scorer

    def predict(self, obs: np.ndarray, deterministic: bool = True, action_masks: np.ndarray | None = None) -> tuple:
        return self.scorer.predict(obs, deterministic, action_masks)


def _plain(scorer: object, plan: list[tuple[RLSchedulerConfig, int]]) -> list[float]:
    out = []
    for cfg, start in plan:
        features = log_features(str(cfg.path), cfg.loaded.cpus * cfg.loaded.procs_per_node)
        out += sequence_scores(cfg, lambda b, c=cfg, f=features: ModelChooser(scorer, f, c.queue, b), [start])
    return out


def _model(cfg: RLSchedulerConfig, seed: int = 0) -> MaskablePPO:
    return MaskablePPO(MaskableKernelPolicy, RLSchedulerEnv(cfg), seed=seed, n_steps=64, batch_size=32)


@pytest.mark.parametrize("log", LOGS)
def test_lockstep_and_rows_only_give_the_plain_paths_scores(log):
    """Per sequence, with and without EASY, under several weights: the three paths' scores are equal, exactly."""
    cfg = RLSchedulerConfig(log=log, logs_dir=str(TRACES), sequence=128)
    model = _model(cfg)
    layout, vector = scorer_layout(model), scorer_vector(model)
    rng = np.random.default_rng(7)
    for sigma in (0.0, 0.5, 2.0):  # the initial weights, then far from them: other orders
        member = vector + sigma * rng.standard_normal(vector.size)
        scorer = layout.scorer(member)
        starts = rng.integers(cfg.sequence, cfg.n_jobs - cfg.sequence - 1, size=6)
        plan = [(replace(cfg, backfill=bool(i % 2)), int(s)) for i, s in enumerate(starts)]
        padded = _plain(_Padded(scorer), plan)
        assert _plain(scorer, plan) == padded
        assert lockstep_scores(scorer, plan) == padded
        assert search.plan_scores(layout, member, plan) == padded  # the search's task


def test_shown_rows_are_the_observations_rows():
    """shown_rows gives the padded observation's first rows, bit for bit: more jobs than shown, one just fitting."""
    cfg = RLSchedulerConfig(log="SDSC-SP2-1998-4.2-cln", logs_dir=str(TRACES))
    loaded = cfg.loaded
    features = log_features(str(cfg.path), loaded.cpus * loaded.procs_per_node)
    waiting = list(loaded.jobs[5000:5300])
    for queue, now, free in ((128, waiting[-1].submit + 3600.5, waiting[3].cpus), (8, waiting[-1].submit + 1e6, 0)):
        shown = visible_jobs(waiting, queue)
        assert free == 0 or any(job.cpus == free for job in shown)
        rows = shown_rows(shown, now, free, features)
        assert rows.dtype == np.float32 and rows.shape == (len(shown), FEATURES)
        assert np.array_equal(rows, observe(shown, now, free, features, queue).reshape(queue, FEATURES)[: len(shown)])


def test_the_search_in_lockstep_finds_the_plain_searchs_weights(monkeypatch):
    """Two generations, chunks of 8 sequences with and without EASY: the same weights, bit for bit."""
    cfg = RLSchedulerConfig(logs_dir=str(TRACES))

    def searched() -> str:
        model = _model(cfg)
        search.evolve(model, cfg, generations=2, pairs=2, episodes=8, sigma=0.5, learning_rate=0.05,
                      both_backfills=True, seed=5)  # fmt: skip
        return hashlib.sha256(scorer_vector(model).astype("<f8").tobytes()).hexdigest()

    lockstep = searched()
    monkeypatch.setattr(search, "lockstep_scores", lambda scorer, plan: _plain(_Padded(scorer), plan))
    assert searched() == lockstep

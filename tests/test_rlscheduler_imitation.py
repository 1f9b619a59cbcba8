"""``imitate="best"`` starts the training from the best of the nine heuristics, as a validation measures a model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from schedlab.envs.rlscheduler.env import RLSchedulerConfig
from schedlab.training.rlscheduler.settings import HEURISTICS, TrainSettings
from schedlab.training.rlscheduler.train import train
from schedlab.training.rlscheduler.validation import heuristic_scores, validation_configs, validation_windows

TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces"
pytestmark = pytest.mark.skipif(not (TRACES / "lublin_256_new2.swf.gz").exists(), reason="needs ../shared/traces")


def test_imitate_best_chooses_the_heuristic_best_on_the_validation_measure():
    """The teacher is the argmin, over the nine, of the mean over both backfilling settings of its mean over SJF's."""
    cfg = RLSchedulerConfig(log="lublin_256_new2", logs_dir=str(TRACES))
    settings = TrainSettings(
        steps=0, imitate="best", imitate_episodes=1, imitate_epochs=1, both_backfills=True,
        validation=2, validation_length=256,
    )  # fmt: skip
    _, curve = train(cfg, settings)

    starts, length = validation_windows(cfg, settings)
    configs = validation_configs(cfg, settings)
    assert len(configs) == 2  # without and with EASY

    def measured(heuristic: str) -> float:
        ratios = [
            np.mean(heuristic_scores(c, heuristic, starts, length))
            / np.mean(heuristic_scores(c, "sjf", starts, length))
            for c in configs
        ]
        return float(np.mean(ratios))

    costs = {h: measured(h) for h in HEURISTICS}
    best = min(costs, key=costs.__getitem__)
    assert curve[0]["teacher"] == best, f"chose {curve[0]['teacher']}, the validation ranks: {sorted(costs.items())}"
    assert best not in ("sjf", "f1")  # these windows' best is another order, so the choice is among all nine

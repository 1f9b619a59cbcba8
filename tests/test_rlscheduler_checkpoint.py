"""A training stopped part way resumes from its checkpoint to the very model it would have given."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch

from schedlab.envs.rlscheduler.env import RLSchedulerConfig
from schedlab.envs.rlscheduler.model_files import env_settings
from schedlab.training.rlscheduler.checkpoint import Checkpoint, load_checkpoint, save_checkpoint
from schedlab.training.rlscheduler.search import SearchState
from schedlab.training.rlscheduler.settings import TrainSettings
from schedlab.training.rlscheduler.train import train

TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces"
pytestmark = pytest.mark.skipif(not (TRACES / "lublin_256.swf.gz").exists(), reason="needs ../shared/traces")

SETTINGS = TrainSettings(
    steps=128,
    n_steps=64,
    batch_size=32,
    n_epochs=1,
    eval_every=64,
    imitate="sjf",
    imitate_episodes=2,
    imitate_epochs=1,
    search_generations=4,
    search_eval_every=2,
    search_pairs=2,
    search_episodes=1,
    both_backfills=True,
    validation=1,
    validation_length=256,
)


class _Stopped(Exception):
    """Stands for the end of a session: the training is killed where it is."""


def _without_cpu(curve: list[dict]) -> list[dict]:
    return [{k: v for k, v in point.items() if k != "cpu_s"} for point in curve]


def test_a_stopped_training_resumes_to_the_same_model(tmp_path):
    """Killed after the search's last validation, before PPO: the resumed training ends where an unbroken one does."""
    cfg = RLSchedulerConfig(logs_dir=str(TRACES))
    whole, whole_curve = train(cfg, SETTINGS)

    checkpoint = tmp_path / "seed0.checkpoint.npz"

    def stop_at_generation_4(point: dict) -> None:
        if point.get("generation") == 4:  # the checkpoint on disk is generation 2's
            raise _Stopped

    with pytest.raises(_Stopped):
        train(cfg, SETTINGS, progress=stop_at_generation_4, checkpoint=checkpoint)
    assert load_checkpoint(checkpoint, env_settings(cfg), dataclasses.asdict(SETTINGS)).search.generation == 2

    resumed_points: list[dict] = []
    resumed, resumed_curve = train(cfg, SETTINGS, progress=resumed_points.append, checkpoint=checkpoint)
    # generations 3 and 4 again, then PPO; nothing before the checkpoint is redone
    assert [(p["phase"], p.get("generation")) for p in resumed_points] == [
        ("search", 4),
        ("ppo", None),
        ("ppo", None),
    ]
    assert _without_cpu(resumed_curve) == _without_cpu(whole_curve)
    assert [p["cpu_s"] for p in resumed_curve] == sorted(p["cpu_s"] for p in resumed_curve)  # one clock, resumed
    mine, theirs = whole.policy.state_dict(), resumed.policy.state_dict()
    assert mine.keys() == theirs.keys()
    different = [k for k in mine if not torch.equal(mine[k], theirs[k])]
    assert not different, f"weights differ after resuming: {different}"


def _checkpoint(cfg: RLSchedulerConfig, settings: TrainSettings) -> Checkpoint:
    zeros = np.zeros(3)
    state = SearchState(1, 0.5, zeros, zeros, zeros, {"bit_generator": "PCG64"}, {"bit_generator": "PCG64"})
    return Checkpoint(env_settings(cfg), dataclasses.asdict(settings), state, {}, None, float("inf"), "", [], 1.0)


def test_a_checkpoint_round_trips_and_another_trainings_is_refused_in_one_line(tmp_path):
    cfg = RLSchedulerConfig(logs_dir=str(TRACES))
    path = tmp_path / "seed0.checkpoint.npz"
    save_checkpoint(path, _checkpoint(cfg, SETTINGS))
    back = load_checkpoint(path, env_settings(cfg), dataclasses.asdict(SETTINGS))
    assert back.search.generation == 1 and back.best_score == float("inf") and back.best_policy is None
    assert not list(tmp_path.glob("*.tmp"))  # written whole, then moved into place

    more = dataclasses.replace(SETTINGS, search_generations=5)
    with pytest.raises(ValueError) as err:
        train(cfg, more, checkpoint=path)
    message = str(err.value)
    assert "\n" not in message
    assert message == (
        f"checkpoint {path}: written with search_generations=4, this training has search_generations=5 "
        "(delete the file to start afresh)"
    )
    with pytest.raises(ValueError, match="written with backfill=False, this training has backfill=True"):
        load_checkpoint(path, env_settings(dataclasses.replace(cfg, backfill=True)), dataclasses.asdict(SETTINGS))
    # the device may change between stretches: the weights are the same on any
    other_device = dataclasses.asdict(dataclasses.replace(SETTINGS, device="cuda"))
    assert load_checkpoint(path, env_settings(cfg), other_device).search.generation == 1


def test_a_file_that_is_not_a_checkpoint_is_refused_in_one_line(tmp_path):
    cfg = RLSchedulerConfig(logs_dir=str(TRACES))
    path = tmp_path / "seed0.checkpoint.npz"
    path.write_text("not an archive")
    with pytest.raises(ValueError, match=r"^checkpoint .*seed0.checkpoint.npz: not a readable training checkpoint"):
        train(cfg, SETTINGS, checkpoint=path)


def test_a_checkpoint_missing_its_search_state_is_refused_in_one_line(tmp_path):
    cfg = RLSchedulerConfig(logs_dir=str(TRACES))
    env, settings = env_settings(cfg), dataclasses.asdict(SETTINGS)
    path = tmp_path / "seed0.checkpoint.npz"
    meta = {"format": 1, "env": env, "train": settings, "search": {}}
    np.savez(path, meta=np.array(json.dumps(meta)))
    with pytest.raises(ValueError) as err:
        load_checkpoint(path, env, settings)
    assert str(err.value) == f"checkpoint {path}: not a whole training checkpoint (its search state lacks 'weights')"

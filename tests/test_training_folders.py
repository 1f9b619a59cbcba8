"""``schedlab train SCENARIO``: a scenario's models into their folders, refused, kept or resumed as one training's."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("torch")

from schedlab.experiment.cli import main
from schedlab.training import TrainConfig
from schedlab.training.folders import same_training, train_each

ROOT = Path(__file__).resolve().parent.parent
TINY = TrainConfig(
    env="Machine-v0", generations=1, pairs=2, episodes=1, validation=1, teacher="sjf",
    imitation_episodes=2, imitation_epochs=2, hidden=(8,),
)  # fmt: skip


def test_a_folder_holding_a_training_is_refused_unless_resume_and_then_kept_if_its_settings_match(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    [(model, sha)] = train_each([(TINY, a)], None, resume=False)
    assert model == a / "model.pt" and same_training(a, TINY) and len(sha) == 64
    assert same_training(a, replace(TINY, workers=4))  # the number of workers does not change the model
    made = model.stat().st_mtime_ns
    # refused before any training: b is not started when a, after it, holds a training already
    with pytest.raises(ValueError, match=r"holds a training already: add --resume") as info:
        train_each([(TINY, b), (TINY, a)], None, resume=False)
    assert "\n" not in str(info.value) and not b.exists()
    assert train_each([(TINY, a)], None, resume=True) == [(model, sha)]  # kept, not trained again
    assert model.stat().st_mtime_ns == made
    with pytest.raises(ValueError, match=r"trained with other settings \(seed\)"):
        train_each([(replace(TINY, seed=1), a)], None, resume=True)


def test_the_supervisor_scenario_trains_the_models_its_run_reads(tmp_path, capsys):
    """``schedlab train scenarios/learned_supervisor.py``, then ``schedlab run`` on the folder: the same models."""
    scenario = str(ROOT / "scenarios" / "learned_supervisor.py")
    small = ["--set", "seeds=0", "--set", "rewards=overhead", "--set", "jobs=300", "--set", "drop=50"]
    models = tmp_path / "models"
    assert main(["train", scenario, "--quick", "--executor", "serial", *small, "--out", str(models)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[-2] == str(models / "overhead" / "seed0" / "model.pt") and printed[-1].startswith("weights sha256")
    run = ["run", scenario, "--quick", "--executor", "serial", *small, "--set", f"models={models}"]
    assert main([*run, "--set", "pretrain=50", "--out", str(tmp_path / "run")]) == 0
    assert "learned (overhead), seed 0" in capsys.readouterr().out


def test_the_dqn_scenarios_train_their_checkpoint(tmp_path, capsys):
    """``schedlab train scenarios/deeprm.py``: the DQN's checkpoint where ``--set out_dir`` finds it, and its hash."""
    scenario = str(ROOT / "scenarios" / "deeprm.py")
    small = dict(train_steps=300, learning_starts=100, buffer_size=300, eval_every=150, hidden=16, arrival_steps=10)
    tiny = [a for k, v in {**small, "train_loads": 1.9}.items() for a in ("--set", f"{k}={v}")]
    args = ["train", scenario, *tiny, "--out", str(tmp_path)]
    assert main(args) == 0
    path, sha = capsys.readouterr().out.splitlines()[-2:]
    assert Path(path).parent == tmp_path and Path(path).name.startswith("dqn_") and len(sha.split()[-1]) == 64
    assert main(args) == 2 and "--resume" in capsys.readouterr().err
    assert main([*args, "--resume"]) == 0 and capsys.readouterr().out.splitlines()[-1] == sha
    # settings whose run reads no model: one line saying so, not a silent success
    assert main([*args, "--set", "policies=sjf,fcfs"]) == 2
    assert "nothing to train with these settings" in capsys.readouterr().err

"""A saved RL model is reused only with the settings it was trained with (issue 35).

A model trained by ``--quick`` (2 generations) into ``results/rlscheduler_models`` was
reused by a full run (200 generations) with no word; a corrupt ``seed<k>.json`` gave a
JSON error naming no file; ``seeds=0,0`` evaluated seed 0 twice. No training here: the
models are stand-ins, a settings file beside a ``.zip``, as the scenario checks them.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from schedlab.envs.rlscheduler.model_files import check_model, env_settings
from schedlab.experiment.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[1]
TRACES = ROOT.parent / "shared" / "traces"
pytestmark = pytest.mark.skipif(not (TRACES / "lublin_256.swf.gz").exists(), reason="needs ../shared/traces")


@pytest.fixture(scope="module")
def scenario():
    return load_scenario(ROOT / "scenarios" / "rlscheduler.py")


def _stand_in(scenario, folder: Path, seed: int, quick: bool) -> Path:
    """A model as a run (``--quick`` or not) would have trained it into ``folder``: its .zip and settings."""
    cfg = scenario.config({"seeds": str(seed), "logs_dir": str(TRACES)}, quick=quick)
    path = folder / "lublin_256" / f"seed{seed}.zip"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"a stand-in for SB3's zip")
    meta = {
        "env": env_settings(cfg.env_config(cfg.train_backfill)),
        "train": dataclasses.asdict(cfg.train_settings(seed)),
        "curve": [],
    }
    path.with_suffix(".json").write_text(json.dumps(meta))
    return path


def test_a_model_trained_with_other_settings_is_refused_before_any_work(scenario, tmp_path):
    path = _stand_in(scenario, tmp_path, seed=7, quick=True)  # seed 7: none shipped, so trained into out_dir
    full = {"seeds": "7", "out_dir": str(tmp_path), "logs_dir": str(TRACES)}
    with pytest.raises(ValueError) as refused:
        scenario.config(full)
    message = str(refused.value)
    assert f"model {path} was trained with other settings than this run's: " in message
    assert "search_generations=2 (this run: 200)" in message and "\n" not in message
    assert scenario.config(full, quick=True).seeds == (7,)  # the run it was trained by reuses it
    assert scenario.config({**full, "model": "train"}).seeds == (7,)  # trains it again, as asked
    assert scenario.config({**full, "model": str(path.parent)}).seeds == (7,)  # a folder given: as it is


def test_the_validation_windows_reach_the_trainer_and_a_model_chosen_on_others_is_refused(scenario, tmp_path):
    many = {"seeds": "7", "out_dir": str(tmp_path), "logs_dir": str(TRACES), "validation_windows": "64"}
    assert scenario.config(many).train_settings(7).validation == 64
    _stand_in(scenario, tmp_path, seed=7, quick=False)  # chosen on the default 16 windows
    with pytest.raises(ValueError, match=r"validation=16 \(this run: 64\)"):
        scenario.config(many)
    with pytest.raises(ValueError, match="validation_windows"):
        scenario.config({**many, "validation_windows": "0"})


def test_validation_tail_draws_the_validation_windows_from_the_training_ranges_last_share(scenario, tmp_path):
    from schedlab.training.rlscheduler.validation import validation_windows

    given = {"seeds": "7", "out_dir": str(tmp_path), "logs_dir": str(TRACES), "training_range": "75%"}
    whole = scenario.config(given)
    tail = scenario.config({**given, "validation_tail": "0.25"})
    assert tail.train_settings(7).validation_tail == 0.25 and whole.train_settings(7).validation_tail == 1.0
    env = tail.env_config(False)
    n = env.n_jobs  # the training range: the log's first 75%
    starts, length = validation_windows(env, tail.train_settings(7))
    assert len(starts) == 16 and all(n - round(n / 4) <= s < n - length for s in starts)
    everywhere, _ = validation_windows(env, whole.train_settings(7))
    assert min(everywhere) < n - round(n / 4)  # the default still draws from the whole range
    with pytest.raises(ValueError, match="validation_tail"):
        scenario.config({**given, "validation_tail": "0"})
    with pytest.raises(ValueError, match="validation_tail"):
        scenario.config({**given, "validation_tail": "1.5"})


def test_train_sequence_sets_the_training_episodes_length_and_a_model_trained_on_others_is_refused(scenario, tmp_path):
    given = {"seeds": "7", "out_dir": str(tmp_path), "logs_dir": str(TRACES), "train_sequence": "1024"}
    cfg = scenario.config(given)
    assert cfg.env_config(False).sequence == 1024 and cfg.length == 1024  # training episodes; the windows as ever
    assert scenario.config({"logs_dir": str(TRACES)}).env_config(False).sequence == 256  # RLScheduler's
    _stand_in(scenario, tmp_path, seed=7, quick=False)  # trained on 256-job episodes
    with pytest.raises(ValueError, match=r"sequence=256 \(this run: 1024\)"):
        scenario.config(given)
    with pytest.raises(ValueError, match="train_sequence"):
        scenario.config({**given, "train_sequence": "1"})


def test_a_corrupt_settings_file_is_named_in_one_line(scenario, tmp_path):
    path = _stand_in(scenario, tmp_path, seed=7, quick=True)
    path.with_suffix(".json").write_text('{"env": {"log": "lublin_256",')  # cut short
    cfg = scenario.config({"seeds": "7", "logs_dir": str(TRACES)}, quick=True)
    with pytest.raises(ValueError, match=rf"^model {path}: its settings file {path.with_suffix('.json')} is not "):
        check_model(path, cfg.env_config(False))
    with pytest.raises(ValueError, match=rf"its settings file {path.with_suffix('.json')} is not valid JSON"):
        scenario.config({"seeds": "7", "out_dir": str(tmp_path), "logs_dir": str(TRACES)}, quick=True)


def test_a_seed_given_twice_is_refused(scenario):
    with pytest.raises(ValueError, match=r"seeds=\(0, 2, 0\) names 0 twice: give each once$"):
        scenario.config({"seeds": "0,2,0", "logs_dir": str(TRACES)})


def test_train_tail_draws_the_training_sequences_from_the_ranges_last_share_and_is_compared(scenario, tmp_path):
    given = {"seeds": "7", "out_dir": str(tmp_path), "logs_dir": str(TRACES), "train_tail": "0.25"}
    cfg = scenario.config(given)
    env = cfg.train_config(False)
    assert env.draw_tail == 0.25 and env.first_start == env.n_jobs - round(env.n_jobs / 4)
    assert scenario.config({"logs_dir": str(TRACES)}).train_config(False).draw_tail == 1.0  # the whole range
    path = _stand_in(scenario, tmp_path, seed=7, quick=False)  # trained on sequences from the whole log
    with pytest.raises(ValueError, match=r"draw_tail=1.0 \(this run: 0.25\)"):
        scenario.config(given)
    meta = json.loads(path.with_suffix(".json").read_text())
    del meta["env"]["draw_tail"]  # saved before draw_tail existed: trained on the whole range all the same
    path.with_suffix(".json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match=r"draw_tail=1.0 \(this run: 0.25\)"):
        scenario.config(given)
    assert scenario.config({**given, "train_tail": "1"}).seeds == (7,)  # and reused by a run that trains so
    with pytest.raises(ValueError, match="train_tail"):
        scenario.config({**given, "train_tail": "0"})

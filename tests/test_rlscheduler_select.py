"""Keeping the better of two trained models, judged on their validation windows only."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from schedlab.envs.rlscheduler.env import RLSchedulerConfig
from schedlab.envs.rlscheduler.model_files import load_model, seeds_in
from schedlab.training.rlscheduler.search import greedy_scores
from schedlab.training.rlscheduler.select import main, pick, select_pairs
from schedlab.training.rlscheduler.settings import TrainSettings
from schedlab.training.rlscheduler.validation import heuristic_scores, validation_windows

ROOT = Path(__file__).resolve().parents[1]
TRACES = ROOT.parent / "shared" / "traces"
SHIPPED = ROOT / "schedlab" / "envs" / "rlscheduler" / "trained" / "lublin_256"
pytestmark = pytest.mark.skipif(not (TRACES / "lublin_256.swf.gz").exists(), reason="needs ../shared/traces")


def _candidates(folder: Path) -> list[int]:
    """Two shipped Lublin-1 models copied into ``folder``, their validation cut to 2 windows of 256 jobs."""
    seeds = list(seeds_in(SHIPPED)[:2])
    folder.mkdir(parents=True, exist_ok=True)
    for seed in seeds:
        shutil.copy2(SHIPPED / f"seed{seed}.zip", folder / f"seed{seed}.zip")
        meta = json.loads((SHIPPED / f"seed{seed}.json").read_text())
        meta["train"] |= {"validation": 2, "validation_length": 256}
        (folder / f"seed{seed}.json").write_text(json.dumps(meta))
    return seeds


def test_the_pick_is_the_lower_mean_ratio_to_sjf_on_the_union_of_both_seeds_windows(tmp_path):
    seeds = _candidates(tmp_path)
    paths = [tmp_path / f"seed{s}.zip" for s in seeds]
    best, candidates, windows = pick(paths, str(TRACES))

    # the same measure, computed here from its definition
    cfg = RLSchedulerConfig(log="lublin_256", logs_dir=str(TRACES))
    starts = set()
    for seed in seeds:
        starts |= set(validation_windows(cfg, TrainSettings(seed=seed, validation=2, validation_length=256))[0])
    assert windows == sorted(starts) and len(windows) == 4
    expected = []
    for path in paths:
        ratios = []
        for backfill in (False, True):
            c = RLSchedulerConfig(log="lublin_256", backfill=backfill, logs_dir=str(TRACES))
            rl = np.mean(greedy_scores(load_model(path, c), c, windows, 256))
            ratios.append(rl / np.mean(heuristic_scores(c, "sjf", windows, 256)))
        expected.append(float(np.mean(ratios)))
    print("scores", [c.score for c in candidates], "expected", expected)
    assert [c.score for c in candidates] == pytest.approx(expected, rel=1e-9)
    assert best == int(np.argmin(expected))


def test_a_tie_keeps_the_first_candidate(tmp_path):
    seeds = _candidates(tmp_path)
    path = tmp_path / f"seed{seeds[0]}.zip"
    best, candidates, _ = pick([path, path], str(TRACES))
    assert best == 0 and candidates[0].score == candidates[1].score


def test_the_chosen_models_go_into_a_folder_the_scenario_evaluates_as_it_is(tmp_path):
    seeds = _candidates(tmp_path / "trained")
    record = select_pairs(tmp_path / "trained", [seeds], tmp_path / "chosen", str(TRACES))
    picked = record[",".join(map(str, seeds))]["picked"]
    assert sorted(p.name for p in (tmp_path / "chosen").iterdir()) == sorted(
        [f"seed{picked}.json", f"seed{picked}.zip", "selection.json"]
    )
    assert json.loads((tmp_path / "chosen" / "selection.json").read_text()) == json.loads(json.dumps(record))


def test_a_missing_model_is_one_line_before_any_work(tmp_path, capsys):
    seeds = _candidates(tmp_path)
    argv = [str(tmp_path), "--pair", f"{seeds[0]},99", "--out", str(tmp_path / "out"), "--logs-dir", str(TRACES)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "seed99.zip: no such file" in err
    assert not (tmp_path / "out").exists()


def test_a_model_of_another_log_is_refused_in_one_line(tmp_path, capsys):
    seeds = _candidates(tmp_path)
    other = sorted((SHIPPED.parent / "lublin_256_new2").glob("seed*.zip"))[0]
    shutil.copy2(other, tmp_path / "seed98.zip")
    shutil.copy2(other.with_suffix(".json"), tmp_path / "seed98.json")
    argv = [str(tmp_path), "--pair", f"{seeds[0]},98", "--out", str(tmp_path / "out"), "--logs-dir", str(TRACES)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "trained with log='lublin_256_new2', this run has log='lublin_256'" in err

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


def _mixture_models(folder: Path, seeds: tuple[int, ...] = (3, 4)) -> list[Path]:
    """Untrained models of a two-log mixture (their weights differ by seed), saved as a training saves them."""
    from sb3_contrib import MaskablePPO

    from schedlab.envs.kernel_policy import MaskableKernelPolicy
    from schedlab.envs.rlscheduler.mixture import Mixture, MixtureEnv
    from schedlab.envs.rlscheduler.model_files import save_model

    mix = Mixture(tuple(RLSchedulerConfig(log=log, sequence=64, logs_dir=str(TRACES)) for log in MIXED))
    paths = []
    for seed in seeds:
        model = MaskablePPO(MaskableKernelPolicy, MixtureEnv(mix), seed=seed, n_steps=64, batch_size=32)
        settings = TrainSettings(seed=seed, validation=4, validation_length=64, both_backfills=True)
        paths.append(save_model(model, folder, mix, settings, [], name=f"seed{seed}"))
    return paths


MIXED = ("lublin_256", "lublin_256_new2")


def test_a_mixtures_models_are_chosen_by_their_training_measure_on_the_union_of_their_windows(tmp_path):
    """Each log of the mixture counts alike: the mean over settings and logs of the model's mean over SJF's."""
    from schedlab.envs.rlscheduler.mixture import Mixture
    from schedlab.training.rlscheduler.validation import (
        mixture_relative,
        mixture_sjf,
        mixture_validation,
        validation_configs,
    )

    paths = _mixture_models(tmp_path)
    best, candidates, windows = pick(paths, str(TRACES))
    mix = Mixture(tuple(RLSchedulerConfig(log=log, sequence=64, logs_dir=str(TRACES)) for log in MIXED))
    union: set[tuple[int, int]] = set()
    for seed in (3, 4):
        union |= set(mixture_validation(mix, TrainSettings(seed=seed, validation=4, validation_length=64))[0])
    assert windows == [list(w) for w in sorted(union)] and {w for w, _ in union} == {0, 1}
    configs = validation_configs(mix, TrainSettings(both_backfills=True))
    base = mixture_sjf(configs, sorted(union), 64)
    expected = [mixture_relative(load_model(p, mix), configs, sorted(union), 64, base)[1] for p in paths]
    assert [c.score for c in candidates] == pytest.approx(expected, rel=1e-9)
    assert best == int(np.argmin(expected)) and len(set(expected)) == 2


def test_a_mixtures_model_beside_one_logs_or_another_mixtures_is_refused_in_one_line(tmp_path, capsys):
    mixed = _mixture_models(tmp_path / "mix", seeds=(3,))[0]
    seeds = _candidates(tmp_path / "one")
    with pytest.raises(ValueError, match=r"seed3.zip: a mixture's model, .* lublin_256's: choose among one kind$"):
        pick([tmp_path / "one" / f"seed{seeds[0]}.zip", mixed], str(TRACES))
    meta = json.loads(mixed.with_suffix(".json").read_text())
    meta["env"]["logs"] = ["lublin_256_new2", "lublin_256"]  # the same logs, another mixture (another order)
    other = tmp_path / "mix" / "seed5.zip"
    shutil.copy2(mixed, other)
    other.with_suffix(".json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match=r"seed5.zip: trained on a mixture of lublin_256_new2,lublin_256, "):
        pick([mixed, other], str(TRACES))

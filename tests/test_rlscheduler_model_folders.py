"""Which saved models a run evaluates: shipped, given, trained by the run, the EASY cells' own.

No model is read here: :class:`ModelFolders` decides from the settings and the files present.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from schedlab.envs.rlscheduler.model_files import seeds_in
from schedlab.envs.rlscheduler.model_folders import EASY_ALONE, SHIPPED, ModelFolders


def _folders(tmp_path: Path, **given) -> ModelFolders:
    settings = dict(model="shipped", easy_model="shipped", log="lublin_256", trained_on="", mixture=False,
                    score_type="bsld", seeds=(), out_dir=tmp_path / "models", train_jobs=0)  # fmt: skip
    return ModelFolders(**{**settings, **given})


def test_shipped_models_are_found_and_a_seed_without_one_is_trained_into_the_runs_folder(tmp_path):
    folders = _folders(tmp_path)
    shipped = seeds_in(SHIPPED / "lublin_256")
    assert folders.given() == SHIPPED / "lublin_256" and folders.found_seeds() == shipped
    assert folders.path(shipped[0]) == SHIPPED / "lublin_256" / f"seed{shipped[0]}.zip"
    missing = max(shipped) + 1
    assert folders.path(missing) == tmp_path / "models" / "lublin_256" / f"seed{missing}.zip"
    # the EASY cells take the log's own EASY models, where shipped, on the published protocol only
    easy = SHIPPED / "lublin_256" / EASY_ALONE
    assert folders.easy() == easy and folders.cell_seeds("easy") == seeds_in(easy)
    assert folders.path(seeds_in(easy)[0], "easy").parent == easy
    held_out = replace(folders, train_jobs=7500)
    assert held_out.easy() is None and held_out.trained_dir == tmp_path / "models" / "lublin_256_first7500"


def test_train_a_given_folder_and_another_score_take_no_shipped_model(tmp_path):
    assert _folders(tmp_path, model="train").path(0) == tmp_path / "models" / "lublin_256" / "seed0.zip"
    assert _folders(tmp_path, score_type="wait").given() is None  # the shipped models learnt bsld
    given = tmp_path / "mine"
    assert _folders(tmp_path, model=str(given), easy_model="").path(3, "easy") == given / "seed3.zip"


def test_a_folder_of_a_mixtures_models_gets_the_logs_own_models_beside_it(tmp_path):
    mix = tmp_path / "mix"
    mix.mkdir()
    (mix / "seed0.zip").write_bytes(b"a stand-in")
    (mix / "seed0.json").write_text(json.dumps({"env": {"log": "mix", "logs": ["a", "b"]}, "train": {}}))
    folders = _folders(tmp_path, model=str(mix), easy_model="", seeds=(0,))
    assert folders.evaluates_mixture() and folders.own_seeds() == seeds_in(SHIPPED / "lublin_256")
    assert folders.own("easy") == SHIPPED / "lublin_256" / EASY_ALONE
    alone = _folders(tmp_path, model="train", seeds=(0,))
    assert not alone.evaluates_mixture() and alone.own_seeds() == ()
    assert _folders(tmp_path, mixture=True).model_log == "mix"

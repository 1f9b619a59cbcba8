"""The learning curves saved with RLScheduler models, gathered into one table and one picture."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from schedlab.envs.rlscheduler.model_folders import SHIPPED
from schedlab.training.rlscheduler.curves import write_learning_curves


def _copy_shipped(folder: Path) -> Path:
    for suffix in (".zip", ".json"):
        shutil.copy(SHIPPED / "lublin_256" / f"seed0{suffix}", folder / f"seed0{suffix}")
    return folder / "seed0.zip"


def test_every_point_of_every_curve_is_a_row_and_the_picture_is_drawn(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    model = _copy_shipped(tmp_path)
    saved = json.loads(model.with_suffix(".json").read_text())["curve"]
    written = write_learning_curves({"seed 0": model}, "bsld", "lublin_256", tmp_path)
    assert [p.name for p in written] == ["learning_curves.csv", "learning_curves.png"]
    with open(written[0]) as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == len(saved) and {r["model"] for r in rows} == {"seed 0"}
    assert [r["phase"] for r in rows] == [p["phase"] for p in saved]
    assert written[1].stat().st_size > 0


def test_a_model_without_settings_has_no_curve_and_none_at_all_writes_nothing(tmp_path: Path) -> None:
    model = _copy_shipped(tmp_path)
    bare = tmp_path / "bare"
    bare.mkdir()
    shutil.copy(model, bare / "seed1.zip")  # no seed1.json beside it
    assert write_learning_curves({"seed 1": bare / "seed1.zip"}, "bsld", "lublin_256", bare) == []
    assert not (bare / "learning_curves.csv").exists()
    written = write_learning_curves({"seed 0": model, "seed 1": bare / "seed1.zip"}, "bsld", "lublin_256", tmp_path)
    with open(written[0]) as fh:
        assert {r["model"] for r in csv.DictReader(fh)} == {"seed 0"}

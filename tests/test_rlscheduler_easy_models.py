"""A model per backfilling setting: the EASY cells' own models (``easy_model``), as RLScheduler trains them.

One model per log serves both settings by default. ``easy_model`` gives the EASY cells
models trained with EASY alone (``both_backfills=false``, ``train_backfill=true``) or in
both settings; the cells without backfilling keep ``model``'s. No training here: the models are shipped
Lublin-1 models copied into folders, their settings files saying how they were trained.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from schedlab.envs.rlscheduler.model_files import seeds_in
from schedlab.experiment.cli import main
from schedlab.experiment.scenario import ConfigError, load_scenario

ROOT = Path(__file__).resolve().parents[1]
TRACES = ROOT.parent / "shared" / "traces"
SCENARIO = ROOT / "scenarios" / "rlscheduler.py"
SHIPPED = ROOT / "schedlab" / "envs" / "rlscheduler" / "trained" / "lublin_256"
pytestmark = pytest.mark.skipif(not (TRACES / "lublin_256.swf.gz").exists(), reason="needs ../shared/traces")


def _copy(seed: int, folder: Path, as_seed: int, alone: bool | None = None) -> Path:
    """Shipped Lublin-1 seed ``seed`` as ``folder/seed<as_seed>.zip``, saved as trained in one setting or both.

    ``alone``: trained with EASY alone (True), without backfilling alone (False), in both (None).
    """
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"seed{as_seed}.zip"
    shutil.copy2(SHIPPED / f"seed{seed}.zip", path)
    meta = json.loads((SHIPPED / f"seed{seed}.json").read_text())
    if alone is not None:
        meta["env"]["backfill"], meta["train"]["both_backfills"] = alone, False
    path.with_suffix(".json").write_text(json.dumps(meta))
    return path


def _run(out: Path, *settings: str) -> list[dict[str, str]]:
    args = ["run", str(SCENARIO), "--quick", "--executor", "serial", "--out", str(out)]
    for setting in (f"logs_dir={TRACES}", "heuristics=sjf", *settings):
        args += ["--set", setting]
    assert main(args) == 0
    with open(out / "replications.csv") as fh:
        return list(csv.DictReader(fh))


def _rl(rows: list[dict[str, str]], backfill: str) -> dict[str, list[float]]:
    """Each rl seed's bounded slowdown per window, in one backfilling setting."""
    out: dict[str, list[float]] = {}
    for row in rows:
        if row["policy"] == "rl" and row["backfill"] == backfill:
            out.setdefault(row["seed"], []).append(float(row["bounded_slowdown"]))
    return out


def test_the_easy_cells_take_the_easy_models_and_the_others_keep_models(tmp_path):
    shipped = seeds_in(SHIPPED)
    first, second = shipped[:2]
    _copy(first, tmp_path / "both", first)
    _copy(second, tmp_path / "other", second)
    _copy(second, tmp_path / "easy", 9, alone=True)  # the second model's weights, as seed 9 for EASY alone

    rows = _run(tmp_path / "run", f"model={tmp_path / 'both'}", f"easy_model={tmp_path / 'easy'}")
    alone = _run(tmp_path / "one", f"model={tmp_path / 'both'}", "easy_model=")
    other = _run(tmp_path / "two", f"model={tmp_path / 'other'}", "easy_model=")

    assert set(_rl(rows, "none")) == {str(first)} and set(_rl(rows, "easy")) == {"9"}
    assert _rl(rows, "none") == _rl(alone, "none")  # without backfilling: model's, as before
    assert _rl(rows, "easy")["9"] == _rl(other, "easy")[str(second)]  # with EASY: the EASY model's weights
    assert _rl(rows, "easy")["9"] != _rl(alone, "easy")[str(first)]
    with open(tmp_path / "run" / "rlscheduler_table.csv") as fh:
        table = {row["backfill"]: row for row in csv.DictReader(fh)}
    assert table["none"]["rl_seeds"] == " ".join(f"{v:.2f}" for v in [sum(_rl(rows, "none")[str(first)]) / 2])
    assert table["easy"]["rl_seeds"] == " ".join(f"{v:.2f}" for v in [sum(_rl(rows, "easy")["9"]) / 2])
    with open(tmp_path / "run" / "learning_curves.csv") as fh:
        names = {row["model"] for row in csv.DictReader(fh)}
    assert names == {f"seed {first}", "seed 9 (EASY cells)"}


def test_a_model_trained_without_backfilling_alone_is_refused_for_the_easy_cells_in_one_line(tmp_path, capsys):
    path = _copy(0, tmp_path / "easy", 9, alone=False)
    args = ["run", str(SCENARIO), "--quick", "--executor", "serial", "--out", str(tmp_path / "out")]
    args += ["--set", f"logs_dir={TRACES}", "--set", f"easy_model={path.parent}"]
    assert main(args) == 2
    error = capsys.readouterr().err.strip().splitlines()[0]  # the next line offers --traceback
    print(error)
    assert error.startswith(f"error: easy_model {path}: trained without backfilling alone (backfill=False, ")


def test_shipped_easy_models_serve_only_beside_the_shipped_models(tmp_path):
    scenario = load_scenario(SCENARIO)
    shipped = scenario.config({"logs_dir": str(TRACES)}, quick=True)  # Lublin-1 ships models for its EASY cells
    easy = seeds_in(SHIPPED / "easy")
    assert shipped.folders.easy() == SHIPPED / "easy" and shipped.folders.cell_seeds("easy") == easy
    assert len(easy) == 3 and shipped.folders.cell_seeds("none") == shipped.seeds and not set(easy) & set(shipped.seeds)
    given = _copy(0, tmp_path / "given", 0).parent
    for settings in ({"model": str(given)}, {"model": "train", "out_dir": str(tmp_path)}, {"easy_model": ""}):
        cfg = scenario.config({"logs_dir": str(TRACES), "seeds": "0", **settings}, quick=True)
        assert cfg.folders.easy() is None and cfg.folders.cell_seeds("easy") == cfg.seeds == (0,)
    with pytest.raises(ConfigError, match=re.escape("easy_model must be shipped, empty or a folder of seed<k>.zip")):
        scenario.config({"logs_dir": str(TRACES), "easy_model": "nowhere"})

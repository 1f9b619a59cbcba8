"""A trained kernel policy's files: SB3's ``.zip`` and, beside it, the settings it was trained with.

A model learns a queue order for one log's features, one queue size and one score type;
run with others, it would choose, silently and badly. So :func:`save_model` writes the
environment's and the training's settings (and the learning curve) into ``name.json``
beside SB3's ``name.zip``, and :func:`load_model` refuses, in one line, a model whose
settings differ from the environment's in :data:`MODEL_KEYS`. :func:`check_model` reads
only the settings file, so a run can check all its models before any work.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from schedlab.envs.rlscheduler.env import RLSchedulerConfig

__all__ = ["MODEL_KEYS", "check_model", "env_settings", "load_model", "save_model"]


def env_settings(cfg: RLSchedulerConfig) -> dict[str, Any]:
    """The environment's settings a model is saved with (the log by its name, without folder or suffix)."""
    env = {k: getattr(cfg, k) for k in ("log", "backfill", "score_type", "sequence", "queue", "draw_within")}
    env["log"] = Path(cfg.log).name.removesuffix(".gz").removesuffix(".swf")
    return env


#: settings a saved model must share with the environment it is run in
MODEL_KEYS = ("log", "queue", "score_type")


def save_model(
    model: Any,
    folder: Path,
    cfg: RLSchedulerConfig,
    settings: Any,
    curve: list[dict[str, Any]],
    name: str = "model",
) -> Path:
    """``name.zip`` (SB3's) and ``name.json`` (the environment's settings, the training's, the learning curve).

    ``settings`` is the :class:`~schedlab.training.rlscheduler.train.TrainSettings` it was
    trained with (typed ``Any`` here: this module is imported by the trainer, not the
    other way round).
    """
    folder.mkdir(parents=True, exist_ok=True)
    model.save(folder / f"{name}.zip")
    meta = {"env": env_settings(cfg), "train": dataclasses.asdict(settings), "curve": curve}
    (folder / f"{name}.json").write_text(json.dumps(meta, indent=1))
    return folder / f"{name}.zip"


def check_model(path: Path, cfg: RLSchedulerConfig, other_log: bool = False) -> None:
    """Refuse, in one line, a saved model that is missing or was trained with other settings than ``cfg``'s.

    Reads only the settings file, so a run can check its models before any work.
    ``other_log`` lets a model trained on one log run on another (generalisation).
    """
    path = Path(path)
    meta_path = path.with_suffix(".json")
    if not path.is_file():
        raise ValueError(f"model {path}: no such file")
    if not meta_path.is_file():
        raise ValueError(f"model {path}: its settings file {meta_path.name} is missing")
    saved = json.loads(meta_path.read_text())["env"]
    here = env_settings(cfg)
    for key in MODEL_KEYS:
        if saved.get(key) != here[key] and not (key == "log" and other_log):
            raise ValueError(f"model {path}: trained with {key}={saved.get(key)!r}, this run has {key}={here[key]!r}")


def load_model(path: Path, cfg: RLSchedulerConfig, device: str = "cpu", other_log: bool = False) -> Any:
    """A saved model, refused in one line if it was trained with other settings than ``cfg``'s (:func:`check_model`)."""
    from sb3_contrib import MaskablePPO

    check_model(path, cfg, other_log)
    return MaskablePPO.load(Path(path), device=device)

"""A scenario's trainings, one folder each: what ``schedlab train SCENARIO`` runs.

A scenario that evaluates schedulers trained by :func:`~schedlab.training.train` beside
heuristics (``scenarios/grid_training.py``, ``scenarios/learned_supervisor.py``,
``scenarios/machine_rl.py``) names the trainings its cells read, each as its settings and
the folder its model goes in, and its ``train_models`` hook hands them to
:func:`train_each`. Each folder follows ``schedlab train ENV --out FOLDER``'s rules:

- a folder that holds a training already (its ``model.pt`` or a checkpoint) is refused
  unless ``resume``;
- with ``resume``, a checkpoint is gone on from, exactly, and a finished model is kept if
  :func:`same_training` says it was made with these settings (refused in one line if not);
- every training scores its population on the one executor the command opened, so each
  model is the same for any number of workers.

:func:`same_training` is also how a scenario that trains what is missing before its cells
run (``grid_training``) tells a folder it can use from one it must train again.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

from schedlab.training.checkpoint import NAME as CHECKPOINT
from schedlab.training.config import TrainConfig
from schedlab.training.run import train

__all__ = ["same_training", "train_each"]

#: settings a model made before they existed was made without (settings.json then lacks them)
_BEFORE = {"policy": "mlp", "imitate": ""}


def _comparable(config: dict[str, Any]) -> dict[str, Any]:
    """The settings that make the model: all but the number of workers, which does not change it."""
    return {k: v for k, v in {**_BEFORE, **config}.items() if k != "workers"}


def _differing(folder: Path, config: TrainConfig) -> list[str]:
    saved = _comparable(json.loads((folder / "settings.json").read_text())["config"])
    asked = _comparable(config.as_dict())
    return sorted(k for k in saved.keys() | asked.keys() if saved.get(k) != asked.get(k))


def same_training(folder: Path, config: TrainConfig) -> bool:
    """Whether ``folder`` holds a finished model trained with ``config`` (the number of workers aside)."""
    return (folder / "model.pt").is_file() and not _differing(folder, config)


def train_each(
    trainings: Sequence[tuple[TrainConfig, Path]], executor: Executor | None, resume: bool
) -> list[tuple[Path, str]]:
    """Train each ``(config, folder)`` into its folder, one after another; each model's path and weights sha256.

    Every folder is checked before any training starts, so a refusal comes at once, not
    after hours of the trainings before it.
    """
    for config, folder in trainings:
        started = (folder / "model.pt").is_file() or (folder / CHECKPOINT).is_file()
        if started and not resume:
            raise ValueError(
                f"--out: {folder} holds a training already: add --resume to go on with it (a finished model is "
                f"kept), or choose another --out"
            )
        if (folder / "model.pt").is_file() and _differing(folder, config):
            raise ValueError(
                f"--resume: {folder / 'model.pt'} was trained with other settings "
                f"({', '.join(_differing(folder, config))}): choose another --out"
            )
    out = []
    for config, folder in trainings:
        if (folder / "model.pt").is_file():  # made with these settings: checked above
            sha256 = json.loads((folder / "settings.json").read_text())["weights_sha256"]
        else:
            resumed = (folder / CHECKPOINT).is_file()
            sha256 = train(config, folder, executor=executor, resume=resumed, progress=None).sha256
        out.append((folder / "model.pt", sha256))
    return out

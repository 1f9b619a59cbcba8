"""A training's whole state after each generation, so that ``--resume`` goes on exactly.

:class:`Checkpoint` holds what the next generation depends on (the weights, Adam's
moments, the training-episode stream's position, the best weights so far and their
validation score) and the curve so far. It is written to ``checkpoint.pkl`` in the
output folder after each generation, atomically (a temporary file renamed over the
old one), so a run killed at any moment leaves the last whole generation. A resumed
run must have the same settings but for ``generations``, ``workers`` and PPO's. The
optional PPO stage is not checkpointed: a resumed run runs it again from the search's
best weights, with the same draws, so it ends with the same weights.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["Checkpoint", "load_checkpoint", "save_checkpoint"]

NAME = "checkpoint.pkl"


@dataclass
class Checkpoint:
    """Where a training stands after ``generation`` (0: after imitation, before any search)."""

    settings: dict[str, Any]
    generation: int
    weights: np.ndarray
    m: np.ndarray
    v: np.ndarray
    adam_steps: int
    episodes_stream: Mapping[str, Any]
    best: np.ndarray
    best_score: float
    best_generation: int
    rows: list[dict[str, Any]] = field(default_factory=list)


def save_checkpoint(out: Path, state: Checkpoint) -> None:
    """Write ``state`` to ``out/checkpoint.pkl``, replacing the previous one atomically."""
    tmp = out / (NAME + ".tmp")
    with open(tmp, "wb") as f:
        pickle.dump(state, f)
    os.replace(tmp, out / NAME)


def load_checkpoint(out: Path, settings: dict[str, Any]) -> Checkpoint:
    """The checkpoint in ``out``, refused in one line if missing or made with other settings."""
    path = out / NAME
    if not path.exists():
        raise ValueError(f"--resume: {path} does not exist (no training to resume there)")
    with open(path, "rb") as f:
        state: Checkpoint = pickle.load(f)  # our own file, written by save_checkpoint
    saved = {"policy": "mlp", "imitate": "", **state.settings}  # before policy=: an MLP; before imitate=: none
    if saved != settings:
        changed = sorted(k for k in settings if saved.get(k) != settings[k])
        raise ValueError(f"--resume: {path} was made with other settings ({', '.join(changed)})")
    return state

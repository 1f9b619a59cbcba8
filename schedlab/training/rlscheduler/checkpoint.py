"""A kernel policy's training, saved as it goes so that a stopped training resumes where it was.

A model's training (:func:`~schedlab.training.rlscheduler.train.train`) takes up to an hour of
CPU, mostly in the evolution-strategies search. A session that ends, a laptop that
sleeps, a batch job past its wall time: all lose that work unless it is on disk. So,
given a checkpoint path, training writes one after every validation of the search: the
search's :class:`~schedlab.training.rlscheduler.search.SearchState`, the policy's weights,
the best weights seen, the learning curve and the CPU seconds spent. Started again with
the same path and settings, training goes on from the last one written and returns the
same model and curve as a training never stopped (the test
``test_a_stopped_training_resumes_to_the_same_model`` checks it).

What is resumed is the search. The PPO stage after it is short and starts again from
its beginning; a checkpoint written once the search is over sends a resumed training
straight to it.

The file is a numpy ``.npz`` archive (arrays only, no pickle): the arrays by name, and
the rest as one JSON text under ``meta``. It is written to a temporary file first and
then moved over the old one, so a training killed while writing leaves the previous
checkpoint whole.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.training.rlscheduler.search import SearchState

__all__ = ["FORMAT", "Checkpoint", "load_checkpoint", "restore", "save_checkpoint", "snapshot"]

#: the checkpoint's format version; a file of another version is refused
FORMAT = 1


@dataclass
class Checkpoint:
    """A training as it stood at a search validation (see the module)."""

    #: the settings it was trained with: the environment's and :class:`TrainSettings`' (as a dict)
    env: dict[str, Any]
    train: dict[str, Any]
    search: SearchState
    #: the policy's ``state_dict`` then, and the best-validated one so far (``None``: none yet)
    policy: dict[str, np.ndarray]
    best_policy: dict[str, np.ndarray] | None
    best_score: float
    teacher: str
    curve: list[dict[str, Any]]
    cpu_s: float


def save_checkpoint(path: Path, point: Checkpoint) -> None:
    """Write ``point`` to ``path`` (atomically: a temporary file moved over the old one)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    search = dataclasses.asdict(point.search)
    arrays = {f"search/{k}": search.pop(k) for k in ("weights", "m", "v")}
    arrays |= {f"policy/{k}": v for k, v in point.policy.items()}
    if point.best_policy is not None:
        arrays |= {f"best/{k}": v for k, v in point.best_policy.items()}
    meta = {
        "format": FORMAT,
        "env": point.env,
        "train": point.train,
        "search": search,
        "best_score": point.best_score,
        "teacher": point.teacher,
        "curve": point.curve,
        "cpu_s": point.cpu_s,
    }
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        np.savez(f, meta=np.array(json.dumps(meta)), **arrays)
    os.replace(tmp, path)


def load_checkpoint(path: Path, env: dict[str, Any], train: dict[str, Any]) -> Checkpoint:
    """The checkpoint at ``path``, refused in one line if written with other settings than ``env`` and ``train``."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as archive:
            meta = json.loads(str(archive["meta"]))
            arrays = {k: archive[k] for k in archive.files if k != "meta"}
    except (OSError, ValueError, KeyError) as exc:
        raise ValueError(f"checkpoint {path}: not a readable training checkpoint ({exc})") from None
    if meta.get("format") != FORMAT:
        raise ValueError(f"checkpoint {path}: format {meta.get('format')!r}, this schedlab reads {FORMAT}")
    for saved, here in ((meta["env"], env), (meta["train"], train)):
        for key in sorted((set(saved) | set(here)) - {"device"}):  # a training may go on on another device
            if saved.get(key) != here.get(key):
                raise ValueError(
                    f"checkpoint {path}: written with {key}={saved.get(key)!r}, this training has "
                    f"{key}={here.get(key)!r} (delete the file to start afresh)"
                )

    def part(prefix: str) -> dict[str, np.ndarray]:
        return {k.removeprefix(prefix): v for k, v in arrays.items() if k.startswith(prefix)}

    search_arrays = part("search/")
    try:
        search = SearchState(
            **meta["search"], weights=search_arrays["weights"], m=search_arrays["m"], v=search_arrays["v"]
        )
    except (KeyError, TypeError) as exc:
        raise ValueError(f"checkpoint {path}: not a whole training checkpoint (its search state lacks {exc})") from None
    best = part("best/")
    return Checkpoint(
        env=meta["env"],
        train=meta["train"],
        search=search,
        policy=part("policy/"),
        best_policy=best or None,
        best_score=float(meta["best_score"]),
        teacher=meta["teacher"],
        curve=meta["curve"],
        cpu_s=float(meta["cpu_s"]),
    )


def snapshot(
    model: Any,
    env: dict[str, Any],
    train: dict[str, Any],
    state: SearchState,
    curve: list[dict[str, Any]],
    best: dict[str, Any],
    clock: dict[str, float],
) -> Checkpoint:
    """The training as it stands: the model's and the best weights, the search's state, the curve, the CPU time."""

    def arrays(state_dict: dict[str, Any]) -> dict[str, np.ndarray]:
        return {k: v.detach().cpu().numpy() for k, v in state_dict.items()}

    return Checkpoint(
        env=env,
        train=train,
        search=state,
        policy=arrays(model.policy.state_dict()),
        best_policy=None if best["state"] is None else arrays(best["state"]),
        best_score=best["score"],
        teacher=best.get("teacher", ""),
        curve=curve,
        cpu_s=time.process_time() - clock["cpu"],
    )


def restore(
    model: Any, point: Checkpoint, curve: list[dict[str, Any]], best: dict[str, Any], clock: dict[str, float]
) -> None:
    """Put a checkpoint's weights, curve, best and CPU seconds back into a training just set up."""
    import torch

    def tensors(arrays: dict[str, np.ndarray]) -> dict[str, Any]:
        return {k: torch.as_tensor(v, device=model.policy.device) for k, v in arrays.items()}

    model.policy.load_state_dict(tensors(point.policy))
    curve.extend(point.curve)
    best["score"] = point.best_score
    best["state"] = None if point.best_policy is None else tensors(point.best_policy)
    if point.teacher:
        best["teacher"] = point.teacher
    clock["cpu"] -= point.cpu_s  # the curve's CPU seconds go on from the stretches before

"""Keeping the best of several trainings of one model, judged on their validation episodes only.

The recipe's last step (docs/rl.md, "One training command"): where a training ends
depends on its seed, so train the same model with two or more seeds and keep the one
that does best on validation. No test episode is read, so the choice is part of the
training, not of the evaluation. RLScheduler's models have their own
(:mod:`schedlab.training.rlscheduler.select`); this one serves every folder
``schedlab train ENV`` writes, for any Gymnasium or PettingZoo Parallel env.

:func:`pick` scores each candidate on the union of all the candidates' validation
episodes (each training's own, :func:`~schedlab.training.run.validation_seeds`) by the
training's own measure: the mean over the episodes of the cost relative to the teacher's
on the same episode (the mean cost without a teacher). On its own episodes alone a
candidate scores what its training recorded (``validation_score`` in
``settings.json``); on the union, no candidate is judged on the episodes that chose its
weights alone. Candidates must be the same model: the same env and env settings, the
same scorer and widths, the same teacher. Ties go to the first listed.

From the command line, over folders that ``schedlab train`` wrote::

    python -m schedlab.training.select runs/s0 runs/s1 runs/s2 --out runs/best

copies the chosen folder's files into ``--out`` with ``selection.json`` (every
candidate's score) and prints the choice and its ``weights sha256``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.training.episodes import EnvSpec
from schedlab.training.run import scored, validation_seeds
from schedlab.training.search import relative

__all__ = ["Candidate", "Trained", "pick", "read_trained", "recorded_choice", "score"]

#: what candidates must share to be the same model (settings.json's keys, then its config's)
SAME_MODEL = ("env", "env_settings", "policy", "hidden", "teacher")


@dataclass(frozen=True)
class Trained:
    """One training's folder, as ``schedlab train`` left it: its model's weights and how it was trained."""

    folder: Path
    #: the env, its settings, the scorer and its widths: what a worker rebuilds the network from
    spec: EnvSpec
    #: the yardstick its costs are relative to (empty: none, the costs as they are)
    teacher: str
    #: the training's seed and its number of validation episodes
    seed: int
    validation: int
    #: the weights (the float64 vector the search moves) and their sha256
    vector: np.ndarray
    sha256: str
    #: what the training recorded: its validation score on its own episodes
    validation_score: float
    #: the settings candidates must share (:data:`SAME_MODEL`)
    identity: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Candidate:
    """One training's score on the union of the candidates' validation episodes (lower is better)."""

    folder: Path
    seed: int
    score: float
    sha256: str
    #: the validation episodes it was scored on (the union's size)
    episodes: int


def read_trained(folder: Path) -> Trained:
    """The training in ``folder``; a folder that is not one is refused in one line naming the file."""
    import torch

    model, about = folder / "model.pt", folder / "settings.json"
    for path in (model, about):
        if not path.is_file():
            raise ValueError(
                f"{path}: no such file (a folder that schedlab train wrote holds model.pt and settings.json)"
            )
    try:
        return _trained(folder, json.loads(about.read_text()), torch.load(model, weights_only=True)["vector"].numpy())
    except (ValueError, KeyError, TypeError, RuntimeError) as error:
        raise ValueError(f"{folder}: not a training schedlab train wrote ({type(error).__name__}: {error})") from None


def _trained(folder: Path, settings: dict[str, Any], vector: np.ndarray) -> Trained:
    config = settings["config"]
    policy = settings.get("policy", "mlp")
    values = {
        "env": settings["env"],
        "env_settings": json.dumps(config["env_settings"], sort_keys=True),
        "policy": policy,
        "hidden": json.dumps(settings["hidden"]),
        "teacher": config.get("teacher", ""),
    }
    spec = EnvSpec(settings["env"], values["env_settings"], tuple(settings["hidden"]), policy)
    return Trained(
        folder=folder,
        spec=spec,
        teacher=config.get("teacher", ""),
        seed=int(config["seed"]),
        validation=int(config["validation"]),
        vector=np.asarray(vector, dtype=np.float64),
        sha256=settings["weights_sha256"],
        validation_score=float(settings["validation_score"]),
        identity=tuple((k, str(values[k])) for k in SAME_MODEL),
    )


def score(trained: Trained, seeds: Sequence[int], executor: Executor | None = None) -> float:
    """``trained``'s validation measure on the episode ``seeds``: the mean cost relative to the teacher's."""
    seeds = list(seeds)
    base = scored(trained.spec, None, trained.teacher, seeds, executor) if trained.teacher else None
    return float(relative(scored(trained.spec, trained.vector, None, seeds, executor), base))


def pick(folders: Sequence[Path], executor: Executor | None = None) -> list[Candidate]:
    """Each training's score on the union of their validation episodes, in the order given; the best is the minimum.

    Refused in one line: fewer than two folders, a folder given twice, or trainings of
    different models (the setting that differs is named).
    """
    if len(folders) < 2:
        raise ValueError(f"choose among two or more trainings, got {len(folders)}")
    if len({Path(f).resolve() for f in folders}) < len(folders):
        raise ValueError("a folder is given twice: list each training once")
    trainings = [read_trained(Path(f)) for f in folders]
    first = trainings[0]
    for other in trainings[1:]:
        for (name, mine), (_, theirs) in zip(first.identity, other.identity, strict=True):
            if mine != theirs:
                raise ValueError(f"{other.folder}: trained with {name}={theirs}, {first.folder} with {name}={mine}")
    union = list(dict.fromkeys(s for t in trainings for s in validation_seeds(t.seed, t.validation)))
    return [Candidate(t.folder, t.seed, score(t, union, executor), t.sha256, len(union)) for t in trainings]


def recorded_choice(folders: Sequence[Path], record: Path) -> Path:
    """The folder :func:`pick` keeps among ``folders``, chosen once and read back from ``record`` ever after.

    ``record`` (JSON: the folder chosen, every candidate's seed and score) sits beside the
    folders and names them without their path, so the choice moves with them; a scenario
    writes it before its cells run, and its workers read the same answer.
    """
    if not record.is_file():
        candidates = pick(folders)
        best = min(candidates, key=lambda c: c.score)  # min keeps the first of equals
        scores = [{"seed": c.seed, "folder": c.folder.name, "validation": c.score} for c in candidates]
        record.write_text(json.dumps({"chosen": best.folder.name, "candidates": scores}, indent=2) + "\n")
        print(
            f"{record}: of seeds {[c.seed for c in candidates]}, kept seed {best.seed} ({best.folder})", file=sys.stderr
        )
    return record.parent / json.loads(record.read_text())["chosen"]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m schedlab.training.select FOLDER FOLDER ... --out DIR``: copy the best training into ``DIR``."""
    parser = argparse.ArgumentParser(
        prog="python -m schedlab.training.select",
        description="Keep the best of several trainings of one model, judged on their validation episodes only.",
    )
    parser.add_argument("folders", nargs="+", type=Path, help="folders that schedlab train wrote (model.pt ...)")
    parser.add_argument("--out", required=True, type=Path, help="where the chosen training's files go")
    parser.add_argument("--workers", type=int, default=1, help="worker processes scoring the episodes (default 1)")
    args = parser.parse_args(argv)
    try:
        candidates = _pick_on(args.folders, args.workers)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    best = min(candidates, key=lambda c: c.score)  # min keeps the first of equals
    args.out.mkdir(parents=True, exist_ok=True)
    for name in ("model.pt", "settings.json", "curve.csv", "curve.png"):
        if (best.folder / name).is_file():
            shutil.copy2(best.folder / name, args.out / name)
    record: dict[str, Any] = {
        "chosen": str(best.folder),
        "candidates": [{"folder": str(c.folder), "seed": c.seed, "score": c.score} for c in candidates],
        "episodes": candidates[0].episodes,
    }
    (args.out / "selection.json").write_text(json.dumps(record, indent=2) + "\n")
    teacher = read_trained(best.folder).teacher
    print(
        f"validation: on {record['episodes']} episodes, "
        + (f"the mean cost relative to {teacher}'s (0: as {teacher}; lower is better)" if teacher else "the mean cost")
    )
    for c in candidates:
        print(f"{c.folder}: seed {c.seed}, validation {c.score:+.4f}{'  <- kept' if c is best else ''}")
    print(f"weights sha256 {best.sha256}")
    return 0


def _pick_on(folders: Sequence[Path], workers: int) -> list[Candidate]:
    if workers < 1:
        raise ValueError(f"--workers must be >= 1, got {workers}")
    if workers == 1:
        return pick(folders)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pick(folders, pool)


if __name__ == "__main__":
    raise SystemExit(main())

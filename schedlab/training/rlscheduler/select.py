"""Keeping the best of several trained models, judged on their validation windows only.

Where a kernel policy's training ends depends on its seed: on SDSC-SP2 one seed of three
found an order three times worse than the other two (docs/rl.md). Training two models
per slot, with different seeds, and keeping the one that does better on validation
makes a slot's model less a matter of one draw, without ever reading a test window.

:func:`pick` scores each candidate on the union of all the candidates' validation
windows (each seed's, drawn as :func:`~schedlab.training.rlscheduler.train.train` draws
them), by the training's own measure: the mean, over the backfilling settings the model
was validated in, of its mean bounded slowdown divided by SJF's on the same windows.
A mixture's models (``train_logs``) are scored so on the union of their windows spread
over the logs, each log counting alike, as their training validated them.
Everything it needs (log or logs, queue, score type, seed, windows) is read from the
models' settings files. Ties go to the first candidate, so list the incumbent first.

From the command line, over a folder of trained models (``seed<k>.zip``)::

    python -m schedlab.training.rlscheduler.select results/rlscheduler_models/lublin_256 \\
        --pair 0,3 --pair 1,4 --pair 2,5 --out my_models/lublin_256

copies each pair's better model into ``--out`` (as it is, ``seed<k>.zip`` and
``seed<k>.json``) with ``selection.json`` (every candidate's scores), ready for
``schedlab run scenarios/rlscheduler.py --set model=my_models/lublin_256``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from schedlab.envs.rlscheduler.env import RLSchedulerConfig
from schedlab.envs.rlscheduler.mixture import Mixture
from schedlab.envs.rlscheduler.model_files import SAVED_SINCE, check_model, load_model, read_settings
from schedlab.training.rlscheduler.settings import TrainSettings
from schedlab.training.rlscheduler.validation import (
    mixture_relative,
    mixture_sjf,
    mixture_validation,
    ranked,
    relative_to_sjf,
    sjf_means,
    validation_configs,
    validation_windows,
)

__all__ = ["Candidate", "pick", "select_pairs"]


@dataclasses.dataclass(frozen=True)
class Candidate:
    """One model's score on the union of the candidates' validation windows."""

    path: Path
    #: mean over the backfilling settings of (mean score / SJF's); lower is better (higher for utilization)
    score: float
    #: its mean score in each setting validated, the training setting first
    values: tuple[float, ...]


def _settings(path: Path, logs_dir: str) -> tuple[RLSchedulerConfig | Mixture, TrainSettings]:
    """The environment (one log's, or a mixture's) and training settings a model was saved with (its ``.json``)."""
    meta_path = Path(path).with_suffix(".json")
    if not meta_path.is_file():
        raise ValueError(f"model {path}: its settings file {meta_path.name} is missing")
    meta = read_settings(Path(path))  # unreadable or not JSON: one line naming the file
    env = meta["env"]
    known = {f.name for f in dataclasses.fields(TrainSettings)}
    settings = TrainSettings(**{k: v for k, v in meta["train"].items() if k in known})
    shared = {k: env[k] for k in ("backfill", "score_type", "queue", "sequence") if k in env}
    if isinstance(env.get("logs"), list):  # a mixture's: each log with its own range
        logs = env["logs"]
        ranges = {k: env.get(k, [SAVED_SINCE.get(k, 0)] * len(logs)) for k in ("draw_within", "draw_tail")}
        configs = (
            RLSchedulerConfig(log=name, **shared, **{k: v[i] for k, v in ranges.items()}, logs_dir=logs_dir)
            for i, name in enumerate(logs)
        )
        return Mixture(tuple(configs)), settings
    ranges = {k: env[k] for k in ("draw_within", "draw_tail") if k in env}
    return RLSchedulerConfig(log=env["log"], **shared, **ranges, logs_dir=logs_dir), settings


def _read(paths: Sequence[Path], logs_dir: str) -> list[tuple[RLSchedulerConfig | Mixture, TrainSettings]]:
    """Every candidate's settings; one that is missing or differs from the first's is refused in one line."""
    if not paths:
        raise ValueError("pick needs at least one model")
    for path in paths:
        if not Path(path).is_file():
            raise ValueError(f"model {path}: no such file")
    read = [_settings(Path(p), logs_dir) for p in paths]
    first = read[0][0]
    for path, (cfg, _) in zip(paths, read, strict=True):
        check_model(Path(path), first)
        if isinstance(cfg, Mixture) != isinstance(first, Mixture):
            kinds = ["a mixture's" if isinstance(c, Mixture) else f"{c.log}'s" for c in (cfg, first)]
            raise ValueError(f"model {path}: {kinds[0]} model, {paths[0]} {kinds[1]}: choose among one kind")
        if isinstance(first, Mixture) and isinstance(cfg, Mixture) and cfg.names != first.names:
            raise ValueError(
                f"model {path}: trained on a mixture of {','.join(cfg.names)}, {paths[0]} on {','.join(first.names)}"
            )
    return read


def pick(paths: Sequence[Path], logs_dir: str = "../shared/traces") -> tuple[int, list[Candidate], list[Any]]:
    """The index of the best of ``paths``, every candidate's score, and the windows scored.

    The windows are the union of the candidates' validation windows (their starts; a
    mixture's ``(log index, start)`` each), scored in the settings the first candidate was
    validated in, by the training's own measure (for a mixture, the mean over its logs).
    The models must share a log (or the mixture's logs), queue and score type (a model
    saved with others is refused in one line, before any work); ties go to the earlier path.
    """
    read = _read(paths, logs_dir)
    cfg, first = read[0]
    configs = validation_configs(cfg, first)
    out = []
    if isinstance(cfg, Mixture):
        mixtures = [(c, s) for c, s in read if isinstance(c, Mixture)]  # all of them (_read refuses a mix of kinds)
        mixed = sorted({w for c, s in mixtures for w in mixture_validation(c, s)[0]})
        length = mixture_validation(cfg, first)[1]
        base = mixture_sjf(configs, mixed, length)
        for path in paths:
            values, relative = mixture_relative(load_model(Path(path), cfg), configs, mixed, length, base)
            out.append(Candidate(Path(path), relative, tuple(values)))
        windows: list[Any] = [list(w) for w in mixed]
    else:
        logs = [(c, s) for c, s in read if isinstance(c, RLSchedulerConfig)]  # all of them, likewise
        starts = sorted({w for c, s in logs for w in validation_windows(c, s)[0]})
        length = validation_windows(cfg, first)[1]
        sjf = sjf_means(configs, starts, length)
        for path in paths:  # one model serves every setting
            values, relative = relative_to_sjf(load_model(Path(path), cfg), configs, starts, length, sjf)
            out.append(Candidate(Path(path), relative, tuple(values)))
        windows = list(starts)
    best = min(range(len(out)), key=lambda i: (ranked(cfg, out[i].score), i))
    return best, out, windows


def select_pairs(
    folder: Path, pairs: Sequence[Sequence[int]], out: Path, logs_dir: str = "../shared/traces"
) -> dict[str, Any]:
    """Pick the best seed of each group in ``pairs`` from ``folder``; copy it into ``out`` with ``selection.json``."""
    folder, out = Path(folder), Path(out)
    paths = [[folder / f"seed{seed}.zip" for seed in group] for group in pairs]
    for group_paths in paths:  # every model, before any work
        _read(group_paths, logs_dir)
    out.mkdir(parents=True, exist_ok=True)
    record: dict[str, Any] = {}
    for group, group_paths in zip(pairs, paths, strict=True):
        best, candidates, windows = pick(group_paths, logs_dir)
        for suffix in (".zip", ".json"):
            shutil.copy2(group_paths[best].with_suffix(suffix), out / group_paths[best].with_suffix(suffix).name)
        key = ",".join(str(s) for s in group)
        record[key] = {
            "picked": group[best],
            "windows": windows,
            "candidates": {
                str(s): {"score": c.score, "values": c.values} for s, c in zip(group, candidates, strict=True)
            },
        }
        scores = ", ".join(f"seed {s} {c.score:.4f}" for s, c in zip(group, candidates, strict=True))
        print(f"{folder.name}: {scores} -> seed {group[best]}")
    (out / "selection.json").write_text(json.dumps(record, indent=1))
    return record


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: the exit status, 2 with one line on standard error for bad input."""
    parser = argparse.ArgumentParser(
        prog="python -m schedlab.training.rlscheduler.select", description=__doc__.split("\n")[0]
    )
    parser.add_argument("folder", help="a folder of trained models (seed<k>.zip with seed<k>.json)")
    parser.add_argument("--pair", action="append", required=True, help="seeds to choose among, e.g. 0,3 (repeatable)")
    parser.add_argument("--out", required=True, help="where the chosen models go")
    parser.add_argument("--logs-dir", default="../shared/traces", help="where logs named without a path are found")
    args = parser.parse_args(argv)
    try:
        pairs = [[int(s) for s in p.split(",")] for p in args.pair]
    except ValueError:
        print(f"error: --pair takes seeds separated by commas, got {args.pair}", file=sys.stderr)
        return 2
    try:
        select_pairs(Path(args.folder), pairs, Path(args.out), args.logs_dir)
    except (ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Where a model chosen on a log's first part meets the rest: its validation windows beside the held-out ones.

docs/rl.md, "Jobs never trained on", explains why a model trained with
``training_range`` loses on the jobs after the range with these numbers. For one log, a
training range and a training seed, on two sets of windows:

- ``validation``: the seed's validation windows (drawn within the range, as the training
  draws them), on which the kept weights were chosen;
- ``held-out``: the scenario's evaluation windows, drawn only from the jobs after the range.

Each set gets its shape (:func:`rlscheduler_log_shape.window_shape`: load, widths,
runtimes) and, in each backfilling setting, SJF's mean bounded slowdown and every other
heuristic's, and the model's when ``--model`` names a folder holding ``seed<k>.zip``, as
a ratio to SJF's on the same windows. A model that beats the best heuristic's ratio on
its validation windows and not on the held-out ones was chosen on jobs that do not carry
over. Run from the repository root::

    PYTHONPATH=$PWD python3 tools/rlscheduler_held_out.py SDSC-SP2-1998-4.2-cln 75% 0 [--model FOLDER]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scenarios"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import rlscheduler  # the scenario script: its Config draws the windows
from rlscheduler_log_shape import window_shape

from schedlab.envs.rlscheduler.model_files import load_model
from schedlab.training.rlscheduler.search import greedy_scores
from schedlab.training.rlscheduler.settings import HEURISTICS
from schedlab.training.rlscheduler.validation import heuristic_scores, validation_windows


def ratios(cfg: rlscheduler.Config, starts: list[int], length: int, model: object | None) -> dict[str, dict]:
    """Per backfilling setting: SJF's mean bounded slowdown, and each policy's mean over SJF's on ``starts``."""
    out = {}
    for backfill in (False, True):
        env = cfg.env_config(backfill)
        means = {h: float(np.mean(heuristic_scores(env, h, starts, length))) for h in HEURISTICS}
        if model is not None:
            means["rl"] = float(np.mean(greedy_scores(model, env, starts, length)))
        sjf = means["sjf"]
        best = min(HEURISTICS, key=lambda h: means[h])
        out["easy" if backfill else "none"] = {
            "sjf": round(sjf, 2),
            "best": f"{best} {means[best] / sjf:.3f}",
            **{h: round(v / sjf, 3) for h, v in means.items() if h != "sjf"},
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", help="a log in ../shared/traces, or a path")
    parser.add_argument("training_range", help="as the scenario's training_range: 75%% or a count of jobs")
    parser.add_argument("seed", type=int, help="the training seed whose validation windows are compared")
    parser.add_argument("--model", help="a folder holding seed<k>.zip trained with these settings")
    parser.add_argument(
        "--validation-tail", type=float, default=1.0, help="as the scenario's validation_tail: 0.25, or 1 (default)"
    )
    args = parser.parse_args()
    try:
        cfg = rlscheduler.Config(
            log=args.log,
            training_range=args.training_range,
            seeds=(args.seed,),
            model="train",
            validation_tail=args.validation_tail,
        )
        model = None
        if args.model:
            model = load_model(Path(args.model) / f"seed{args.seed}.zip", cfg.env_config(False))
    except (ValueError, FileNotFoundError) as exc:
        parser.exit(2, f"error: {exc}\n")  # a bad log, range or model: one line, no traceback
    validation, length = validation_windows(cfg.env_config(False), cfg.train_settings(args.seed))
    for name, starts, size in (("validation", validation, length), ("held-out", cfg.starts(), cfg.length)):
        shape = window_shape(cfg.env_config(False), starts, size)
        print(
            f"{name}: {len(starts)} windows of {size} jobs, starts {min(starts)}-{max(starts)}, load "
            f"{shape['load']:.2f} ({shape['load_min']:.2f}-{shape['load_max']:.2f}), mean width "
            f"{shape['width_mean']:.3f}, median runtime {shape['runtime_median']:.0f} s",
            flush=True,
        )
        for backfill, row in ratios(cfg, starts, size, model).items():
            print(f"  {backfill}: {json.dumps(row)}", flush=True)


if __name__ == "__main__":
    main()

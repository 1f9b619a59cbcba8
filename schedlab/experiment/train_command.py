"""``schedlab train ENV``: the arguments of the training command, and what it does with them.

Kept apart from :mod:`schedlab.experiment.cli` (which dispatches to :func:`train_command`)
and :mod:`schedlab.experiment.arguments` (which calls :func:`add_train_parser`), so the
training's options live in one place. The training itself is :func:`schedlab.training.train`;
this module only builds its :class:`~schedlab.training.TrainConfig` from ``--set`` and
opens the executor the population is scored on.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import typing
from typing import Any

__all__ = ["add_train_parser", "train_command"]


def add_train_parser(sub: Any, common: Any) -> None:
    """The ``train`` subcommand's parser, on the subparsers ``sub`` (``common`` adds --set, --quick, --traceback)."""
    p = sub.add_parser(
        "train",
        help="train a scheduler in an environment (imitation, evolution strategies on whole episodes, optional PPO)",
        description="Train a policy for a Gymnasium environment (Machine-v0, ...), one policy shared by every agent "
        "of a PettingZoo Parallel one (GridParallel-v0), or a scenario's learned schedulers "
        "(scenarios/rlscheduler.py, grid_training.py, learned_supervisor.py, machine_rl.py, deeprm.py: --set for "
        "the scenario's Config; evaluate them with schedlab run). Settings: --set FIELD=VALUE for "
        "TrainConfig's fields (generations, pairs, sigma, learning_rate, episodes, validation, teacher, seed, "
        "ppo_steps, ppo_rate...), "
        "--set env.NAME=VALUE for the environment's (env.window=4).",
    )
    p.add_argument(
        "env",
        metavar="ENV",
        help="a registered Gymnasium or Parallel id (Machine-v0 means schedlab/Machine-v0), or a scenario script "
        "that defines train_models (scenarios/rlscheduler.py, grid_training.py, learned_supervisor.py, "
        "machine_rl.py, deeprm.py)",
    )
    p.add_argument("--executor", choices=("process", "dask", "serial"), default="process", help="scores the population")
    p.add_argument("--workers", type=int, default=None, help="worker processes (default: TrainConfig.workers)")
    p.add_argument("--out", default=None, metavar="DIR", help="output folder (default: results/train/<env>)")
    p.add_argument("--resume", action="store_true", help="go on from the checkpoint in --out, exactly")
    common(p)


def _value(text: str) -> Any:
    """An env setting's value: JSON where it parses (numbers, lists, true), else the text itself."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def train_config(env: str, assign: list[str], quick: bool, workers: int | None) -> Any:
    """The :class:`TrainConfig` of the command line (a one-line error for any bad field or value)."""
    from schedlab.experiment.scenario import make_config, parse_assignments
    from schedlab.training import TrainConfig
    from schedlab.training.config import quick as quick_config

    values: dict[str, Any] = parse_assignments(assign)
    env_settings = {k[4:]: _value(v) for k, v in values.items() if k.startswith("env.")}
    values = {k: v for k, v in values.items() if not k.startswith("env.")}
    if workers is not None:
        values["workers"] = str(workers)
    if "hidden" in values:
        values["hidden"] = tuple(int(w) for w in str(values["hidden"]).replace(",", " ").split())
    config = make_config(TrainConfig, {**values, "env": env}, where="train")
    config = dataclasses.replace(config, env_settings=env_settings)
    return quick_config(config) if quick else config


def train_scenario(args: argparse.Namespace) -> int:
    """``schedlab train SCENARIO.py``: the scenario's ``train_models`` hook, with its Config from ``--set``."""
    from pathlib import Path

    from schedlab.experiment.executors import open_executor
    from schedlab.experiment.scenario import load_scenario, parse_assignments

    scenario = load_scenario(args.env)
    if scenario.train_models is None:
        raise ValueError(
            f"{args.env}: the scenario defines no train_models(cfg, out, executor, resume): nothing to train"
        )
    cfg = scenario.config(parse_assignments(args.assign), quick=args.quick)
    kind = typing.cast(Any, args.executor)
    with open_executor(kind, args.workers, None) as executor:  # workers: None is every core
        trained = scenario.train_models(cfg, Path(args.out) if args.out else None, executor, args.resume)
    if not trained:
        raise ValueError(f"{args.env}: nothing to train with these settings (none of its policies is a learned one)")
    for path, sha256 in trained:
        print(path)
        print(f"weights sha256 {sha256}")
    return 0


def train_command(args: argparse.Namespace) -> int:
    """Run ``schedlab train``: check every setting, open the executor, train, print the model and its sha256."""
    from pathlib import Path

    from schedlab.experiment.executors import open_executor

    if args.env.endswith(".py"):
        return train_scenario(args)
    from schedlab.training import train
    from schedlab.training.episodes import make_env

    config = train_config(args.env, args.assign, args.quick, args.workers)
    make_env(config.env, dict(config.env_settings)).close()  # the env's settings checked before any work
    out = Path(args.out or Path("results") / "train" / config.env.replace("/", "_"))
    kind = typing.cast(Any, args.executor)
    with open_executor(kind, config.workers, None) as executor:
        result = train(config, out, executor=executor, resume=args.resume, progress=None)
    where = f"PPO step {result.ppo_steps}" if result.phase == "ppo" else f"generation {result.generation}"
    print(f"{result.model}  ({where}, validation score {result.validation_score:.4f})")
    print(f"weights sha256 {result.sha256}")
    return 0

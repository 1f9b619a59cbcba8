"""A DQN trained for a scenario: the best-validated weights, cached on disk by their settings.

Scenarios that compare a learned scheduler with heuristics train it once, before their
cells run, and every worker then loads the same weights. :func:`train_keeping_best`
trains with a validation callback and keeps the weights that scored best (the last
ones are often not: a DQN's greedy policy wanders as it trains);
:func:`cached_checkpoint` trains only when no checkpoint of the same settings exists,
and writes the training curve beside it.
"""

from __future__ import annotations

import copy
import csv
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from schedlab.learners.dqn import DQN, DQNConfig, train

if TYPE_CHECKING:
    import gymnasium as gym

__all__ = ["cached_checkpoint", "train_keeping_best"]


def train_keeping_best(
    env: gym.Env,
    config: DQNConfig,
    *,
    seed: int,
    validate: Callable[[DQN, int], dict[str, float]],
    every: int,
    keep_best: bool = True,
    name: str = "dqn",
    guide: Callable[[gym.Env], int] | None = None,
) -> tuple[DQN, list[dict[str, float]]]:
    """Train on ``env``, validating every ``every`` steps; keep the best-scoring weights.

    Parameters
    ----------
    validate
        ``validate(agent, step)`` returns a row for the training curve with a ``"score"``
        (lower is better), e.g. the mean slowdown on fixed validation sequences.
    keep_best
        Load the weights of the best score into the returned agent (and its target
        network); otherwise the last weights stay.
    name
        Prefix of the progress lines printed to stderr.

    Returns
    -------
    The agent and the training curve (:func:`schedlab.learners.dqn.train`'s rows,
    the validation rows with the seconds since training began).
    """
    began = time.perf_counter()
    best: dict = {"score": math.inf}

    def on_eval(agent: DQN, step: int) -> dict[str, float]:
        row = validate(agent, step)
        if row["score"] < best["score"]:
            best.update(score=row["score"], step=step, policy=copy.deepcopy(agent.policy.state_dict()))
        print(f"{name}: step {step}: " + ", ".join(f"{k}={v:.3f}" for k, v in sorted(row.items())), file=sys.stderr)
        return row | {"seconds": time.perf_counter() - began}

    agent, curve = train(env, config, seed=seed, callback=on_eval, callback_every=every, guide=guide)
    if keep_best and "policy" in best:
        agent.policy.load_state_dict(best["policy"])
        agent.sync_target()
        print(f"{name}: kept the weights of step {best['step']} (score {best['score']:.3f})", file=sys.stderr)
    return agent, curve


def cached_checkpoint(out_dir: str | Path, key: str, make: Callable[[], tuple[DQN, list[dict[str, float]]]]) -> Path:
    """``out_dir/dqn_<key>.pt``, made by ``make()`` unless it exists; the curve goes to ``curve_<key>.csv``.

    ``key`` should hash every setting that changes the trained agent. The checkpoint
    appears whole or not at all (written aside, then renamed), so a worker never
    reads half of one.
    """
    out = Path(out_dir)
    path = out / f"dqn_{key}.pt"
    if path.exists():
        return path
    agent, curve = make()
    out.mkdir(parents=True, exist_ok=True)
    names = sorted({k for row in curve for k in row})
    with open(out / f"curve_{key}.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=names)
        writer.writeheader()
        writer.writerows(curve)
    tmp = path.with_suffix(".tmp")
    agent.save(tmp)
    tmp.replace(path)
    return path

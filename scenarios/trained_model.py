"""A model of ``schedlab train ENV`` beside its environment's heuristics, on held-out episodes, paired.

Whatever environment the model was trained in (its ``settings.json`` names it and the
environment's settings), replication ``k`` plays the held-out episode ``reset(seed=k)``
under the model (greedy) and under each heuristic of that environment
(:mod:`schedlab.training.heuristics`; by default every one that is not clairvoyant).
Training and validation draw their episodes from seed 100,000 up, so none of these was
seen, and every policy plays the same ones (common random numbers). The measure is the
episode's cost as the training counts it: minus its return (``Machine-v0``'s total
slowdown or bounded slowdown, the grid's total time jobs spent unfinished). Where the
environment keeps its jobs' records (``Machine-v0``), their mean bounded slowdown too.
``report`` prints the model's cost minus each heuristic's, paired over the episodes,
with the 95% half-width, and writes ``paired.csv``.

    schedlab train Machine-v0 --set teacher=sjf --out my_model
    schedlab run scenarios/trained_model.py --set model=my_model
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import simpy

from schedlab.experiment import cli_main
from schedlab.experiment.results import ci95_halfwidth
from schedlab.model.analysis import metrics
from schedlab.model.core.fields import items, number, text
from schedlab.model.core.streams import Streams
from schedlab.model.formats.logs import BSLD_THRESHOLD
from schedlab.processes import Model
from schedlab.training.heuristics import heuristic_names, is_clairvoyant


@dataclass(frozen=True)
class Config:
    #: the folder schedlab train wrote (model.pt and settings.json)
    model: str = text("", nonempty=True)
    #: heuristics of the model's environment played beside it (empty: every one that is not clairvoyant)
    heuristics: tuple[str, ...] = items((), nonempty=False, distinct=True)
    #: held-out episodes (replications k = reset(seed=k))
    episodes: int = number(20, low=1, work=True)

    def __post_init__(self) -> None:
        if not self.model:
            raise ValueError("model: none given: --set model=DIR, a folder schedlab train wrote")
        for name in ("model.pt", "settings.json"):
            if not (Path(self.model) / name).is_file():
                raise ValueError(f"model: {Path(self.model) / name} is not a file (give a folder schedlab train wrote)")
        have = heuristic_names(self.env_id)
        unknown = [h for h in self.heuristics if h not in have]
        if unknown:
            raise ValueError(f"heuristics: {unknown} are not heuristics of {self.env_id} (it has: {', '.join(have)})")

    @property
    def env_id(self) -> str:
        return str(_settings(self.model)["env"])

    @property
    def played(self) -> tuple[str, ...]:
        """The heuristics played: the ones named, or every one of the env's that is not clairvoyant."""
        return self.heuristics or tuple(h for h in heuristic_names(self.env_id) if not is_clairvoyant(h))


QUICK = dict(episodes=3)


def REPS(cfg: Config) -> int:
    return cfg.episodes


def cells(cfg: Config) -> list[dict]:
    return [{"policy": "learned"}] + [{"policy": h} for h in cfg.played]


@cache
def _settings(model: str) -> dict[str, Any]:
    """The model's ``settings.json`` (read once per process)."""
    return dict(json.loads((Path(model) / "settings.json").read_text()))


@cache
def _env_and_policy(model: str) -> tuple[Any, Any]:
    """The model's environment, made with its training's settings, and the loaded model (once per process)."""
    from schedlab.training import load_policy
    from schedlab.training.episodes import make_env

    settings = _settings(model)
    env = make_env(settings["env"], settings["config"]["env_settings"])
    return env, load_policy(Path(model) / "model.pt", env)


def build(env: simpy.Environment, cfg: Config, cell: dict, streams: Streams) -> Model:
    from schedlab.training.episodes import greedy_act, heuristic_act, run_episode

    played, policy = _env_and_policy(cfg.model)
    act = greedy_act(policy) if cell["policy"] == "learned" else heuristic_act(cfg.env_id, cell["policy"])
    cost = run_episode(played, act, streams.replication)  # held-out episode k
    inner = getattr(played, "unwrapped", played)  # a Parallel env is its own
    records = inner.records() if hasattr(inner, "records") else None
    return Model(env, [], parts={"cost": cost, "records": records})


def measure(model: Model) -> dict[str, float]:
    out = {"cost": model["cost"]}
    if model["records"] is not None:
        out["bounded_slowdown_mean"] = float(metrics.bounded_slowdown(model["records"], BSLD_THRESHOLD).mean())
    return out


def report(results, out: Path) -> list[Path]:
    """``paired.csv``: per episode, the model's cost minus each heuristic's; printed as means with 95% half-widths."""
    by = {(r["policy"], r["rep"]): r["cost"] for r in results.replications}
    policies = list(dict.fromkeys(r["policy"] for r in results.replications))
    episodes = sorted({r["rep"] for r in results.replications})
    rows = [
        {"episode": k} | {f"learned_minus_{p}": by["learned", k] - by[p, k] for p in policies[1:]} for k in episodes
    ]
    path = Path(out) / "paired.csv"
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    learned = np.mean([by["learned", k] for k in episodes])
    print(f"learned cost {learned:.4g} on {len(episodes)} held-out episodes; paired, learned minus each heuristic:")
    for p in policies[1:]:
        diff = [row[f"learned_minus_{p}"] for row in rows]
        below = sum(d < 0 for d in diff)
        print(f"  {p:20} {np.mean(diff):+.4g} ± {ci95_halfwidth(diff):.3g}  (below on {below} of {len(diff)})")
    return [path]


if __name__ == "__main__":
    cli_main()

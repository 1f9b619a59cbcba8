"""A scheduler learned with ``schedlab train`` on seed 003's grid, against LLS and OSL, on three topologies.

Training: for each topology (``complete``, ``tree``, ``small_world``: docs/grid.md's
settings, :mod:`schedlab.envs.grid.named`) and each training seed, one MLP scorer
shared by the 10 brokers (parameter sharing; with ``scorer=kernel`` the kernel scorer,
one small MLP shared by the 25 resources too, :mod:`schedlab.training.kernel`) is
trained in ``schedlab/GridParallel-v0`` (the PettingZoo Parallel grid, 25 resources)
by :func:`schedlab.training.train`: imitation of the ``teacher`` (``mct``: least seen
load + route latency + the job's run time there, :mod:`schedlab.envs.grid.teachers`),
then evolution strategies on whole episodes, whose cost is minus the sum of every
broker's ``tpt`` reward (the total time jobs spent unfinished: ATPT times the jobs,
measured), then ``ppo_steps`` of PPO (0 by default: none). The observation has the
``features`` runtime, latency and agent (docs/rl.md, "The grid"). Each model goes into
``models_dir/<topology>/seed<k>/`` (``model.pt``, ``settings.json``, ``curve.csv``; a
kernel's in ``models_dir/kernel/<topology>/seed<k>/``); a model already there with
the same settings is used as it is.

Evaluation: episode ``k`` of every cell is ``reset(seed=k)``'s grid and jobs
(``Streams(k)``, ``k = 0..reps-1``, below every seed training and validation use), so
every policy of a replication sees the same capacities and jobs (paired). Policies:

- ``learned``: the trained policy as every broker's policy in the ``GridModel``
  (:class:`~schedlab.envs.grid.policy.GridAgentPolicy`), deciding in ring order as LLS
  and OSL do (one cell per training seed);
- ``learned_env``: the same policy in the Parallel environment it was trained in,
  where the brokers of a round decide at once on the same loads;
- ``lls`` and ``osl``: :class:`~schedlab.policies.LeastLoaded` and
  :class:`~schedlab.learners.OrdinalSharing` (alpha = beta = 0.5) in the ``GridModel``;
- ``mct``: the teacher, as a policy of the observation, in the ``GridModel``
  (:func:`~schedlab.envs.grid.teachers.mct_policy`; it reads the runtime and latency features).

``report`` prints, per topology, ATPT (eq. 1) of each, the learned ones as mean ± sd
over the training seeds, and the paired differences learned - LLS and learned - OSL
(per seed, the mean over episodes; then mean ± sd over seeds, with the 95% half-width
over episodes of the seeds' mean difference), and writes ``grid_training_table.csv``.

    schedlab run scenarios/grid_training.py --quick
    schedlab train scenarios/grid_training.py --out my_models   # the models alone, on every core
    schedlab run scenarios/grid_training.py --set models_dir=my_models
    schedlab run scenarios/grid_training.py                     # trains 9 models, then 20 episodes
    schedlab run scenarios/grid_training.py --set models_dir=/tmp/models --set topologies=tree
    schedlab run scenarios/grid_training.py --set scorer=kernel --set hidden=32   # the kernel scorer's 9 models
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import simpy

from schedlab.envs.grid.obs import FEATURES, grid_model
from schedlab.envs.grid.policy import GridAgentPolicy
from schedlab.envs.grid.teachers import mct_policy
from schedlab.envs.parallel_registry import make_parallel
from schedlab.experiment import cli_main
from schedlab.learners import OrdinalSharing
from schedlab.model.core.fields import folder, items, number
from schedlab.model.core.streams import Streams
from schedlab.policies import LeastLoaded
from schedlab.processes import Model
from schedlab.topologies.named import TOPOLOGIES
from schedlab.training import TrainConfig, load_policy, train
from schedlab.training.episodes import greedy_act, run_episode
from schedlab.training.folders import same_training, train_each
from schedlab.training.heuristics import heuristic_names

POLICIES = ("learned", "learned_env", "lls", "osl", "mct")
ENV = "schedlab/GridParallel-v0"


@dataclass(frozen=True)
class Config:
    #: topologies compared: complete, tree, small_world (docs/grid.md's settings)
    topologies: tuple[str, ...] = TOPOLOGIES
    #: policies compared: learned, learned_env, lls, osl, mct (the teacher, in the model)
    policies: tuple[str, ...] = POLICIES
    #: training seeds (one model each per topology)
    seeds: tuple[int, ...] = items((0, 1, 2), distinct=True)
    #: N brokers
    agents: int = number(10, low=1)
    #: M resources
    resources: int = number(25, low=1)
    #: xi, jobs per broker per step (0.7: load 0.7 with 25 resources)
    rate: float = number(0.7, gt=0)
    #: steps per episode
    steps: int = number(200, low=1, work=True)
    #: extra observation features (schedlab.envs.grid.obs.FEATURES)
    features: tuple[str, ...] = ("runtime", "latency", "agent")
    #: the heuristic imitated, and that training costs are relative to
    teacher: str = "mct"
    #: the scorer trained: mlp (over the whole observation) or kernel (one MLP per resource's row; models under kernel/)
    scorer: str = "mlp"
    #: widths of the scorer's hidden layers (one of 128: room for a sum per resource, which MCT is)
    hidden: tuple[int, ...] = (128,)
    #: evolution-strategies generations
    generations: int = number(10, low=0, work=True)
    #: antithetic pairs per generation
    pairs: int = number(8, low=1, work=True)
    #: training episodes per generation
    episodes: int = number(2, low=1, work=True)
    #: validation episodes choosing the best weights
    validation: int = number(4, low=1, work=True)
    #: teacher episodes imitated
    imitation_episodes: int = number(32, low=0, work=True)
    #: passes of behaviour cloning
    imitation_epochs: int = number(100, low=0)
    #: PPO steps after the search, each a broker's decision (0: none; docs/rl.md, "One training command")
    ppo_steps: int = number(0, low=0)
    #: PPO steps between validations
    ppo_validate: int = number(4096, low=1)
    #: OSL's learning rate alpha and sharing factor beta
    alpha: float = number(0.5, high=1)
    beta: float = number(0.5, high=1)
    #: where the models are (trained there when missing or made with other settings)
    models_dir: str = folder("results/grid_training_models")
    #: processes training the models side by side (each model's weights do not depend on it)
    train_workers: int = number(1, low=1)
    #: held-out episodes (0..n-1) when --reps is not given
    replications: int = number(20, low=1, work=True)

    def __post_init__(self) -> None:
        for name, allowed in (("topologies", TOPOLOGIES), ("policies", POLICIES), ("features", FEATURES)):
            bad = [v for v in getattr(self, name) if v not in allowed]
            if bad or not (getattr(self, name) or name == "features"):  # no extra features is a choice
                raise ValueError(f"{name}: need names among {', '.join(allowed)}, got {getattr(self, name)!r}")
        if self.teacher not in heuristic_names(ENV):
            raise ValueError(f"teacher: {self.teacher!r} is not one of {', '.join(heuristic_names(ENV))}")
        if self.scorer not in ("mlp", "kernel"):
            raise ValueError(f"scorer: need mlp or kernel, got {self.scorer!r}")
        if not self.seeds:
            raise ValueError("seeds: need at least one training seed")
        self.train_config(self.topologies[0], self.seeds[0])  # TrainConfig's own checks (hidden, imitation...)

    def env_settings(self, topology: str) -> dict[str, Any]:
        """The Parallel grid's settings for ``topology`` (JSON values: what ``--set env.NAME=`` would give)."""
        grid = {"agents": self.agents, "resources": self.resources, "rate": self.rate, "steps": self.steps}
        return {"topology": topology, **grid, "features": list(self.features)}

    def train_config(self, topology: str, seed: int) -> TrainConfig:
        """The training of ``topology``'s model of seed ``seed``."""
        return TrainConfig(
            env=ENV, env_settings=self.env_settings(topology), teacher=self.teacher, seed=seed, hidden=self.hidden,
            policy=self.scorer,
            generations=self.generations, pairs=self.pairs, episodes=self.episodes, validation=self.validation,
            imitation_episodes=self.imitation_episodes, imitation_epochs=self.imitation_epochs,
            ppo_steps=self.ppo_steps, ppo_validate=self.ppo_validate,
        )  # fmt: skip

    def model_dir(self, topology: str, seed: int) -> Path:
        """Where the model of ``topology`` and seed ``seed`` is (a kernel's under ``kernel/``, apart from the MLPs)."""
        kind = ("kernel",) if self.scorer == "kernel" else ()
        return Path(self.models_dir).joinpath(*kind, topology, f"seed{seed}")


QUICK = dict(
    seeds=(0, 1, 2), steps=30, hidden=(16,), generations=1, pairs=2, episodes=1, validation=1, imitation_episodes=1,
    imitation_epochs=5, replications=2, topologies=("complete", "tree"),
)  # fmt: skip


def REPS(cfg: Config) -> int:
    """One replication per held-out episode."""
    return cfg.replications


def _trainings(cfg: Config, models_dir: str) -> list[tuple[TrainConfig, Path]]:
    """Every model's training and folder: one per topology and seed, under ``models_dir``."""
    at = replace(cfg, models_dir=models_dir)
    return [(cfg.train_config(t, s), at.model_dir(t, s)) for t in cfg.topologies for s in cfg.seeds]


def train_models(cfg: Config, out: Path | None, executor: Any, resume: bool) -> list[tuple[Path, str]]:
    """``schedlab train scenarios/grid_training.py``: every topology's and seed's model, into ``out``.

    ``out`` (default ``models_dir``) gets the run's layout, ``[kernel/]<topology>/seed<k>/``;
    each model scores its population on ``executor``, one model after another
    (:func:`~schedlab.training.folders.train_each`). Evaluate them with
    ``schedlab run scenarios/grid_training.py --set models_dir=OUT``.
    """
    if not {"learned", "learned_env"} & set(cfg.policies):
        return []  # the run reads no model
    return train_each(_trainings(cfg, str(out or cfg.models_dir)), executor, resume)


def _train_missing(cfg: Config) -> None:
    """Train every model missing from ``models_dir`` (or made with other settings), ``train_workers`` at once."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    todo = []
    for config, path in _trainings(cfg, cfg.models_dir):
        if not same_training(path, config):
            for stale in ("checkpoint.pkl", "model.pt"):
                (path / stale).unlink(missing_ok=True)
            todo.append((config, path))
    if not todo:
        return
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(min(cfg.train_workers, len(todo)), mp_context=context) as pool:
        for (_, path), result in zip(todo, pool.map(train, *zip(*todo, strict=True)), strict=True):
            print(f"grid_training: {path}: weights sha256 {result.sha256}")


def cells(cfg: Config) -> list[dict]:
    """Trains what is missing, then one cell per topology and policy (per training seed for the learned)."""
    if {"learned", "learned_env"} & set(cfg.policies):
        _train_missing(cfg)
    out = []
    for topology in cfg.topologies:
        for policy in cfg.policies:
            seeds = cfg.seeds if policy.startswith("learned") else (-1,)
            out += [{"topology": topology, "policy": policy, "seed": s} for s in seeds]
    return out


@cache
def _env(cfg: Config, topology: str) -> Any:
    return make_parallel(ENV, **cfg.env_settings(topology))


@cache
def _policy(cfg: Config, topology: str, seed: int) -> Any:
    import torch

    torch.set_num_threads(1)
    return load_policy(cfg.model_dir(topology, seed) / "model.pt", _env(cfg, topology))


def build(env: simpy.Environment, cfg: Config, cell: dict, streams: Streams) -> Model:
    episode = streams.replication  # held-out episode k: reset(seed=k)'s capacities and jobs
    penv = _env(cfg, cell["topology"])
    if cell["policy"] == "learned_env":
        run_episode(penv, greedy_act(_policy(cfg, cell["topology"], cell["seed"])), episode)
        return Model(penv.model.env, [], until=penv.model.done, parts={"grid": penv.model})
    own = Streams(episode)
    if cell["policy"] == "learned":
        policy = _policy(cfg, cell["topology"], cell["seed"])
        grid_policy: Any = GridAgentPolicy(policy.act, penv.config)
    elif cell["policy"] == "mct":
        grid_policy = GridAgentPolicy(mct_policy(penv.observer), penv.config)
    elif cell["policy"] == "lls":
        grid_policy = LeastLoaded(own["routing"])
    else:
        grid_policy = OrdinalSharing(cfg.alpha, cfg.beta, rng=own["exploration"])
    grid = grid_model(env, penv.config, grid_policy, own)
    return Model(env, [], until=grid.done, parts={"grid": grid})


def measure(model: Model) -> dict[str, float]:
    grid = model["grid"]
    return {"atpt": float(grid.series.atpt), "completed": float(grid.series.completed)}


def _table(reps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per topology and policy: ATPT, and the learned policies' paired differences with LLS and OSL."""
    rows = []
    for topology in dict.fromkeys(r["topology"] for r in reps):
        mine = [r for r in reps if r["topology"] == topology]
        by = {}  # (policy, seed) -> ATPT per episode, in episode order
        for r in sorted(mine, key=lambda r: r["rep"]):
            by.setdefault((r["policy"], r["seed"]), []).append(r["atpt"])
        arrays = {k: np.asarray(v) for k, v in by.items()}
        for policy in dict.fromkeys(p for p, _ in arrays):
            seeds = [s for p, s in arrays if p == policy]
            per_seed = np.array([arrays[policy, s].mean() for s in seeds])
            row = {
                "topology": topology,
                "policy": policy,
                "seeds": len(seeds),
                "episodes": len(arrays[policy, seeds[0]]),
            }
            row |= {"atpt": per_seed.mean(), "atpt_sd_seeds": per_seed.std(ddof=1) if len(seeds) > 1 else 0.0}
            if len(seeds) == 1:
                values = arrays[policy, seeds[0]]
                row["atpt_ci95_episodes"] = 1.96 * values.std(ddof=1) / np.sqrt(values.size) if values.size > 1 else 0.0
            for base in ("lls", "osl"):
                if (base, -1) not in arrays or policy == base:
                    continue
                diffs = np.array([arrays[policy, s] - arrays[base, -1] for s in seeds])  # seeds x episodes
                per = diffs.mean(axis=1)
                over_seeds = diffs.mean(axis=0)  # the seeds' mean difference, per episode
                row[f"minus_{base}"] = per.mean()
                row[f"minus_{base}_sd_seeds"] = per.std(ddof=1) if len(seeds) > 1 else 0.0
                n = over_seeds.size
                row[f"minus_{base}_ci95_episodes"] = 1.96 * over_seeds.std(ddof=1) / np.sqrt(n) if n > 1 else 0.0
                row[f"minus_{base}_per_seed"] = " ".join(f"{v:+.2f}" for v in per)
            rows.append(row)
    return rows


def report(results, out: Path) -> list[Path]:
    """Print the table (ATPT; learned as mean ± sd over seeds; paired differences) and write it as CSV."""
    rows = _table(results.replications)
    path = Path(out) / "grid_training_table.csv"
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(dict.fromkeys(k for r in rows for k in r)))
        writer.writeheader()
        writer.writerows(rows)
    print(f"{'topology':<12} {'policy':<12} {'ATPT':<32}  {'minus LLS (paired)':<26}  minus OSL (paired)")
    for r in rows:
        spread = r["atpt_sd_seeds"] if r["seeds"] > 1 else r.get("atpt_ci95_episodes", 0.0)
        text = f"{r['topology']:<12} {r['policy']:<12} {r['atpt']:7.2f} ± {spread:<6.2f}"
        text += " {:<16}".format(f"(sd, {r['seeds']} seeds)" if r["seeds"] > 1 else "(95%, episodes)")
        for base in ("lls", "osl"):  # a blank cell where there is no difference (LLS against itself)
            cell = ""
            if f"minus_{base}" in r:
                mean, sd, ci = (r[f"minus_{base}{end}"] for end in ("", "_sd_seeds", "_ci95_episodes"))
                cell = f"{mean:+6.2f}" + (f" ± {sd:.2f}" if r["seeds"] > 1 else "") + f" (±{ci:.2f})"
            text += f"  {cell:<26}"
        print(text.rstrip())
    return [path]


if __name__ == "__main__":
    cli_main()

"""A DQN scheduler trained on windows of a real log, against FCFS, SJF and EASY backfilling.

The researcher's workflow on a real workload, end to end. One machine of the log's
CPUs (MaxProcs; the Lublin model log by default: 256 CPUs, offered load
1.06, so queues grow). The log's cleaned jobs are split in two by position: training
windows are drawn from the first ``train_fraction`` of the jobs, test windows from the
rest, so no test job was ever seen in training. A DQN
(:mod:`schedlab.learners.dqn`) is trained once, before the cells run, on
:class:`~schedlab.envs.machine.env.MachineEnv` episodes of ``length`` consecutive
jobs (a fresh window per episode, its clock starting at the window's first job); it
sees the ``window`` oldest waiting jobs and their requested times, and its reward is
minus the slowdown integral (the return is minus the episode's total slowdown). The
checkpoint and training curve (greedy mean slowdown on fixed validation windows of
the training part, every ``eval_every`` steps) are saved under ``out_dir``, keyed by
a hash of the training settings and of the log's bytes, and reused by later runs.

Each cell evaluates one policy on ``windows`` held-out test windows (the
replications): window r starts at a position drawn from replication r's ``window``
stream, so every policy replays the same windows (common random numbers). Every
policy runs on the same kind of Machine, :func:`~schedlab.envs.machine.config.agent_machine`
(deciding once per instant, after every arrival and completion of it): ``dqn`` is the
trained agent through :class:`~schedlab.envs.machine.agent_policy.AgentPolicy` (greedy over
the valid actions), ``random`` a uniform choice among them; the heuristics are every
registered queue order (:data:`~schedlab.policies.scoring.SCORES`: ``fcfs``, ``sjf`` by
requested time, ``f1``-``f4``, ``saf``, ...) as a strict priority order, and each with EASY
backfilling (``sjf_easy``, ``saf_easy``...; FCFS's is ``easy``;
:mod:`schedlab.policies.backfilling`). The heuristics see the whole queue; the agent only
its window. ``report`` writes ``paired.csv``: per
window, DQN minus each other policy, and the paired mean difference to the best
heuristic with its 95% half-width.

``recipe`` is a second learner, trained by ``schedlab train``'s recipe
(:mod:`schedlab.training`; docs/rl.md, "One training command") on the same training
windows (``log_span``): imitation of EASY backfilling under SJF on the agent's window
(the teacher ``easy-sjf``), then evolution strategies on its scorer (an MLP over the
observation, or with ``recipe_policy=kernel`` one MLP per window slot) over whole
episodes, the weights kept that validate best; its observation adds each window job's
"EASY may start it now" bit (``backfill="sjf"``; ``recipe_backfill`` sets its order, ``copied``
the copied heuristic's) and its cost is the episodes' total
bounded slowdown (``reward="bounded_slowdown"``, the ``threshold``). Its model is
cached under ``out_dir`` like the DQN's, keyed by its own settings (the ``recipe_*``
ones) and the log's bytes; ``recipe_candidates`` trains it with more seeds too and
evaluates the one best on validation (the recipe's choice among seeds,
:mod:`schedlab.training.select`); it runs through the same
:class:`~schedlab.envs.machine.agent_policy.AgentPolicy`. The quick run leaves it out
(its stored values are the six policies above).

    schedlab run scenarios/machine_rl.py --quick --workers 1
    schedlab train scenarios/machine_rl.py --set policies=recipe,saf,saf_easy --out my_models   # the models alone
    schedlab run scenarios/machine_rl.py --set policies=recipe,saf,saf_easy --set out_dir=my_models
    schedlab run scenarios/machine_rl.py --workers 1
    schedlab run scenarios/machine_rl.py --workers 1 --set train_steps=800000 --set window=32

Another log is ``--set log=NAME_OR_PATH``. The real logs in ``../shared/traces``
are lightly loaded (offered load 0.45 to 0.70, see its PROVENANCE.md): on windows of
128 jobs hardly any job waits there, and every policy ties (Gaia, checked: slowdown 1).
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import json
import math
import sys
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import simpy

from schedlab.envs.machine.agent_policy import AgentPolicy
from schedlab.envs.machine.config import agent_machine
from schedlab.envs.machine.env import MachineEnv
from schedlab.envs.machine.jobs import LogWindows
from schedlab.envs.machine.obs import MachineObserver
from schedlab.experiment import cli_main
from schedlab.experiment.results import ci95_halfwidth
from schedlab.model.analysis import metrics
from schedlab.model.core.fields import INT_MAX, folder, items, number, text
from schedlab.model.core.job import Job
from schedlab.model.core.streams import Streams
from schedlab.model.formats.logs import BSLD_THRESHOLD, load_log, log_path
from schedlab.model.records.job_record import JobRecord
from schedlab.model.records.run_facts import run_facts
from schedlab.policies.batch import make_policy
from schedlab.policies.scoring import CLAIRVOYANT, SCORES
from schedlab.processes import Model, Source

#: the heuristics, as (priority order, backfilling) of :func:`schedlab.policies.batch.make_policy`: every registered
#: order but the clairvoyant ``sjf-runtime``, strict (its name) and with EASY backfilling (``ORDER_easy``; FCFS's is
#: ``easy``), so that "the best heuristic" is the best of them all
ORDERS = [name for name in SCORES if name not in CLAIRVOYANT]
HEURISTICS = {name: (name, "none") for name in ORDERS} | {
    ("easy" if name == "fcfs" else f"{name}_easy"): (name, "easy") for name in ORDERS
}
POLICIES = ("dqn", *HEURISTICS, "random", "recipe")
#: settings that do not change the trained agent (left out of its checkpoint's key)
EVALUATION_ONLY = ("policies", "windows", "threshold", "out_dir", "logs_dir", "log")
#: the recipe's own settings (left out of the DQN's key, which predates them)
RECIPE_ONLY = (
    "recipe_generations", "recipe_pairs", "recipe_episodes", "recipe_validation", "recipe_imitation",
    "recipe_seed", "recipe_teacher", "recipe_policy", "recipe_imitate", "recipe_sigma", "recipe_rate",
    "recipe_backfill",
    "recipe_candidates",
)  # fmt: skip


@dataclass(frozen=True)
class Config:
    #: SWF log, by path or by name in logs_dir
    log: str = "lublin_256"
    #: where logs named without a path are looked up
    logs_dir: str = "../shared/traces"
    #: policies evaluated: dqn, random, recipe and the heuristics (fcfs, sjf, f1, saf..., easy, sjf_easy, saf_easy...)
    policies: tuple[str, ...] = POLICIES
    #: held-out test windows per policy (the replications)
    windows: int = number(20, low=1, work=True)
    #: consecutive jobs per window (training episode and test window alike)
    length: int = number(128, low=1, work=True)
    #: training windows come from this first fraction of the log's jobs, test windows from the rest
    train_fraction: float = number(0.75, gt=0, lt=1)
    #: waiting jobs the agent sees and may start (the oldest ones)
    window: int = number(16, low=1)
    #: bounded slowdown threshold, in seconds
    threshold: float = number(BSLD_THRESHOLD, gt=0)
    #: environment steps of DQN training
    train_steps: int = number(400_000, low=1, work=True)
    #: environment steps before the first update
    learning_starts: int = number(10_000)
    #: replay buffer size
    buffer_size: int = number(100_000, low=1)
    #: widths of the Q-network's hidden layers
    hidden: tuple[int, ...] = items((128, 64), low=1)
    #: AdamW learning rate
    learning_rate: float = number(2.5e-4, gt=0, high=1)
    #: reward multiplier for learning (a reward is minus the slowdown accrued during the step)
    reward_scale: float = number(0.001, gt=0)
    #: discount per decision
    gamma: float = number(0.99, lt=1)
    #: fraction of training over which epsilon decays
    exploration_fraction: float = number(0.3, high=1)
    #: seed of the training run (episodes, exploration, weights)
    train_seed: int = number(0, high=INT_MAX)
    #: steps between greedy evaluations on the validation windows (the training curve)
    eval_every: int = number(25_000, low=1)
    #: validation windows (from the training part, fixed by train_seed)
    validation: int = number(8, low=1)
    #: keep the weights that did best on the validation windows, not the last ones
    keep_best: bool = True
    #: where the checkpoint and training curve go (empty: the user cache folder, $SCHEDLAB_CACHE or ~/.cache/schedlab)
    out_dir: str = folder()
    #: the recipe: evolution-strategies generations
    recipe_generations: int = number(20, low=0)
    #: the recipe: antithetic pairs per generation
    recipe_pairs: int = number(8, low=1)
    #: the recipe: training windows per generation
    recipe_episodes: int = number(4, low=1)
    #: the recipe: validation windows (from the training part) choosing the weights kept
    recipe_validation: int = number(16, low=1)
    #: the recipe: the teacher's episodes behaviour cloning learns from
    recipe_imitation: int = number(64, low=0)
    #: the recipe: its training seed
    recipe_seed: int = number(0, high=INT_MAX)
    #: the recipe: more training seeds, each training the same model; the one best on the union of their validation
    #: windows (recipe_seed's first on ties; schedlab.training.select) is evaluated (empty: recipe_seed's alone)
    recipe_candidates: tuple[int, ...] = items((), nonempty=False)
    #: the recipe: its teacher, a heuristic of schedlab.training.heuristics (on the window)
    recipe_teacher: str = "easy-sjf"
    #: the recipe: what behaviour cloning copies if not the teacher (``rollout-easy-sjf``: the clairvoyant rollout;
    #: ``best``: the window heuristic best on the recipe's validation windows)
    recipe_imitate: str = ""
    #: the recipe: its scorer, ``mlp`` (one MLP over the observation) or ``kernel`` (one MLP per window slot)
    recipe_policy: str = text("mlp", pattern="mlp|kernel", what="mlp or kernel")
    #: the recipe: the standard deviation of the search's perturbations of the weights
    recipe_sigma: float = number(0.01, gt=0, high=10)
    #: the recipe: the search's step size (Adam's) on the weights
    recipe_rate: float = number(0.002, gt=0, high=10)
    #: the recipe: the order of the observation's "EASY may start it now" bit (a registered order; strict-ORDER: that
    #: order kept strictly), or ``copied``: the heuristic's that behaviour cloning copies (with recipe_imitate=best,
    #: the one chosen on validation)
    recipe_backfill: str = "sjf"

    def __post_init__(self) -> None:
        unknown = sorted(set(self.policies) - set(POLICIES))
        if unknown or not self.policies:
            raise ValueError(f"policies: unknown {unknown or 'none given'}; choose from {', '.join(POLICIES)}")
        from schedlab.training.heuristics import heuristic

        heuristic("schedlab/Machine-v0", self.recipe_teacher, "recipe_teacher")  # unknown: refused in one line
        seeds = (self.recipe_seed, *self.recipe_candidates)
        twice = sorted({s for s in seeds if seeds.count(s) > 1})
        if twice:
            raise ValueError(
                f"recipe_candidates={','.join(map(str, self.recipe_candidates))} with recipe_seed={self.recipe_seed} "
                f"names seed {', '.join(map(str, twice))} twice: give each training seed once"
            )
        if self.recipe_imitate not in ("", "best"):
            heuristic("schedlab/Machine-v0", self.recipe_imitate, "recipe_imitate")
        if self.recipe_backfill == "copied" and self.recipe_candidates:
            raise ValueError(
                "recipe_backfill=copied with recipe_candidates: each seed may copy another order and see another bit, "
                "and the choice among seeds compares trainings of one model; set one of them"
            )
        if self.recipe_backfill != "copied" and self.recipe_backfill.removeprefix("strict-") not in SCORES:
            raise ValueError(
                f"recipe_backfill must be copied, an order ({', '.join(SCORES)}) or strict-ORDER, "
                f"got {self.recipe_backfill!r}"
            )
        log = load_log(str(self.path()))  # the log exists and both parts hold a window
        cut = int(len(log.jobs) * self.train_fraction)  # as LogWindows' spans cut it
        if min(cut, len(log.jobs) - cut) < self.length:
            raise ValueError(
                f"length={self.length} is more than a part of {self.log!r} holds "
                f"({cut} training jobs, {len(log.jobs) - cut} test jobs at train_fraction={self.train_fraction}). "
                f"Reading it: {log.report}"
            )

    def path(self) -> Path:
        return log_path(self.log, Path(self.logs_dir))

    def training_key(self) -> str:
        """A short hash of every setting that changes the trained agent, and of the log's bytes."""
        fields = [f.name for f in dataclasses.fields(self) if f.name not in EVALUATION_ONLY + RECIPE_ONLY]
        text = json.dumps({k: getattr(self, k) for k in fields}, sort_keys=True)
        digest = hashlib.sha256(text.encode())
        digest.update(self.path().read_bytes())
        return digest.hexdigest()[:12]


QUICK = dict(
    windows=6, train_steps=20_000, learning_starts=2_000, buffer_size=20_000, eval_every=5_000, validation=4,
    # the stored quick values are the DQN's and the first four heuristics'; the recipe is trained in full
    policies=("dqn", "fcfs", "sjf", "easy", "sjf_easy", "random"),
)  # fmt: skip


def REPS(cfg: Config) -> int:
    """One replication per test window."""
    return cfg.windows


def cells(cfg: Config) -> list[dict]:
    print(f"machine_rl: {load_log(str(cfg.path())).report}", file=sys.stderr)  # what reading the log kept, dropped
    if "dqn" in cfg.policies:
        checkpoint(cfg)  # train once, in the parent, before the cells run
    if "recipe" in cfg.policies:
        recipe_model(cfg)  # likewise
    return [{"policy": p} for p in cfg.policies]


# --------------------------------------------------------------------------- windows of the log
@cache
def parts(cfg: Config) -> tuple[LogWindows, LogWindows]:
    """The training and the test windows of ``cfg``'s log: its first ``train_fraction`` of jobs, and the rest."""
    path = cfg.path()
    return LogWindows(path, cfg.length, (0.0, cfg.train_fraction)), LogWindows(
        path, cfg.length, (cfg.train_fraction, 1.0)
    )


@cache
def time_scale(cfg: Config) -> float:
    """The observation's time unit: the training part's median runtime (the test part is never looked at)."""
    return float(np.median([job.runtime for job in parts(cfg)[0].jobs]))


def observer(cfg: Config) -> MachineObserver:
    """What the agent sees: the same in training (MachineEnv) and evaluation (AgentPolicy)."""
    return MachineObserver((), cfg.window, time_scale(cfg), "estimate")


def heuristic(name: str):
    return make_policy(*HEURISTICS[name])


def replay(jobs: list[Job], cpus: int, policy) -> list[JobRecord]:
    """Run ``jobs`` on an empty :func:`agent_machine` under ``policy`` to the end; the Machine's records."""
    sim = simpy.Environment()
    machine = agent_machine(sim, cpus, policy)
    Source(sim, jobs, machine)
    sim.run()
    return machine.all_records()


# --------------------------------------------------------------------------- training
def checkpoint(cfg: Config) -> Path:
    """The trained agent's checkpoint: trained now unless this configuration's already exists."""
    from schedlab.learners.dqn_checkpoint import cached_checkpoint  # torch is only needed for the DQN cells

    return cached_checkpoint(
        cfg.out_dir, cfg.training_key(), lambda: _train(cfg), config=dqn_config(cfg), name="machine_rl"
    )


def dqn_config(cfg: Config):
    """The learner's settings: part of the checkpoint's key, and checked against a cached one."""
    from schedlab.learners.dqn_checkpoint import scenario_dqn_config

    return scenario_dqn_config(
        cfg,
        gamma=cfg.gamma,
        compact=False,  # fractional observations
    )


def _train(cfg: Config):
    import torch

    from schedlab.learners.dqn_checkpoint import train_keeping_best

    torch.set_num_threads(1)  # a small network: one thread is fastest and leaves the other cores free
    dqn_cfg = dqn_config(cfg)
    training, _ = parts(cfg)
    env = MachineEnv(workload=training, cpus=training.cpus, window=cfg.window, time_scale=time_scale(cfg))
    starts = np.random.default_rng([cfg.train_seed, 1])  # validation windows: neither training draws nor test
    validation = [training.at(training.draw_start(starts)) for _ in range(cfg.validation)]
    reference = {
        f"{name}_slowdown": float(
            np.mean([metrics.slowdown(replay(jobs, training.cpus, heuristic(name))).mean() for jobs in validation])
        )
        for name in ("fcfs", "easy")
    }

    def validate(agent, step: int) -> dict[str, float]:
        policy = AgentPolicy(agent, env.observer)
        slowdowns = [metrics.slowdown(replay(jobs, training.cpus, policy)).mean() for jobs in validation]
        score = float(np.mean(slowdowns))  # the evaluation's own measure: mean slowdown over windows
        return {"score": score, "slowdown": score} | reference

    return train_keeping_best(
        env,
        dqn_cfg,
        seed=cfg.train_seed,
        validate=validate,
        every=cfg.eval_every,
        keep_best=cfg.keep_best,
        name="machine_rl",
    )


@cache
def recipe_config(cfg: Config):
    """The recipe's :class:`~schedlab.training.TrainConfig`: MachineEnv on the training part's windows."""
    config = _recipe_config(cfg, "sjf" if cfg.recipe_backfill == "copied" else cfg.recipe_backfill)
    if cfg.recipe_backfill != "copied":
        return config
    return _recipe_config(cfg, _copied_order(config))


def _copied_order(config) -> str:
    """The bit's order for the heuristic ``config`` copies; ``imitate="best"``'s is chosen as the training chooses it.

    Heuristics read the env's state, not the observation, so the choice does not depend on
    the bit this order then sets.
    """
    from schedlab.training.run import copied_heuristic

    copied, _ = copied_heuristic(config)
    if copied == "fcfs" or copied.startswith("strict-"):
        return "strict-" + copied.removeprefix("strict-")  # an order kept strictly ("fcfs" is FCFS's)
    return copied.removeprefix("rollout-").removeprefix("easy-")  # EASY's bit under its order, a greedy order's too


def _recipe_config(cfg: Config, bit: str):
    from schedlab.training import TrainConfig

    settings = {
        "workload": str(cfg.path().resolve()),
        "log_window": cfg.length,
        "log_span": [0.0, cfg.train_fraction],  # the same first part of the log as the DQN's (split() cuts alike)
        "window": cfg.window,
        "time_scale": time_scale(cfg),
        "backfill": bit,
        "reward": "bounded_slowdown",
        "slowdown_bound": cfg.threshold,
    }
    return TrainConfig(
        env="Machine-v0", env_settings=settings, teacher=cfg.recipe_teacher, generations=cfg.recipe_generations,
        pairs=cfg.recipe_pairs, episodes=cfg.recipe_episodes, validation=cfg.recipe_validation,
        imitation_episodes=cfg.recipe_imitation, learning_rate=cfg.recipe_rate, sigma=cfg.recipe_sigma,
        seed=cfg.recipe_seed, policy=cfg.recipe_policy, imitate=cfg.recipe_imitate,
    )  # fmt: skip


def recipe_model(cfg: Config) -> Path:
    """The recipe's ``model.pt``: ``recipe_seed``'s, or the best on validation of it and ``recipe_candidates``'.

    Each seed's model is trained now unless it exists; the choice among them is written
    beside them (``recipe_choice_<key>.json``, every candidate's validation score) and
    read from there by later runs and by the workers.
    """
    from schedlab.training.select import recorded_choice

    seeds = [cfg.recipe_seed, *cfg.recipe_candidates]  # each once: the Config refuses a seed named twice
    folders = [_recipe_folder(replace(cfg, recipe_seed=s, recipe_candidates=())) for s in seeds]
    if len(folders) == 1:
        return folders[0] / "model.pt"
    key = hashlib.sha256(json.dumps([f.name for f in folders]).encode()).hexdigest()[:12]
    return recorded_choice(folders, folders[0].parent / f"recipe_choice_{key}.json") / "model.pt"


def _recipe_folder(cfg: Config) -> Path:
    """The folder of ``recipe_seed``'s model: trained now unless this configuration's already exists."""
    from schedlab.training import train

    out = _recipe_path(cfg)
    if not (out / "model.pt").exists():
        result = train(recipe_config(cfg), out, resume=(out / "checkpoint.pkl").exists())
        print(f"machine_rl: recipe model {result.model} (weights sha256 {result.sha256})", file=sys.stderr)
    return out


def _recipe_path(cfg: Config) -> Path:
    """Where ``recipe_seed``'s model is: ``out_dir/recipe_<key>``, keyed by its settings and the log's bytes."""
    from schedlab.learners.dqn_checkpoint import cache_dir

    values = recipe_config(cfg).as_dict()
    values["env_settings"] = {k: v for k, v in values["env_settings"].items() if k != "workload"}
    del values["workers"]
    if not values["imitate"]:
        del values["imitate"]  # the key of a model made before imitate= existed, unchanged
    digest = hashlib.sha256(json.dumps(values, sort_keys=True).encode())
    digest.update(cfg.path().read_bytes())
    return Path(cfg.out_dir or cache_dir("machine_rl")) / f"recipe_{digest.hexdigest()[:12]}"


def train_models(cfg: Config, out: Path | None, executor: Any, resume: bool) -> list[tuple[Path, str]]:
    """``schedlab train scenarios/machine_rl.py``: the run's learners, into ``out`` (default ``out_dir``).

    The recipe's model of each seed (``recipe_seed`` and ``recipe_candidates``), its
    population scored on ``executor`` (:func:`~schedlab.training.folders.train_each`),
    then the choice among them recorded; and the DQN's checkpoint (one process). Each
    is where the run looks for it: evaluate with ``schedlab run scenarios/machine_rl.py
    --set out_dir=OUT``.
    """
    from schedlab.learners.dqn_checkpoint import checkpoint_path, refuse_started, train_checkpoint
    from schedlab.training.folders import train_each

    cfg = replace(cfg, out_dir=str(out)) if out is not None else cfg
    if "dqn" in cfg.policies:  # refused before the recipe's trainings, not after them
        refuse_started(checkpoint_path(cfg.out_dir, cfg.training_key(), "machine_rl"), resume)
    made = []
    if "recipe" in cfg.policies:
        seeds = [replace(cfg, recipe_seed=s, recipe_candidates=()) for s in (cfg.recipe_seed, *cfg.recipe_candidates)]
        made += train_each([(recipe_config(c), _recipe_path(c)) for c in seeds], executor, resume)
        recipe_model(cfg)  # with candidates, the choice among them, recorded beside them
    if "dqn" in cfg.policies:
        key, config = cfg.training_key(), dqn_config(cfg)
        made.append(
            train_checkpoint(cfg.out_dir, key, lambda: _train(cfg), config=config, name="machine_rl", resume=resume)
        )
    return made


@cache
def _recipe(cfg: Config):
    """The recipe's loaded scorer and the observer it was trained with (the window, time scale, backfill bit)."""
    from schedlab.training import load_policy
    from schedlab.training.episodes import make_env

    model = recipe_model(cfg)
    # the kept seed's own bit: with recipe_backfill=copied each candidate seed's may follow another order
    trained = json.loads((model.parent / "settings.json").read_text())["env_settings"]
    settings = dict(recipe_config(cfg).env_settings) | {"backfill": trained["backfill"]}
    env = make_env("schedlab/Machine-v0", settings)  # made as the training made it (its id is checked)
    return load_policy(model, env), env.unwrapped.observer


@cache
def _trained(path: str):
    import torch

    from schedlab.learners.dqn import DQN

    torch.set_num_threads(1)
    return DQN.load(path)


def _random_agent(rng: np.random.Generator):
    return lambda obs, mask: int(rng.choice(np.flatnonzero(mask)))


# --------------------------------------------------------------------------- one replication
def build(env: simpy.Environment, cfg: Config, cell: dict, streams: Streams) -> Model:
    _, test = parts(cfg)
    start = test.draw_start(streams["window"])  # the same window for replication r of every policy
    name = cell["policy"]
    if name == "dqn":
        policy = AgentPolicy(_trained(str(checkpoint(cfg))), observer(cfg))
    elif name == "random":
        policy = AgentPolicy(_random_agent(streams["random"]), observer(cfg))
    elif name == "recipe":
        policy = AgentPolicy(*_recipe(cfg))
    else:
        policy = heuristic(name)
    machine = agent_machine(env, test.cpus, policy)
    Source(env, test.at(start), machine)
    return Model(env, [machine], parts={"cfg": cfg, "machine": machine, "start": start})


#: each metric's unit, for the axes of `schedlab plot`
UNITS = {
    "slowdown_mean": "ratio",
    "bounded_slowdown_mean": "ratio, at least 1",
    "response_mean": "seconds",
    "wait_mean": "seconds",
    "utilization": "fraction of the CPUs",
    "window_start": "job position in the log",
}


def measure(model: Model) -> dict[str, Any]:
    cfg: Config = model["cfg"]
    machine = model["machine"]
    done = machine.records
    first, last = min(r.submit for r in done), max(r.end for r in done)
    return {
        "slowdown_mean": float(metrics.slowdown(done).mean()),
        "bounded_slowdown_mean": float(metrics.bounded_slowdown(done, cfg.threshold).mean()),
        "response_mean": float(metrics.response(done).mean()),
        "wait_mean": float(metrics.wait(done).mean()),
        "utilization": metrics.utilization(done, machine.capacity, first, last) if last > first else math.nan,
        "window_start": float(model["start"]),
        # `schedlab plot`: the log's CPUs, its seconds, the units
        "files": run_facts(machine.capacity, units=UNITS),
    }


# --------------------------------------------------------------------------- after the run
def report(results, out: Path) -> list[Path]:
    """``paired.csv``: per test window, DQN minus each other policy; print each learner minus the best heuristics."""
    reps = results.replications
    by = {(r["policy"], r["rep"]): r for r in reps}
    policies = list(dict.fromkeys(r["policy"] for r in reps))
    windows = sorted({r["rep"] for r in reps})
    heuristics = [p for p in policies if p in HEURISTICS]
    with_easy = [p for p in heuristics if HEURISTICS[p][1] == "easy"]

    def paired(learner: str, metric: str) -> None:
        """The learner minus the best heuristic, and minus EASY's best order where that is another one."""

        def mean(policy: str) -> float:
            return float(np.mean([by[policy, rep][metric] for rep in windows]))

        against = {min(heuristics, key=mean): "the best heuristic"}
        if with_easy:
            against.setdefault(min(with_easy, key=mean), "EASY's best order")
        for other, what in against.items():
            diff = [by[learner, rep][metric] - by[other, rep][metric] for rep in windows]
            print(
                f"paired mean {metric.removesuffix('_mean').replace('_', ' ')}, {learner} - {other} ({what}): "
                f"{np.mean(diff):.3f} ± {ci95_halfwidth(diff):.3f} over {len(diff)} windows"
            )

    written = []
    others = [p for p in policies if p != "dqn"]
    if "dqn" in policies and others:
        rows = []
        for rep in windows:
            row = {"rep": rep, "window_start": by["dqn", rep]["window_start"]}
            row |= {f"dqn_minus_{p}": by["dqn", rep]["slowdown_mean"] - by[p, rep]["slowdown_mean"] for p in others}
            rows.append(row)
        path = Path(out) / "paired.csv"
        with open(path, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        written.append(path)
        if heuristics:
            paired("dqn", "slowdown_mean")
    if "recipe" in policies and heuristics:  # the recipe's own measure is bounded slowdown: both printed
        for metric in ("slowdown_mean", "bounded_slowdown_mean"):
            paired("recipe", metric)
    return written


if __name__ == "__main__":
    cli_main()

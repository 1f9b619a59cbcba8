"""DeepRM on schedlab: a DQN scheduler against FCFS, SJF, Tetris and random (seed 002).

One machine with CPUs and memory, DeepRM's jobs (80% short, 20% long, one dominant
resource) arriving in Bernoulli trials for ``arrival_steps`` steps; an episode ends
when every job has completed. The DQN acts through the environment's action mask,
work-conserving by default: it picks which visible job to place (now, or reserved
ahead at its earliest fit), and waits only when no visible job fits now. It is
trained once (on job sequences drawn at
``train_loads``, a fresh seeded sequence per episode) before the cells run; its
checkpoint and training curve are saved under ``out_dir``, keyed by the training
settings, and reused by later runs. Each cell evaluates one policy at one load on
held-out job sequences: replication r of every cell sees the same sequence (common
random numbers), drawn from the run's seed, never from the training seeds.

    schedlab run scenarios/deeprm.py --quick
    schedlab train scenarios/deeprm.py --out my_dqn && schedlab run scenarios/deeprm.py --set out_dir=my_dqn
    schedlab run scenarios/deeprm.py
    schedlab run scenarios/deeprm.py --set train_steps=100000 --set loads=1.3,1.9
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import simpy

from schedlab.envs.slotted.deeprm import DeepRMConfig, DeepRMEnv
from schedlab.experiment import cli_main
from schedlab.model.contracts.slotted import Agent, episode_metrics
from schedlab.model.core.fields import INT_MAX, folder, items, number
from schedlab.model.core.streams import Streams
from schedlab.model.records.run_facts import run_facts
from schedlab.policies.slotted import BASELINES, random_agent
from schedlab.processes import Model
from schedlab.processes.slotted.slotted import SlottedMachine, drive

POLICIES = ("dqn", "sjf", "tetris", "fcfs", "random")


@dataclass(frozen=True)
class Config:
    #: cluster loads evaluated (one cell per load and policy)
    loads: tuple[float, ...] = (0.3, 0.7, 1.0, 1.3, 1.6, 1.9)
    #: policies evaluated: dqn, sjf, tetris, fcfs, random
    policies: tuple[str, ...] = POLICIES
    #: held-out job sequences per cell (the replications)
    sequences: int = number(20, low=1, work=True)
    #: capacity of the CPUs, in units (DeepRM's image width)
    cpus: int = 20
    #: capacity of the memory, in units
    memory: int = 20
    #: time steps of the image
    horizon: int = 20
    #: visible job slots
    slots: int = 5
    #: largest backlog count observed
    backlog: int = 60
    #: time steps in which jobs arrive
    arrival_steps: int = number(50, low=1, work=True)
    #: Bernoulli trials per arrival step
    trials: int = 3
    #: bounded slowdown threshold, in time steps
    threshold: float = number(10.0, gt=0)
    #: loads of the training job sequences (one drawn per episode)
    train_loads: tuple[float, ...] = (1.0, 1.3, 1.6, 1.9)
    #: environment steps of DQN training
    train_steps: int = number(150_000, low=1, work=True)
    #: environment steps before the first update
    learning_starts: int = 10_000
    #: replay buffer size
    buffer_size: int = number(50_000, low=1)
    #: widths of the Q-network's hidden layers
    hidden: tuple[int, ...] = items((64, 64), low=1)
    #: AdamW learning rate
    learning_rate: float = number(2.5e-4, gt=0, high=1)
    #: reward multiplier for learning
    reward_scale: float = number(0.02, gt=0)
    #: fraction of training over which epsilon decays
    exploration_fraction: float = number(0.3, high=1)
    #: rewards summed before bootstrapping (n-step returns)
    n_step: int = number(1, low=1)
    #: a dueling Q head (state value + action advantages)
    dueling: bool = False
    #: the DQN acts, explores and bootstraps over the valid actions only (the env's action mask)
    mask_actions: bool = True
    #: discount per decision ("step") or per time step ("time": placing a job takes no time)
    discount: str = "step"
    #: the mask hides the void action while a visible job fits now (a work-conserving DQN)
    work_conserving: bool = True
    #: heuristic whose actions replace some random exploration: none, sjf, tetris or fcfs
    guide: str = "none"
    #: share of exploratory actions taken from the guide
    guide_fraction: float = number(0.5, high=1)
    #: seed of the training run (episodes, exploration, weights)
    train_seed: int = number(0, high=INT_MAX)
    #: steps between greedy evaluations on the validation sequences (the training curve)
    eval_every: int = number(20_000, low=1)
    #: validation sequences per training load
    validation: int = number(5, low=1)
    #: keep the weights that did best on the validation sequences, not the last ones
    keep_best: bool = True
    #: where the checkpoint and training curve go (empty: the user cache folder, $SCHEDLAB_CACHE or ~/.cache/schedlab)
    out_dir: str = folder()
    #: exploration rate of the evaluated DQN (0 is greedy; Mnih et al. 2015 evaluate at 0.05)
    eval_epsilon: float = number(0.0, high=1)

    def __post_init__(self) -> None:
        unknown = sorted(set(self.policies) - set(POLICIES))
        if unknown:
            raise ValueError(f"policies: unknown {unknown}; choose from {', '.join(POLICIES)}")
        if self.sequences < 1:
            raise ValueError(f"sequences must be >= 1, got {self.sequences}")
        if not 0 <= self.guide_fraction <= 1:
            raise ValueError(f"guide_fraction must be in [0, 1], got {self.guide_fraction!r}")
        if self.guide != "none" and self.guide not in BASELINES:
            raise ValueError(f"guide: unknown {self.guide!r}; choose from none, {', '.join(BASELINES)}")
        if self.discount not in ("step", "time"):
            raise ValueError(f"discount must be 'step' or 'time', got {self.discount!r}")
        self.env_config(self.loads + self.train_loads)  # the environment checks the rest

    def env_config(self, load: float | tuple[float, ...], *, flatten: bool = False) -> DeepRMConfig:
        return DeepRMConfig(
            resources={"cpus": self.cpus, "memory": self.memory},
            horizon=self.horizon,
            slots=self.slots,
            backlog=self.backlog,
            load=load,
            arrival_steps=self.arrival_steps,
            trials=self.trials,
            flatten=flatten,
            work_conserving=self.work_conserving,
        )

    def training_key(self) -> str:
        """A short hash of every setting that changes the trained agent."""
        fields = [
            f.name
            for f in dataclasses.fields(self)
            if f.name not in ("loads", "policies", "sequences", "threshold", "out_dir")
        ]
        text = json.dumps({k: getattr(self, k) for k in fields}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:12]


QUICK = dict(
    loads=(0.7, 1.3, 1.9),
    sequences=6,
    train_steps=25_000,
    learning_starts=4_000,
    buffer_size=20_000,
    eval_every=5_000,
    validation=2,
)


def REPS(cfg: Config) -> int:
    return cfg.sequences


def cells(cfg: Config) -> list[dict]:
    if "dqn" in cfg.policies:
        checkpoint(cfg)  # train once, in the parent, before the cells run
    return [{"load": load, "policy": p} for load in cfg.loads for p in cfg.policies]


# --------------------------------------------------------------------------- training
def _validation(cfg: Config) -> list[tuple[float, list]]:
    """Fixed validation sequences for the training curve (their own seed: neither train nor test)."""
    rng = np.random.default_rng([cfg.train_seed, 1])
    env_cfg = cfg.env_config(cfg.train_loads)
    loads = [load for load in cfg.train_loads for _ in range(cfg.validation)]
    return [(load, env_cfg.jobs.sample(load, cfg.arrival_steps, rng)) for load in loads]


def _evaluate(cfg: Config, agent: Agent, sequences: list[tuple[float, list]]) -> dict[str, float]:
    out: dict[str, list[float]] = {}
    for load, jobs in sequences:
        sim = simpy.Environment()
        model = SlottedMachine(
            sim,
            {"cpus": cfg.cpus, "memory": cfg.memory},
            jobs,
            horizon=cfg.horizon,
            slots=cfg.slots,
            backlog=cfg.backlog,
        )
        sim.run(until=sim.process(drive(model, agent, max_time=cfg.env_config(load).max_time)))
        out.setdefault(f"slowdown_{load:g}", []).append(episode_metrics(model)["slowdown_mean"])
    return {k: float(np.mean(v)) for k, v in out.items()}


def checkpoint(cfg: Config) -> Path:
    """The trained agent's checkpoint: trained now unless this configuration's already exists."""
    from schedlab.learners.dqn_checkpoint import cached_checkpoint  # torch is only needed for the DQN cells

    return cached_checkpoint(
        cfg.out_dir, cfg.training_key(), lambda: _train(cfg), config=dqn_config(cfg), name="deeprm"
    )


def train_models(cfg: Config, out: Path | None, executor: Any, resume: bool) -> list[tuple[Path, str]]:
    """``schedlab train scenarios/deeprm.py``: the DQN's checkpoint, into ``out`` (default ``out_dir``).

    The DQN learns in one process (``executor`` is not used). Evaluate it with
    ``schedlab run scenarios/deeprm.py --set out_dir=OUT``.
    """
    from schedlab.learners.dqn_checkpoint import train_checkpoint

    if "dqn" not in cfg.policies:
        return []  # the run reads no model
    cfg = replace(cfg, out_dir=str(out)) if out is not None else cfg
    made = train_checkpoint(
        cfg.out_dir, cfg.training_key(), lambda: _train(cfg), config=dqn_config(cfg), name="deeprm", resume=resume
    )
    return [made]


def dqn_config(cfg: Config):
    """The learner's settings: part of the checkpoint's key, and checked against a cached one."""
    from schedlab.learners.dqn_checkpoint import scenario_dqn_config

    return scenario_dqn_config(
        cfg,
        n_step=cfg.n_step,
        dueling=cfg.dueling,
        mask_actions=cfg.mask_actions,
        discount=cfg.discount,
        guide_fraction=cfg.guide_fraction if cfg.guide != "none" else 0.0,
    )


def _train(cfg: Config):
    import torch

    from schedlab.learners.dqn_checkpoint import train_keeping_best

    torch.set_num_threads(1)  # a small network: one thread is fastest and leaves the other core free
    dqn_cfg = dqn_config(cfg)
    env = DeepRMEnv(cfg.env_config(cfg.train_loads, flatten=True))
    validation = _validation(cfg)
    reference = {f"sjf_{k}": v for k, v in _evaluate(cfg, BASELINES["sjf"], validation).items()}

    def validate(agent, step: int) -> dict[str, float]:
        # validated as evaluated, exploring (if eval_epsilon > 0) from a stream of its own
        explore = np.random.default_rng([cfg.train_seed, 2, step])
        policy = _epsilon_greedy(_greedy(agent, cfg), cfg.eval_epsilon, explore, cfg)
        row = _evaluate(cfg, policy, validation)
        # the validation score weighs each load alike: the mean of slowdown / SJF's slowdown
        row["score"] = float(np.mean([v / reference[f"sjf_{k}"] for k, v in row.items()]))
        return row | reference

    guide = None if cfg.guide == "none" else _guide(BASELINES[cfg.guide])
    return train_keeping_best(
        env,
        dqn_cfg,
        seed=cfg.train_seed,
        validate=validate,
        every=cfg.eval_every,
        keep_best=cfg.keep_best,
        name="deeprm",
        guide=guide,
    )


def _guide(heuristic: Agent):
    """A baseline as the DQN's exploration guide: it reads the environment's model."""
    return lambda env: heuristic(env.unwrapped.model)


def _mask(machine: SlottedMachine, cfg: Config) -> np.ndarray | None:
    return machine.action_mask(work_conserving=cfg.work_conserving) if cfg.mask_actions else None


def _greedy(agent, cfg: Config) -> Agent:
    """The Q-network's best action; among the valid ones (the env's action mask) if ``cfg.mask_actions``."""
    return lambda machine: agent.act(machine.observation(flat=True), _mask(machine, cfg))


def _epsilon_greedy(agent: Agent, epsilon: float, rng: np.random.Generator, cfg: Config) -> Agent:
    """``agent``, except for a uniformly random action (a valid one if masked) with probability ``epsilon``.

    A deterministic greedy Q-policy can loop for ever in a state it never learned well
    (the void action while jobs wait and nothing changes); a small epsilon at
    evaluation, as in Mnih et al. (2015), breaks such loops.
    """
    if epsilon <= 0:
        return agent

    def act(machine: SlottedMachine) -> int:
        if rng.random() >= epsilon:
            return agent(machine)
        mask = _mask(machine, cfg)
        return int(rng.integers(machine.slots + 1)) if mask is None else int(rng.choice(np.flatnonzero(mask)))

    return act


@cache
def _trained(path: str, cfg: Config) -> Agent:
    from schedlab.learners.dqn import DQN

    return _greedy(DQN.load(path), cfg)


# --------------------------------------------------------------------------- one replication
def build(env: simpy.Environment, cfg: Config, cell: dict, streams: Streams) -> Model:
    load, policy = float(cell["load"]), cell["policy"]
    env_cfg = cfg.env_config(load)
    jobs = env_cfg.jobs.sample(load, cfg.arrival_steps, streams["jobs"])
    machine = SlottedMachine(
        env, dict(env_cfg.resources), jobs, horizon=cfg.horizon, slots=cfg.slots, backlog=cfg.backlog
    )
    if policy == "dqn":
        trained = _trained(str(checkpoint(cfg)), cfg)
        agent = _epsilon_greedy(trained, cfg.eval_epsilon, streams["exploration"], cfg)
    elif policy == "random":
        agent = random_agent(streams["random"])
    else:
        agent = BASELINES[policy]
    driver = env.process(drive(machine, agent, max_time=env_cfg.max_time))
    return Model(env, [machine.machine], until=driver, parts={"cfg": cfg, "machine": machine, "driver": driver})


#: each metric's unit, for the axes of `schedlab plot`
UNITS = {
    "slowdown_mean": "ratio",
    "bounded_slowdown_mean": "ratio, at least 1",
    "response_mean": "time steps",
    "utilization": "mean fraction of the resources",
    "completed_fraction": "fraction of the jobs",
}


def measure(model: Model) -> dict[str, Any]:
    cfg: Config = model["cfg"]
    out: dict[str, Any] = episode_metrics(model["machine"], threshold=cfg.threshold)
    out["return"] = -float(model["driver"].value)
    out["files"] = run_facts(cfg.cpus, time_unit="time steps", units=UNITS)  # `schedlab plot`: CPUs, time in steps
    return out


if __name__ == "__main__":
    cli_main()

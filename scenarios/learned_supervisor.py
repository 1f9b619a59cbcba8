"""A learned site supervisor against FIFO, PRIO, EDF and seed 001's SARSA + ESN (Table 2 and Fig. 3).

Seed 001's synthetic feasible workload (M/M/50 at rho = 0.99, single-core jobs, 20%
interactive, four VOs with shares and fair-share targets 0.7/0.2/0.05/0.05) as the
Gymnasium environment ``schedlab/SiteSupervisor-v0`` (:mod:`schedlab.envs.site`): the
paper's state, a waiting job elected at each decision epoch, the paper's reward or the
one its text describes. Models come from ``schedlab train SiteSupervisor-v0`` (imitation
of EDF, the paper's pre-training rule, then evolution strategies on whole episodes; see
docs/rl.md), one folder per training seed: ``<models>/<reward>/seed<k>/model.pt``.
``models=shipped`` (the default) evaluates the ones shipped with schedlab
(``schedlab/envs/site/trained``, made by the commands in docs/rl.md), any other value is
a folder of them.

Every replication ``r`` is the held-out episode ``reset(seed=r)`` (below 10**5: training
and validation draw from 10**5 up), the same jobs for every setting, on the
environment's kind of Machine (deciding once per instant): ``FIFO``, ``PRIO``
(non-preemptive priority to interactive jobs), ``EDF`` and ``GREEDY`` (the job whose own
paper reward is highest now, over the whole queue: what a perfect one-step learner of
that reward elects) as machine policies,
``SARSA+ESN`` the paper's learner as printed (``scenarios/responsive_grid.py``'s RL:
epsilon-greedy SARSA over an echo state network, pre-trained on EDF, learning online in
the episode), and each learned model through :class:`~schedlab.envs.site.SlotPolicy`.
The first and last ``drop`` jobs are left out of the statistics. ``report`` prints
:func:`~schedlab.papers.site_learned.learned_table`.

    schedlab run scenarios/learned_supervisor.py --quick
    schedlab run scenarios/learned_supervisor.py --workers 1

``schedlab train scenarios/learned_supervisor.py --out DIR`` trains the models the run
reads, each reward's and seed's into ``DIR/<reward>/seed<k>``, with the shipped ones'
settings (the ``teacher`` and the search's fields below); ``--set models=DIR`` evaluates
them. With the defaults it makes the shipped models again, to the weights' sha256.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import simpy
import torch

from schedlab.envs import agent_machine
from schedlab.envs.site import SiteEnvConfig, SlotPolicy
from schedlab.envs.site.config import REWARDS
from schedlab.experiment import cli_main
from schedlab.learners.approximators import ApproximatorConfig, make_approximator
from schedlab.learners.sarsa import Sarsa, SarsaConfig
from schedlab.model.analysis import metrics
from schedlab.model.analysis.estimates import OracleRuntime
from schedlab.model.analysis.fair_share import FairShare
from schedlab.model.contracts.site import SiteFeatures
from schedlab.model.core.fields import items, number, text
from schedlab.model.core.streams import Streams
from schedlab.model.records.job_record import Status
from schedlab.papers.site_learned import learned_table
from schedlab.papers.site_measures import site_measures
from schedlab.policies import FCFS
from schedlab.policies.site_supervisor import EarliestDeadlineFirst, GreedyReward, InteractiveFirst, SarsaScheduler
from schedlab.processes import Model, Source
from schedlab.training import TrainConfig
from schedlab.training.folders import train_each
from schedlab.training.heuristics import heuristic

SHIPPED = Path(__file__).resolve().parent.parent / "schedlab" / "envs" / "site" / "trained"
BASELINES = ("FIFO", "PRIO", "EDF", "GREEDY", "SARSA+ESN")


@dataclass(frozen=True)
class Config:
    #: the learned models: "shipped", or a folder of <reward>/seed<k>/model.pt
    models: str = text("shipped", nonempty=True)
    #: the rewards whose models are evaluated (paper, overhead)
    rewards: tuple[str, ...] = items(REWARDS, distinct=True)
    #: the training seeds evaluated (one model each)
    seeds: tuple[int, ...] = items((0, 1, 2), distinct=True)
    #: the other settings: FIFO, PRIO, EDF, GREEDY, SARSA+ESN
    baselines: tuple[str, ...] = BASELINES
    #: jobs per episode (the environment's default; the models were trained on it)
    jobs: int = number(1500, low=2, integer=True)
    #: jobs left out of the statistics at each end of an episode (ramp-up and drain)
    drop: int = number(200, integer=True)
    #: held-out episodes (replications r = reset(seed=r))
    episodes: int = number(20, low=1, integer=True)
    #: SARSA+ESN: elections made by EDF (pre-training) before SARSA elects
    pretrain: int = number(200, integer=True)
    #: training (schedlab train): the heuristic imitated, and that costs are relative to
    teacher: str = "edf"
    #: training: evolution-strategies generations
    generations: int = number(5, low=0, work=True)
    #: training: antithetic pairs per generation
    pairs: int = number(6, low=1, work=True)
    #: training: episodes per generation
    train_episodes: int = number(2, low=1, work=True)
    #: training: validation episodes choosing the best weights
    validation: int = number(8, low=1, work=True)
    #: training: the teacher's episodes behaviour cloning learns from
    imitation_episodes: int = number(32, low=0, work=True)

    def __post_init__(self) -> None:
        bad = [r for r in self.rewards if r not in REWARDS] + [b for b in self.baselines if b not in BASELINES]
        if bad:
            raise ValueError(f"unknown rewards or baselines {bad}; choose from {REWARDS} and {BASELINES}")
        if self.jobs <= 2 * self.drop:
            raise ValueError(f"need jobs > 2 x drop, got jobs={self.jobs}, drop={self.drop}")
        if self.models != "shipped" and not Path(self.models).is_dir():
            raise ValueError(f"models must be shipped or a folder, got {self.models!r}")
        heuristic("schedlab/SiteSupervisor-v0", self.teacher, "teacher")  # unknown: refused in one line


QUICK = dict(episodes=2, generations=1, pairs=2, train_episodes=1, validation=1, imitation_episodes=2)


def REPS(cfg: Config) -> int:
    return cfg.episodes


def cells(cfg: Config) -> list[dict]:
    out = [{"setting": b, "seed": -1} for b in cfg.baselines]
    return out + [{"setting": f"learned ({r})", "seed": s} for r in cfg.rewards for s in cfg.seeds]


def env_config(cfg: Config, reward: str = "paper") -> SiteEnvConfig:
    return SiteEnvConfig(jobs=cfg.jobs, reward=reward)


# ---------------------------------------------------------------------- the learned models
def train_config(cfg: Config, reward: str, seed: int) -> TrainConfig:
    """The training of ``reward``'s model of seed ``seed`` (the shipped models': docs/rl.md)."""
    return TrainConfig(
        env="schedlab/SiteSupervisor-v0", env_settings={"reward": reward, "jobs": cfg.jobs}, teacher=cfg.teacher,
        seed=seed, generations=cfg.generations, pairs=cfg.pairs, episodes=cfg.train_episodes, validation=cfg.validation,
        imitation_episodes=cfg.imitation_episodes,
    )  # fmt: skip


def train_models(cfg: Config, out: Path | None, executor: Any, resume: bool) -> list[tuple[Path, str]]:
    """``schedlab train scenarios/learned_supervisor.py``: each reward's and seed's model into ``out/<reward>/seed<k>``.

    ``out`` defaults to ``results/learned_supervisor_models`` (never the shipped folder).
    """
    folder = out or Path("results/learned_supervisor_models")
    trainings = [(train_config(cfg, r, s), folder / r / f"seed{s}") for r in cfg.rewards for s in cfg.seeds]
    return train_each(trainings, executor, resume)


@cache
def _model(cfg: Config, reward: str, seed: int) -> Any:
    from schedlab.training import load_policy

    folder = (SHIPPED if cfg.models == "shipped" else Path(cfg.models)) / reward / f"seed{seed}"
    if not (folder / "model.pt").exists():
        raise ValueError(f"models: no model at {folder / 'model.pt'} (train it with schedlab train, see docs/rl.md)")
    return load_policy(folder / "model.pt", _env(cfg, reward))


@cache
def _env(cfg: Config, reward: str) -> Any:
    import gymnasium as gym

    return gym.make("schedlab/SiteSupervisor-v0", disable_env_checker=True, config=env_config(cfg, reward))


def _sarsa(cfg: Config, site: SiteEnvConfig, streams: Streams) -> SarsaScheduler:
    """The paper's learner as printed (scenarios/responsive_grid.py's RL)."""
    features = SiteFeatures(tuple(site.fair_targets()), site.cores)
    approximator = make_approximator(
        features.state_size + features.action_size, ApproximatorConfig(kind="esn"), streams["weights-jobs"]
    )
    learner = Sarsa(approximator, SarsaConfig(), streams["exploration-jobs"])
    return SarsaScheduler(
        learner, features, OracleRuntime(), fair_share=FairShare(site.fair_targets()), weight=site.weight,
        pretrain=cfg.pretrain,
    )  # fmt: skip


# ---------------------------------------------------------------------- one episode
def build(env: simpy.Environment, cfg: Config, cell: dict, streams: Streams) -> Model:
    torch.set_num_threads(1)  # tiny networks: threads only add latency to every decision
    setting = cell["setting"]
    reward = setting[len("learned (") : -1] if setting.startswith("learned") else "paper"
    site = env_config(cfg, reward)
    jobs = site.episode_jobs(streams.replication)  # held-out episode r: the same jobs for every setting
    scheduler = None
    if setting == "FIFO":
        policy: Any = FCFS()
    elif setting == "PRIO":
        policy = InteractiveFirst()
    elif setting == "EDF":
        policy = EarliestDeadlineFirst(OracleRuntime())
    elif setting == "GREEDY":  # the paper's reward maximised at each election: a perfect one-step learner of it
        policy = GreedyReward(OracleRuntime(), FairShare(site.fair_targets()), site.weight)
    elif setting == "SARSA+ESN":
        policy = scheduler = _sarsa(cfg, site, streams)
    else:
        policy = SlotPolicy(_model(cfg, reward, int(cell["seed"])), _env(cfg, reward).unwrapped.slots)
    machine = agent_machine(env, site.cores, policy, name="site")
    if scheduler is not None:
        machine.completed.connect(scheduler.completed)
    Source(env, jobs, machine)
    return Model(env, [machine], parts={"cfg": cfg, "site": site, "machine": machine, "jobs": jobs})


def measure(model: Model) -> dict[str, Any]:
    cfg: Config = model["cfg"]
    site: SiteEnvConfig = model["site"]
    records = sorted((r for r in model["machine"].records if r.status is Status.COMPLETED), key=lambda r: r.id)
    ids = sorted(j.id for j in model["jobs"])
    first, last = ids[cfg.drop], ids[-cfg.drop - 1] if cfg.drop else ids[-1]
    kept = [r for r in records if first <= r.id <= last]
    out: dict[str, Any] = site_measures(records, kept, site.fair_targets(), site.weight, site.cores)
    # Fig. 3's fair share over time (F after each election): its mean over the kept jobs' elections, and its
    # value when the last kept job arrives (the final F, once every job has run, is the same for every schedule)
    elected = sorted(records, key=lambda r: (r.start, r.id))
    fairness = metrics.fair_share(records, site.fair_targets())
    ids_kept, end = {r.id for r in kept}, max(r.submit for r in kept)
    out["fair_share_mean"] = float(np.mean([f for f, r in zip(fairness, elected, strict=True) if r.id in ids_kept]))
    out["fair_share_end"] = float(fairness[sum(r.start <= end for r in elected) - 1])
    # the text's measure: each job's wait relative to its execution time, bounded by the acceptable delay
    out["overhead"] = float(np.mean([r.wait / max(r.service, site.acceptable_delay) for r in kept]))
    return out


def report(results, out: Path) -> list[Path]:
    """Print and save the learned supervisor's table (:func:`~schedlab.papers.site_learned.learned_table`)."""
    text = learned_table(results.replications)
    print(text)
    path = Path(out) / "learned_supervisor.md"
    path.write_text(text + "\n")
    return [path]


if __name__ == "__main__":
    cli_main()

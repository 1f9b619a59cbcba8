"""Utility-based scheduling with preemption and squeezing, learned by TD(0) (seed 000).

One 24-CPU machine; jobs ask for 4-20 CPUs for an ideal 5-10 time units and arrive as
a Poisson process; each job's unit utility is 1 until its ideal length L, then falls
to 0 at 2L (figure 1; f^2 and f^1/2 for figure 5), and its final utility is the unit
utility times K x L. The seven policies of figures 2-3:

- ``best-fit``: tightest fit first, never preempts or squeezes;
- ``aggressive-oversubscribe`` / ``-preempt`` / ``-both``: best-fit, then always
  squeeze and/or force in the smallest waiting job;
- ``utility-oversubscribe`` / ``-preempt`` / ``-both``: best-fit, then squeeze
  and/or preempt only when a fuzzy-rulebase value function of the machine state says
  so (section 4.1); the value function is learned by TD(0) over ``train_time`` from
  p = 0 (section 3.4), then the policy is tested over ``test_time``.

Every policy sees the same arrivals in a given replication (common random numbers);
all metrics are of the test window only.

    schedlab run scenarios/utility_scheduling.py                        # figures 2-3
    schedlab run scenarios/utility_scheduling.py --set experiment=arrival_rate   # figure 4
    schedlab run scenarios/utility_scheduling.py --set experiment=tuf_shape      # figure 5
    schedlab run scenarios/utility_scheduling.py --quick

Learning is frozen during the test by default (``learn_during_test=false``): the test
then measures one fixed value function, the one saved as ``p1..p8`` with the results,
so a reported number belongs to a reported p. Set it to true to keep learning on line
as the paper's scheduler could.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import simpy

from schedlab.experiment import cli_main
from schedlab.learners.fuzzy_rulebase import FuzzyRulebase
from schedlab.learners.td import AverageRewardTD, LearningRate, TDConfig
from schedlab.model.analysis import metrics
from schedlab.model.contracts.machine import Policy
from schedlab.model.core.distributions import Uniform, UniformInt
from schedlab.model.core.fields import number
from schedlab.model.core.streams import Streams
from schedlab.model.core.utility import LinearDecay
from schedlab.model.core.workloads import poisson_workload
from schedlab.model.records.run_facts import run_facts
from schedlab.policies import BestFit
from schedlab.policies.utility_scheduling import AggressiveScheduler, UtilityScheduler
from schedlab.processes import Machine, Model, Source

#: policy name -> (kind, preempt, oversubscribe)
POLICIES: dict[str, tuple[str, bool, bool]] = {
    "best-fit": ("best-fit", False, False),
    "aggressive-oversubscribe": ("aggressive", False, True),
    "aggressive-preempt": ("aggressive", True, False),
    "aggressive-both": ("aggressive", True, True),
    "utility-oversubscribe": ("utility", False, True),
    "utility-preempt": ("utility", True, False),
    "utility-both": ("utility", True, True),
}

#: TUF shape -> the exponent of figure 5's f^k
TUF_SHAPES = {"linear": 1.0, "convex": 2.0, "concave": 0.5}

EXPERIMENTS = ("policies", "arrival_rate", "tuf_shape")


@dataclass(frozen=True)
class Config:
    #: which figure to reproduce: policies (figs 2-3), arrival_rate (fig 4) or tuf_shape (fig 5)
    experiment: str = "policies"
    #: CPUs of the machine (N)
    cpus: int = 24
    #: job arrivals per time unit (Poisson)
    arrival_rate: float = 0.1
    #: fewest CPUs a job asks for (uniform on cpus_min..cpus_max)
    cpus_min: int = 4
    #: most CPUs a job asks for
    cpus_max: int = 20
    #: shortest ideal job length L (uniform on [length_min, length_max])
    length_min: float = 5.0
    #: longest ideal job length L
    length_max: float = 10.0
    #: MaxJobLength, the scale of the value function's x2 input
    max_job_length: float = 10.0
    #: TUF shape after L: linear (f), convex (f^2) or concave (f^1/2)
    tuf_shape: str = "linear"
    #: the policy (for experiment=policies every policy is a cell; this is for single runs)
    policy: str = "utility-both"
    #: training time units before the test, learning from p = 0
    train_time: float = number(25_000.0, work=True)
    #: test time units over which every metric is measured
    test_time: float = number(20_000.0, work=True)
    #: keep learning during the test (default false: the test evaluates the learned p)
    learn_during_test: bool = False
    #: TD learning rate alpha_0 (eqs. 5-6); rewards are final utilities, of order K x L
    learning_rate: float = 0.01
    #: updates after which the learning rate has halved; inf keeps it constant
    learning_rate_half_life: float = number(math.inf, gt=0, finite=False, high=None)
    #: arrival rates of the figure-4 sweep
    arrival_rates: tuple[float, ...] = (0.05, 0.1, 0.15, 0.2, 0.25)
    #: policies of the figure-4 and figure-5 sweeps
    sweep_policies: tuple[str, ...] = ("best-fit", "aggressive-both", "utility-both")

    def __post_init__(self) -> None:
        def need(ok: bool, what: str) -> None:
            if not ok:
                raise ValueError(what)

        need(self.experiment in EXPERIMENTS, f"experiment must be one of {EXPERIMENTS}, got {self.experiment!r}")
        need(self.cpus >= 1, f"cpus must be >= 1, got {self.cpus}")
        need(
            1 <= self.cpus_min <= self.cpus_max,
            f"need 1 <= cpus_min <= cpus_max, got cpus_min={self.cpus_min}, cpus_max={self.cpus_max}",
        )
        need(
            self.cpus_max <= self.cpus,
            f"cpus_max={self.cpus_max} is beyond the machine's cpus={self.cpus}: such jobs could never run",
        )
        need(
            math.isfinite(self.arrival_rate) and self.arrival_rate > 0,
            f"arrival_rate must be finite and > 0, got {self.arrival_rate}",
        )
        need(
            all(math.isfinite(r) and r > 0 for r in self.arrival_rates),
            f"arrival_rates must all be finite and > 0, got {self.arrival_rates}",
        )
        need(
            0 < self.length_min <= self.length_max < math.inf,
            f"need 0 < length_min <= length_max, got {self.length_min}, {self.length_max}",
        )
        need(
            math.isfinite(self.max_job_length) and self.max_job_length > 0,
            f"max_job_length (MaxJobLength) must be finite and > 0, got {self.max_job_length}",
        )
        need(self.tuf_shape in TUF_SHAPES, f"tuf_shape must be one of {tuple(TUF_SHAPES)}, got {self.tuf_shape!r}")
        for name in (self.policy, *self.sweep_policies):
            need(name in POLICIES, f"unknown policy {name!r}; policies are {tuple(POLICIES)}")
        need(
            self.train_time >= 0 and self.test_time > 0,
            f"need train_time >= 0 and test_time > 0, got {self.train_time}, {self.test_time}",
        )
        need(0 < self.learning_rate <= 1, f"learning_rate must be in (0, 1], got {self.learning_rate}")
        need(
            self.learning_rate_half_life > 0, f"learning_rate_half_life must be > 0, got {self.learning_rate_half_life}"
        )


QUICK = dict(train_time=5_000.0, test_time=4_000.0, arrival_rates=(0.1, 0.2, 0.3))


def REPS(cfg: Config) -> int:
    return 50


def cells(cfg: Config) -> list[dict]:
    if cfg.experiment == "policies":
        return [{"policy": p, "arrival_rate": cfg.arrival_rate, "tuf_shape": cfg.tuf_shape} for p in POLICIES]
    if cfg.experiment == "arrival_rate":
        return [
            {"policy": p, "arrival_rate": r, "tuf_shape": cfg.tuf_shape}
            for r in cfg.arrival_rates
            for p in cfg.sweep_policies
        ]
    return [
        {"policy": p, "arrival_rate": cfg.arrival_rate, "tuf_shape": s} for s in TUF_SHAPES for p in cfg.sweep_policies
    ]


def tuf_factory(shape: str) -> Callable[[float], LinearDecay]:
    exponent = TUF_SHAPES[shape]
    return lambda ideal: LinearDecay(ideal, exponent)


def make_policy(cfg: Config, name: str) -> tuple[Policy, AverageRewardTD | None]:
    """The named policy, and its TD learner if it has one (p = 0 at the start)."""
    kind, preempt, oversubscribe = POLICIES[name]
    if kind == "best-fit":
        return BestFit(), None
    if kind == "aggressive":
        return AggressiveScheduler(preempt=preempt, oversubscribe=oversubscribe), None
    rate = LearningRate(cfg.learning_rate, cfg.learning_rate_half_life)
    learner = AverageRewardTD(FuzzyRulebase(3), TDConfig(learning_rate=rate))
    policy = UtilityScheduler(learner, preempt=preempt, oversubscribe=oversubscribe, max_job_length=cfg.max_job_length)
    return policy, learner


def build(env: simpy.Environment, cfg: Config, cell: dict, streams: Streams) -> Model:
    policy, learner = make_policy(cfg, cfg.policy)
    machine = Machine(env, cfg.cpus, policy, name="machine", oversize="raise")
    if learner is not None:
        machine.completed.connect(learner)
    end = cfg.train_time + cfg.test_time
    jobs = poisson_workload(
        cfg.arrival_rate,
        Uniform(cfg.length_min, cfg.length_max),
        UniformInt(cfg.cpus_min, cfg.cpus_max),
        until=end,
        utility=tuf_factory(cfg.tuf_shape),
        seed=streams["arrivals"],
    )
    source = Source(env, jobs, machine)
    window: dict[str, object] = {}

    def start_test(env: simpy.Environment):
        yield env.timeout(cfg.train_time)
        window["busy_at_start"] = machine.busy_time()
        if learner is not None:
            window["p"] = list(learner.p)
            window["rho"] = learner.rho
            window["updates"] = learner.updates
            learner.frozen = not cfg.learn_during_test

    env.process(start_test(env))
    parts = {"cfg": cfg, "machine": machine, "source": source, "learner": learner, "window": window}
    return Model(env, [machine], until=end, parts=parts)


#: the units of the metrics `schedlab plot` can name (the others are drawn under their name alone)
UNITS = {
    "wait_mean": "time units",
    "utilization": "fraction of the CPUs",
    "completed": "jobs",
    "preemptions": "preemptions",
}


def measure(model: Model) -> dict[str, Any]:
    cfg: Config = model["cfg"]
    machine: Machine = model["machine"]
    start, end = cfg.train_time, cfg.train_time + cfg.test_time
    done = [r for r in machine.records if start <= r.end < end]
    produced = metrics.utility_accrued(done)
    out = {
        "productivity": produced,
        "productivity_fraction": produced / (cfg.cpus * cfg.test_time),
        # eq. 7 over the test window: CPU-time allocated in it (exact) over N T
        "utilization": (machine.busy_time() - model["window"]["busy_at_start"]) / (cfg.cpus * cfg.test_time),
        "wait_mean": float(np.mean(metrics.wait(done))) if done else math.nan,
        "completed": len(done),
        "preemptions": sum(r.preemptions for r in done),
        # `schedlab plot`: the machine's CPUs, in the model's time units (not seconds)
        "files": run_facts(cfg.cpus, time_unit="time units", units=UNITS),
    }
    learner: AverageRewardTD | None = model["learner"]
    if learner is not None:
        window = model["window"]
        out.update({f"p{i + 1}": v for i, v in enumerate(window["p"])})
        out.update(rho=window["rho"], updates=window["updates"])
    return out


if __name__ == "__main__":
    cli_main()

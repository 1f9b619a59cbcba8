"""A tiny test scenario: multi-CPU jobs under FCFS, SJF and best-fit (cells), for runner tests."""

from __future__ import annotations

from dataclasses import dataclass

from schedlab.experiment import cli_main
from schedlab.model.core.distributions import Exponential, UniformInt
from schedlab.model.core.workloads import poisson_workload
from schedlab.policies import FCFS, SJF, BestFit
from schedlab.processes import Machine, Model, Source

POLICIES = {"fcfs": FCFS(), "sjf": SJF(), "best_fit": BestFit()}


@dataclass(frozen=True)
class Config:
    #: CPUs of the machine
    cpus: int = 8
    #: arrivals per unit of time
    arrival_rate: float = 0.5
    #: jobs per replication
    jobs: int = 300
    #: policies compared, one cell each
    policies: tuple[str, ...] = ("fcfs", "sjf", "best_fit")


QUICK = dict(jobs=100)
REPS = 3


def cells(cfg: Config) -> list[dict]:
    return [{"policy": p} for p in cfg.policies]


def build(env, cfg: Config, cell: dict, streams) -> Model:
    machine = Machine(env, cfg.cpus, POLICIES[cell["policy"]])
    jobs = poisson_workload(
        cfg.arrival_rate, Exponential(4.0), UniformInt(1, cfg.cpus), count=cfg.jobs, seed=streams["arrivals"]
    )
    Source(env, jobs, machine)
    return Model(env, [machine])


if __name__ == "__main__":
    cli_main()

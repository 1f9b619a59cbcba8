"""A test scenario whose replications can be made to hang, for kill, interrupt and resume tests.

Each task writes ``started-<cell>-<rep>`` (holding its process id) into
``$SCHEDLAB_TEST_SIGNALS`` when it starts. A task whose replication is listed in
``$SCHEDLAB_TEST_BLOCK`` (``"2"``, ``"0,1,2"`` or ``"all"``) then waits until the process
is killed. Environment variables, not config fields, so a resumed run is the same run.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from schedlab.experiment import cli_main
from schedlab.model.core.distributions import Exponential, UniformInt
from schedlab.model.core.fields import number
from schedlab.model.core.workloads import poisson_workload
from schedlab.policies import FCFS, SJF
from schedlab.processes import Machine, Model, Source

POLICIES = {"fcfs": FCFS(), "sjf": SJF()}


@dataclass(frozen=True)
class Config:
    #: CPUs of the machine
    cpus: int = number(4, low=1)
    #: jobs per replication
    jobs: int = number(60, low=1, work=True)


REPS = 4


def cells(cfg: Config) -> list[dict]:
    return [{"policy": p} for p in POLICIES]


def _gate(cell: dict, rep: int) -> None:
    signals = os.environ.get("SCHEDLAB_TEST_SIGNALS")
    if signals:
        name = f"started-{list(POLICIES).index(cell['policy'])}-{rep}"
        (Path(signals) / name).write_text(str(os.getpid()))
    block = os.environ.get("SCHEDLAB_TEST_BLOCK", "")
    if block == "all" or str(rep) in block.split(","):
        while True:  # until killed
            time.sleep(0.05)


def build(env, cfg: Config, cell: dict, streams) -> Model:
    _gate(cell, streams.replication)
    machine = Machine(env, cfg.cpus, POLICIES[cell["policy"]])
    jobs = poisson_workload(0.5, Exponential(4.0), UniformInt(1, cfg.cpus), count=cfg.jobs, seed=streams["arrivals"])
    Source(env, jobs, machine)
    return Model(env, [machine])


if __name__ == "__main__":
    cli_main()

"""M/M/c: Poisson arrivals, exponential service, c CPUs, first come first served.

The first teaching example and the engine's first validation: the mean wait measured
over replications is printed beside the Erlang-C formula, and the measured
utilization beside rho = lambda / (c mu).

    schedlab run scenarios/mmc.py
    schedlab run scenarios/mmc.py --set c=1 --set arrival_rate=0.9
    schedlab run scenarios/mmc.py --sweep arrival_rate=2,3,3.6 --reps 20
    schedlab trace scenarios/mmc.py --until 3
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import simpy

from schedlab.experiment import cli_main
from schedlab.model.analysis import metrics
from schedlab.model.analysis.queueing import erlang_c_wait
from schedlab.model.core.distributions import Exponential
from schedlab.model.core.fields import number, validate
from schedlab.model.core.streams import Streams
from schedlab.model.core.workloads import poisson_workload
from schedlab.model.records.job_record import Status
from schedlab.model.records.log import RecordLog
from schedlab.model.records.run_facts import run_facts
from schedlab.policies import FCFS
from schedlab.processes import Machine, Model, Source


@dataclass(frozen=True)
class Config:
    #: number of CPUs (servers); every job needs one
    c: int = number(4, low=1)
    #: arrivals per unit of time (lambda)
    arrival_rate: float = number(3.6, low=None, gt=0)
    #: service completions per unit of time of one CPU (mu); mean runtime 1/mu
    service_rate: float = number(1.0, low=None, gt=0)
    #: customers per replication
    customers: int = number(50_000, low=2, work=True)
    #: fraction of the first customers left out of the statistics (warm-up)
    warmup_fraction: float = number(0.1, lt=1)

    def __post_init__(self) -> None:
        validate(self)  # each field's own rule first: "arrival_rate=0.0 must be > 0"
        if self.rho >= 1:
            raise ValueError(
                f"rho = arrival_rate / (c * service_rate) = {self.rho:.4g} >= 1: the queue grows without end; "
                "lower arrival_rate or raise c"
            )

    @property
    def rho(self) -> float:
        return self.arrival_rate / (self.c * self.service_rate)


QUICK = dict(customers=5_000)
#: each metric's unit, for the axes of `schedlab plot`
UNITS = {
    "wait_mean": "mean service times",
    "erlang_c_wait": "mean service times",
    "utilization": "fraction of the CPUs",
    "rho": "offered load per CPU",
}
REPS = 10


def build(env: simpy.Environment, cfg: Config, cell: dict, streams: Streams) -> Model:
    machine = Machine(env, cfg.c, FCFS(), name="cpus")
    jobs = poisson_workload(
        cfg.arrival_rate, Exponential(1 / cfg.service_rate), count=cfg.customers, seed=streams["arrivals"]
    )
    source = Source(env, jobs, machine)
    return Model(env, [machine], until=None, parts={"cfg": cfg, "machine": machine, "source": source})


def measure(model: Model) -> dict[str, Any]:
    cfg: Config = model["cfg"]
    warm = int(cfg.warmup_fraction * cfg.customers)
    records = model.records()
    # the records by columns (a machine's log already is one): no record made per job
    log = records if isinstance(records, RecordLog) else RecordLog(records)
    kept = (log.column("id") >= warm) & log.has_status(Status.COMPLETED)
    submit = log.column("submit")[kept]
    # utilization over the arrival period after warm-up, not the final drain of the queue
    start, end = float(submit[0]), float(submit.max())
    return {
        "wait_mean": float(log.column("wait")[kept].mean()),
        "erlang_c_wait": erlang_c_wait(cfg.c, cfg.arrival_rate, cfg.service_rate),
        "utilization": metrics.utilization(log, cfg.c, start, end),
        "rho": cfg.rho,
        # what `schedlab plot` divides by; time in mean service times; each metric's unit for its axis
        "files": run_facts(cfg.c, time_unit="mean service times", units=UNITS),
    }


if __name__ == "__main__":
    cli_main()

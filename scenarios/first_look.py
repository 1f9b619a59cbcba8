"""A first look at schedlab: FCFS, SJF and EASY backfilling on a real log, with M/M/c checked beside them.

The README's main job. Two workloads, one table:

- **a real log.** Replication r replays window r: ``length`` consecutive jobs of the
  SDSC SP2 log (128 CPUs, 1998; ``../shared/traces``), its start drawn from
  replication r's ``window`` stream, so every policy replays the very same windows
  (common random numbers) and the windows of two replications are independent draws
  (they may overlap). Each window arrives at an empty machine of the log's CPUs.
  ``fcfs`` starts jobs strictly in arrival order; ``sjf`` the one with the smallest
  requested time (the user's estimate, as a real scheduler sees it); ``easy`` is FCFS
  with EASY backfilling, and ``sjf+easy`` SJF with it. Waits are in hours.
- **the validation.** An M/M/c queue (c CPUs, Poisson arrivals, exponential service,
  FCFS), whose mean wait queueing theory knows exactly: Erlang C. Its wait is in units
  of the mean service time. ``replications`` x ``customers`` (40 x 100,000 by default)
  were chosen for a half-width near 2% of the formula's value, so that the check could
  see an error of a few percent; they were not tuned on any seed's result.

``report`` prints whether Erlang C's value lies inside the measured 95% interval, and,
window by window, how often each policy beat FCFS.

    schedlab run scenarios/first_look.py
    schedlab run scenarios/first_look.py --quick
    schedlab run scenarios/first_look.py --set log=UniLu-Gaia-2014-1
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import simpy

from schedlab.experiment import cli_main
from schedlab.experiment.results import Results
from schedlab.model.analysis import metrics
from schedlab.model.analysis.queueing import erlang_c_wait
from schedlab.model.core.distributions import Exponential
from schedlab.model.core.fields import items, number
from schedlab.model.core.streams import Streams
from schedlab.model.core.workloads import poisson_workload
from schedlab.model.formats.logs import LoadedLog, check_logs, evaluate, load_log
from schedlab.model.records.job_record import Status
from schedlab.model.records.run_facts import run_facts
from schedlab.policies import FCFS
from schedlab.policies.batch import make_policy
from schedlab.processes import Machine, Model, Source
from schedlab.processes.machine.replay import replay_model

#: a policy's name on the command line -> (priority order, backfilling)
POLICIES = {"fcfs": ("fcfs", "none"), "sjf": ("sjf", "none"), "easy": ("fcfs", "easy"), "sjf+easy": ("sjf", "easy")}
#: the last word of a cell's workload says which model it runs
LOG, QUEUE = "log", "queue"
#: each metric's unit per model: `schedlab plot` draws the log's hours and the queue's service times apart
UNITS = {
    LOG: {"wait": "hours", "bounded_slowdown": "ratio, at least 1", "utilization": "fraction of the CPUs"},
    QUEUE: {"wait": "mean service times", "utilization": "fraction of the CPUs", "erlang_c_wait": "mean service times"},
}


@dataclass(frozen=True)
class Config:
    #: the real log, by path or by name in logs_dir
    log: str = "SDSC-SP2-1998-4.2-cln"
    #: where a log named without a path is looked up
    logs_dir: str = "../shared/traces"
    #: policies replayed on the log: fcfs, sjf, easy (FCFS + EASY backfilling), sjf+easy
    policies: tuple[str, ...] = items(("fcfs", "sjf", "easy", "sjf+easy"))
    #: jobs per window of the log
    length: int = number(1024, low=2, work=True)
    #: replications per cell: log windows, and M/M/c runs (--reps overrides)
    replications: int = number(40, low=2)
    #: M/M/c: number of CPUs (servers)
    c: int = number(4, low=1)
    #: M/M/c: arrivals per unit of time (lambda)
    arrival_rate: float = number(3.6, gt=0)
    #: M/M/c: service completions per unit of time of one CPU (mu)
    service_rate: float = number(1.0, gt=0)
    #: M/M/c: customers per replication
    customers: int = number(100_000, low=2, work=True)
    #: M/M/c: fraction of the first customers left out of the statistics (warm-up)
    warmup_fraction: float = number(0.1, high=0.99)

    def __post_init__(self) -> None:
        for p in self.policies:
            if p not in POLICIES:
                raise ValueError(f"policies: unknown policy {p!r}; choose from {', '.join(POLICIES)}")
        check_logs([self.log], self.logs_dir)
        if self.rho >= 1:
            raise ValueError(
                f"rho = arrival_rate / (c * service_rate) = {self.rho:.4g} >= 1: the M/M/c queue "
                "grows without end; lower arrival_rate or raise c"
            )

    @property
    def rho(self) -> float:
        return self.arrival_rate / (self.c * self.service_rate)


QUICK = dict(length=128, replications=5, customers=4_000)


def REPS(cfg: Config) -> int:
    """``replications``: windows of the log, and runs of the M/M/c queue."""
    return cfg.replications


def _log(cfg: Config) -> LoadedLog:
    return load_log(cfg.log, root=Path(cfg.logs_dir))


def cells(cfg: Config) -> list[dict]:
    name = Path(cfg.log).name.split(".")[0].split("-")
    short = "-".join(name[:2])  # SDSC-SP2-1998-4.2-cln -> SDSC-SP2
    rows = [{"workload": f"{short} {LOG}", "policy": p} for p in cfg.policies]
    return [*rows, {"workload": f"M/M/{cfg.c} {QUEUE}", "policy": "fcfs"}]


def build(env: simpy.Environment, cfg: Config, cell: dict, streams: Streams) -> Model:
    if cell["workload"].endswith(LOG):
        log = _log(cfg)
        if cfg.length > len(log.jobs):
            raise ValueError(f"length={cfg.length}: the log {cfg.log} has only {len(log.jobs)} jobs")
        # the same start for replication r of every policy: common random numbers
        lo = int(streams["window"].integers(0, len(log.jobs) - cfg.length + 1))
        # CPU ids (first fit) for the Gantt chart over CPUs that `schedlab plot` draws
        model = replay_model(
            env,
            log.jobs[lo : lo + cfg.length],
            log.cpus,
            make_policy(*POLICIES[cell["policy"]]),
            allocation="first-fit",
        )
        model.parts.update(kind=LOG, cpus=log.cpus)
        return model
    machine = Machine(env, cfg.c, FCFS(), name="cpus")
    jobs = poisson_workload(
        cfg.arrival_rate, Exponential(1 / cfg.service_rate), count=cfg.customers, seed=streams["arrivals"]
    )
    Source(env, jobs, machine)
    # no stations: the queue's customers are too many to keep in records.parquet; measure reads the machine
    return Model(env, [], parts={"kind": QUEUE, "cfg": cfg, "machine": machine})


def measure(model: Model) -> dict[str, Any]:
    if model["kind"] == LOG:
        row = evaluate(model.records(), model["cpus"])
        return {
            "wait": row["wait"] / 3600,
            "bounded_slowdown": row["bounded_slowdown"],
            "utilization": row["utilization"],
            # `schedlab plot` draws the utilization of the log's CPUs, and the jobs over them
            "files": {
                **run_facts(model["cpus"], units=UNITS[LOG]),
                "allocations.csv": model["machine"].allocations_csv(),
            },
        }
    cfg: Config = model["cfg"]
    warm = int(cfg.warmup_fraction * cfg.customers)
    records = model["machine"].records
    kept = [r for r in records if r.id >= warm and r.status is Status.COMPLETED]
    # utilization over the arrival period after warm-up, not the final drain of the queue (as scenarios/mmc.py)
    start, end = kept[0].submit, max(r.submit for r in kept)
    return {
        "wait": float(metrics.wait(kept).mean()),
        "utilization": metrics.utilization(records, cfg.c, start, end),
        "erlang_c_wait": erlang_c_wait(cfg.c, cfg.arrival_rate, cfg.service_rate),
        # the queue's c CPUs, and time in mean service times (1/mu): its wait gets its own axis
        "files": run_facts(cfg.c, time_unit="mean service times", units=UNITS[QUEUE]),
    }


def validation(results: Results) -> list[str]:
    """One line per M/M/c row: its mean wait, 95% interval and Erlang C's value, and whether the value lies inside."""
    lines = []
    for row in (r for r in results.rows if r["workload"].endswith(QUEUE)):
        cfg = {**results.config, **row}  # a --sweep over c or the rates puts them in the row
        mean, half, formula = row["wait"], row["wait_ci95"], row["erlang_c_wait"]
        if not math.isfinite(half):
            verdict = "one replication gives no interval"
        elif abs(mean - formula) <= half:
            verdict = "inside the 95% interval"
        else:
            verdict = (
                f"OUTSIDE the 95% interval, by {abs(mean - formula) - half:.3g} "
                "(a 95% interval misses about 1 time in 20)"
            )
        lines.append(
            f"validation: M/M/{cfg['c']} at rho = {cfg['arrival_rate'] / (cfg['c'] * cfg['service_rate']):.3g}, "
            f"{results.reps} replications of {cfg['customers']:,} customers: mean wait {mean:.4g} ± {half:.2g} "
            f"(±{100 * half / formula:.1f}%), Erlang C {formula:.4g}: {verdict}"
        )
    return lines


def paired(results: Results) -> list[str]:
    """Per window, how often each policy's bounded slowdown was below FCFS's (the same jobs, paired).

    A heading line, then one line per policy; none without ``fcfs`` among the policies.
    """
    import pandas as pd  # here, not at the top: the worker processes that import this script never need it

    reps = pd.DataFrame(results.replications)
    log = reps[reps["workload"].str.endswith(LOG)]
    # a window is a replication (and, under --sweep, a value of each swept field): all but the metrics
    window = [c for c in log.columns if c not in {"workload", "policy", "wait", "bounded_slowdown", "utilization"}]
    by = log.pivot(index=window, columns="policy", values="bounded_slowdown")
    by = by[[p for p in results.config["policies"] if p in by]]  # in the Config's order, not the alphabet's
    if "fcfs" not in by:
        return []
    n = len(by)
    lines = [f"paired, window by window ({n} windows of {results.config['length']} jobs):"]
    for p in by.columns.drop("fcfs"):
        below, ratio = int(np.sum(by[p] < by["fcfs"])), float(np.median(by[p] / by["fcfs"]))
        lines.append(
            f"  {p:8} bounded slowdown below FCFS's in {below} of {n} windows, median ratio to FCFS {ratio:.2f}"
        )
    return lines


def report(results: Results, out: Any) -> list[Path]:
    """Print the validation line and the paired comparison; the files are the runner's own."""
    print("waits: hours on the log's windows; on the M/M/c queue, in mean service times (1/mu)")
    print("\n".join(validation(results)))
    for line in paired(results):
        print(line)
    return []


if __name__ == "__main__":
    cli_main()

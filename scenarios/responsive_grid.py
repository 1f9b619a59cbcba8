"""Responsive grids: SARSA job election with fair share, and elastic provisioning (seed 001).

A site of P cores serves interactive jobs (execution under 15 minutes) and batch jobs
from several VOs through one shared queue. A work-conserving supervisor elects a
waiting job whenever cores are free, by SARSA over an echo state network (or an MLP)
with reward ``lambda W + (1 - lambda) F`` (responsiveness and fair share); the
elastic supervisor also sizes the pool every 15 minutes, with reward
``lambda W + (1 - lambda) U`` (responsiveness and utilization).

Two experiments (``--set experiment=synthetic|trace|both``):

- **synthetic** (section 5, Tables 1-2): M/M/50 at rho = 0.99, 6000 single-core jobs
  with 20/40/50% interactive, four VOs with load shares 0.7/0.2/0.05/0.05, under the
  feasible targets (the same shares) and the unfeasible ones (0.4/0.2/0.2/0.2); FIFO
  against RL (rigid pool, oracle execution times). Rows per cell: wait mean/std/max
  per class, the final fair-share utility, and the fraction of interactive jobs that
  waited under 2 minutes.
- **trace** (section 6, Tables 3-4) on the real log UniLu-Gaia-2014-1 (the paper's
  EGEE log is not public): interactive = run time under 900 s; VOs = the log's groups,
  the six largest in the window and the rest folded into one; fair-share targets =
  each VO's share of the window's work (a feasible schedule). Multi-core jobs hold all
  their cores at once and are candidates only while they fit. Settings: NATIVE (the
  waits the log recorded), FIFO, and RIG/ELA x ORA/EST x lambda in {0.5, 1}.

The first and last ``drop`` jobs of every run are left out of the statistics.

    schedlab run scenarios/responsive_grid.py --quick
    schedlab run scenarios/responsive_grid.py --set experiment=synthetic
    schedlab run scenarios/responsive_grid.py --set experiment=trace --set approximator=mlp
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from dataclasses import dataclass

import numpy as np
import simpy
import torch

from schedlab.experiment import cli_main
from schedlab.experiment.seeding import Streams
from schedlab.learners.approximators import ApproximatorConfig, make_approximator
from schedlab.learners.sarsa import Sarsa, SarsaConfig
from schedlab.model import Exponential, metrics, poisson_workload
from schedlab.model.estimates import MedianRuntime, OracleRuntime
from schedlab.model.fair_share import FairShare
from schedlab.model.job import Job
from schedlab.model.records import JobRecord, Status
from schedlab.model.site_state import INTERACTIVE, SiteFeatures
from schedlab.model.traces import NativeSchedule, load_trace, trace_path
from schedlab.policies import FCFS
from schedlab.policies.site_supervisor import FirstFit, SarsaScheduler
from schedlab.processes import Machine, Model, Source
from schedlab.processes.elastic import ElasticPool

#: interactive: execution time under 15 minutes (seed 001 section 4.2)
INTERACTIVE_LIMIT = 900.0
VOS = ("vo1", "vo2", "vo3", "vo4")
FAIRNESS = {"feasible": (0.7, 0.2, 0.05, 0.05), "unfeasible": (0.4, 0.2, 0.2, 0.2)}
SETTINGS = (
    "NATIVE",
    "FIFO",
    "FIRST-FIT",
    "RIG-ORA-0.5",
    "RIG-ORA-1",
    "RIG-EST-0.5",
    "RIG-EST-1",
    "ELA-ORA-0.5",
    "ELA-ORA-1",
    "ELA-EST-0.5",
    "ELA-EST-1",
)


@dataclass(frozen=True)
class Config:
    #: synthetic (Tables 1-2), trace (Tables 3-4) or both (with reps_synthetic replications each)
    experiment: str = "synthetic"
    #: synthetic: cores P
    cores: int = 50
    #: synthetic: utilization factor rho = lambda / (mu P)
    rho: float = 0.99
    #: synthetic: jobs per run
    jobs: int = 6000
    #: synthetic: the VOs' shares of the jobs
    vo_shares: tuple[float, ...] = (0.7, 0.2, 0.05, 0.05)
    #: synthetic: fractions of interactive jobs (one cell each)
    interactive_shares: tuple[float, ...] = (0.2, 0.4, 0.5)
    #: synthetic: the schedulers compared (FIFO, RL)
    synthetic_settings: tuple[str, ...] = ("FIFO", "RL")
    #: jobs left out of the statistics at each end of a run (ramp-up and drain)
    drop: int = 500
    #: the real log (a path, or a name in ../shared/traces)
    trace: str = "UniLu-Gaia-2014-1"
    #: trace: index of the window's first job in the cleaned log (0: 47 days at load 0.53, like the paper's)
    trace_start: int = 0
    #: trace: jobs in the window
    trace_jobs: int = 9000
    #: trace: cores of the simulated site; 0 for the log's own (wider jobs are rejected and counted)
    trace_cores: int = 0
    #: trace: settings (one cell each) among NATIVE, FIFO, FIRST-FIT, RIG|ELA-ORA|EST-lambda
    settings: tuple[str, ...] = SETTINGS
    #: value-function approximator: esn or mlp
    approximator: str = "esn"
    #: SARSA exploration probability epsilon
    epsilon: float = 0.05
    #: SARSA discount gamma
    gamma: float = 0.8
    #: SARSA learning rate eta
    eta: float = 0.2
    #: new examples between two batch re-fits of the approximator
    refit_every: int = 50
    #: synthetic: lambda_s, the weight of responsiveness against fair share
    lambda_s: float = 0.5
    #: describe each waiting job also by the time it has waited (an extension; seed 001 does not)
    action_waited: bool = False
    #: elections made by earliest deadline first (pre-training) before SARSA elects
    pretrain: int = 500
    #: estimated model: completed jobs per class the median execution time is taken over
    estimate_window: int = 500
    #: elastic: minutes between two pool-size decisions
    pool_period_minutes: float = 15.0
    #: elastic: the fewest cores the pool may have
    pool_floor: int = 30
    #: elastic: candidate pool sizes as fractions of the rigid pool's cores (the largest is the pool's ceiling)
    pool_fractions: tuple[float, ...] = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0, 1.25)
    #: elastic: periods sized by demand (pre-training) before SARSA sizes the pool
    pool_pretrain: int = 50
    #: replications of a synthetic cell (fresh workloads)
    reps_synthetic: int = 10
    #: replications of a trace cell (fresh exploration and weights, same jobs)
    reps_trace: int = 3

    def __post_init__(self) -> None:
        def need(ok: bool, what: str) -> None:
            if not ok:
                raise ValueError(what)

        need(
            self.experiment in ("synthetic", "trace", "both"),
            f"experiment must be synthetic, trace or both, got {self.experiment!r}",
        )
        need(self.cores >= 1, f"cores must be >= 1, got {self.cores}")
        need(0 < self.rho < 1, f"rho must be in (0, 1), got {self.rho}")
        need(self.jobs > 2 * self.drop >= 0, f"need jobs > 2 x drop >= 0, got jobs={self.jobs}, drop={self.drop}")
        need(
            abs(sum(self.vo_shares) - 1) < 1e-9 and all(s >= 0 for s in self.vo_shares),
            f"vo_shares must be >= 0 and sum to 1, got {self.vo_shares}",
        )
        need(len(self.vo_shares) == len(VOS), f"vo_shares needs {len(VOS)} shares, got {len(self.vo_shares)}")
        need(
            all(0 < s < 1 for s in self.interactive_shares),
            f"interactive_shares must be in (0, 1), got {self.interactive_shares}",
        )
        need(self.trace_jobs > 2 * self.drop, f"trace_jobs={self.trace_jobs} must exceed 2 x drop={self.drop}")
        need(
            all(s in ("FIFO", "RL") for s in self.synthetic_settings),
            f"synthetic_settings are FIFO and RL, got {self.synthetic_settings}",
        )
        bad = [s for s in self.settings if s not in SETTINGS]
        need(not bad, f"unknown settings {bad}; choose from {SETTINGS}")
        for name in ("epsilon", "gamma", "eta", "lambda_s"):
            need(0 <= getattr(self, name) <= 1, f"{name} must be in [0, 1], got {getattr(self, name)}")
        need(self.estimate_window >= 1, f"estimate_window must hold at least 1 job, got {self.estimate_window}")
        need(self.pool_period_minutes > 0, f"pool_period_minutes must be > 0, got {self.pool_period_minutes}")
        need(self.trace_cores >= 0, f"trace_cores must be >= 0 (0: the log's own), got {self.trace_cores}")
        need(self.pool_floor >= 1, f"pool_floor must be >= 1, got {self.pool_floor}")
        need(
            all(0 < f <= 4 for f in self.pool_fractions), f"pool_fractions must be in (0, 4], got {self.pool_fractions}"
        )
        ApproximatorConfig(kind=self.approximator)  # names a bad approximator


QUICK = dict(
    experiment="both",
    jobs=1500,
    drop=200,
    trace_jobs=1500,
    interactive_shares=(0.2, 0.5),
    reps_synthetic=2,
    reps_trace=1,
    pretrain=200,
    pool_pretrain=10,
    settings=("NATIVE", "FIFO", "RIG-EST-0.5", "ELA-EST-0.5"),
)


def REPS(cfg: Config) -> int:
    return cfg.reps_trace if cfg.experiment == "trace" else cfg.reps_synthetic


def cells(cfg: Config) -> list[dict]:
    out: list[dict] = []
    if cfg.experiment in ("synthetic", "both"):
        out += [
            {"experiment": "synthetic", "interactive": share, "fairness": fairness, "setting": setting}
            for share in cfg.interactive_shares
            for fairness in FAIRNESS
            for setting in cfg.synthetic_settings
        ]
    if cfg.experiment in ("trace", "both"):
        out += [
            {"experiment": "trace", "interactive": math.nan, "fairness": "observed", "setting": s} for s in cfg.settings
        ]
    return out


# ---------------------------------------------------------------------- workloads
def _tagged(job: Job, group: str | None = None) -> Job:
    label = INTERACTIVE if job.runtime < INTERACTIVE_LIMIT else "batch"
    return dataclasses.replace(job, job_class=label, group=job.group if group is None else group)


def synthetic_jobs(cfg: Config, share: float, rng: np.random.Generator) -> list[Job]:
    """Table 1: exponential execution times with P(X < 15 min) = share, Poisson arrivals at rho."""
    mu = -math.log(1.0 - share) / INTERACTIVE_LIMIT
    rate = mu * cfg.rho * cfg.cores
    jobs = poisson_workload(
        rate, Exponential.from_rate(mu), 1, count=cfg.jobs, groups=dict(zip(VOS, cfg.vo_shares, strict=True)), seed=rng
    )
    return [_tagged(j) for j in jobs]


def trace_window(cfg: Config) -> tuple[list[Job], list[float], int, dict[str, float]]:
    """The window's jobs (VOs folded, classes tagged), their recorded waits, the cores, the VO targets."""
    loaded = load_trace(str(trace_path(cfg.trace)))
    end = cfg.trace_start + cfg.trace_jobs
    if end > len(loaded.jobs):
        raise ValueError(
            f"trace window {cfg.trace_start}..{end} is beyond the {len(loaded.jobs)} jobs of {cfg.trace}; "
            f"set trace_start and trace_jobs inside it. Reading it: {loaded.report}"
        )
    window = loaded.jobs[cfg.trace_start : end]
    largest = [g for g, _ in Counter(j.group for j in window).most_common(6)]
    t0 = window[0].submit  # the window starts at time 0: utilization is measured from there
    jobs = [
        dataclasses.replace(_tagged(j, j.group if j.group in largest else "rest"), submit=j.submit - t0) for j in window
    ]
    work = Counter()
    for j in jobs:
        work[j.group] += j.cpus * j.runtime
    total = sum(work.values())
    targets = {g: w / total for g, w in sorted(work.items())}
    return jobs, list(loaded.recorded_wait[cfg.trace_start : end]), cfg.trace_cores or loaded.procs, targets


# ---------------------------------------------------------------------- models
def _sarsa(cfg: Config, inputs: int, streams: Streams, name: str) -> Sarsa:
    approximator = make_approximator(inputs, ApproximatorConfig(kind=cfg.approximator), streams[f"weights-{name}"])
    config = SarsaConfig(epsilon=cfg.epsilon, gamma=cfg.gamma, eta=cfg.eta, refit_every=cfg.refit_every)
    return Sarsa(approximator, config, streams[f"exploration-{name}"])


def _all_done(env: simpy.Environment, machine: Machine, n: int) -> simpy.Event:
    done = env.event()

    def count(_record: JobRecord) -> None:
        if len(machine.records) >= n and not done.triggered:
            done.succeed()

    machine.completed.connect(count)
    return done


def build(env: simpy.Environment, cfg: Config, cell: dict, streams: Streams) -> Model:
    # the networks' matrices are tiny: more than one thread only adds latency to every decision
    torch.set_num_threads(1)
    setting = cell["setting"]
    if cfg.experiment == "synthetic":
        jobs = synthetic_jobs(cfg, cell["interactive"], streams["arrivals"])
        cores, targets = cfg.cores, dict(zip(VOS, FAIRNESS[cell["fairness"]], strict=True))
        waits = None
        kind, runtime, weight = ("RIG", "ORA", cfg.lambda_s) if setting == "RL" else (setting, "ORA", 1.0)
    else:
        jobs, waits, cores, targets = trace_window(cfg)
        kind, runtime, weight = setting, "ORA", 1.0
        if setting.startswith(("RIG", "ELA")):
            kind, runtime, lam = setting.split("-")
            weight = float(lam)
    parts = {"cfg": cfg, "cell": cell, "jobs": jobs, "cores": cores, "targets": targets, "pool": None}
    if kind == "NATIVE":  # what ran on the log's own machine, whatever trace_cores says
        parts["cores"] = load_trace(str(trace_path(cfg.trace))).procs
        native = NativeSchedule(jobs, waits)
        return Model(env, [native], parts={**parts, "machine": None, "native": native})

    estimate = OracleRuntime() if runtime == "ORA" else MedianRuntime(cfg.estimate_window, INTERACTIVE_LIMIT / 2)
    features = SiteFeatures(tuple(targets), cores, waited=cfg.action_waited)
    scheduler = None
    if kind == "FIFO":
        policy = FCFS()  # strict arrival order: the head of the queue waits for its cores
    elif kind == "FIRST-FIT":
        policy = FirstFit()  # arrival order among the jobs that fit: work-conserving, as every supervisor here
    else:
        learner = _sarsa(cfg, features.state_size + features.action_size, streams, "jobs")
        # the elastic MDP drops fairness (seed 001 section 3.2): its job elections weigh responsiveness only
        scheduler = SarsaScheduler(
            learner,
            features,
            estimate,
            fair_share=FairShare(targets),
            weight=1.0 if kind == "ELA" else weight,
            pretrain=cfg.pretrain,
        )
        policy = scheduler
    # an elastic pool may grow past the rigid pool (seed 001's settled at 90 cores for a site of 81)
    largest = max(cores, max(round(f * cores) for f in cfg.pool_fractions)) if kind == "ELA" else cores
    machine = Machine(env, largest, policy, name="site")
    if isinstance(estimate, MedianRuntime):
        machine.completed.connect(estimate.observe)
    if scheduler is not None:
        machine.completed.connect(scheduler.completed)
    pool = None
    if kind == "ELA":
        sizes = [max(cfg.pool_floor, round(f * cores)) for f in cfg.pool_fractions]
        pool = ElasticPool(
            env,
            machine,
            _sarsa(cfg, features.state_size + 1, streams, "pool"),
            features,
            estimate,
            sizes=sizes,
            period=60 * cfg.pool_period_minutes,
            floor=cfg.pool_floor,
            weight=weight,
            pretrain=cfg.pool_pretrain,
        )
    Source(env, jobs, machine)
    until = _all_done(env, machine, len(jobs)) if pool is not None else None
    return Model(env, [machine], until=until, parts={**parts, "machine": machine, "pool": pool})


# ---------------------------------------------------------------------- measures
def _stats(prefix: str, values: np.ndarray) -> dict[str, float]:
    if len(values) == 0:
        return {f"{prefix}_mean": math.nan, f"{prefix}_std": math.nan, f"{prefix}_max": math.nan}
    return {
        f"{prefix}_mean": float(values.mean()),
        f"{prefix}_std": float(values.std()),
        f"{prefix}_max": float(values.max()),
    }


def measure(model: Model) -> dict[str, float]:
    cfg: Config = model["cfg"]
    records = sorted((r for r in model.records() if r.status is Status.COMPLETED), key=lambda r: r.id)
    ids = sorted(j.id for j in model["jobs"])
    first, last = ids[cfg.drop], ids[-cfg.drop - 1] if cfg.drop else ids[-1]
    kept = [r for r in records if first <= r.id <= last]
    out: dict[str, float] = {"completed": len(kept)}
    for label in (INTERACTIVE, "batch"):
        mine = [r for r in kept if r.job_class == label]
        out.update(_stats(f"wait_{label}", metrics.wait(mine)))
        w = metrics.responsiveness(mine)
        out[f"responsiveness_{label}_mean"] = float(w.mean()) if len(w) else math.nan
        out[f"responsiveness_{label}_std"] = float(w.std()) if len(w) else math.nan
    waits = metrics.wait(kept)
    out["queue_delay_mean"], out["queue_delay_std"] = float(waits.mean()), float(waits.std())
    interactive = metrics.wait([r for r in kept if r.job_class == INTERACTIVE])
    out["interactive_under_2min"] = float((interactive < 120).mean()) if len(interactive) else math.nan
    fairness = metrics.fair_share(records, model["targets"])  # F after each election, in election order
    out["fair_share_final"] = float(fairness[-1])
    out["fair_share_mean"] = float(fairness.mean())  # how far from the targets the run was along the way
    machine: Machine | None = model["machine"]
    start, end = min(r.submit for r in records), max(r.end for r in records)
    if machine is None:  # the native schedule: the log's own cores
        out["utilization"] = metrics.utilization(records, model["cores"], start, end)
    else:
        out["utilization"] = machine.busy_time() / machine.capacity_time()
    pool: ElasticPool | None = model["pool"]
    out["pool_mean"] = pool.mean_size(start, end) if pool is not None else float(model["cores"])
    return out


if __name__ == "__main__":
    cli_main()

"""Responsive grids: SARSA job election with fair share, and elastic provisioning (seed 001).

A site of P cores serves interactive jobs (execution under 15 minutes) and batch jobs
from several VOs through one shared queue. A work-conserving supervisor elects a
waiting job whenever cores are free, by SARSA over an echo state network (or an MLP)
with reward ``lambda W + (1 - lambda) F`` (responsiveness and fair share); the
elastic supervisor also sizes the pool every 15 minutes, with reward
``lambda W + (1 - lambda) U`` (responsiveness and utilization).

Two experiments (``--set experiment=synthetic|log|both``):

- **synthetic** (section 5, Tables 1-2): M/M/50 at rho = 0.99, 6000 single-core jobs
  with 20/40/50% interactive, four VOs with load shares 0.7/0.2/0.05/0.05 and feasible
  targets (the unfeasible ones, 0.4/0.2/0.2/0.2, with ``--set fair_shares=feasible,unfeasible``).
  Every setting runs on the same jobs in a replication (common random numbers):
  the bounds FIFO, EDF (the pre-training rule), PRIO (non-preemptive priority to
  interactive jobs), SJF-ORA and SJF-EST (GREEDY, the reward maximised at each election, on
  demand), and RL under the paper's reading (``RL``)
  or another (``RL+waited``, ``RL+oldest``, ``RL+site``, ``RL+smdp``, ``RL+queue``, combinable:
  ``RL+waited+oldest``). The report prints paired differences against FIFO and EDF
  with 95% t intervals, and Kleinrock's conservation sum against FIFO's.
- **log** (section 6, Tables 3-4; the paper's trace-driven experiment, ``experiment=trace``
  before) on the real EGEE log LPC-EGEE-2004 (140 cores, sequential jobs;
  ``--set log=UniLu-Gaia-2014-1`` for Gaia): monitoring jobs removed
  (:mod:`schedlab.model.formats.egee`), the busiest 7-week segment, interactive = run time
  under 900 s, VOs = the log's groups (the six largest, the rest folded), fair-share
  targets = each VO's share of the segment's work. Settings: NATIVE (the recorded
  waits), FIFO, EDF, PRIO and RIG/ELA x ORA/EST x lambda in {0, 0.5, 1}.

The first and last ``drop`` jobs of every run are left out of the statistics.

    schedlab run scenarios/responsive_grid.py --quick
    schedlab run scenarios/responsive_grid.py --workers 1
    schedlab run scenarios/responsive_grid.py --set experiment=log --workers 1
"""

from __future__ import annotations

import dataclasses
import math
import warnings as _warnings  # not `warnings`: a scenario's warnings(cfg) is a hook the runner calls
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import simpy
import torch

from schedlab.experiment import cli_main
from schedlab.learners.approximators import ApproximatorConfig, make_approximator
from schedlab.learners.sarsa import Sarsa, SarsaConfig
from schedlab.model.analysis import metrics
from schedlab.model.analysis.estimates import MedianRuntime, OracleRuntime
from schedlab.model.analysis.fair_share import FairShare
from schedlab.model.contracts.site import SiteFeatures
from schedlab.model.core.fields import folder, number, text
from schedlab.model.core.streams import Streams
from schedlab.model.formats.logs import NativeSchedule, check_logs, load_log
from schedlab.model.records.job_record import JobRecord, Status
from schedlab.model.records.run_facts import run_facts
from schedlab.papers.responsive_tables import reading_of, report_text
from schedlab.papers.site_measures import site_measures
from schedlab.papers.site_workloads import INTERACTIVE_LIMIT, log_segment, synthetic_site_jobs
from schedlab.policies import FCFS
from schedlab.policies.site_supervisor import (
    EarliestDeadlineFirst,
    GreedyReward,
    InteractiveFirst,
    SarsaScheduler,
    ShortestFirst,
)
from schedlab.processes import Machine, Model, Source
from schedlab.processes.machine.elastic import ElasticPool

VOS = ("vo1", "vo2", "vo3", "vo4")
FAIRNESS = {"feasible": (0.7, 0.2, 0.05, 0.05), "unfeasible": (0.4, 0.2, 0.2, 0.2)}
HEURISTICS = ("FIFO", "EDF", "PRIO", "SJF-ORA", "SJF-EST")
SYNTHETIC = (*HEURISTICS, "RL", "RL+waited", "RL+oldest", "RL+site", "RL+smdp")
LEARNED = tuple(f"{k}-{r}-{lam}" for k in ("RIG", "ELA") for r in ("ORA", "EST") for lam in ("0", "0.5", "1"))
SETTINGS = ("NATIVE", "FIFO", "EDF", "PRIO", *LEARNED)


@dataclass(frozen=True)
class Config:
    #: synthetic (Tables 1-2), log (Tables 3-4, the paper's trace-driven experiment; 'trace' is read as 'log') or both
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
    #: synthetic: fair-share targets, feasible (0.7/0.2/0.05/0.05) and/or unfeasible (0.4/0.2/0.2/0.2)
    fair_shares: tuple[str, ...] = ("feasible",)
    #: synthetic: the schedulers compared on the same jobs: FIFO, EDF, PRIO, SJF-ORA, SJF-EST, RL[+reading...]
    synthetic_settings: tuple[str, ...] = SYNTHETIC
    #: jobs left out of the statistics at each end of a run (ramp-up and drain)
    drop: int = 500
    #: the real log (a path, or a name in ../shared/traces); UniLu-Gaia-2014-1 is the other option
    log: str = "LPC-EGEE-2004-1.2-cln"
    #: log: weeks in the segment (seed 001: seven)
    log_weeks: int = 7
    #: log: first week of the segment counted from the log's start, from 1; 0 for the busiest segment
    log_week: int = 0
    #: log: at most this many jobs from the segment's start (0: all; for tests and quick looks)
    log_jobs: int = 0
    #: log: the queue whose short jobs are monitoring jobs ("auto": the test queue, 1, of an EGEE log; "" none)
    monitoring_queue: str = text(
        "auto", pattern=r"auto|[0-9]{0,4}", what='"auto", "" (none) or a queue number (SWF field 15)'
    )
    #: log: the longest run time (s) of a monitoring job
    monitoring_max_runtime: float = number(300.0, gt=0)
    #: log: cores of the simulated site; 0 for the log's own (wider jobs are rejected and counted)
    log_cores: int = 0
    #: log: settings (one cell each) among NATIVE, FIFO, EDF, PRIO, RIG|ELA-ORA|EST-lambda
    settings: tuple[str, ...] = SETTINGS
    #: log: the reading of the RIG/ELA learners ("" the paper's, or e.g. "waited+oldest")
    log_reading: str = ""
    #: value-function approximator: esn or mlp
    approximator: str = "esn"
    #: SARSA exploration probability epsilon
    epsilon: float = 0.05
    #: SARSA discount gamma
    gamma: float = 0.8
    #: SARSA learning rate eta
    eta: float = 0.2
    #: new examples between two batch re-fits of the approximator
    refit_every: int = number(50, low=1)
    #: synthetic: lambda_s, the weight of responsiveness against fair share
    lambda_s: float = 0.5
    #: smdp reading: gamma applies per this many seconds between elections (set a priori, not tuned)
    smdp_time: float = 600.0
    #: elections made by earliest deadline first (pre-training) before SARSA elects
    pretrain: int = 500
    #: estimated model: completed jobs per class the median execution time is taken over
    estimate_window: int = 500
    #: elastic: minutes between two pool-size decisions
    pool_period_minutes: float = 15.0
    #: elastic: the fewest cores the pool may have
    pool_floor: int = 30
    #: elastic: candidate pool sizes as fractions of the site's cores (above 1: cloud cores behind the site)
    pool_fractions: tuple[float, ...] = (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0)
    #: elastic: periods sized by demand (pre-training) before SARSA sizes the pool
    pool_pretrain: int = 50
    #: replications of a synthetic cell (fresh workloads, the same for every setting)
    reps_synthetic: int = 30
    #: replications of a log cell (fresh exploration and weights, same jobs)
    reps_log: int = number(1, low=1)
    #: also copy the elastic pools' sizes over time here ('' copies none; they are saved in --out/series anyway)
    pool_log: str = folder()

    def __post_init__(self) -> None:
        def need(ok: bool, what: str) -> None:
            if not ok:
                raise ValueError(what)

        if self.experiment == "trace":  # its name before the vocabulary (issue 34): the event trace is another thing
            _warnings.warn("responsive_grid: experiment 'trace' is now 'log'", DeprecationWarning, stacklevel=3)
            object.__setattr__(self, "experiment", "log")

        need(
            self.experiment in ("synthetic", "log", "both"),
            f"experiment must be synthetic, log or both, got {self.experiment!r}",
        )
        need(self.cores >= 1, f"cores must be >= 1, got {self.cores}")
        check_logs([self.log], None)  # a path, or a log in ../shared/traces
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
        bad = [f for f in self.fair_shares if f not in FAIRNESS]
        need(not bad, f"unknown fair_shares {bad}; choose from {tuple(FAIRNESS)}")
        for s in self.synthetic_settings:
            need(
                s in (*HEURISTICS, "GREEDY") or s.startswith("RL"),
                f"unknown synthetic setting {s!r}; choose from {(*SYNTHETIC, 'GREEDY')}",
            )
            if s.startswith("RL"):
                reading_of(s)  # names an unknown reading
        reading_of("RL+" + self.log_reading if self.log_reading else "RL")
        bad = [s for s in self.settings if s not in SETTINGS]
        need(not bad, f"unknown settings {bad}; choose from {SETTINGS}")
        for name in ("epsilon", "gamma", "eta", "lambda_s"):
            need(0 <= getattr(self, name) <= 1, f"{name} must be in [0, 1], got {getattr(self, name)}")
        need(self.smdp_time > 0, f"smdp_time must be > 0, got {self.smdp_time}")
        need(self.log_weeks >= 1, f"log_weeks must be >= 1, got {self.log_weeks}")
        need(self.estimate_window >= 1, f"estimate_window must hold at least 1 job, got {self.estimate_window}")
        need(self.pool_period_minutes > 0, f"pool_period_minutes must be > 0, got {self.pool_period_minutes}")
        need(self.log_cores >= 0, f"log_cores must be >= 0 (0: the log's own), got {self.log_cores}")
        need(self.pool_floor >= 1, f"pool_floor must be >= 1, got {self.pool_floor}")
        need(
            all(0 < f <= 4 for f in self.pool_fractions), f"pool_fractions must be in (0, 4], got {self.pool_fractions}"
        )
        ApproximatorConfig(kind=self.approximator)  # names a bad approximator


# quick: RL (the paper's reading, and smdp: the lowest interactive waits in docs/responsive.md's table) vs FIFO and EDF
QUICK = dict(
    experiment="both",
    jobs=1500,
    drop=200,
    interactive_shares=(0.2, 0.5),
    synthetic_settings=("FIFO", "EDF", "RL", "RL+smdp"),
    log_weeks=1,
    reps_synthetic=2,
    reps_log=1,
    pretrain=200,
    pool_pretrain=10,
    settings=("NATIVE", "FIFO", "EDF", "RIG-EST-0.5", "ELA-EST-0.5"),
)


def REPS(cfg: Config) -> int:
    return cfg.reps_log if cfg.experiment == "log" else cfg.reps_synthetic


def cells(cfg: Config) -> list[dict]:
    out: list[dict] = []
    if cfg.experiment in ("synthetic", "both"):
        out += [
            {"experiment": "synthetic", "interactive": share, "fairness": fairness, "setting": setting}
            for share in cfg.interactive_shares
            for fairness in cfg.fair_shares
            for setting in cfg.synthetic_settings
        ]
    if cfg.experiment in ("log", "both"):
        out += [
            {"experiment": "log", "interactive": math.nan, "fairness": "observed", "setting": s} for s in cfg.settings
        ]
    return out


# ---------------------------------------------------------------------- models
def _sarsa(cfg: Config, inputs: int, streams: Streams, name: str, discount_time: float = 0.0) -> Sarsa:
    approximator = make_approximator(inputs, ApproximatorConfig(kind=cfg.approximator), streams[f"weights-{name}"])
    config = SarsaConfig(
        epsilon=cfg.epsilon, gamma=cfg.gamma, eta=cfg.eta, refit_every=cfg.refit_every, discount_time=discount_time
    )
    return Sarsa(approximator, config, streams[f"exploration-{name}"])


def _all_done(env: simpy.Environment, machine: Machine, n: int) -> simpy.Event:
    done = env.event()

    def count(_record: JobRecord) -> None:
        if len(machine.records) >= n and not done.triggered:
            done.succeed()

    machine.completed.connect(count)
    return done


def _plan(cfg: Config, cell: dict) -> tuple[str, str, float, frozenset[str]]:
    """(kind, runtime model, lambda, reading) of a cell's setting."""
    setting = cell["setting"]
    if cell["experiment"] == "synthetic":
        if setting.startswith("RL"):
            return "RIG", "ORA", cfg.lambda_s, reading_of(setting)
        kind, _, runtime = setting.partition("-")
        return kind, runtime or "ORA", cfg.lambda_s, frozenset()
    if setting.startswith(("RIG", "ELA")):
        kind, runtime, lam = setting.split("-")
        return kind, runtime, float(lam), reading_of("RL+" + cfg.log_reading if cfg.log_reading else "RL")
    return setting, "ORA", 1.0, frozenset()


def build(env: simpy.Environment, cfg: Config, cell: dict, streams: Streams) -> Model:
    # the networks' matrices are tiny: more than one thread only adds latency to every decision
    torch.set_num_threads(1)
    note = ""
    if cell["experiment"] == "synthetic":
        vo_shares = dict(zip(VOS, cfg.vo_shares, strict=True))
        jobs = synthetic_site_jobs(cfg.cores, cfg.rho, cfg.jobs, cell["interactive"], vo_shares, streams["arrivals"])
        cores, targets = cfg.cores, dict(zip(VOS, FAIRNESS[cell["fairness"]], strict=True))
        waits = None
    else:
        log = log_segment(
            cfg.log,
            cfg.log_weeks,
            cfg.log_week - 1 if cfg.log_week else None,
            cfg.monitoring_queue,
            cfg.monitoring_max_runtime,
            cfg.log_jobs,
        )
        if len(log.jobs) <= 2 * cfg.drop:
            raise ValueError(f"the segment of {cfg.log} holds {len(log.jobs)} jobs, not more than 2 x drop={cfg.drop}")
        jobs, waits, targets, note = log.jobs, log.waits, log.targets, log.note
        cores = cfg.log_cores or log.cores
    kind, runtime, weight, reading = _plan(cfg, cell)
    parts = {
        "cfg": cfg,
        "cell": cell,
        "jobs": jobs,
        "cores": cores,
        "targets": targets,
        "pool": None,
        "weight": weight,
        "note": note,
        "scheduler": None,
        "replication": streams.replication,
    }
    if kind == "NATIVE":  # what ran on the log's own machine, whatever log_cores says
        parts["cores"] = load_log(cfg.log).cpus
        native = NativeSchedule(jobs, waits)
        return Model(env, [native], parts={**parts, "machine": None, "native": native})

    estimate = OracleRuntime() if runtime == "ORA" else MedianRuntime(cfg.estimate_window, INTERACTIVE_LIMIT / 2)
    features = SiteFeatures(tuple(targets), cores, waited="waited" in reading, oldest="oldest" in reading)
    scheduler = None
    if kind == "FIFO":
        policy = FCFS()  # strict arrival order (every job here fits one core: work-conserving)
    elif kind == "EDF":
        policy = EarliestDeadlineFirst(estimate)
    elif kind == "PRIO":
        policy = InteractiveFirst()
    elif kind == "SJF":
        policy = ShortestFirst(estimate)
    elif kind == "GREEDY":  # diagnostic: the elected job's own reward, maximised at each election
        policy = GreedyReward(estimate, FairShare(targets), weight)
    else:
        discount = cfg.smdp_time if "smdp" in reading else 0.0
        learner = _sarsa(cfg, features.state_size + features.action_size, streams, "jobs", discount)
        # the elastic MDP drops fairness (seed 001 section 3.2): its job elections weigh responsiveness only
        scheduler = SarsaScheduler(
            learner,
            features,
            estimate,
            fair_share=FairShare(targets),
            weight=1.0 if kind == "ELA" else weight,
            pretrain=cfg.pretrain,
            site_reward="site" in reading,
            queue_reward="queue" in reading,
        )
        policy = scheduler
    # an elastic pool may grow past the site's cores: an IaaS cloud behind the site
    largest = max(cores, max(round(f * cores) for f in cfg.pool_fractions)) if kind == "ELA" else cores
    machine = Machine(env, largest, policy, name="site")
    if isinstance(estimate, MedianRuntime):
        machine.completed.connect(estimate.observe)
    if scheduler is not None:
        machine.completed.connect(scheduler.completed)
    pool = None
    if kind == "ELA":
        pool_features = dataclasses.replace(features, waited=False)
        sizer = _sarsa(cfg, pool_features.state_size + 1, streams, "pool")
        pool = ElasticPool(
            env,
            machine,
            sizer,
            pool_features,
            estimate,
            sizes=[max(cfg.pool_floor, round(f * cores)) for f in cfg.pool_fractions],
            period=60 * cfg.pool_period_minutes,
            floor=cfg.pool_floor,
            weight=weight,
            pretrain=cfg.pool_pretrain,
        )
        pool.period_ended.connect(sizer.rewarded)  # the learner hears each period's reward
    Source(env, jobs, machine)
    until = _all_done(env, machine, len(jobs)) if pool is not None else None
    return Model(env, [machine], until=until, parts={**parts, "machine": machine, "pool": pool, "scheduler": scheduler})


# ---------------------------------------------------------------------- measures
def measure(model: Model) -> dict[str, Any]:
    cfg: Config = model["cfg"]
    records = sorted((r for r in model.records() if r.status is Status.COMPLETED), key=lambda r: r.id)
    ids = sorted(j.id for j in model["jobs"])
    first, last = ids[cfg.drop], ids[-cfg.drop - 1] if cfg.drop else ids[-1]
    kept = [r for r in records if first <= r.id <= last]
    out: dict[str, Any] = site_measures(records, kept, model["targets"], model["weight"], model["cores"])
    machine: Machine | None = model["machine"]
    start, end = min(r.submit for r in records), max(r.end for r in records)
    if machine is None:  # the native schedule: the log's own cores
        out["utilization"] = metrics.utilization(records, model["cores"], start, end)
    else:
        out["utilization"] = machine.busy_time() / machine.capacity_time()
    out["files"] = run_facts(model["cores"])  # `schedlab plot`: the site's cores, the log's seconds
    pool: ElasticPool | None = model["pool"]
    out["pool_mean"] = pool.mean_size(start, end) if pool is not None else float(model["cores"])
    if pool is not None:
        out["pool_max"] = float(max(s for _, s in pool.history))
        name = f"{model['cell']['setting']}_rep{model['replication']}.csv"
        text = "time,size\n" + "".join(f"{t:.0f},{s}\n" for t, s in pool.history)
        # the pool's series goes back with the result, into this run's results folder (series/), for report()
        out["files"][name] = text
        if cfg.pool_log:
            folder = Path(cfg.pool_log)
            folder.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(text)
    scheduler: SarsaScheduler | None = model["scheduler"]
    if scheduler is not None:
        out["elections"] = scheduler.elections
    return out


def report(results, out: Path) -> list[Path]:
    """Print and save the paired comparisons (synthetic) and Tables 3-4 (log); plot the pools."""
    # this run's pools only: saved under out/series by the runner (a shared pool_log may hold other runs')
    text = report_text(results)
    from schedlab.plots.pools import pool_sizes_figure  # matplotlib (the plot extra) only for the figure

    log = [r for r in results.replications if r.get("experiment") in ("log", "trace")]  # trace: its old name
    site = [r["pool_mean"] for r in log if r["setting"] == "FIFO"]
    figure = pool_sizes_figure(Path(out) / "series", Path(out), site[0] if site else math.nan) if log else None
    print(text)
    path = Path(out) / "report.md"
    path.write_text(text + "\n")
    return [path, *([figure] if figure else [])]


if __name__ == "__main__":
    cli_main()

"""The log-replay scenario behind ``schedlab replay``: policies x backfilling on windows of SWF logs.

Cells are log x policy x backfill (the log in the results' column ``log``), plus a
``native`` row for logs that record their waits; replication r replays window r, so each
row is the mean over windows and the replications table holds the per-window values. Windows are drawn from the run's
seed (``--seed``) unless ``window_seed`` is set (``schedlab replay --seed`` sets it).

Notes
-----
Every job of a window is replayed: memory requests are ignored (the machine models
CPUs only; HPC2N asks memory for 175,359 of its 202,871 jobs, which used to
make them "never fit" and leave the metrics), and ``schedlab replay`` names any job
left out of the metrics, counted per reason.

A job that reaches its requested time (SWF field 9) is killed there, as Slurm, PBS
and OAR do (``walltime="kill"``, the default; its record says ``timeout``, and
``evaluate`` counts it in the ``killed`` column); ``walltime="run-on"`` lets every job
run its recorded run time, as replays did before. Jobs without a requested time are
never killed.

Under ``compat="rlscheduler"`` (which keeps ``run-on``: RLScheduler runs every job to
its end) the reading of RLScheduler's protocol is: its loader
(CPUs ``max(allocated, requested)``; run time -1 read as 10, run time 0
dropped; requested time -1 read as the run time; a requested time of 0, which
RLScheduler keeps and schedlab reads as the run time, occurs in none of the logs in
``../shared/traces``), SJF's key
``(requested time, submit time)`` with log order last (a stable sort), the chosen job
committed to until it fits, and arrivals joining the queue one at a time while it
waits. ``tests/test_replay.py`` replays SDSC-SP2 windows of 1024 jobs under SJF without
backfilling against an independent transcription of that loop: every start time agrees.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import simpy

from schedlab.model.core.failures import NodeFailure, random_failures
from schedlab.model.core.fields import INT_MAX, items, number
from schedlab.model.core.streams import Streams
from schedlab.model.formats.failures import cached_failure_log
from schedlab.model.formats.logs import (
    COMPATS,
    NativeSchedule,
    check_logs,
    evaluate,
    load_log,
    log_path,
    pick_windows,
)
from schedlab.model.formats.platform_file import cached_platform
from schedlab.model.formats.window_draw import rlscheduler_starts
from schedlab.model.records.node_fail import NODE_KILL_COLUMNS, NodeOutage
from schedlab.model.records.run_facts import run_facts
from schedlab.policies.batch import BACKFILLS, make_policy
from schedlab.policies.conservative import Conservative
from schedlab.policies.dvfs import QueueDVFS
from schedlab.policies.idle_shutdown import IdleShutdown
from schedlab.policies.placement import PLACEMENTS, make_placement
from schedlab.policies.queues import QUEUE_POLICIES, make_queue_policy
from schedlab.policies.scoring import SCORES
from schedlab.processes.cluster.cluster import cluster_model
from schedlab.processes.cluster.power import powered_cluster_model
from schedlab.processes.machine.replay import replay_model
from schedlab.processes.model import Model
from schedlab.replay.batsim_log import load_batsim
from schedlab.replay.conservative_guarantee import late_starts, replay_warnings
from schedlab.replay.costs import energy_metrics, failure_metrics
from schedlab.replay.replay_checks import check_machine, check_options, check_platform

NAME = "log_replay"
#: how window starts are drawn
DRAWS = ("schedlab", "rlscheduler")
#: what a job that reaches its requested time does (Machine's walltime)
WALLTIMES = ("kill", "run-on")


@dataclass(frozen=True)
class Config:
    """The replay's settings: which logs, policies, backfilling, windows, and how jobs are read."""

    #: SWF logs, by path or by name in logs_dir (e.g. UniLu-Gaia-2014-1)
    logs: tuple[str, ...] = ("UniLu-Gaia-2014-1",)
    #: priority orders: names registered with schedlab.policies.scoring.order (see --help)
    policies: tuple[str, ...] = ("fcfs",)
    #: backfilling variants: none, easy, conservative, conservative-rebuild
    backfills: tuple[str, ...] = ("none", "easy")
    #: jobs per window
    length: int = number(1024, low=1, work=True)
    #: windows drawn from window_seed (ignored when starts are given)
    windows: int = number(10, low=1)
    #: explicit 0-based window start positions in the cleaned job list
    starts: tuple[int, ...] = items((), nonempty=False)
    #: seed of the window draw (none: the run's --seed draws the windows)
    window_seed: int | None = number(None, high=INT_MAX)
    #: loader and machine semantics: none (schedlab's) or rlscheduler (Zhang et al. SC20)
    compat: str = "none"
    #: how windows are drawn: schedlab (uniform, distinct, from the seed's stream) or rlscheduler
    #: (its test script's draw from the same seed: gym's 2019 seeding, a start in [L, N - L - 1))
    draw: str = "schedlab"
    #: with draw rlscheduler: draw among the first N jobs (RLScheduler's batch_job_slice; 0: all)
    draw_within: int = number(0, low=0)
    #: stop at the first malformed line instead of skipping and counting it
    strict: bool = False
    #: a job that reaches its requested time: kill (as Slurm, PBS and OAR do) or run-on (runs to its end);
    #: empty: kill, or run-on under compat rlscheduler (RLScheduler runs every job to its end)
    walltime: str = ""
    #: add a row for the schedule that actually ran, where the log records waits
    native: bool = True
    #: where logs named without a path are looked up
    logs_dir: str = "../shared/traces"
    #: CPUs of the machine, for a log whose header gives no MaxProcs (or to replay it on another size);
    #: 0: the header's
    cpus: int = number(0, low=0)
    #: a platform file (TOML: nodes, partitions, queues; or a Batsim XML platform; docs/platforms.md);
    #: none: one machine of the log's CPUs
    platform: str = ""
    #: with a platform: where a job goes on the nodes: first-fit, best-fit, exclusive, pack
    placement: str = "first-fit"
    #: with a platform: how queues share it: none (one queue, in the policy's order), strict, wrr
    queues: str = "none"
    #: with a platform whose nodes give power.off: switch a node off after this many idle seconds, boot it when
    #: the queue needs it (IdleShutdown); none: every node stays on
    idle_shutdown: float | None = number(None, low=0)
    #: with a platform whose nodes list pstates: the pstate they run in while no job waits, back to pstate 0
    #: when jobs wait (QueueDVFS); none: every node stays in its start pstate
    dvfs: int | None = number(None, low=1)
    #: a failure log in Alea's format (time, cluster, duration, machine ids; docs/traces.md); none: no log
    failures: str = ""
    #: subtracted from the failure log's times (Alea's start epoch of the data set)
    failure_epoch: float = number(0.0, high=1e10)  # a Unix time (Alea subtracts ~1.2e9)
    #: keep only this cluster's lines of the failure log (empty: every line)
    failure_cluster: str = ""
    #: mean time between failures of one node, in seconds, for seeded random failures (0: none)
    mtbf: float = number(0.0)
    #: the Weibull shape of the times between failures (1: exponential)
    failure_shape: float = number(1.0, gt=0)
    #: seconds a failed node stays down (random failures)
    repair: float = number(3600.0, gt=0)
    #: CPUs per node without a platform: node k is CPUs k*node_size onwards (with one: its nodes)
    node_size: int = number(1, low=1)
    #: a job a node failure kills: requeue (same id, started over) or drop (a node_fail record)
    on_node_fail: str = "requeue"

    def __post_init__(self) -> None:
        if not self.walltime:  # the default, stated in the config that summary.json keeps
            object.__setattr__(self, "walltime", "run-on" if self.compat == "rlscheduler" else "kill")
        for what, value, options in [
            *(("policy", p, SCORES) for p in self.policies),
            *(("backfill", b, BACKFILLS) for b in self.backfills),
            ("compat", self.compat, COMPATS),
            ("walltime", self.walltime, WALLTIMES),
            ("placement", self.placement, PLACEMENTS),
            ("queues", self.queues, QUEUE_POLICIES),
            ("draw", self.draw, DRAWS),
            ("on_node_fail", self.on_node_fail, ("requeue", "drop")),
        ]:
            if value not in options:
                raise ValueError(f"unknown {what} {value!r}; choose from {', '.join(options)}")
        if self.compat == "rlscheduler" and any(b.startswith("conservative") for b in self.backfills):
            raise ValueError(
                "compat rlscheduler has no conservative backfilling (RLScheduler has EASY only): "
                "use backfills none or easy"
            )
        if self.compat == "rlscheduler" and self.walltime != "run-on":
            raise ValueError("compat rlscheduler runs every job to its end, as RLScheduler does: use walltime run-on")
        if self.platform and self.compat != "none":
            raise ValueError(
                f"a platform replays the log's CPUs on nodes; compat {self.compat!r} "
                "reads jobs as whole nodes: use compat none with a platform"
            )
        if self.idle_shutdown is not None and not self.platform:
            raise ValueError(
                "idle_shutdown switches a platform's nodes off: give a platform whose nodes give power.off"
            )
        if self.dvfs is not None and not self.platform:
            raise ValueError("dvfs sets a platform's nodes' pstates: give a platform whose nodes list pstates")
        if self.failure_cluster and not self.failures:
            raise ValueError(
                f"failure_cluster={self.failure_cluster!r} picks a cluster of a failure log: "
                "give the log (failures=FILE)"
            )
        if self.failures:
            cached_failure_log(self.failures)  # a missing file or a bad line stops here, in one line
        if (self.failures or self.mtbf) and self.compat != "none":
            raise ValueError("node failures are replayed by schedlab's machine and cluster: use them with compat none")
        if self.platform and self.node_size != 1:
            raise ValueError(
                f"node_size={self.node_size}: with a platform, a failure's nodes are the platform's nodes; "
                "node_size is for a log's CPUs (without a platform)"
            )
        check_options(self)
        if self.length < 1 or (not self.starts and self.windows < 1):
            raise ValueError("need length >= 1 and windows >= 1 (or explicit starts)")
        check_logs(self.logs, self.logs_dir)
        for name in self.logs:  # windows that do not fit a log stop here, before any replication runs
            try:
                log_path(name, Path(self.logs_dir))
            except FileNotFoundError:
                continue  # no logs on this machine: said when the log is read, as check_logs leaves it
            log = read_log(self, name)
            try:
                window_starts(self, len(log.jobs), 0)
            except ValueError as exc:
                raise ValueError(f"log {name!r}: {exc}") from None
            check_machine(self, name, log.cpus)
        if self.platform and not Path(self.platform).expanduser().is_file():
            raise ValueError(f"platform={self.platform!r} is not a file (a platform TOML or Batsim XML; '' for none)")
        if self.platform:
            check_platform(self, cached_platform(self.platform))

    @property
    def n_windows(self) -> int:
        """How many windows a log is replayed on: the given starts, else ``windows``."""
        return len(self.starts) if self.starts else self.windows


QUICK = dict(length=256, windows=3)


def REPS(cfg: Config) -> int:
    """One replication per window."""
    return cfg.n_windows


def read_log(cfg: Config, name: str) -> Any:
    """The log ``name`` read and cleaned as ``cfg`` says (read once per process: ``load_log`` keeps it).

    A ``.json`` file is a Batsim workload (:func:`~schedlab.replay.batsim_log.load_batsim`).
    """
    if str(name).endswith(".json"):  # its flop profiles run at the speed of a Batsim platform's hosts
        flops = cached_platform(cfg.platform).flops if cfg.platform else None
        return load_batsim(str(log_path(name, Path(cfg.logs_dir))), cfg.cpus or None, flops)
    # with a platform, memory requests are kept for its nodes' memory
    return load_log(name, cfg.compat, cfg.strict, bool(cfg.platform), cfg.cpus or None, root=Path(cfg.logs_dir))


def warnings(cfg: Config) -> list[str]:
    """What the run must say before its results are read: conservative backfilling's guarantee, where it fails.

    The runner prints these lines and keeps them in ``manifest.json`` (``run.warnings``),
    for ``schedlab replay`` and ``schedlab run`` alike.
    """
    if "conservative" not in cfg.backfills:  # the only rule here that promises starts
        return []
    return replay_warnings(cfg, [job for name in cfg.logs for job in read_log(cfg, name).jobs])


def cells(cfg: Config) -> list[dict]:
    """The scenario's cells: every log x policy x backfill, and a ``native`` row where a log records its waits."""
    out = []
    for name in cfg.logs:
        for policy in cfg.policies:
            for backfill in cfg.backfills:
                out.append({"log": name, "policy": policy, "backfill": backfill})
        if cfg.native and np.isfinite(read_log(cfg, name).recorded_wait).any():
            out.append({"log": name, "policy": "native", "backfill": "-"})
    return out


def build(env: simpy.Environment, cfg: Config, cell: dict, streams: Streams) -> Model:
    """The model of one cell and replication: window r of the cell's log, under its policy (or as recorded)."""
    log = read_log(cfg, cell["log"])
    starts = window_starts(cfg, len(log.jobs), window_seed(cfg, streams))
    r = streams.replication
    if r >= len(starts):
        raise ValueError(f"replication {r} has no window: there are {len(starts)}; run with reps <= windows")
    lo = starts[r]
    jobs = log.jobs[lo : lo + cfg.length]
    if cell["policy"] == "native":
        model = Model(env, [NativeSchedule(jobs, log.recorded_wait[lo : lo + cfg.length])])
    elif cfg.platform:
        platform = cached_platform(cfg.platform)
        policy = make_queue_policy(platform, cfg.queues, cell["policy"], cell["backfill"])
        powered: Any = policy  # an energy policy around it takes any view
        if cfg.dvfs is not None:
            powered = QueueDVFS(powered, int(cfg.dvfs))
        if cfg.idle_shutdown is not None:
            powered = IdleShutdown(powered, cfg.idle_shutdown)
        # nodes switched off and on, or in pstates (a node that starts in one other than 0 included): a powered cluster
        powers = cfg.idle_shutdown is not None or cfg.dvfs is not None or _pstates_used(platform)
        model = (powered_cluster_model if powers else cluster_model)(
            env,
            [platform.swf_job(job) for job in jobs],
            platform,
            powered,  # the policy itself where no energy policy is around it
            make_placement(cfg.placement),
            walltime=cfg.walltime,  # type: ignore[arg-type]  # checked in Config
            on_node_fail=cfg.on_node_fail,  # type: ignore[arg-type]  # checked in Config
        )
        _inject(model, window_failures(cfg, jobs, model["cluster"].node_count, streams))  # the platform's nodes
        model.parts.update(cpus=platform.cores, window_start=lo, plan=policy)
        return model
    else:
        policy = make_policy(cell["policy"], cell["backfill"], cfg.compat)
        model = replay_model(
            env,
            jobs,
            log.cpus,
            policy,
            compat=cfg.compat,
            walltime=cfg.walltime,  # type: ignore[arg-type]  # checked in Config
            allocation="first-fit",
            node_size=cfg.node_size,
            on_node_fail=cfg.on_node_fail,  # type: ignore[arg-type]  # checked in Config
        )
        _inject(model, window_failures(cfg, jobs, model["machine"].node_count, streams))
        model.parts["plan"] = policy  # measure counts conservative backfilling's late starts from its promises
    model.parts.update(cpus=log.cpus, window_start=lo)
    return model


def _inject(model: Model, failures: list[NodeFailure]) -> None:
    """Replay ``failures`` on the model's machine or cluster (its node indices), if there are any."""
    if failures:
        model["machine"].inject_failures(failures)
        model.parts["failures"] = True


def window_starts(cfg: Config, n_jobs: int, seed: int) -> list[int]:
    """The windows' first jobs: the given starts, or drawn from ``seed`` as ``cfg.draw`` says."""
    if cfg.draw == "rlscheduler" and not cfg.starts:
        return rlscheduler_starts(n_jobs, cfg.length, cfg.windows, seed, cfg.draw_within)
    return pick_windows(n_jobs, cfg.length, starts=cfg.starts or None, count=cfg.windows, seed=seed)


def window_failures(cfg: Config, jobs: Any, nodes: int, streams: Streams) -> list[NodeFailure]:
    """The node failures of a window: the failure log's (in the log's time), then seeded random ones.

    Random failures are drawn from the ``failures`` stream over the window's span: from
    its first submission to its last submission plus its longest requested time.
    """
    out: list[NodeFailure] = []
    if cfg.failures:
        out += cached_failure_log(cfg.failures, epoch=cfg.failure_epoch, cluster=cfg.failure_cluster or None).failures
    if cfg.mtbf and len(jobs):
        first = jobs[0].submit
        horizon = jobs[-1].submit - first + max(j.requested_time for j in jobs)
        out += random_failures(
            streams["failures"], nodes, max(horizon, 1.0), cfg.mtbf, cfg.repair, shape=cfg.failure_shape, start=first
        )
    return sorted(out, key=lambda f: f.time)


def _pstates_used(platform: Any) -> bool:
    """Does a node type start in a pstate other than 0 (which only a powered cluster runs)?"""
    return any(t.power is not None and t.power.pstate != 0 for t in platform.node_types)


def window_seed(cfg: Config, streams: Streams) -> int:
    """The seed of the window draw: ``window_seed`` if set, else the run's seed (``--seed``)."""
    return cfg.window_seed if cfg.window_seed is not None else int(streams.seed.entropy)  # type: ignore[arg-type]  # a run's Streams are made from its int seed


def measure(model: Model) -> dict[str, Any]:
    """The replication's metrics (``evaluate``), and on a cluster its placements as a file."""
    out: dict[str, Any] = evaluate(model.records(), model["cpus"])
    out["files"] = run_facts(model["cpus"]) if "cpus" in model.parts else {}  # `schedlab plot`'s capacity
    if isinstance(model.parts.get("plan"), Conservative):  # jobs started later than promised on arrival
        out["late_starts"] = late_starts(model["plan"], model.records())
    if "cluster" in model.parts:  # which nodes each job ran on: series/...-placements.csv, for `schedlab plot`
        out["files"]["placements.csv"] = model["cluster"].placements_csv()
        out["files"]["allocations.csv"] = model["cluster"].allocations_csv()  # and which cores
        metrics, per_job = energy_metrics(model["cluster"], model.records())
        out.update(metrics)
        if per_job:  # each job's joules: --batsim-jobs writes them as consumed_energy
            out["files"]["energy.csv"] = per_job
        if hasattr(model["cluster"], "power_csv"):  # nodes off and switching: `schedlab plot`'s machine states
            out["files"]["power.csv"] = model["cluster"].power_csv()
        if getattr(model["cluster"], "pstate_rows", list)():  # nodes slowed: their pstates, for the same plot
            out["files"]["pstates.csv"] = model["cluster"].pstate_csv()
    elif getattr(model.parts.get("machine"), "cpu_map", None) is not None:  # which CPUs: its Gantt chart
        out["files"]["allocations.csv"] = model["machine"].allocations_csv()
    if model.parts.get("failures"):
        out.update(failure_metrics(model["machine"], model.records()))
        out["files"]["node_kills.csv"] = _csv(NODE_KILL_COLUMNS, model["machine"].node_kills)
        out["files"]["node_outages.csv"] = _csv(NodeOutage._fields, model["machine"].node_outages)
    return out


def _csv(columns: tuple[str, ...], rows: list[Any]) -> str:
    return ",".join(columns) + "\n" + "".join(",".join(map(str, row)) + "\n" for row in rows)

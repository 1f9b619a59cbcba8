"""Energy and node failures on a real log: FCFS and EASY, each always on, with idle shutdown or DVFS, and failures.

Issue 25 item 8. Replication r replays window r of the SDSC SP2 log (128 CPUs,
``length`` consecutive jobs, its start drawn from the ``window`` stream as
``scenarios/first_look.py`` draws it, so every cell replays the same windows), shifted
to start at 0, on 128 one-core nodes with the power of Batsim's
``platforms/cluster_energy_128.xml`` (also 128 hosts): 95 W idle, 190.738 W computing,
9.75 W off, 6.1 s and 616.08 J to switch off, 151.52 s and 18,966.42 J to boot
(:data:`POWER`; ``tests/test_energy_failures.py`` checks it against Batsim's file through
:func:`~schedlab.model.formats.batsim_platform.batsim_node_power`).

Cells: ``fcfs`` and ``easy``; each ``always on``, with ``idle shutdown``
(:class:`~schedlab.policies.idle_shutdown.IdleShutdown`: a node idle ``idle_timeout``
seconds is switched off; nodes boot when the waiting jobs ask for more cores than are
on) and with ``dvfs`` (:class:`~schedlab.policies.dvfs.QueueDVFS`: every node in pstate
``dvfs_pstate`` while no job waits, back to pstate 0 when one does, on the same hosts
with the 13 compute pstates of Batsim's file, ``docs/platforms/batsim_dvfs_128.toml``,
whose pstate 0 is :data:`POWER`); each with ``failures`` ``none`` and ``weibull``: every node fails independently,
its times between failures Weibull with shape ``shape`` and mean ``mtbf`` (Schroeder and
Gibson, DSN 2006, fit shapes of 0.7-0.8 to LANL's nodes), each repair exponential of mean
``repair`` seconds, drawn by :func:`~schedlab.model.core.failures.random_failures` from
the ``failures`` stream over ten times the window's submission span (so every cell of
a replication has the same failures). A failed node's jobs are killed and requeued
(``on_node_fail``), the node is down (drawing its off watts) until its repair
(:mod:`schedlab.processes.cluster.power`). ``with_failures=false`` runs the ``none`` cells only.

The table: energy (MJ) and mean power (kW) from the first submission to the last end,
the nodes' boots, utilization (the CPU-time of the jobs' last attempts over the 128
CPUs and the span: work lost to failures is not in it), wait (hours), bounded
slowdown (10 s), the jobs hit by node failures, the CPU-hours they lost and the
CPUs' availability over the span.

Each run saves what ``schedlab plot`` draws it from (``series/``): its nodes, placements,
CPU ids, power states (down included), pstates and node outages, and each metric's
unit; ``schedlab plot results/energy_failures --cell 1`` draws window 0 under FCFS, always
on, with failures: ``gantt_nodes.png`` and ``machine_states.png`` show its failed nodes down.

``report`` draws the machine states (computing, idle, switching, switched off, down) of
the first window under EASY with idle shutdown (and failures, unless ``with_failures=false``):
``machine_states.png``, and the hour around its largest boot, ``machine_states_boot.png``;
and the first day of that window under EASY with DVFS, computing and idle split by
pstate: ``machine_states_dvfs.png``.

    schedlab run scenarios/energy_failures.py
    schedlab run scenarios/energy_failures.py --quick
    schedlab run scenarios/energy_failures.py --set idle_timeout=3600 --set mtbf=864000
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import simpy

from schedlab.experiment import cli_main
from schedlab.experiment.results import Results
from schedlab.experiment.seeding import replication_seeds
from schedlab.model.analysis.energy import energy
from schedlab.model.analysis.failures import availability, jobs_hit, lost_cpu_hours
from schedlab.model.core.failures import NodeFailure, random_failures
from schedlab.model.core.fields import number, text
from schedlab.model.core.job import Job
from schedlab.model.core.platform import NodePower, Switch
from schedlab.model.core.streams import Streams
from schedlab.model.formats.logs import check_logs, evaluate, load_log
from schedlab.model.formats.platform_file import load_platform, parse_platform
from schedlab.model.records.node_fail import outages_csv
from schedlab.model.records.run_facts import run_facts
from schedlab.policies.batch import make_policy
from schedlab.policies.dvfs import QueueDVFS
from schedlab.policies.idle_shutdown import IdleShutdown
from schedlab.policies.placement import FirstFitPlacement
from schedlab.processes import Model
from schedlab.processes.cluster.power import powered_cluster_model

#: Batsim's cluster_energy_128.xml, pstate 0 and its sleep pstates 13:14:15 (watts x seconds = joules)
POWER = NodePower(
    idle=95.0, full=190.738, off=9.75, switch_off=Switch(6.1, 616.08), switch_on=Switch(151.52, 18966.4228)
)
POLICIES = ("fcfs", "easy")
SHUTDOWN = {"always on": False, "idle shutdown": True}
#: the power settings: the nodes always on, switched off when idle, slowed when no job waits
POWER_SETTINGS = (*SHUTDOWN, "dvfs")
#: Batsim's 13 compute pstates of the same hosts (pstate 0 is POWER's idle and full watts)
DVFS_PLATFORM = Path(__file__).resolve().parent.parent / "docs" / "platforms" / "batsim_dvfs_128.toml"
FAILURES = ("none", "weibull")
#: failures are drawn over this many times a window's submission span
FAILURE_SPAN = 10
#: each metric's unit, for the axes of `schedlab plot`
UNITS = {
    "energy_mj": "MJ",
    "mean_power_kw": "kW",
    "boots": "node boots",
    "utilization": "fraction of the CPUs",
    "wait_h": "hours",
    "bounded_slowdown": "ratio, at least 1",
    "jobs_hit": "jobs",
    "kills": "job kills",
    "lost_cpu_h": "CPU-hours",
    "availability": "fraction of the CPU-time",
}


@dataclass(frozen=True)
class Config:
    #: the real log, by path or by name in logs_dir
    log: str = "SDSC-SP2-1998-4.2-cln"
    #: where a log named without a path is looked up
    logs_dir: str = "../shared/traces"
    #: jobs per window of the log
    length: int = number(1024, low=2, work=True)
    #: replications per cell: windows of the log (--reps overrides)
    replications: int = number(10, low=2)
    #: seconds a node stays idle before idle shutdown switches it off
    idle_timeout: float = number(1800.0)
    #: the failure cells too (false: only the cells without failures)
    with_failures: bool = True
    #: each node's mean time between failures, seconds (Weibull): 90 days, an assumption (128 nodes: one a 17 h)
    mtbf: float = number(90 * 86400.0, gt=0)
    #: the Weibull shape of the times between failures (1: exponential)
    shape: float = number(0.7, gt=0)
    #: the mean repair time, seconds (exponential)
    repair: float = number(4 * 3600.0, gt=0)
    #: what becomes of a job a failure kills: requeue (same id, started over) or drop
    on_node_fail: str = text("requeue", pattern="requeue|drop", what="requeue or drop")
    #: the pstate the dvfs cells' nodes run in while no job waits (Batsim's file: 1-12; 12 is speed 0.45)
    dvfs_pstate: int = number(12, low=1, high=12, integer=True)

    def __post_init__(self) -> None:
        check_logs([self.log], self.logs_dir)  # a log that is not there stops here, in one line


QUICK = dict(length=256, replications=3)


def REPS(cfg: Config) -> int:
    return cfg.replications


def platform(nodes: int, dvfs: bool = False) -> Any:
    """``nodes`` one-core nodes with Batsim's :data:`POWER` (``dvfs``: and its compute pstates)."""
    p = POWER
    watts: dict[str, Any] = {"idle": p.idle, "full": p.full}
    if dvfs:  # pstate 0's watts are POWER's: the dvfs cells differ from the others only by the policy
        (host,) = load_platform(DVFS_PLATFORM).node_types
        assert host.power is not None and (host.power.idle, host.power.full) == (p.idle, p.full)
        watts = {"pstates": [{"speed": q.speed, "idle": q.idle, "full": q.full} for q in host.power.levels]}
    return parse_platform(
        {
            "name": f"batsim-energy-{nodes}",
            "nodes": {
                "host": {
                    "count": nodes,
                    "cores": 1,
                    "power": {
                        **watts,
                        "off": p.off,
                        "switch_off": {"seconds": p.switch_off.seconds, "joules": p.switch_off.joules},
                        "switch_on": {"seconds": p.switch_on.seconds, "joules": p.switch_on.joules},
                    },
                }
            },
        }
    )


def cells(cfg: Config) -> list[dict]:
    failures = FAILURES if cfg.with_failures else FAILURES[:1]
    return [{"policy": p, "power": s, "failures": f} for p in POLICIES for s in POWER_SETTINGS for f in failures]


def window(cfg: Config, streams: Streams) -> tuple[list[Job], int]:
    """Replication r's window of the log, shifted to submit from 0, and the log's CPUs."""
    log = load_log(cfg.log, root=Path(cfg.logs_dir))
    if cfg.length > len(log.jobs):
        raise ValueError(f"length={cfg.length}: the log {cfg.log} has only {len(log.jobs)} jobs")
    lo = int(streams["window"].integers(0, len(log.jobs) - cfg.length + 1))
    jobs = log.jobs[lo : lo + cfg.length]
    t0 = jobs[0].submit  # every node on and idle when the window's first job arrives
    return [dataclasses.replace(j, submit=j.submit - t0) for j in jobs], log.cpus


def failures(cfg: Config, jobs: list[Job], nodes: int, streams: Streams) -> list[NodeFailure]:
    """The window's node failures: Weibull times between failures and exponential repairs, per node,
    over ten times its submission span (:func:`measure` checks that the run ended within it), from
    the ``failures`` stream."""
    horizon = FAILURE_SPAN * max(jobs[-1].submit, 1.0)
    return random_failures(
        streams["failures"], nodes, horizon, cfg.mtbf, cfg.repair, shape=cfg.shape, repair_random=True
    )


def build(env: simpy.Environment, cfg: Config, cell: dict, streams: Streams) -> Model:
    jobs, cpus = window(cfg, streams)
    policy = make_policy("fcfs", "easy" if cell["policy"] == "easy" else "none")
    if cell["power"] == "dvfs":
        policy = QueueDVFS(policy, cfg.dvfs_pstate)
    elif SHUTDOWN[cell["power"]]:
        policy = IdleShutdown(policy, cfg.idle_timeout)
    nodes = platform(cpus, dvfs=cell["power"] == "dvfs")
    down = failures(cfg, jobs, cpus, streams) if cell["failures"] == "weibull" else []
    model = powered_cluster_model(
        env,
        jobs,
        nodes,
        policy,
        FirstFitPlacement(),
        failures=down,
        on_node_fail=cfg.on_node_fail,  # type: ignore[arg-type]  # checked by the field's pattern
    )
    model.parts.update(cpus=cpus, platform=nodes)
    return model


def measure(model: Model) -> dict[str, Any]:
    records = model.records()
    row = evaluate(records, model["cpus"])
    cluster = model["cluster"]
    ran = [r for r in records if r.start == r.start]  # started (NaN start: never ran)
    start, end = min(r.submit for r in ran), max(r.end for r in ran)
    if cluster.node_outages and end > FAILURE_SPAN * max(r.submit for r in records):
        raise ValueError(f"the run ended at {end:g} s, after the failures drawn (FAILURE_SPAN x the last submission)")
    report = energy(
        cluster.placement_rows(), model["platform"], start, end, cluster.power_rows(), cluster.pstate_rows()
    )
    boots = sum(1 for _node, state, _a, _b in cluster.power_rows() if state == "switching_on")
    files = {  # what `schedlab plot` draws the run from: its nodes up, down, off, and the jobs on them
        **run_facts(model["cpus"], units=UNITS),
        "nodes.csv": cluster.nodes_csv(),
        "placements.csv": cluster.placements_csv(),
        "allocations.csv": cluster.allocations_csv(),
        "power.csv": cluster.power_csv(),
        "node_outages.csv": outages_csv(cluster.node_outages),
    }
    if cluster.pstate_rows():
        files["pstates.csv"] = cluster.pstate_csv()
    return {
        "energy_mj": report.total / 1e6,
        "mean_power_kw": report.mean_power / 1e3,
        "boots": float(boots),
        "utilization": row["utilization"],
        "wait_h": row["wait"] / 3600,
        "bounded_slowdown": row["bounded_slowdown"],
        "jobs_hit": float(jobs_hit(cluster.node_kills)),
        "kills": float(len(cluster.node_kills)),
        "lost_cpu_h": lost_cpu_hours(cluster.node_kills),
        "availability": availability(cluster.node_outages, model["cpus"], start, end),
        "files": files,
    }


def machine_states_figure(cfg: Config, seed: int = 0, *, zoom: bool = False) -> Any:
    """The machine-state chart of replication 0's window under EASY with idle shutdown (and
    failures, unless ``cfg.with_failures`` is false).

    ``zoom``: the hour around the window's largest boot (the most nodes booted at once),
    where the switching (151.52 s, under a pixel over the whole window) shows.
    """
    from schedlab.plots.machine_states import machine_states

    streams = Streams(replication_seeds(seed, 1)[0], 0)  # the run's replication 0: the same window
    env = simpy.Environment()
    failing = FAILURES[-1] if cfg.with_failures else FAILURES[0]
    model = build(env, cfg, {"policy": "easy", "power": "idle shutdown", "failures": failing}, streams).run()
    cluster = model["cluster"]
    busy = [(r[2], r[5], r[6]) for r in cluster.placement_rows()]
    states = cluster.power_rows()
    start, end = 0.0, max(r.end for r in model.records() if r.start == r.start)
    title = f"{Path(cfg.log).name}, EASY + idle shutdown ({cfg.idle_timeout:g} s), window 0 of seed {seed}"
    if cfg.with_failures:
        title += f", {sum(o.start < end for o in cluster.node_outages)} node failures"
    boots = Counter(a for _node, state, a, _b in states if state == "switching_on")
    origin = "the first submission"  # the window is shifted to submit from 0
    if zoom and boots:
        at, nodes = max(boots.items(), key=lambda b: (b[1], -b[0]))  # the most nodes; the first such time
        start, end = max(0.0, at - 1800.0), min(end, at + 1800.0)
        title = f"EASY + idle shutdown, window 0: {nodes} nodes boot at t = {at:,.0f} s"
        origin = f"{(at - start) / 60:g} minutes before the boot"
    return machine_states(
        busy,
        [n.name for n in cluster.nodes],
        start=start,
        end=end,
        states=states,
        time_unit="s",
        title=title,
        origin=origin,
    )


def dvfs_states_figure(cfg: Config, seed: int = 0, hours: float = 24.0) -> Any:
    """The machine-state chart of replication 0's window under EASY with DVFS, no failures, over
    its first ``hours``: computing and idle split by pstate (0, and ``cfg.dvfs_pstate`` while no job waits)."""
    from schedlab.plots.machine_states import machine_states

    streams = Streams(replication_seeds(seed, 1)[0], 0)  # the run's replication 0: the same window
    cell = {"policy": "easy", "power": "dvfs", "failures": FAILURES[0]}
    cluster = build(simpy.Environment(), cfg, cell, streams).run()["cluster"]
    busy = [(r[2], r[5], r[6]) for r in cluster.placement_rows()]
    slowed = cluster.pstate_rows()
    speeds = {k: cluster.platform.node_types[0].power.levels[k].speed for k in {p for _, p, _, _ in slowed}}
    title = f"EASY + QueueDVFS (pstate {cfg.dvfs_pstate}), window 0 of seed {seed}"
    return machine_states(
        busy,
        [n.name for n in cluster.nodes],
        start=0.0,
        end=hours * 3600.0,
        states=cluster.power_rows(),
        pstates=slowed,
        speeds=speeds,
        time_unit="s",
        title=f"{title}, first {hours:g} h",
        origin="the first submission",
    )


def report(results: Results, out: Any) -> list[Path]:
    """Each policy's energy saved by idle shutdown, what the failures cost, and the machine-state chart."""
    by = {(r["policy"], r["power"], r["failures"]): r for r in results.rows}
    ran = [f for f in FAILURES if any(key[2] == f for key in by)]
    windows: dict[tuple[str, str, int], dict[str, float]] = {}  # the same window under each power setting
    for r in results.replications:
        windows.setdefault((r["policy"], r["failures"], r["rep"]), {})[r["power"]] = r["energy_mj"]
    settings = [s for s in POWER_SETTINGS[1:] if any(key[1] == s for key in by)]
    for f in ran:
        for p in POLICIES:
            on = by[(p, "always on", f)]
            for setting in settings:
                off = by[(p, setting, f)]
                saved = sorted(1 - w[setting] / w["always on"] for (q, g, _), w in windows.items() if (q, g) == (p, f))
                name = setting if setting != "dvfs" else f"dvfs (pstate {results.config.get('dvfs_pstate', 12)})"
                mean = 1 - off["energy_mj"] / on["energy_mj"]
                verb = f"saves {100 * mean:.1f}%" if mean >= 0 else f"costs {-100 * mean:.1f}% more"
                print(
                    f"{p}{'' if f == 'none' else ' with failures'}: {name} {verb} of the mean energy "
                    f"(saved per window {100 * saved[0]:.1f}% to {100 * saved[-1]:.1f}%, {len(saved)} windows); "
                    f"wait {on['wait_h']:.3g} h -> {off['wait_h']:.3g} h, bounded slowdown "
                    f"{on['bounded_slowdown']:.3g} -> {off['bounded_slowdown']:.3g}"
                )
    if "weibull" in ran:
        for p in POLICIES:
            for power in ("always on", *settings):
                none, hit = by[(p, power, "none")], by[(p, power, "weibull")]
                print(
                    f"{p}, {power}: failures hit {hit['jobs_hit']:.1f} jobs a window ({hit['kills']:.1f} kills), "
                    f"lose {hit['lost_cpu_h']:.1f} CPU-h, availability {hit['availability']:.4f}; "
                    f"wait {none['wait_h']:.3g} h -> {hit['wait_h']:.3g} h, "
                    f"energy {none['energy_mj']:.4g} -> {hit['energy_mj']:.4g} MJ"
                )
    cfg = Config(**{k: v for k, v in results.config.items() if k in {f.name for f in dataclasses.fields(Config)}})
    target = Path(out)
    target.mkdir(parents=True, exist_ok=True)
    machine_states_figure(cfg, results.seed).savefig(target / "machine_states.png", dpi=100)
    machine_states_figure(cfg, results.seed, zoom=True).savefig(target / "machine_states_boot.png", dpi=100)
    written = [target / "machine_states.png", target / "machine_states_boot.png"]
    if "dvfs" in settings:
        dvfs_states_figure(cfg, results.seed).savefig(target / "machine_states_dvfs.png", dpi=100)
        written.append(target / "machine_states_dvfs.png")
    return written


if __name__ == "__main__":
    cli_main()

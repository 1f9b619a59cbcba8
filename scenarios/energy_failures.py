"""Energy on a real log: FCFS and EASY, each with and without idle shutdown, on Batsim's 128-node energy platform.

Issue 25 item 8. Replication r replays window r of the SDSC SP2 log (128 processors,
``length`` consecutive jobs, its start drawn from the ``window`` stream as
``scenarios/first_look.py`` draws it, so every cell replays the same windows), shifted
to start at 0, on 128 one-core nodes with the power of Batsim's
``platforms/cluster_energy_128.xml`` (also 128 hosts): 95 W idle, 190.738 W computing,
9.75 W off, 6.1 s and 616.08 J to switch off, 151.52 s and 18,966.42 J to boot
(:data:`POWER`; ``tests/test_energy_failures.py`` checks it against Batsim's file through
:func:`~schedlab.model.formats.batsim_platform.batsim_node_power`).

Cells: ``fcfs`` and ``easy``, each ``always on`` and with ``idle shutdown``
(:class:`~schedlab.policies.idle_shutdown.IdleShutdown`: a node idle ``idle_timeout``
seconds is switched off; nodes boot when the waiting jobs ask for more cores than are
on). The table: energy (MJ) and mean power (kW) from the first submission to the last
end, the nodes' boots, utilization, wait (hours), bounded slowdown (10 s) and the jobs
hit by node failures.

Node failures (issue 25 item 4, ``schedlab replay --failures/--mtbf``) are replayed on one
machine of the log's processors, not yet on a platform's nodes, so they cannot run on the
powered cluster here: ``failures`` is a setting that is off, ``failures=true`` says so and
stops, and ``jobs_hit`` is 0 in every cell.

``report`` draws the machine states (computing, idle, switching, switched off) of the
first window under EASY with idle shutdown: ``machine_states.png``, and the hour around
its largest boot, ``machine_states_boot.png``.

    schedlab run scenarios/energy_failures.py
    schedlab run scenarios/energy_failures.py --quick
    schedlab run scenarios/energy_failures.py --set idle_timeout=3600
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
from schedlab.model.core.fields import number
from schedlab.model.core.job import Job
from schedlab.model.core.streams import Streams
from schedlab.model.formats.platform import NodePower, Switch
from schedlab.model.formats.platform_file import parse_platform
from schedlab.model.formats.traces import check_traces, evaluate, load_trace, trace_path
from schedlab.policies.batch import make_policy
from schedlab.policies.idle_shutdown import IdleShutdown
from schedlab.policies.placement import FirstFitPlacement
from schedlab.processes import Model
from schedlab.processes.power import powered_cluster_model

#: Batsim's cluster_energy_128.xml, pstate 0 and its sleep pstates 13:14:15 (watts x seconds = joules)
POWER = NodePower(
    idle=95.0, full=190.738, off=9.75, switch_off=Switch(6.1, 616.08), switch_on=Switch(151.52, 18966.4228)
)
POLICIES = ("fcfs", "easy")
SHUTDOWN = {"always on": False, "idle shutdown": True}


@dataclass(frozen=True)
class Config:
    #: the real log, by path or by name in traces_dir
    trace: str = "SDSC-SP2-1998-4.2-cln"
    #: where a log named without a path is looked up
    traces_dir: str = "../shared/traces"
    #: jobs per window of the log
    length: int = number(1024, low=2, work=True)
    #: replications per cell: windows of the log (--reps overrides)
    replications: int = number(10, low=2)
    #: seconds a node stays idle before idle shutdown switches it off
    idle_timeout: float = number(1800.0)
    #: node failures (issue 25 item 4): they run on a machine, not yet on a powered cluster's nodes, so off
    failures: bool = False

    def __post_init__(self) -> None:
        check_traces([self.trace], self.traces_dir)  # a log that is not there stops here, in one line
        if self.failures:
            raise ValueError(
                "failures=true: node failures are replayed on one machine of the log's processors "
                "(schedlab replay --failures/--mtbf), not yet on a powered cluster's nodes; run with failures=false"
            )


QUICK = dict(length=256, replications=3)


def REPS(cfg: Config) -> int:
    return cfg.replications


def platform(nodes: int) -> Any:
    """``nodes`` one-core nodes with Batsim's :data:`POWER`."""
    p = POWER
    return parse_platform(
        {
            "name": f"batsim-energy-{nodes}",
            "nodes": {
                "host": {
                    "count": nodes,
                    "cores": 1,
                    "power": {
                        "idle": p.idle,
                        "full": p.full,
                        "off": p.off,
                        "switch_off": {"seconds": p.switch_off.seconds, "joules": p.switch_off.joules},
                        "switch_on": {"seconds": p.switch_on.seconds, "joules": p.switch_on.joules},
                    },
                }
            },
        }
    )


def cells(cfg: Config) -> list[dict]:
    return [{"policy": p, "power": s} for p in POLICIES for s in SHUTDOWN]


def window(cfg: Config, streams: Streams) -> tuple[list[Job], int]:
    """Replication r's window of the log, shifted to submit from 0, and the log's processors."""
    trace = load_trace(str(trace_path(cfg.trace, Path(cfg.traces_dir))))
    if cfg.length > len(trace.jobs):
        raise ValueError(f"length={cfg.length}: the log {cfg.trace} has only {len(trace.jobs)} jobs")
    lo = int(streams["window"].integers(0, len(trace.jobs) - cfg.length + 1))
    jobs = trace.jobs[lo : lo + cfg.length]
    t0 = jobs[0].submit  # every node on and idle when the window's first job arrives
    return [dataclasses.replace(j, submit=j.submit - t0) for j in jobs], trace.procs


def build(env: simpy.Environment, cfg: Config, cell: dict, streams: Streams) -> Model:
    jobs, procs = window(cfg, streams)
    policy = make_policy("fcfs", "easy" if cell["policy"] == "easy" else "none")
    if SHUTDOWN[cell["power"]]:
        policy = IdleShutdown(policy, cfg.idle_timeout)
    nodes = platform(procs)
    model = powered_cluster_model(env, jobs, nodes, policy, FirstFitPlacement())
    model.parts.update(procs=procs, platform=nodes)
    return model


def measure(model: Model) -> dict[str, Any]:
    records = model.records()
    row = evaluate(records, model["procs"])
    cluster = model["cluster"]
    ran = [r for r in records if r.start == r.start]  # started (NaN start: never ran)
    start, end = min(r.submit for r in ran), max(r.end for r in ran)
    report = energy(cluster.placement_rows(), model["platform"], start, end, cluster.power_rows())
    boots = sum(1 for _node, state, _a, _b in cluster.power_rows() if state == "switching_on")
    return {
        "energy_mj": report.total / 1e6,
        "mean_power_kw": report.mean_power / 1e3,
        "boots": float(boots),
        "utilization": row["utilization"],
        "wait_h": row["wait"] / 3600,
        "bounded_slowdown": row["bounded_slowdown"],
        "jobs_hit": 0.0,
    }


def machine_states_figure(cfg: Config, seed: int = 0, *, zoom: bool = False) -> Any:
    """The machine-state chart of replication 0's window under EASY with idle shutdown.

    ``zoom``: the hour around the window's largest boot (the most nodes booted at once),
    where the switching (151.52 s, under a pixel over the whole window) shows.
    """
    from schedlab.plots.machine_states import machine_states

    streams = Streams(replication_seeds(seed, 1)[0], 0)  # the run's replication 0: the same window
    env = simpy.Environment()
    model = build(env, cfg, {"policy": "easy", "power": "idle shutdown"}, streams).run()
    cluster = model["cluster"]
    busy = [(r[2], r[5], r[6]) for r in cluster.placement_rows()]
    states = cluster.power_rows()
    start, end = 0.0, max(r.end for r in model.records() if r.start == r.start)
    title = f"{Path(cfg.trace).name}, EASY + idle shutdown ({cfg.idle_timeout:g} s), window 0 of seed {seed}"
    boots = Counter(a for _node, state, a, _b in states if state == "switching_on")
    if zoom and boots:
        at, nodes = max(boots.items(), key=lambda b: (b[1], -b[0]))  # the most nodes; the first such time
        start, end = max(0.0, at - 1800.0), min(end, at + 1800.0)
        title = f"EASY + idle shutdown, window 0: {nodes} nodes boot at t = {at:,.0f} s"
    return machine_states(
        busy, [n.name for n in cluster.nodes], start=start, end=end, states=states, time_unit="s", title=title
    )


def report(results: Results, out: Any) -> list[Path]:
    """Each policy's energy saved by idle shutdown, and the machine-state chart."""
    by = {(r["policy"], r["power"]): r for r in results.rows}
    windows: dict[tuple[str, int], dict[str, float]] = {}  # the same window with and without shutdown
    for r in results.replications:
        windows.setdefault((r["policy"], r["rep"]), {})[r["power"]] = r["energy_mj"]
    for p in POLICIES:
        on, off = by[(p, "always on")], by[(p, "idle shutdown")]
        saved = sorted(1 - w["idle shutdown"] / w["always on"] for (q, _), w in windows.items() if q == p)
        print(
            f"{p}: idle shutdown saves {100 * (1 - off['energy_mj'] / on['energy_mj']):.1f}% of the mean energy "
            f"(per window {100 * saved[0]:.1f}% to {100 * saved[-1]:.1f}%, {len(saved)} windows); "
            f"wait {on['wait_h']:.3g} h -> {off['wait_h']:.3g} h, bounded slowdown "
            f"{on['bounded_slowdown']:.3g} -> {off['bounded_slowdown']:.3g}"
        )
    cfg = Config(**{k: v for k, v in results.config.items() if k in {f.name for f in dataclasses.fields(Config)}})
    target = Path(out)
    target.mkdir(parents=True, exist_ok=True)
    machine_states_figure(cfg, results.seed).savefig(target / "machine_states.png", dpi=100)
    machine_states_figure(cfg, results.seed, zoom=True).savefig(target / "machine_states_boot.png", dpi=100)
    return [target / "machine_states.png", target / "machine_states_boot.png"]


if __name__ == "__main__":
    cli_main()

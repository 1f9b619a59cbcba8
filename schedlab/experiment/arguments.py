"""The ``schedlab`` command line's words: its subcommands, their options and help.

Kept apart from :mod:`schedlab.experiment.cli`, which acts on the parsed words, so that
the command's surface reads in one place; like the command, it imports only argparse at
start-up. The registry of queue orders, whose names ``replay --help`` lists, is read only
when that help is printed (:class:`_OrdersHelp`).
"""

from __future__ import annotations

import argparse

__all__ = ["EPILOG", "build_parser"]


class _OrdersHelp(argparse.HelpFormatter):
    """Help whose ``%(orders)s`` is the registry's orders, read when the help is printed, not at start-up.

    Importing the registry loads every policy (about 0.13 s); a command that prints no
    help should not pay for it.
    """

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help
        if text is not None and "%(orders)s" in text:
            from schedlab.policies.scoring import describe_orders

            text = text.replace("%(orders)s", describe_orders().replace("%", "%%"))
        return text


EPILOG = """examples:
  schedlab run scenarios/mmc.py
  schedlab run scenarios/mmc.py --reps 20 --set c=4 --set arrival_rate=3.6
  schedlab run scenarios/mmc.py --sweep arrival_rate=0.5,0.8,0.9 --executor serial
  schedlab trace scenarios/mmc.py --until 5
  schedlab trace scenarios/mmc.py --step --limit 10
  schedlab plot results/mmc
  schedlab train Machine-v0 --quick --set teacher=sjf --workers 2
"""


def _common(p: argparse.ArgumentParser) -> None:
    """The options every subcommand takes: ``--set``, ``--quick``, ``--traceback``."""
    p.add_argument(
        "--set",
        dest="assign",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a Config field of the scenario (repeatable)",
    )
    p.add_argument("--quick", action="store_true", help="apply the scenario's QUICK overrides (a small, fast run)")
    p.add_argument("--traceback", action="store_true", help="on error, show the full Python traceback")


def build_parser(script: str | None = None) -> argparse.ArgumentParser:
    """The parser of ``schedlab`` (or, with ``script``, of ``python scenarios/x.py``)."""
    parser = argparse.ArgumentParser(
        prog="schedlab" if script is None else f"python {script}",
        description="Discrete-event models of job scheduling: run scenarios, trace their events.",
        epilog=EPILOG if script is None else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=script is None, metavar="COMMAND")

    run = sub.add_parser("run", help="run a scenario's replications and print its result table")
    if script is None:
        run.add_argument("script", help="path of a scenario script (e.g. scenarios/mmc.py)")
    run.add_argument("--reps", type=int, default=None, help="replications per cell (default: the scenario's REPS)")
    run.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    run.add_argument("--workers", type=int, default=None, help="worker processes (default: all cores)")
    run.add_argument(
        "--executor",
        choices=("serial", "process", "dask"),
        default="process",
        help="where replications run (default: a local process pool)",
    )
    run.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="with --executor dask: a running Dask scheduler's address (default: a local cluster). "
        "Results come back unpickled, so use only a scheduler you trust; TLS settings are read "
        "from Dask's config (distributed.comm.tls.*)",
    )
    run.add_argument(
        "--sweep",
        action="append",
        default=[],
        metavar="KEY=V1,V2,...",
        help="sweep a Config field over values: one cell per combination (repeatable)",
    )
    run.add_argument(
        "--out",
        default=None,
        metavar="DIR",
        help="where to save results (default: results/<scenario>, replaced by each run; a folder "
        "given here is replaced only with --overwrite)",
    )
    run.add_argument("--no-records", action="store_true", help="do not keep per-job records")
    run.add_argument(
        "--batsim-jobs",
        action="store_true",
        help="also write each run as Batsim's jobs.csv, machine_states.csv and schedule.csv "
        "(batsim/cell<i>-rep<r>-*.csv; evalys reads them)",
    )
    run.add_argument("--overwrite", action="store_true", help="replace an earlier run's results in --out")
    run.add_argument(
        "--resume",
        action="store_true",
        help="finish the run saved in --out: only the replications not yet done are run "
        "(same script, settings, seed and schedlab version, else refused)",
    )
    run.add_argument("--force", action="store_true", help="run even when the estimated work is over the limit")
    run.add_argument("--list-config", action="store_true", help="print the scenario's Config fields and exit")
    _common(run)

    replay = sub.add_parser(
        "replay",
        help="replay windows of logs (SWF or Batsim) under policies, with or without backfilling",
        formatter_class=_OrdersHelp,
    )
    if script is None:
        replay.add_argument(
            "logs",
            nargs="+",
            metavar="LOG",
            help="SWF log(s), .swf or .swf.gz, by path or by name in ../shared/traces, "
            "or Batsim workload JSON (.json: delay profiles)",
        )
    replay.add_argument(
        "--policy",
        action="append",
        default=None,
        metavar="NAME",
        help="priority order, one of the registered orders: %(orders)s (repeatable; default fcfs)",
    )
    # the names of policies.batch.BACKFILLS, written out: importing it here would load the
    # policies at every start-up of the CLI (tests/test_conservative.py checks they agree)
    replay.add_argument(
        "--backfill",
        action="append",
        default=None,
        choices=("none", "easy", "conservative", "conservative-rebuild"),
        help="backfilling: none, easy, conservative (reservations at arrival, compressed when jobs "
        "end early), conservative-rebuild (rebuilt at each decision) (repeatable; default: "
        "both none and easy)",
    )
    window = replay.add_mutually_exclusive_group()
    window.add_argument("--start", type=int, default=None, metavar="I", help="one window starting at job I (0-based)")
    window.add_argument("--starts", default=None, metavar="I,J,...", help="windows starting at these jobs")
    window.add_argument("--windows", type=int, default=None, metavar="N", help="N windows drawn from --seed")
    replay.add_argument("--length", type=int, default=1024, metavar="L", help="jobs per window (default 1024)")
    replay.add_argument("--seed", type=int, default=0, help="seed of the window draw (default 0)")
    replay.add_argument(
        "--draw",
        choices=("schedlab", "rlscheduler"),
        default="schedlab",
        help="how --windows are drawn from --seed: schedlab's draw, or RLScheduler's test script's "
        "(its published tables: --seed 1 --windows 10 --length 1024 --draw-within 10000)",
    )
    replay.add_argument(
        "--draw-within",
        type=int,
        default=0,
        metavar="N",
        help="with --draw rlscheduler: draw among the first N jobs (its batch_job_slice; 0: all)",
    )
    replay.add_argument(
        "--compat",
        choices=("none", "rlscheduler"),
        default="none",
        help="rlscheduler: RLScheduler's loader, node allocation and scheduling loop",
    )
    replay.add_argument(
        "--walltime",
        choices=("kill", "run-on"),
        default=None,
        help="a job that reaches its requested time is killed (as Slurm does) or runs on to its end "
        "(default: kill; run-on under --compat rlscheduler)",
    )
    replay.add_argument(
        "--cpus",
        "--procs",  # SWF's word, the flag's first name
        type=int,
        default=0,
        metavar="N",
        help="CPUs of the machine, for a log whose header gives no MaxProcs (default: the header's)",
    )
    replay.add_argument("--strict", action="store_true", help="stop at the first malformed line (default: skip, count)")
    replay.add_argument("--no-native", action="store_true", help="leave out the native (as-run) schedule")
    replay.add_argument(
        "--platform",
        default=None,
        metavar="FILE",
        help="replay on the nodes, partitions and queues of a platform file (TOML, or Batsim's XML; docs/platforms.md)",
    )
    replay.add_argument(
        "--placement",
        default="first-fit",
        choices=("first-fit", "best-fit", "exclusive", "pack"),
        help="with --platform: where a job goes on the nodes (default first-fit)",
    )
    replay.add_argument(
        "--queues",
        default="none",
        choices=("none", "strict", "wrr"),
        help="with --platform: across queues, none (one queue), strict priority or weighted round robin (default none)",
    )
    replay.add_argument(
        "--idle-shutdown",
        type=float,
        default=None,
        metavar="SECONDS",
        help="with --platform whose nodes give power.off: switch a node off after SECONDS idle, "
        "boot it when the queue needs it (docs/energy.md)",
    )
    replay.add_argument(
        "--dvfs",
        type=int,
        default=None,
        metavar="PSTATE",
        help="with --platform whose nodes list pstates: run the nodes at PSTATE while no job waits, "
        "at pstate 0 when jobs wait (QueueDVFS; docs/energy.md)",
    )
    replay.add_argument(
        "--failures",
        default=None,
        metavar="FILE",
        help="replay node failures from a failure log in Alea's format (time, cluster, duration, "
        "machine ids; docs/traces.md)",
    )
    replay.add_argument(
        "--mtbf",
        type=float,
        default=0.0,
        metavar="S",
        help="seeded random node failures: mean seconds between failures of a node (default: none)",
    )
    replay.add_argument(
        "--repair",
        type=float,
        default=3600.0,
        metavar="S",
        help="seconds a randomly failed node stays down (default 3600)",
    )
    replay.add_argument(
        "--node-size",
        type=int,
        default=1,
        metavar="N",
        help="CPUs per node, the unit a failure takes down (default 1)",
    )
    replay.add_argument(
        "--on-node-fail",
        choices=("requeue", "drop"),
        default="requeue",
        help="a job a node failure kills is requeued (same id, started over) or dropped",
    )
    replay.add_argument("--executor", choices=("serial", "process", "dask"), default="process")
    replay.add_argument("--workers", type=int, default=None)
    replay.add_argument("--out", default=None, metavar="DIR", help="where to save results (default: results/replay)")
    replay.add_argument("--overwrite", action="store_true", help="replace an earlier run's results in --out")
    replay.add_argument(
        "--batsim-jobs",
        action="store_true",
        help="also write each window as Batsim's jobs.csv, machine_states.csv and schedule.csv "
        "(batsim/cell<i>-rep<r>-*.csv)",
    )
    replay.add_argument("--traceback", action="store_true", help="on error, show the full Python traceback")

    trace = sub.add_parser("trace", help="print the event trace of one replication (time, process, action, detail)")
    if script is None:
        trace.add_argument("script", help="path of a scenario script")
    trace.add_argument("--until", type=float, default=None, help="stop at this simulated time")
    trace.add_argument("--limit", type=int, default=200, help="print at most this many events (default 200)")
    trace.add_argument("--cell", type=int, default=0, help="which cell of the scenario's grid (default 0)")
    trace.add_argument("--seed", type=int, default=0, help="the run's seed (replication 0 is traced)")
    trace.add_argument(
        "--step",
        action="store_true",
        help="step event by event: the clock and the next events of the event list at each step",
    )
    _common(trace)

    if script is None:
        from schedlab.experiment.train_command import add_train_parser

        add_train_parser(sub, _common)
        plot = sub.add_parser("plot", help="write a results folder's figures as PNG (needs the plot extra)")
        plot.add_argument(
            "results", metavar="RESULTS_DIR", help="a folder written by `schedlab run` (e.g. results/mmc)"
        )
        plot.add_argument(
            "--out", default=None, metavar="DIR", help="where to write the PNG files (default: RESULTS_DIR/plots)"
        )
        plot.add_argument(
            "--capacity",
            type=float,
            default=None,
            help="CPUs of the machine, for utilization (default: from the saved config)",
        )
        plot.add_argument(
            "--cell",
            type=int,
            default=0,
            help="the run drawn in the Gantt and state charts: this row of summary.csv (default 0)",
        )
        plot.add_argument("--rep", type=int, default=None, help="and this replication of it (default: its first)")
        plot.add_argument("--traceback", action="store_true", help="on error, show the full Python traceback")
    return parser

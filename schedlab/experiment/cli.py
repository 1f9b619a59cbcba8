"""The ``schedlab`` command: run a scenario and print its table, or trace its events.

Only argparse is imported at start-up, so ``schedlab --help`` is instant; simulation,
pandas and (later) torch are imported by the command that needs them.
"""

from __future__ import annotations

import argparse
import os
import sys
import typing
from collections.abc import Sequence
from pathlib import Path

__all__ = ["cli_main", "main"]

EPILOG = """examples:
  schedlab run scenarios/mmc.py
  schedlab run scenarios/mmc.py --reps 20 --set c=4 --set arrival_rate=3.6
  schedlab run scenarios/mmc.py --sweep arrival_rate=0.5,0.8,0.9 --executor serial
  schedlab trace scenarios/mmc.py --until 5
  schedlab trace scenarios/mmc.py --step --limit 10
  schedlab plot results/mmc
"""


def _common(p: argparse.ArgumentParser) -> None:
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


def _parser(script: str | None = None) -> argparse.ArgumentParser:
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
        help="also write each run as Batsim's jobs.csv (batsim/cell<i>-rep<r>-jobs.csv; evalys reads it)",
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

    replay = sub.add_parser("replay", help="replay windows of SWF traces under policies, with or without backfilling")
    if script is None:
        replay.add_argument(
            "traces",
            nargs="+",
            metavar="TRACE",
            help="SWF log(s), .swf or .swf.gz, by path or by name in ../shared/traces, "
            "or Batsim workload JSON (.json: delay profiles)",
        )
    replay.add_argument(
        "--policy",
        action="append",
        default=None,
        metavar="NAME",
        help="priority order: fcfs, sjf (by requested time), smallest, f1, wfp3, unicep (repeatable; default fcfs)",
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
        "--procs",
        type=int,
        default=0,
        metavar="N",
        help="processors of the machine, for a log whose header gives no MaxProcs (default: the header's)",
    )
    replay.add_argument("--strict", action="store_true", help="stop at the first malformed line (default: skip, count)")
    replay.add_argument("--no-native", action="store_true", help="leave out the native (as-run) schedule")
    replay.add_argument(
        "--platform",
        default=None,
        metavar="FILE",
        help="replay on the nodes, partitions and queues of a platform file (TOML; docs/platforms.md)",
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
        help="processors per node, the unit a failure takes down (default 1)",
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
        help="also write each window as Batsim's jobs.csv (batsim/cell<i>-rep<r>-jobs.csv)",
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
        plot.add_argument("--traceback", action="store_true", help="on error, show the full Python traceback")
    return parser


def main(argv: Sequence[str] | None = None, script: str | None = None) -> int:
    """Entry point of ``schedlab`` (and, with ``script``, of ``python scenarios/x.py``)."""
    parser = _parser(script)
    words = list(sys.argv[1:] if argv is None else argv)
    if script is not None and (not words or words[0] not in ("run", "trace", "-h", "--help")):
        words = ["run", *words]  # `python scenarios/x.py --set ...` means run
    args = parser.parse_args(words)
    if script is not None:
        args.script = script
    try:
        if args.command == "run":
            return _run(args)
        if args.command == "replay":
            return _replay(args)
        if args.command == "plot":
            return _plot(args)
        return _trace(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except (ValueError, TypeError, RuntimeError, OSError, ImportError) as exc:
        if args.traceback:
            details = getattr(exc, "details", "")
            if details:
                print(details, file=sys.stderr)
            else:
                raise
        print(f"error: {exc}", file=sys.stderr)
        if not args.traceback:
            print("(add --traceback for the full Python traceback)", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    from schedlab.experiment.runner import run
    from schedlab.experiment.scenario import coerce, load_scenario, parse_assignments

    scenario = load_scenario(args.script)
    if args.list_config:
        cfg = scenario.config()
        for name, text in scenario.field_help().items():
            print(f"{name} = {getattr(cfg, name)!r}    {text}")
        return 0
    overrides = parse_assignments(args.assign)
    sweep: dict[str, list[object]] = {}
    hints = typing.get_type_hints(scenario.config_type)
    for key, values in parse_assignments(args.sweep, "--sweep").items():
        scenario.config({key: values.split(",")[0]})  # names an unknown key, with the valid ones
        sweep[key] = [coerce(key, v, hints[key]) for v in values.split(",") if v.strip()]
    if args.reps is not None and args.reps < 1:
        raise ValueError(f"--reps must be >= 1, got {args.reps}")
    if args.workers is not None and args.workers < 1:
        raise ValueError(f"--workers must be >= 1, got {args.workers}")
    if args.scheduler and args.executor != "dask":
        print(
            f"warning: --scheduler {args.scheduler} is ignored: it is used only with --executor dask", file=sys.stderr
        )
    out = Path(args.out) if args.out else Path("results") / scenario.name
    results = run(
        scenario,
        overrides=overrides,
        sweep=sweep,
        reps=args.reps,
        seed=args.seed,
        quick=args.quick,
        executor=args.executor,
        workers=args.workers,
        address=args.scheduler,
        keep_records=not args.no_records,
        out=out,
        resume=args.resume,
        overwrite=args.overwrite or not args.out,
        force=args.force,
    )
    print(
        f"{results.scenario}: {results.reps} replications per cell, seed {results.seed}"
        f"{' (quick)' if results.quick else ''}"
    )
    if results.run_info.get("resumed_tasks"):
        print(f"resumed: {results.run_info['resumed_tasks']} replication(s) read back from {out}")
    if results.run_info.get("foreign_tasks"):
        print(
            f"refused: {results.run_info['foreign_tasks']} task file(s) in {out} written by another run; "
            "those replications were run again"
        )
    print(results.table())
    records = "records and " if results.job_records is not None else ""
    print(f"saved {out}{os.sep}summary.json, summary.csv, replications.csv, {records}manifest.json")
    report = getattr(scenario.module, "report", None)  # a scenario's own post-processing: figures, tables
    if callable(report):
        for path in report(results, out) or []:
            print(f"wrote {path}")
    if args.batsim_jobs:
        _batsim_jobs(out)
    return 0


def _batsim_jobs(out: Path) -> None:
    from schedlab.experiment.batsim_export import write_batsim_jobs

    written, left_out = write_batsim_jobs(out)
    note = (
        f"; {left_out} job(s) still waiting or running at the end left out, as Batsim has no state for them"
        if left_out
        else ""
    )
    print(f"wrote {len(written)} Batsim jobs.csv file(s) in {out / 'batsim'}{note}")


def _replay(args: argparse.Namespace) -> int:
    from schedlab.experiment.published import published_lines
    from schedlab.experiment.runner import run
    from schedlab.experiment.scenario import load_scenario
    from schedlab.experiment.store import check_out
    from schedlab.replay import trace_replay as trace_scenario

    overrides: dict[str, object] = {
        "traces": tuple(args.traces),
        "policies": tuple(args.policy or ["fcfs"]),
        "backfills": tuple(dict.fromkeys(args.backfill or ["none", "easy"])),
        "length": args.length,
        "window_seed": args.seed,
        "compat": args.compat,
        "strict": args.strict,
        "native": not args.no_native,
        "traces_dir": str(Path.cwd().parent / "shared" / "traces"),
        "platform": str(Path(args.platform).resolve()) if args.platform else "",
        "placement": args.placement,
        "queues": args.queues,
        "walltime": args.walltime or "",
        "procs": args.procs,
        "idle_shutdown": args.idle_shutdown,
        "draw": args.draw,
        "draw_within": args.draw_within,
        "failures": str(Path(args.failures).resolve()) if args.failures else "",
        "mtbf": args.mtbf,
        "repair": args.repair,
        "node_size": args.node_size,
        "on_node_fail": args.on_node_fail,
    }
    if args.platform:
        from schedlab.model.formats.platform_file import load_platform

        load_platform(args.platform)  # a bad file stops here, with its one-line error
    if args.start is not None:
        overrides["starts"] = (args.start,)
    elif args.starts is not None:
        try:
            overrides["starts"] = tuple(int(s) for s in args.starts.split(",") if s.strip())
        except ValueError:
            raise ValueError(f"--starts takes comma-separated job positions, got {args.starts!r}") from None
    else:
        overrides["windows"] = args.windows if args.windows is not None else 10
    scenario = load_scenario(trace_scenario.__file__)
    cfg = scenario.config(overrides)
    out = Path(args.out) if args.out else Path("results") / "replay"
    # the default folder is replaced by each run; the lock keeps a second replay (or run) out of it till saved
    lock = check_out(out, overwrite=args.overwrite or not args.out, settings="replay")
    try:
        for name in cfg.traces:  # what was read, kept and dropped, and why: skips are counted, never silent
            loaded = trace_scenario.load_log(cfg, name)
            if cfg.platform:
                print(f"{loaded.report}; {platform_line(cfg.platform)}")
            else:
                print(
                    f"{loaded.report}; machine {loaded.procs} "
                    f"{'nodes' if cfg.compat == 'rlscheduler' else 'processors'}"
                )
        results = run(scenario, overrides=overrides, reps=cfg.n_windows, executor=args.executor, workers=args.workers)
        for row in results.rows:
            row["windows"] = cfg.n_windows
        print(f"replay: {cfg.n_windows} window(s) of {cfg.length} jobs, compat {cfg.compat}, walltime {cfg.walltime}")
        print(results.table())
        for line in left_out(results.records, cfg.length):
            print(line)
        for line in published_lines(results.rows, cfg):
            print(line)
        results.save(out, lock=lock)
    finally:
        if lock is not None:
            lock.release()
    print(f"saved {out}{os.sep}summary.json, summary.csv, replications.csv (per window), records and manifest.json")
    if args.batsim_jobs:
        _batsim_jobs(out)
    return 0


def platform_line(path: str) -> str:
    """What ``schedlab replay --platform`` replays on, in one line: node types, partitions, queues."""
    from schedlab.model.formats.platform_file import load_platform

    platform = load_platform(path)
    units = {"memory": " GiB memory"}
    types = ", ".join(
        f"{t.count} x {t.name} ({t.cores} cores"
        + "".join(f", {a:g}{units.get(r, ' ' + r)}" for r, a in t.resources.items())
        + ")"
        for t in platform.node_types
    )
    return (
        f"platform {platform.name}: {len(platform.nodes)} nodes, {platform.cores} cores: {types}; "
        f"partitions: {', '.join(platform.partitions) or 'none'}; queues: {', '.join(platform.queues) or 'none'}"
    )


def left_out(records: typing.Any, length: int) -> list[str]:
    """Lines naming the jobs of replayed windows that are not in the metrics, counted per reason."""
    if records is None or records.empty or "status" not in records:
        return []
    lines = []
    keys = [k for k in ("trace", "policy", "backfill") if k in records]
    for key, group in records.groupby(keys, sort=False):
        missing = group[~group["status"].isin(("completed", "timeout"))]  # killed jobs ran: they count
        if missing.empty:
            continue
        why = {
            "rejected": "never fits the machine (wider than it, or a resource it lacks)",
            "waiting": "still waiting when the replay ended",
            "running": "still running when the replay ended",
        }
        counts = ", ".join(f"{n} {why.get(str(s), str(s))}" for s, n in missing["status"].value_counts().items())
        ids = ", ".join(map(str, missing["id"].head(5)))
        more = ", ..." if len(missing) > 5 else ""
        lines.append(
            f"left out of the metrics, {' '.join(map(str, key))}: {len(missing)} of "
            f"{len(group)} jobs in windows of {length}: {counts} (jobs {ids}{more})"
        )
    return lines


def _trace(args: argparse.Namespace) -> int:
    from schedlab.experiment.runner import build_model, sweep_cells
    from schedlab.experiment.scenario import load_scenario, parse_assignments
    from schedlab.experiment.seeding import replication_seeds
    from schedlab.processes.tracing import TracedEnvironment, TraceLog

    scenario = load_scenario(args.script)
    cfg = scenario.config(parse_assignments(args.assign), quick=args.quick)
    cells = sweep_cells(scenario, cfg, None)
    if not 0 <= args.cell < len(cells):
        raise ValueError(f"--cell {args.cell}: the scenario has cells 0..{len(cells) - 1}")
    if args.limit < 1:
        raise ValueError(f"--limit must be >= 1, got {args.limit}")
    log = TraceLog()
    env = TracedEnvironment(tracer=log)
    model = build_model(scenario, cfg, cells[args.cell], replication_seeds(args.seed, 1)[0], env=env)
    if args.until is not None and args.until < 0:
        raise ValueError(f"--until must be >= 0, got {args.until}")
    if args.step:
        return _step(scenario.name, args, cells[args.cell], env, model)
    if args.until is not None:
        env.run(until=args.until)
    else:
        # stop once enough has happened to print: a trace of a million events helps nobody
        while env.peek() != float("inf") and len(log.entries) <= args.limit:
            if model.until is not None and not isinstance(model.until, float | int) and model.until.triggered:
                break
            if isinstance(model.until, float | int) and env.peek() > model.until:
                break
            env.step()
    shown = log.entries[: args.limit]
    print(f"{scenario.name}, cell {args.cell} {cells[args.cell]}, seed {args.seed}: events up to t={env.now:g}")
    print(TraceLog.format(shown))
    if len(log.entries) > args.limit:
        print("... more events follow (raise --limit or set --until)")
    return 0


def _step(name: str, args: argparse.Namespace, cell: dict, env: typing.Any, model: typing.Any) -> int:
    """``schedlab trace --step``: each event taken, what it did, and the event list after it."""
    from schedlab.processes.stepping import Stepper

    stepper = Stepper(env)
    until = args.until if args.until is not None else model.until if isinstance(model.until, float | int) else None
    print(f"{name}, cell {args.cell} {cell}, seed {args.seed}: stepping (at most {args.limit} steps)")
    print(stepper.event_list(3))
    for step in stepper.steps_until(until, limit=args.limit):
        print(step)
        print(stepper.event_list(3))
        if model.until is not None and not isinstance(model.until, float | int) and model.until.triggered:
            break
    if not stepper.done and stepper.steps >= args.limit:
        print("... more events follow (raise --limit or set --until)")
    return 0


def _plot(args: argparse.Namespace) -> int:
    from schedlab.plots import plot_results

    written = plot_results(args.results, args.out, capacity=args.capacity)
    folder = written[0].parent if written else Path(args.out or Path(args.results) / "plots")
    print(f"wrote {len(written)} PNG file(s) in {folder}: {', '.join(p.name for p in written)}")
    return 0


def cli_main() -> None:
    """Call at the bottom of a scenario script: ``python scenarios/x.py`` == ``schedlab run scenarios/x.py``."""
    main_module = sys.modules["__main__"]
    script = getattr(main_module, "__file__", None)
    if script is None:
        raise RuntimeError("cli_main() must be called from a scenario script run as `python script.py`")
    raise SystemExit(main(sys.argv[1:], script=script))


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

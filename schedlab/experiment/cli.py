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

from schedlab.experiment.arguments import build_parser

__all__ = ["cli_main", "main"]


def main(argv: Sequence[str] | None = None, script: str | None = None) -> int:
    """Entry point of ``schedlab`` (and, with ``script``, of ``python scenarios/x.py``)."""
    parser = build_parser(script)
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
        if args.command == "train":
            return _train(args)
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
    if args.batsim_jobs and args.no_records:
        raise ValueError("--batsim-jobs writes the jobs' records: drop --no-records")
    if args.scheduler and args.executor != "dask":
        print(
            f"warning: --scheduler {args.scheduler} is ignored: it is used only with --executor dask", file=sys.stderr
        )
    out = Path(args.out) if args.out else Path("results") / scenario.name
    batsim = BatsimJobs(out) if args.batsim_jobs else None
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
        save_also=batsim,
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
    for line in results.run_info.get("warnings", []):  # the scenario's own (also in manifest.json)
        print(line, file=sys.stderr)
    records = "records and " if results.job_records is not None else ""
    print(f"saved {out}{os.sep}summary.json, summary.csv, replications.csv, {records}manifest.json")
    report = getattr(scenario.module, "report", None)  # a scenario's own post-processing: figures, tables
    if callable(report):
        for path in report(results, out) or []:
            print(f"wrote {path}")
    if batsim is not None:
        print(batsim.line)
    return 0


class BatsimJobs:
    """``--batsim-jobs``: writes ``batsim/*.jobs.csv`` into the save's new folder, so they are saved with the run.

    Written there, they share the save's fate (whole, or not at all) and the run's hold
    on ``out``: no second run can replace ``out`` between the results and them.
    """

    def __init__(self, out: Path) -> None:
        self.out = out
        #: what was written, in one line, once called
        self.line = ""

    def __call__(self, folder: Path) -> None:
        from schedlab.experiment import batsim_export
        from schedlab.experiment.store import OutError

        try:
            written, left_out = batsim_export.write_batsim_jobs(folder)
        except OutError as exc:  # name the file where it was to be saved, not in the save's hidden folder
            raise OutError(str(exc).replace(str(folder), str(self.out))) from None
        note = (
            f"; {left_out} job(s) still waiting or running at the end left out, as Batsim has no state for them"
            if left_out
            else ""
        )
        kinds = sorted({path.name.rsplit("-", 1)[-1] for path in written})  # jobs.csv, schedule.csv, ...
        runs = sum(path.name.endswith("-jobs.csv") for path in written)
        self.line = f"wrote Batsim's {', '.join(kinds)} for {runs} run(s) in {self.out / 'batsim'}{note}"


def _replay(args: argparse.Namespace) -> int:
    from schedlab.experiment.published import published_lines
    from schedlab.experiment.runner import run
    from schedlab.experiment.scenario import load_scenario
    from schedlab.experiment.store import check_out
    from schedlab.replay import log_replay as replay_scenario
    from schedlab.replay.conservative_guarantee import late_lines

    overrides: dict[str, object] = {
        "logs": tuple(args.logs),
        "policies": tuple(args.policy or ["fcfs"]),
        "backfills": tuple(dict.fromkeys(args.backfill or ["none", "easy"])),
        "length": args.length,
        "window_seed": args.seed,
        "compat": args.compat,
        "strict": args.strict,
        "native": not args.no_native,
        "logs_dir": str(Path.cwd().parent / "shared" / "traces"),
        "platform": str(Path(args.platform).resolve()) if args.platform else "",
        "placement": args.placement,
        "queues": args.queues,
        "walltime": args.walltime or "",
        "cpus": args.cpus,
        "idle_shutdown": args.idle_shutdown,
        "dvfs": args.dvfs,
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
    scenario = load_scenario(replay_scenario.__file__)
    cfg = scenario.config(overrides)
    out = Path(args.out) if args.out else Path("results") / "replay"
    batsim = BatsimJobs(out) if args.batsim_jobs else None
    # the default folder is replaced by each run; the lock keeps a second replay (or run) out of it till saved
    lock = check_out(out, overwrite=args.overwrite or not args.out, settings="replay")
    try:
        for name in cfg.logs:  # what was read, kept and dropped, and why: skips are counted, never silent
            loaded = replay_scenario.read_log(cfg, name)
            if cfg.platform:
                print(f"{loaded.report}; {platform_line(cfg.platform)}")
            else:
                print(f"{loaded.report}; machine {loaded.cpus} {'nodes' if cfg.compat == 'rlscheduler' else 'CPUs'}")
        results = run(scenario, overrides=overrides, reps=cfg.n_windows, executor=args.executor, workers=args.workers)
        for line in results.run_info.get("warnings", []):  # the scenario's (run() keeps them in manifest.json)
            print(line, file=sys.stderr)
        for row in results.rows:
            row["windows"] = cfg.n_windows
        print(f"replay: {cfg.n_windows} window(s) of {cfg.length} jobs, compat {cfg.compat}, walltime {cfg.walltime}")
        print(results.table())
        for line in left_out(results.records, cfg.length):
            print(line)
        for line in late_lines(results.replications, cfg.length):
            print(line)
        for line in published_lines(results.rows, cfg):
            print(line)
        results.save(out, lock=lock, also=batsim)
    finally:
        if lock is not None:
            lock.release()
    print(f"saved {out}{os.sep}summary.json, summary.csv, replications.csv (per window), records and manifest.json")
    if batsim is not None:
        print(batsim.line)
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
    keys = [k for k in ("log", "trace", "policy", "backfill") if k in records]  # trace: the log's old column
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

    written = plot_results(args.results, args.out, capacity=args.capacity, cell=args.cell, rep=args.rep)
    folder = written[0].parent if written else Path(args.out or Path(args.results) / "plots")
    print(f"wrote {len(written)} PNG file(s) in {folder}: {', '.join(p.name for p in written)}")
    return 0


def _train(args: argparse.Namespace) -> int:
    from schedlab.experiment.train_command import train_command

    return train_command(args)


def cli_main() -> None:
    """Call at the bottom of a scenario script: ``python scenarios/x.py`` == ``schedlab run scenarios/x.py``."""
    main_module = sys.modules["__main__"]
    script = getattr(main_module, "__file__", None)
    if script is None:
        raise RuntimeError("cli_main() must be called from a scenario script run as `python script.py`")
    raise SystemExit(main(sys.argv[1:], script=script))


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

"""Real logs as replay input: a cleaned log in memory, windows of it, the schedule that ran, a window's metrics.

Plain data (no SimPy). The protocol of RL-scheduling papers: take windows of L
consecutive jobs of the loaded, cleaned log, replay each alone on an empty machine
(:func:`schedlab.processes.machine.replay.replay_model`; only its jobs arrive, at their recorded
submit times, and run for their recorded run times), and report per window and on
average the bounded slowdown (10 s threshold), mean wait, mean response and
utilization (:func:`evaluate`). The *native* baseline is the schedule that actually
ran, rebuilt from the waits the log records (:class:`NativeSchedule`).

The names this module had before issue 34's vocabulary (:data:`RENAMED`), and its old module
path, still work with a :class:`DeprecationWarning`: a tutorial used them.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from schedlab.model.analysis import metrics
from schedlab.model.core.job import Job
from schedlab.model.formats.swf.errors import SWFError
from schedlab.model.formats.swf.reader import SWFLog, read_swf
from schedlab.model.formats.swf.records import SWFRecord
from schedlab.model.records.job_record import JobRecord, Status
from schedlab.model.records.table import job_record

__all__ = [
    "BSLD_THRESHOLD",
    "COMPATS",
    "LOGS_DIR",
    "LoadedLog",
    "NativeSchedule",
    "check_logs",
    "evaluate",
    "load_log",
    "log_name",
    "log_name_problem",
    "log_path",
    "logs_dir_problem",
    "pick_windows",
]

COMPATS = ("none", "rlscheduler")
#: bounded-slowdown threshold for logs (seconds), as in the RL-scheduling papers
BSLD_THRESHOLD = 10.0


@dataclass(frozen=True)
class LoadedLog:
    """A cleaned log in memory: its jobs, the machine they ran on, and their recorded waits."""

    path: str
    jobs: tuple[Job, ...]
    recorded_wait: np.ndarray  # per job, nan where the log has none
    cpus: int  # CPUs of the machine the replay uses (nodes under rlscheduler)
    procs_per_node: int  # the log's CPUs per node (RLScheduler's name): 1 unless compat="rlscheduler"
    report: str

    @property
    def procs(self) -> int:
        """Deprecated: :attr:`cpus` (issue 34's vocabulary; a tutorial read the machine size by this name)."""
        warnings.warn("LoadedLog.procs is now LoadedLog.cpus", DeprecationWarning, stacklevel=2)
        return self.cpus


def _to_nodes(job: Job, per_node: int) -> Job:
    return replace(job, cpus=math.ceil(job.cpus / per_node))


def load_log(
    name_or_path: str | Path,
    compat: str = "none",
    strict: bool = False,
    memory: bool = False,
    cpus: int | None = None,
    *,
    root: Path | None = None,
) -> LoadedLog:
    """An SWF log by path, or by name in ``../shared/traces`` (or ``root``), read and cleaned once per process.

    The front door's way to a log (``from schedlab import load_log``). :func:`log_path`
    finds it; replays of many windows of one log share one reading (cached by the file's
    path and the arguments).

    A log whose header gives MaxNodes but no MaxProcs is read as one CPU per node. Under
    ``compat="rlscheduler"`` the machine is the header's MaxNodes nodes of MaxProcs /
    MaxNodes CPUs, and every job asks for whole nodes:
    ``ceil(CPUs / CPUs per node)``.

    Requested memory (SWF field 10) is left out of the jobs unless ``memory``: then it
    stays in ``demands["memory"]`` as the log gives it (kilobytes per CPU), for
    a platform with node memory to map (:meth:`~schedlab.model.core.platform.Platform.swf_job`).

    ``cpus`` is the machine's CPU count where the header gives none (or to replay the log
    on another size); by default the header's MaxProcs.
    """
    return _read_log(str(log_path(str(name_or_path), root)), compat, strict, memory, cpus)


@lru_cache(maxsize=4)
def _read_log(path: str, compat: str, strict: bool, memory: bool, cpus: int | None) -> LoadedLog:
    if compat not in COMPATS:
        raise ValueError(f"unknown compat {compat!r}; choose from {', '.join(COMPATS)}")
    mode = None if compat == "none" else compat
    # e.g. the Lublin model's log gives only MaxNodes: one CPU per node
    swf: SWFLog = read_swf(path, strict=strict, compat=mode, nodes_as_procs=True, machine_procs=cpus)
    size = swf.machine_procs
    records: list[SWFRecord] = []
    jobs: list[Job] = []
    for record, job in swf.pairs():
        records.append(record)
        jobs.append(job)
    # A log is in submit order; one that is not would stop the replay's source midway. Strict reading says
    # where; lenient reading sorts (stably: equal submit times keep the log's order) and says so.
    late = [i for i in range(1, len(jobs)) if jobs[i].submit < jobs[i - 1].submit]
    if late and strict:
        r = records[late[0]]
        raise SWFError(
            f"{path}:{r.line}: field 'submit_time' (2): {r.submit_time!r} is before the previous "
            f"job's submit time {records[late[0] - 1].submit_time!r}: the log is not in submit order",
            path=str(path),
            line=r.line,
            field="submit_time",
            value=r.submit_time,
        )
    first_late = records[late[0]].line if late else None
    if late:
        order = sorted(range(len(jobs)), key=lambda i: jobs[i].submit)
        jobs, records = [jobs[i] for i in order], [records[i] for i in order]
    # The replay machine models CPUs only: a memory request would make the job "never fit" and
    # drop it from every metric (half of HPC2N's jobs). The request is left out, and the report says so.
    with_demands = sum(1 for j in jobs if j.demands)
    if with_demands and not memory:
        jobs = [replace(j, demands={}) if j.demands else j for j in jobs]
    per_node = 1
    if compat == "rlscheduler":
        nodes = swf.header.max_nodes or size
        per_node = max(1, size // nodes)
        size = nodes
        jobs = [_to_nodes(j, per_node) for j in jobs]
    waits = np.array([r.wait_time if r.wait_time >= 0 else np.nan for r in records], dtype=float)
    report = str(swf.report)
    if late:
        report += f"\n  note: {len(late)} jobs were out of submit order (first at line {first_late}); sorted"
    if with_demands and not memory:
        report += (
            f"\n  note: {with_demands} jobs request memory; the replay machine models CPUs only, "
            "so the requests are ignored"
        )
    return LoadedLog(str(path), tuple(jobs), waits, int(size), per_node, report)


def pick_windows(
    n_jobs: int, length: int, *, starts: Sequence[int] | None = None, count: int | None = None, seed: int = 0
) -> list[int]:
    """Start positions of windows of ``length`` jobs: given explicitly, or ``count`` drawn from ``seed``.

    Positions are 0-based indices in the loaded, cleaned job list. Drawn starts are
    uniform over the valid positions, without replacement where there are enough.
    """
    if length < 1:
        raise ValueError(f"window length must be >= 1, got {length}")
    if length > n_jobs:
        raise ValueError(f"window length {length} is longer than the log's {n_jobs} jobs")
    last = n_jobs - length
    if starts is not None:
        bad = [s for s in starts if not 0 <= s <= last]
        if bad:
            raise ValueError(f"window starts {bad} out of range: a window of {length} jobs starts in 0..{last}")
        return [int(s) for s in starts]
    if count is None or count < 1:
        raise ValueError(f"give window starts, or a number of windows >= 1 (got {count})")
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0x57F,)))
    replace_ = count > last + 1
    return sorted(int(s) for s in rng.choice(last + 1, size=count, replace=replace_))


class NativeSchedule:
    """The schedule that actually ran: each job starts at submit + its recorded wait."""

    def __init__(self, jobs: Sequence[Job], waits: Sequence[float]) -> None:
        self.records: list[JobRecord] = []
        for job, wait in zip(jobs, waits, strict=True):
            if math.isnan(wait):
                continue
            start = job.submit + wait
            self.records.append(
                job_record(
                    job,
                    "native",
                    Status.COMPLETED,
                    start=start,
                    end=start + job.runtime,
                    cpu_time=job.cpus * job.runtime,
                )
            )

    def all_records(self) -> list[JobRecord]:
        """The records of the jobs as they ran (a copy)."""
        return list(self.records)


def evaluate(records: Sequence[JobRecord], cpus: int) -> dict[str, float]:
    """Bounded slowdown (10 s), mean wait, mean response and utilization of one window.

    Jobs killed at their time limit (``TIMEOUT``, under ``walltime="kill"``) are read
    as a Slurm simulator's users read them: they ran, so they count.

    - ``wait``: every job that ran, completed or killed.
    - ``bounded_slowdown`` and ``response``: completed and killed jobs; a killed job's
      run time is the time it ran (``end - start``), not the runtime the log records,
      which it never got to.
    - ``utilization``: the CPU-time of completed and killed jobs (a killed job's is
      what it held until the kill) over ``cpus`` times the span from the first
      submission to the last end.
    - ``jobs``: the completed jobs; ``killed``: the killed ones.

    Rejected jobs, and jobs still waiting or running when the replay stopped, are in
    none of the figures.
    """
    done = [r for r in records if r.status is Status.COMPLETED]
    killed = [r for r in records if r.status is Status.TIMEOUT]
    if not done and not killed:
        return {
            "bounded_slowdown": math.nan,
            "wait": math.nan,
            "response": math.nan,
            "utilization": math.nan,
            "jobs": 0.0,
            "killed": 0.0,
        }
    ran = done + killed
    first = min(r.submit for r in ran)
    last = max(r.end for r in ran)
    # the metrics functions read completed jobs, and a killed job's run time is its service
    as_done = done + [r._replace(status=Status.COMPLETED, runtime=r.service) for r in killed]
    return {
        "bounded_slowdown": float(metrics.bounded_slowdown(as_done, BSLD_THRESHOLD).mean()),
        "wait": float(metrics.wait(as_done).mean()),
        "response": float(metrics.response(as_done).mean()),
        "utilization": metrics.utilization(as_done, cpus, first, last) if last > first else math.nan,
        "jobs": float(len(done)),
        "killed": float(len(killed)),
    }


#: where a config looks logs up by default (relative to the working folder: beside the repository)
LOGS_DIR = "../shared/traces"


def logs_dir_problem(folder: str) -> str | None:
    """Why ``folder`` cannot be a config's logs folder (None when it can).

    The default, :data:`LOGS_DIR`, may be absent (a machine without the logs: the
    loader says so when a log is read); any other folder must exist.
    """
    if not folder.strip():
        return "is empty: give the folder logs are looked up in"
    if folder != LOGS_DIR and not Path(folder).expanduser().is_dir():
        return "is not a folder"
    return None


def check_logs(names: tuple[str, ...] | list[str], folder: str | None) -> None:
    """Raise ValueError naming the first of ``names`` (or ``folder``) that cannot be a log (a config's check).

    The folder is checked only where a name is not a file's path: logs given by path
    run from anywhere.
    """
    by_name = [name for name in names if not Path(name).expanduser().is_file()]
    if folder is not None and by_name and (why := logs_dir_problem(folder)):
        raise ValueError(f"logs_dir={folder!r} {why}")
    for name in names:
        if why := log_name_problem(name, Path(folder).expanduser() if folder is not None else None):
            raise ValueError(f"log {name!r} {why}")


def log_name_problem(name_or_path: str, root: Path | None = None) -> str | None:
    """Why ``name_or_path`` cannot name a log (None when it can): a config's check, before any work.

    A path to a file, or a log's name in ``root`` (default ``../shared/traces``),
    passes. Where ``root`` is not a folder at all (a machine without the logs) the
    name is left to :func:`log_path`, which says so when the log is read.
    """
    if not name_or_path.strip():
        return "is empty: give a log's path, or its name in the traces folder"
    base = root or Path.cwd().parent / "shared" / "traces"
    try:
        log_path(name_or_path, base)
    except FileNotFoundError:
        if not base.is_dir():
            return None
        logs = sorted(log_name(f.name) for f in base.iterdir() if f.name.endswith((".swf", ".swf.gz", ".json")))
        return f"is neither a file nor a log in {base} (it holds: {', '.join(logs) or 'no logs'})"
    return None


def log_name(name_or_path: str) -> str:
    """A log's name, as models and results are filed under it: no folder, no ``.gz`` or ``.swf`` suffix."""
    return Path(name_or_path).name.removesuffix(".gz").removesuffix(".swf")


def log_path(name_or_path: str, root: Path | None = None) -> Path:
    """A log by path, or by name in ``../shared/traces`` (``UniLu-Gaia-2014-1`` finds the .swf.gz)."""
    p = Path(name_or_path).expanduser()
    if p.is_file():
        return p
    base = root or Path.cwd().parent / "shared" / "traces"
    for candidate in (base / name_or_path, base / f"{name_or_path}.swf.gz", base / f"{name_or_path}.swf"):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"log {name_or_path!r} not found (as a path, or by name in {base})")


#: the names before issue 34's vocabulary -> today's (a tutorial used them)
RENAMED = {"load_trace": "load_log", "trace_path": "log_path", "LoadedTrace": "LoadedLog"}  # old name kept


def __getattr__(name: str) -> object:
    """An old name of :data:`RENAMED`: today's object, with a DeprecationWarning."""
    if name in RENAMED:
        warnings.warn(f"{__name__}.{name} is now {RENAMED[name]}", DeprecationWarning, stacklevel=2)
        return globals()[RENAMED[name]]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

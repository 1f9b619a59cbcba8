"""Batsim's files: its workload JSON read as schedlab jobs, and schedlab's records written as its ``jobs.csv``.

**In.** A Batsim workload is JSON: ``{"nb_res": N, "jobs": [...], "profiles": {...}}``.
A job has ``id``, ``subtime`` (submission, s), ``res`` (resources asked), ``profile``
(a name in ``profiles``) and, optionally, ``walltime`` (s; a job is killed there). Its
profile says how long it runs (:mod:`schedlab.model.formats.batsim_profiles`: ``delay``,
``parallel_homogeneous`` at the platform's speed, and ``composed`` sequences of them; any
other type is refused by name). So a job becomes
``Job(id, submit=subtime, runtime=seconds, cpus=res, estimate=walltime)``, its profile's
name kept as its ``job_class``. Ids must be whole numbers (schedlab's job ids are) and
unique; a walltime of -1 or none means no limit.

Every error is one line that names the file, the job (its position and id) and the
field, including a truncated file: it says which job it was reading.

**Out.** :func:`jobs_csv` writes Batsim's ``jobs.csv``: the columns in the order
Batsim's ``src/export.cpp`` (``JobsTracer``) writes them, numbers as its
``to_string(double)`` prints them (six decimals), the final states
``COMPLETED_SUCCESSFULLY`` (success 1), ``COMPLETED_WALLTIME_REACHED`` (killed at its
time limit), ``COMPLETED_KILLED`` and ``REJECTED`` (times left empty, as Batsim leaves
them). One row per run of a job: a job that node failures killed and requeued has a
``COMPLETED_KILLED`` row per killed run, named and timed as Batsim names and times a
resubmitted job (:mod:`schedlab.model.formats.batsim_attempts`: ``1``, ``1#1``, ...,
each run's wait from its own submission). ``allocated_resources`` is the interval set
of the CPUs (or a cluster's cores) the run held, empty from a machine that gives
no ids; ``consumed_energy`` the joules it consumed on a platform whose nodes give
their power (else -1, no energy model), and ``metadata`` is ``""``. A job still
waiting or running when the run stopped has no final state: Batsim never writes one,
and it is left out and counted.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schedlab.model.core.job import Job, JobError
from schedlab.model.formats.batsim_attempts import attempts
from schedlab.model.formats.batsim_profiles import ProfileError, profile_seconds
from schedlab.model.records.job_record import JobRecord, Status
from schedlab.model.records.node_fail import NodeKill

__all__ = ["JOBS_CSV_COLUMNS", "BatsimWorkload", "BatsimWorkloadError", "jobs_csv", "read_batsim_workload"]

#: Batsim's jobs.csv columns, in the order src/export.cpp writes them
JOBS_CSV_COLUMNS = (
    "job_id",
    "workload_name",
    "profile",
    "submission_time",
    "requested_number_of_resources",
    "requested_time",
    "success",
    "final_state",
    "starting_time",
    "execution_time",
    "finish_time",
    "waiting_time",
    "turnaround_time",
    "stretch",
    "allocated_resources",
    "consumed_energy",
    "metadata",
)
#: a record's status -> Batsim's final state
FINAL_STATES = {
    Status.COMPLETED: "COMPLETED_SUCCESSFULLY",
    Status.TIMEOUT: "COMPLETED_WALLTIME_REACHED",
    Status.NODE_FAIL: "COMPLETED_KILLED",
    Status.REJECTED: "REJECTED",
}


class BatsimWorkloadError(ValueError):
    """A Batsim workload that cannot be read: the message is one line naming the file, job and field."""


@dataclass(frozen=True)
class BatsimWorkload:
    """A Batsim workload read as schedlab jobs (in submission order)."""

    path: str
    jobs: tuple[Job, ...]
    #: ``nb_res``: the resources of the platform it was written for (None where not given)
    nb_res: int | None
    #: where the file's job ids are names (``"seq-1-rep1"``, as in Batsim's own workloads), each
    #: job's name by the number schedlab gives it (its place in the file, from 1); empty otherwise
    names: tuple[str, ...] = ()


def _where_truncated(text: str, position: int) -> str:
    """Which job a parse error at ``position`` falls in: the last ``"id"`` before it."""
    ids = re.findall(r'"id"\s*:\s*"?([^",}\s]*)', text[:position])
    if not ids:
        return "before the first job"
    return f"in job {len(ids) - 1} (id {ids[-1]!r})"


def _number(value: Any, where: str, field: str, *, low: float, whole: bool = False, strict: bool = False) -> float:
    ok = (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and (value > low if strict else value >= low)
        and (not whole or int(value) == value)
    )
    if not ok:
        kind = "a whole number" if whole else "a finite number"
        raise BatsimWorkloadError(
            f"{where}: field {field!r} must be {kind} {'>' if strict else '>='} {low:g}, got {value!r}"
        )
    return value


def read_batsim_workload(path: str | Path, flops: float | None = None) -> BatsimWorkload:
    """Read a Batsim workload JSON file; ``flops``: the hosts' pstate 0 speed, for flop profiles.

    Raises
    ------
    BatsimWorkloadError
        One line naming the file, the job and the field: not JSON (or truncated, with
        the job it was reading), a missing or wrong field, a repeated id, an unknown
        profile, a profile type not replayed (named), flops without a platform speed.
    """
    path = Path(path)
    text = path.read_text()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BatsimWorkloadError(
            f"{path}: not valid JSON (truncated?) at line {exc.lineno} column {exc.colno}, "
            f"{_where_truncated(text, exc.pos)}: {exc.msg}"
        ) from None
    if not isinstance(data, dict) or not isinstance(data.get("jobs"), list):
        raise BatsimWorkloadError(
            f"{path}: a Batsim workload is an object with a list 'jobs', got "
            f"{type(data).__name__}{' without jobs' if isinstance(data, dict) else ''}"
        )
    profiles = data.get("profiles", {})
    if not isinstance(profiles, dict):
        raise BatsimWorkloadError(f"{path}: field 'profiles' must be an object of named profiles")
    nb_res = data.get("nb_res")
    if nb_res is not None:
        nb_res = int(_number(nb_res, str(path), "nb_res", low=1, whole=True))
    jobs = []
    seen: dict[str, int] = {}  # id -> the position of the job that has it
    # schedlab numbers its jobs: a file whose ids are names gets numbers, its place in the file from 1
    named = _names(data["jobs"])
    for k, raw in enumerate(data["jobs"]):
        where = f"{path}: job {k}"
        if not isinstance(raw, dict):
            raise BatsimWorkloadError(f"{where}: a job is an object, got {raw!r}")
        where = f"{path}: job {k} (id {raw.get('id')!r})"
        for field in ("id", "subtime", "res", "profile"):
            if field not in raw:
                raise BatsimWorkloadError(f"{where}: field {field!r} is missing")
        key = str(raw["id"])
        if key in seen:
            raise BatsimWorkloadError(
                f"{where}: field 'id' repeats the id of job {seen[key]} (Batsim's job ids are unique), "
                f"got {raw['id']!r}"
            )
        seen[key] = k
        job_id = int(key) if named is None else k + 1
        profile_name = raw["profile"]
        res = _number(raw["res"], where, "res", low=1, whole=True)
        try:
            seconds = profile_seconds(profile_name, profiles, int(res), flops)
        except ProfileError as exc:
            problem = str(exc)
            if problem.startswith("names no profile"):  # the job's own field is wrong
                problem = f"field 'profile' {problem}"
            raise BatsimWorkloadError(f"{where}: {problem}") from None
        submit = _number(raw["subtime"], where, "subtime", low=0)
        walltime = raw.get("walltime", -1)
        if walltime is not None and walltime != -1:
            walltime = _number(walltime, where, "walltime", low=0, strict=True)
        try:
            jobs.append(
                Job(
                    job_id,
                    float(submit),
                    seconds,
                    cpus=int(res),
                    estimate=None if walltime in (None, -1) else float(walltime),
                    job_class=profile_name,
                )
            )
        except JobError as exc:  # anything Job itself refuses, named in the file
            raise BatsimWorkloadError(f"{where}: {exc}") from None
    jobs.sort(key=lambda job: job.submit)  # stable: jobs submitted together keep the file's order
    return BatsimWorkload(str(path), tuple(jobs), nb_res, named or ())


def _names(raw_jobs: list[Any]) -> tuple[str, ...] | None:
    """The jobs' ids as names, where any of them is not a whole number; None where all are."""
    ids = [str(raw.get("id")) if isinstance(raw, dict) else "" for raw in raw_jobs]
    if all(re.fullmatch(r"-?\d+", i) for i in ids):
        return None
    return tuple(ids)


def _f(x: float) -> str:
    return f"{x:.6f}"  # C++'s to_string(double)


def jobs_csv(
    records: Iterable[JobRecord],
    *,
    workload_name: str = "w0",
    energy: Mapping[Any, float] | None = None,
    kills: Iterable[NodeKill] = (),
    allocations: Iterable[tuple[Any, str, float, float]] = (),
) -> tuple[str, int]:
    """Batsim's ``jobs.csv`` for ``records``, and how many jobs it left out (still waiting or running).

    One row per run of a job (:func:`~schedlab.model.formats.batsim_attempts.attempts`):
    a job that node failures killed and requeued gets a ``COMPLETED_KILLED`` row per
    killed run, ``<id>#k`` from the second run on, each submitted when the run before
    it was killed.

    Parameters
    ----------
    records
        One run's job records.
    workload_name
        The ``workload_name`` column (Batsim names its first workload ``w0``).
    energy
        Per job id, the joules it consumed (:func:`schedlab.model.analysis.energy.energy`);
        -1 where not given, as without an energy model.
    kills
        The run's node kills (``node_kills.csv``): a requeued job's killed runs.
    allocations
        The run's ``(job, procs, start, end)`` rows (``allocations.csv``): the ids of
        each killed run.
    """
    lines = [",".join(JOBS_CSV_COLUMNS)]
    left_out = 0
    for a in attempts(records, kills, allocations, energy):
        r, status = a.record, a.status
        if status in (Status.WAITING, Status.RUNNING):
            left_out += 1
            continue
        state = FINAL_STATES.get(status, "COMPLETED_KILLED")
        row = [
            a.job_id,
            workload_name,
            str(r.job_class),
            _f(a.submit),
            str(int(r.cpus)),
            _f(r.estimate),
            "1" if status is Status.COMPLETED else "0",
            state,
        ]
        if status is Status.REJECTED:
            row += ["", "", "", "", "", ""]
        else:
            run = a.end - a.start
            turnaround = a.end - a.submit
            row += [
                _f(a.start),
                _f(run),
                _f(a.end),
                _f(a.start - a.submit),  # this run's wait, from its own submission
                _f(turnaround),
                _f(turnaround / run) if run > 0 else "",
            ]
        row += [
            a.allocation,  # this run's ids ("" from a machine that gives none)
            "" if status is Status.REJECTED else "-1" if a.joules is None else _f(a.joules),
            '""',
        ]
        lines.append(",".join(row))
    return "\n".join(lines) + "\n", left_out

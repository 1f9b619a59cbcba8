"""Batsim's ``schedule.csv``: one row that sums up a run, its columns in Batsim's (alphabetical) order.

Batsim 4 (``JobsTracer::finalize`` in its ``src/export.cpp``) writes a header and one
row, the columns sorted by name, numbers as C++'s ``to_string`` prints them (six
decimals). Its job metrics count every Batsim job, that is every run of a job here
(:mod:`schedlab.model.formats.batsim_attempts`: a requeued job's killed runs are jobs
of their own), and as Batsim does:

- ``nb_jobs``: the jobs written in ``jobs.csv``; ``nb_jobs_finished`` those not
  rejected, ``nb_jobs_success`` those ``COMPLETED_SUCCESSFULLY``, ``nb_jobs_killed``
  the finished ones that did not succeed, ``nb_jobs_rejected``; ``success_rate`` =
  success / jobs;
- ``mean_waiting_time``, ``mean_turnaround_time``, ``mean_slowdown``: sums over the
  finished jobs divided by ``nb_jobs`` (Batsim divides by every job, rejected ones
  included); slowdown is turnaround over execution time (a run of no time has none);
- ``makespan``: the last finish time (Batsim 4's: the completion time of the last job);
- ``consumed_joules``: the platform's joules from the first submission to the last
  finish (0 without an energy model, as Batsim's difference of two zeros);
- ``nb_computing_machines`` and ``time_*``: the machines and their seconds in each
  state (:mod:`schedlab.model.formats.batsim_machine_states`); ``nb_machine_switches``
  the nodes switched off or on (one per switch), ``nb_grouped_switches`` the switches
  asked for together (one per time and direction); DVFS pstate changes are not counted;
- ``scheduling_time`` and ``simulation_time`` (real seconds): schedlab times a run as a
  whole, not its scheduler apart, so both are the run's seconds per replay it made;
- ``batsim_version``: ``schedlab`` and its version, the program that wrote the file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from schedlab.model.formats.batsim_attempts import Attempt
from schedlab.model.records.job_record import Status

__all__ = ["SCHEDULE_COLUMNS", "schedule_csv"]

#: Batsim 4's schedule.csv columns, sorted by name as its std::map writes them
SCHEDULE_COLUMNS = (
    "batsim_version",
    "consumed_joules",
    "makespan",
    "max_slowdown",
    "max_turnaround_time",
    "max_waiting_time",
    "mean_slowdown",
    "mean_turnaround_time",
    "mean_waiting_time",
    "nb_computing_machines",
    "nb_grouped_switches",
    "nb_jobs",
    "nb_jobs_finished",
    "nb_jobs_killed",
    "nb_jobs_rejected",
    "nb_jobs_success",
    "nb_machine_switches",
    "scheduling_time",
    "simulation_time",
    "success_rate",
    "time_computing",
    "time_idle",
    "time_sleeping",
    "time_switching_off",
    "time_switching_on",
    "time_unavailable",
)


def _f(x: float) -> str:
    return f"{x:.6f}"  # C++'s to_string(double)


def schedule_csv(
    runs: Iterable[Attempt],
    *,
    machines: int,
    state_seconds: Mapping[str, float],
    joules: float,
    switches: Iterable[tuple[str, str, float]] = (),
    seconds: float = 0.0,
    version: str = "schedlab",
) -> str:
    """Batsim's ``schedule.csv`` for a run's jobs (``runs``: the runs that reached a final state).

    ``switches``: ``(machine, direction, time)`` per node switched off or on;
    ``seconds``: the real seconds the replay took.
    """
    done = [a for a in runs if a.status not in (Status.WAITING, Status.RUNNING)]
    finished = [a for a in done if a.status is not Status.REJECTED]
    waits = [a.start - a.submit for a in finished]
    turnarounds = [a.end - a.submit for a in finished]
    slowdowns = [(a.end - a.submit) / (a.end - a.start) for a in finished if a.end > a.start]
    n = len(done)
    success = sum(a.status is Status.COMPLETED for a in finished)
    moves = list(switches)
    row = {
        "batsim_version": version,
        "consumed_joules": _f(joules),
        "makespan": _f(max((a.end for a in finished), default=0.0)),
        "max_slowdown": _f(max(slowdowns, default=0.0)),
        "max_turnaround_time": _f(max(turnarounds, default=0.0)),
        "max_waiting_time": _f(max(waits, default=0.0)),
        "mean_slowdown": _f(sum(slowdowns) / n if n else 0.0),
        "mean_turnaround_time": _f(sum(turnarounds) / n if n else 0.0),
        "mean_waiting_time": _f(sum(waits) / n if n else 0.0),
        "nb_computing_machines": str(machines),
        "nb_grouped_switches": str(len({(d, t) for _, d, t in moves})),
        "nb_jobs": str(n),
        "nb_jobs_finished": str(len(finished)),
        "nb_jobs_killed": str(len(finished) - success),
        "nb_jobs_rejected": str(n - len(finished)),
        "nb_jobs_success": str(success),
        "nb_machine_switches": str(len(moves)),
        "scheduling_time": _f(seconds),
        "simulation_time": _f(seconds),
        "success_rate": _f(success / n if n else 0.0),
    }
    for state in ("computing", "idle", "sleeping", "switching_off", "switching_on", "unavailable"):
        row[f"time_{state}"] = _f(state_seconds.get(state, 0.0))
    return ",".join(SCHEDULE_COLUMNS) + "\n" + ",".join(row[c] for c in SCHEDULE_COLUMNS) + "\n"

"""A run's schedule as SWF records: what happened to each job, node failures' partial executions included.

:func:`schedule_records` turns a run's job records (and, with node failures, the
machine's :class:`~schedlab.model.records.node_fail.NodeKill` list) into
:class:`~schedlab.model.formats.swf.records.SWFRecord`\\ s, which
:func:`~schedlab.model.formats.swf.writer.write_swf` writes (``records=``). So a
simulated schedule is saved as a log of the Parallel Workloads Archive records one:
wait, run time and status per job.

Status (SWF field 11): 1 completed; 0 failed (killed at its time limit, or dropped
after a node failure); 5 cancelled (rejected: wait and run time -1). A job that node
failures killed and requeued is written as SWF writes a job with partial executions:
a summary line (its final status; wait to its first start, run time from its first
start to its end), then one line per execution under the same job number, status 2
for each one a failure cut short (its wait is to that execution's start), and 3 (or 4
if it failed) for the last. The number of status-2 lines is the job's restart count,
the record's ``restarts``; the kills give each execution's times, and a job whose
record and kills disagree on the count is an error (a ValueError naming the job).
Jobs still waiting or running when the run stopped have no SWF state: they are left
out and counted.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from schedlab.model.formats.swf.records import SWFRecord
from schedlab.model.records.job_record import JobRecord, Status
from schedlab.model.records.node_fail import NodeKill

__all__ = ["SWF_STATUS", "schedule_records"]

#: a record's status -> SWF's status field (the final line of a job)
SWF_STATUS = {Status.COMPLETED: 1, Status.TIMEOUT: 0, Status.NODE_FAIL: 0, Status.REJECTED: 5}
#: SWF's partial executions: continued, last and completed, last and failed
_PARTIAL, _LAST_DONE, _LAST_FAILED = 2, 3, 4


def _label(text: str) -> int:
    return int(text) if text.isascii() and text.isdigit() else -1


def _line(r: JobRecord, wait: float, run: float, status: int) -> SWFRecord:
    estimate = r.estimate if r.estimate == r.estimate else -1
    return SWFRecord(
        r.id,
        r.submit,
        wait,
        run,
        r.cpus,
        -1,
        -1,
        r.cpus,
        estimate,
        -1,
        status,
        -1,
        _label(r.group),
        -1,
        _label(r.job_class),
        -1,
        -1,
        -1,
    )


def schedule_records(records: Iterable[JobRecord], kills: Iterable[NodeKill] = ()) -> tuple[list[SWFRecord], int]:
    """The SWF lines of a run's schedule, in the records' order, and how many jobs were left out (unfinished).

    ``kills`` are the machine's ``node_kills``: a record with ``restarts`` n needs its n
    requeued kills, for the times of its partial executions. Raises ValueError if a job that
    ends here has an id SWF cannot hold (not a whole number), or if its record's restart
    count is not the number of its requeued kills.
    """
    killed: dict[Any, list[NodeKill]] = {}
    for k in kills:
        if k.outcome == "requeued":  # a dropped job's kill is its final record
            killed.setdefault(k.job, []).append(k)
    out: list[SWFRecord] = []
    left_out = 0
    for r in records:
        status = SWF_STATUS.get(r.status)
        if status is None:
            left_out += 1
            continue
        if not isinstance(r.id, int):
            raise ValueError(f"job {r.id!r}: SWF job numbers are whole numbers")
        if r.status is Status.REJECTED:
            out.append(_line(r, -1, -1, status))
            continue
        parts = sorted(killed.get(r.id, ()), key=lambda k: k.attempt)
        if len(parts) != r.restarts:
            raise ValueError(
                f"job {r.id}: its record says {r.restarts} restarts, but {len(parts)} requeued node kills "
                "of it were given (pass the machine's node_kills of this run)"
            )
        if not parts:
            out.append(_line(r, r.wait, r.service, status))
            continue
        first = parts[0].start
        out.append(_line(r, first - r.submit, r.end - first, status))
        out += [_line(r, k.start - r.submit, k.time - k.start, _PARTIAL) for k in parts]
        out.append(_line(r, r.wait, r.service, _LAST_DONE if status == 1 else _LAST_FAILED))
    return out, left_out

"""The columns of an SWF data line (:data:`SWF_FIELDS`), and the bound below which floats are written as ints."""

from __future__ import annotations

__all__ = ["SWF_FIELDS"]

#: the 18 SWF fields, in column order (snake_case names of :class:`SWFRecord`)
SWF_FIELDS: tuple[str, ...] = (
    "job_number",
    "submit_time",
    "wait_time",
    "run_time",
    "allocated_procs",
    "avg_cpu_time",
    "used_memory",
    "requested_procs",
    "requested_time",
    "requested_memory",
    "status",
    "user_id",
    "group_id",
    "executable",
    "queue",
    "partition",
    "preceding_job",
    "think_time",
)

#: integral floats below this are written (and read) as ints without losing a bit
_EXACT_INT = 2**53

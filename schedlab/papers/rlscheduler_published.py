"""RLScheduler's published results (Zhang et al., SC 2020): the table its README gives, as data.

"Results of Scheduling Towards average bounded slowdown" in the README of
DIR-LAB/deep-batch-scheduler (its ``make_table_script.py --score_type bsld``): the mean
bounded slowdown over 10 windows of 1,024 jobs, drawn with seed 1 (SDSC-SP2 and HPC2N
within their first 10,000 jobs), each replayed on an empty machine, without and with
EASY backfilling. Heuristics WFP3 and UNICEP there are RLScheduler's own readings
(:func:`~schedlab.model.formats.window_draw` explains the draw;
``schedlab.policies.scoring.wfp3_rlscheduler`` the scores).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LOGS", "POLICIES", "PUBLISHED_BSLD", "ProtocolLog", "best_heuristic"]


@dataclass(frozen=True)
class ProtocolLog:
    """One log of the published protocol: its name in ``../shared/traces`` and how windows are drawn from it."""

    label: str  # as RLScheduler's table names it
    name: str  # file name (without .swf.gz) in ../shared/traces
    draw_within: int  # RLScheduler's batch_job_slice: starts drawn among the first N jobs (0: all)


#: the four logs of the table, in its order
LOGS: tuple[ProtocolLog, ...] = (
    ProtocolLog("Lublin-1", "lublin_256", 0),
    ProtocolLog("SDSC-SP2", "SDSC-SP2-1998-4.2-cln", 10000),
    ProtocolLog("HPC2N", "HPC2N-2002-2.2-cln", 10000),
    ProtocolLog("Lublin-2", "lublin_256_new2", 0),
)
#: the table's columns (schedlab's policy names; "rl" is RLScheduler's trained model)
POLICIES = ("fcfs", "wfp3", "unicep", "sjf", "f1", "rl")

_ROWS = {
    "none": {
        "lublin_256": (7273.77, 19753.53, 22274.74, 277.35, 258.37, 254.67),
        "SDSC-SP2-1998-4.2-cln": (1727.54, 3000.88, 1848.45, 2680.55, 1232.06, 466.44),
        "HPC2N-2002-2.2-cln": (297.18, 426.99, 609.77, 157.71, 118.01, 117.01),
        "lublin_256_new2": (7842.47, 9523.18, 11265.31, 787.89, 698.34, 724.51),
    },
    "easy": {
        "lublin_256": (235.82, 133.87, 307.23, 73.31, 75.07, 58.64),
        "SDSC-SP2-1998-4.2-cln": (1595.12, 1083.12, 548.01, 2167.84, 1098.22, 397.82),
        "HPC2N-2002-2.2-cln": (127.38, 97.39, 175.12, 122.04, 71.95, 86.14),
        "lublin_256_new2": (247.61, 318.35, 379.59, 91.99, 148.25, 118.79),
    },
}

#: ``PUBLISHED_BSLD[backfill][log][policy]``: mean bounded slowdown, as published (backfill none or easy)
PUBLISHED_BSLD: dict[str, dict[str, dict[str, float]]] = {
    backfill: {log: dict(zip(POLICIES, values, strict=True)) for log, values in rows.items()}
    for backfill, rows in _ROWS.items()
}


def best_heuristic(backfill: str, log: str) -> tuple[str, float]:
    """The published heuristic with the lowest bounded slowdown in a cell: ``(policy, value)``."""
    row = PUBLISHED_BSLD[backfill][log]
    return min(((p, v) for p, v in row.items() if p != "rl"), key=lambda pv: pv[1])

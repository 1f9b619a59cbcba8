"""``schedlab replay``'s comparison with RLScheduler's published table, when a replay ran its protocol."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from schedlab.papers.rlscheduler_published import LOGS, PUBLISHED_BSLD

__all__ = ["published_lines"]


def _ran_protocol(cfg: Any, name: str) -> bool:
    """Did the replay of the log ``name`` draw RLScheduler's published windows (seed 1, 10 of 1024, its slice)?"""
    log = next((log for log in LOGS if log.name == name), None)
    if log is None or cfg.compat != "rlscheduler" or cfg.starts or cfg.draw != "rlscheduler":
        return False
    # the Lublin logs have 10,000 jobs: drawing within all of them or within the first 10,000 is one draw
    within_ok = cfg.draw_within == log.draw_within or (log.draw_within == 0 and cfg.draw_within == 10000)
    return within_ok and cfg.window_seed == 1 and cfg.windows == 10 and cfg.length == 1024


def published_lines(rows: Iterable[Mapping[str, Any]], cfg: Any) -> list[str]:
    """One line per replayed cell of RLScheduler's table: schedlab's value and the published one, to 2 decimals.

    Empty unless the replay ran the published protocol (``--compat rlscheduler --draw
    rlscheduler --seed 1 --windows 10 --length 1024``, SDSC-SP2 and HPC2N ``--draw-within 10000``).
    """
    lines = []
    for row in rows:
        # the log's column is ``log``; results saved before the vocabulary (issue 34) name it ``trace``
        log, policy, backfill = row.get("log", row.get("trace")), row["policy"], row["backfill"]
        published = PUBLISHED_BSLD.get(backfill, {}).get(log, {}).get(policy)
        if published is None or not _ran_protocol(cfg, log):
            continue
        ours = f"{row['bounded_slowdown']:.2f}"
        verdict = "same" if ours == f"{published:.2f}" else "DIFFERENT"
        lines.append(f"{log:>22} {policy:>6} {backfill:>4}: schedlab {ours:>9}, published {published:>9.2f}  {verdict}")
    if lines:
        same = sum(line.endswith("same") for line in lines)
        lines.insert(0, "RLScheduler's published mean bounded slowdown (its README), to 2 decimals:")
        lines.append(f"{same} of {len(lines) - 1} cells the same")
    return lines

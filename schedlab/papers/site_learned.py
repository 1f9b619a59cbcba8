"""The learned site supervisor's table: trained models beside FIFO, PRIO, EDF and the paper's SARSA + ESN.

A plain function of a run's per-replication rows (``Results.replications`` of
``scenarios/learned_supervisor.py``): each row is one setting on one held-out episode
(``rep``: the episode's seed, the same jobs for every setting), with a ``seed`` (the
training seed of a learned model; -1 for the others) and the measures of
:func:`~schedlab.papers.site_measures.site_measures` plus ``overhead``.

The target (seed 001, Table 2 and Fig. 3): an interactive mean wait at least 3x below
FIFO's, with the fair-share utility within 3% of the target: ``F >= 0.97`` when the
last measured job arrives (``fair_share_end``, Fig. 3's curve at the end of the measured
period; the final ``F``, once every job has run, is the workload's own and the same for
every schedule).
A learned setting's row gives each training seed's means and their mean ± standard
deviation over seeds; paired differences with FIFO are per episode (mean ± 95% t
half-width over the episodes; for the seeds' row, of the seeds' mean). The last lines
measure how each reward ranks the schedules: the correlation, over every (setting,
episode) row, of the episode's mean reward with its interactive mean wait.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from schedlab.model.analysis.paired import paired_difference

__all__ = ["FAIRNESS_FLOOR", "RATIO", "learned_table", "target_met"]

#: the interactive mean wait must be at most FIFO's / RATIO
RATIO = 3.0
#: the final fair-share utility must be at least this (3% off the ideal allocation, Fig. 3)
FAIRNESS_FLOOR = 0.97

COLUMNS = ("wait_interactive_mean", "wait_batch_mean", "wait_interactive_max", "fair_share_end")


def target_met(interactive_wait: float, fifo_wait: float, fairness: float) -> bool:
    """Whether a setting meets the target: interactive wait <= FIFO's / 3 and F >= 0.97."""
    return interactive_wait <= fifo_wait / RATIO and fairness >= FAIRNESS_FLOOR


def _pm(mean: float, half: float, digits: int = 0) -> str:
    if not math.isfinite(mean):
        return "-"
    return f"{mean:+.{digits}f}" + (f" ± {half:.{digits}f}" if math.isfinite(half) else "")


def _series(rows: Sequence[Mapping[str, Any]], key: str, reps: list[int]) -> np.ndarray:
    by_rep = {int(r["rep"]): r for r in rows}
    return np.array([by_rep[i][key] for i in reps], dtype=float)


def learned_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """The markdown table and the rewards' correlations (see the module's notes)."""
    groups: dict[tuple[str, int], list[Mapping[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[str(row["setting"]), int(row.get("seed", -1))].append(row)
    fifo_rows = groups.get(("FIFO", -1), [])
    reps = sorted(set.intersection(*({int(r["rep"]) for r in g} for g in groups.values()))) if groups else []
    if not fifo_rows or not reps:
        return "(no FIFO rows on common episodes: no table)"
    fifo = {k: _series(fifo_rows, k, reps) for k in (*COLUMNS, "objective", "overhead")}
    lines = [
        f"{len(reps)} held-out episodes (seeds {reps[0]}..{reps[-1]}), paired; learned: one row per training seed, "
        "then mean ± sd over seeds",
        "",
        "| setting | int wait (s) | FIFO / int wait | batch wait (s) | int max (s) | F (end) | paper reward "
        "| overhead | Δ int wait vs FIFO | target |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]

    def line(name: str, col: dict[str, np.ndarray], spread: dict[str, float] | None = None) -> str:
        m = {k: float(v.mean()) for k, v in col.items()}
        sd = spread or {}

        def cell(k: str, digits: int) -> str:
            s = f"{m[k]:.{digits}f}"
            return s + (f" ± {sd[k]:.{digits}f}" if k in sd else "")

        ratio = fifo["wait_interactive_mean"].mean() / m["wait_interactive_mean"]
        delta = paired_difference(col["wait_interactive_mean"], fifo["wait_interactive_mean"])
        ok = target_met(m["wait_interactive_mean"], float(fifo["wait_interactive_mean"].mean()), m["fair_share_end"])
        return (
            f"| {name} | {cell('wait_interactive_mean', 0)} | {ratio:.2f}x | {cell('wait_batch_mean', 0)} "
            f"| {cell('wait_interactive_max', 0)} | {cell('fair_share_end', 3)} | {cell('objective', 4)} "
            f"| {cell('overhead', 2)} | {_pm(delta[0], delta[1])} | {'yes' if ok else 'no'} |"
        )

    keys = (*COLUMNS, "objective", "overhead")
    for (setting, seed), group in groups.items():  # the run's order: baselines, then each model
        name = setting if seed < 0 else f"{setting}, seed {seed}"
        lines.append(line(name, {k: _series(group, k, reps) for k in keys}))
    learned = sorted({s for s, seed in groups if seed >= 0})
    for setting in learned:
        seeds = sorted(seed for s, seed in groups if s == setting and seed >= 0)
        per_seed = {k: np.array([_series(groups[setting, s], k, reps) for s in seeds]) for k in keys}
        spread = {k: float(v.mean(axis=1).std(ddof=1)) if len(seeds) > 1 else math.nan for k, v in per_seed.items()}
        mean = {k: v.mean(axis=0) for k, v in per_seed.items()}
        lines.append(line(f"**{setting}, mean ± sd over {len(seeds)} seeds**", mean, spread))
    lines += ["", "How each reward ranks the schedules (every setting x episode row; Pearson r):"]
    everything = [r for g in groups.values() for r in g if int(r["rep"]) in reps]
    wait = np.array([r["wait_interactive_mean"] for r in everything], dtype=float)
    for key, what in (("objective", "paper reward (mean lambda W + (1 - lambda) F)"), ("overhead", "overhead")):
        value = np.array([r[key] for r in everything], dtype=float)
        r = float(np.corrcoef(value, wait)[0, 1]) if len(wait) > 2 and value.std() > 0 else math.nan
        lines.append(f"- {what} vs interactive mean wait: r = {r:+.2f}")
    return "\n".join(lines)

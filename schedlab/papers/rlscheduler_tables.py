"""The table of RLScheduler's experiment (Zhang et al., SC 2020), from a run's replications.

``scenarios/rlscheduler.py`` evaluates learned models (policy ``rl``, one cell per training
seed), a mixture's models' counterparts shipped for the log (``own``) and the heuristics, on
the same windows. Its report is one row per backfilling setting, built here:

- :func:`table_rows`: the learned models as mean ± half the range over training seeds, the
  log's own models beside a mixture's, every heuristic, the best of them, and the
  published values where the log is one of the paper's four;
- :func:`row_line`: one row as the line the scenario prints;
- :func:`run_caveat`: what a run's windows mean beside the published table, when they are
  not the published protocol's.

Kept in the package, apart from the scenario, because they read results (replications),
not the model.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from schedlab.papers.rlscheduler_published import PUBLISHED_BSLD, best_heuristic

__all__ = ["row_line", "run_caveat", "table_rows"]

#: the policies that are not heuristics: the models evaluated, and a log's own beside a mixture's
LEARNED = ("rl", "own")


def _spread(values: list[float]) -> tuple[float, float, str]:
    """Mean, half the range, and the values as text: how the table gives a policy over training seeds."""
    if not values:
        return float("nan"), float("nan"), ""
    return float(np.mean(values)), (max(values) - min(values)) / 2, " ".join(f"{v:.2f}" for v in values)


def _per_seed(replications: list[Mapping[str, Any]], policy: str) -> list[float]:
    """Each training seed's mean bounded slowdown over the windows, for one policy's cells, in seed order."""
    seeds = sorted({r["seed"] for r in replications if r["policy"] == policy})
    return [
        float(np.mean([r["bounded_slowdown"] for r in replications if (r["policy"], r["seed"]) == (policy, s)]))
        for s in seeds
    ]


def table_rows(replications: Iterable[Mapping[str, Any]], log: str, trained_on: str) -> list[dict[str, Any]]:
    """One row per backfilling setting (in the replications' order) of mean bounded slowdown.

    Parameters
    ----------
    replications
        The run's replications: ``policy``, ``seed`` (the training seed; -1 for a
        heuristic), ``backfill`` and ``bounded_slowdown``, one per window and cell.
    log
        The log evaluated, as the row names it (the published table's name where it is one of the four).
    trained_on
        What the models were trained on, as the row names it.

    Returns
    -------
    list of dict
        ``rl_mean``, ``rl_half_range`` and ``rl_seeds`` (each seed's mean over the windows);
        where ``own`` cells ran, ``own_mean``, ``own_half_range``, ``own_seeds`` and
        ``rl_vs_own`` (the models' excess over them, a share); each heuristic's mean;
        ``best_heuristic``, ``best_value`` and ``rl_minus_best``; and, for the paper's logs,
        ``published_rl`` and ``published_best``.

    Examples
    --------
    >>> reps = [
    ...     {"policy": "rl", "seed": 0, "backfill": "none", "bounded_slowdown": 10.0},
    ...     {"policy": "rl", "seed": 1, "backfill": "none", "bounded_slowdown": 14.0},
    ...     {"policy": "sjf", "seed": -1, "backfill": "none", "bounded_slowdown": 13.0},
    ...     {"policy": "fcfs", "seed": -1, "backfill": "none", "bounded_slowdown": 40.0},
    ... ]
    >>> [row] = table_rows(reps, "my_log", "my_log")
    >>> row["rl_mean"], row["rl_half_range"], row["rl_seeds"], row["best_heuristic"], row["rl_minus_best"]
    (12.0, 2.0, '10.00 14.00', 'sjf', -1.0)
    """
    reps = list(replications)
    rows = []
    for backfill in dict.fromkeys(r["backfill"] for r in reps):
        here = [r for r in reps if r["backfill"] == backfill]
        mean, half, text = _spread(_per_seed(here, "rl"))
        row: dict[str, Any] = {
            "log": log,
            "trained_on": trained_on,
            "backfill": backfill,
            "rl_mean": mean,
            "rl_half_range": half,
            "rl_seeds": text,
        }
        own = _per_seed(here, "own")
        if own:  # a mixture's models beside the log's own: their mean over seeds, and the mixture's excess over it
            own_mean, own_half, own_text = _spread(own)
            row |= {
                "own_mean": own_mean,
                "own_half_range": own_half,
                "own_seeds": own_text,
                "rl_vs_own": mean / own_mean - 1,
            }
        heuristics = dict.fromkeys(r["policy"] for r in here if r["policy"] not in LEARNED)
        scores = {h: float(np.mean([r["bounded_slowdown"] for r in here if r["policy"] == h])) for h in heuristics}
        row |= scores
        if scores:
            best = min(scores, key=lambda h: scores[h])
            row |= {"best_heuristic": best, "best_value": scores[best], "rl_minus_best": mean - scores[best]}
        published = PUBLISHED_BSLD.get(backfill, {}).get(log)
        if published:
            row["published_rl"] = published["rl"]
            row["published_best"] = "{} {:.2f}".format(*best_heuristic(backfill, log))
        rows.append(row)
    return rows


def row_line(row: Mapping[str, Any]) -> str:
    """One row of :func:`table_rows` as the line the scenario prints."""
    own = (
        f"; own models {row['own_mean']:.2f} ± {row['own_half_range']:.2f} (seeds {row['own_seeds']}), "
        f"mix {row['rl_vs_own']:+.1%} of them"
        if "own_mean" in row
        else ""
    )
    versus = f" (rl - best {row['rl_minus_best']:+.2f})" if "rl_minus_best" in row else ""
    return (
        f"{row['log']} (models of {row['trained_on']}) {row['backfill']}: "
        f"rl {row['rl_mean']:.2f} ± {row['rl_half_range']:.2f} "
        f"(seeds {row['rl_seeds']}){own}; best heuristic {row.get('best_heuristic')} "
        f"{row.get('best_value', 0):.2f}{versus}; "
        f"published rl {row.get('published_rl', '-')}, published best {row.get('published_best', '-')}"
    )


def run_caveat(windows: int, length: int, eval_seed: int, draw_within: int, training_range: str) -> str | None:
    """What a run's windows mean beside the published values (None on the published protocol itself)."""
    if training_range:
        return (
            f"jobs never trained on: models trained within the first {training_range} of the log's jobs, "
            f"{windows} window(s) of {length} jobs drawn only from the jobs after them (seed {eval_seed}); "
            "the published values below are RLScheduler's in-sample protocol, for reference only"
        )
    if (windows, length, eval_seed, draw_within) != (10, 1024, 1, 0):
        return (
            f"this run: {windows} window(s) of {length} jobs (seed {eval_seed}); the published values "
            "below are RLScheduler's on its protocol (10 windows of 1,024 jobs, seed 1): not comparable to this run's"
        )
    return None

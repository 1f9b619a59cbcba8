"""What RLScheduler's agent sees of the queue: up to ``queue`` waiting jobs, a feature vector each, padded and masked.

Per job, in this order (each in [0, 1), as RLScheduler normalises them):

0. wait so far / 12 hours (clipped);
1. requested time / the log's longest run time;
2. CPUs / the machine's CPUs;
3. requested memory / the log's largest (1 where the log has none);
4. user id / the largest (1 where missing);
5. group id / the largest (1 where missing);
6. executable id / the largest (1 where missing);
7. can start now: ``1 - 1e-5`` if it fits the free CPUs, else ``1e-5``;
8. present: 1 for a job, 0 for padding (schedlab's addition: a policy reads its mask
   from the observation, so plain PPO works too).

Padding rows are RLScheduler's ``[0, 1, 1, 1, 1, 1, 1, 0]`` and a 0 in column 8. The
maxima are taken over the log's kept jobs. Which jobs are shown: all of them in arrival
order while at most ``queue`` wait; beyond that, RLScheduler's pick: alternately the
next shortest-requested and the next narrowest job not yet shown, until ``queue``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from schedlab.model.core.job import Job
from schedlab.model.formats.swf.reader import read_swf

__all__ = ["FEATURES", "LogFeatures", "log_features", "observe", "shown_rows", "visible_jobs"]

#: columns of a job's feature vector
FEATURES = 9
MAX_WAIT = 12 * 3600.0
_TOP = 1.0 - 1e-5
_PAD = np.array([0, 1, 1, 1, 1, 1, 1, 0, 0], dtype=np.float32)


@dataclass(frozen=True)
class LogFeatures:
    """A log's per-job static features (columns 1-6), by job id; the waits and fits are added per step.

    ``table`` holds the same rows stacked (``rows[i]`` is ``table[index[i]]``), so that the
    rows of many jobs are taken in one indexing (:func:`shown_rows`).
    """

    rows: dict[int, np.ndarray]
    max_procs: int
    table: np.ndarray | None = None
    index: dict[int, int] | None = None


def _norm(values: np.ndarray, top: float) -> np.ndarray:
    out = np.minimum(values / top, _TOP) if top > 0 else np.zeros_like(values)
    return np.where(values == -1, 1.0, out)  # RLScheduler: a missing field reads as 1


@lru_cache(maxsize=8)
def log_features(path: str, max_procs: int) -> LogFeatures:
    """Columns 1-6 of every kept job of the log at ``path`` (read under RLScheduler's loader)."""
    pairs = list(read_swf(path, compat="rlscheduler", nodes_as_procs=True).pairs())
    records = [r for r, _ in pairs]
    run = np.array([r.run_time for r in records], dtype=float)
    req = np.array([j.requested_time for _, j in pairs], dtype=float)
    procs = np.array([j.cpus for _, j in pairs], dtype=float)
    cols = [np.minimum(req / max(run.max(), 1.0), _TOP), np.minimum(procs / max_procs, _TOP)]
    for name in ("requested_memory", "user_id", "group_id", "executable"):
        values = np.array([getattr(r, name) for r in records], dtype=float)
        cols.append(_norm(values, values.max()))
    table = np.stack(cols, axis=1).astype(np.float32)
    ids = [j.id for _, j in pairs]
    return LogFeatures({i: table[k] for k, i in enumerate(ids)}, max_procs, table, {i: k for k, i in enumerate(ids)})


def visible_jobs(waiting: Sequence[Job], queue: int) -> list[Job]:
    """The jobs shown: all in arrival order up to ``queue``, else RLScheduler's SJF/narrowest interleave."""
    if len(waiting) <= queue:
        return list(waiting)
    by_time = sorted(waiting, key=lambda j: (j.requested_time, j.submit))
    by_width = sorted(waiting, key=lambda j: (j.cpus, j.submit))
    shown: list[Job] = []
    seen: set[int] = set()
    for a, b in zip(by_time, by_width, strict=True):
        for job in (a, b):
            if id(job) not in seen and len(shown) < queue:
                seen.add(id(job))
                shown.append(job)
        if len(shown) >= queue:
            break
    return shown


def observe(shown: Sequence[Job], now: float, free: int, features: LogFeatures, queue: int) -> np.ndarray:
    """The flat observation (``queue * FEATURES`` floats) of the ``shown`` jobs at ``now`` with ``free`` CPUs."""
    obs = np.tile(_PAD, (queue, 1))
    for i, job in enumerate(shown):
        row = obs[i]
        row[0] = min((now - job.submit) / MAX_WAIT, _TOP)
        row[1:7] = features.rows[job.id]
        row[7] = _TOP if job.cpus <= free else 1e-5
        row[8] = 1.0
    return obs.reshape(-1)


def shown_rows(shown: Sequence[Job], now: float, free: int, features: LogFeatures) -> np.ndarray:
    """The rows of the ``shown`` jobs alone (``len(shown)`` x ``FEATURES``, float32), without padding.

    The same values as the first ``len(shown)`` rows of :func:`observe`'s observation (the
    same float64 arithmetic, rounded to float32 once), computed with a few array operations
    instead of a loop over the jobs: what a greedy scorer reads at each decision
    (:class:`~schedlab.envs.rlscheduler.env.ModelChooser`, :mod:`~schedlab.envs.rlscheduler.lockstep`).
    """
    n = len(shown)
    rows = np.empty((n, FEATURES), dtype=np.float32)
    submit = np.fromiter([job.submit for job in shown], dtype=np.float64, count=n)
    cpus = np.fromiter([job.cpus for job in shown], dtype=np.float64, count=n)
    rows[:, 0] = np.minimum((now - submit) / MAX_WAIT, _TOP)
    if features.table is not None and features.index is not None:
        index = features.index
        rows[:, 1:7] = features.table[[index[job.id] for job in shown]]
    else:
        rows[:, 1:7] = [features.rows[job.id] for job in shown]
    rows[:, 7] = np.where(cpus <= free, _TOP, 1e-5)
    rows[:, 8] = 1.0
    return rows

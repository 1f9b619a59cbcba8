"""Upper bounds and estimates of the processing efficiency G of seed 004's server network.

Two numbers for the gain of section 4 (the share of the gap between RAND and the
"optimal" closed):

- :func:`paper_estimate`: the paper's estimate, ``min(1, P1 / r)``. It reproduces the
  paper's 0.395 at (r, M) = (0.8, 8) but is *not* an upper bound of a model where a
  job with more cycles than a server's speed still runs there over several steps.
- :func:`throughput_bound`: a fluid (linear programming) bound that *is* one. In a
  run of T steps, server i runs one job at a time, a job of c cycles that fits it
  holds it ceil(c / s_i) whole steps, and each job completes at most once. So the
  numbers n_ij of class-j jobs completed at server i satisfy
  ``sum_j n_ij ceil(c_j / s_i) <= T`` and ``sum_i n_ij <= A_j`` (A_j the arrivals of
  class j), and G <= max sum n_ij / sum A_j over the real relaxation. Travel,
  blocking and arrival times are ignored, so the bound is loose where those bind.
  With the run's realised arrivals it bounds that run's G exactly;
  :func:`fluid_bound` uses the expected arrivals instead (every requirement vector
  equally likely, N r T jobs).

Plain numpy and scipy; no SimPy.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from schedlab.model.core.fields import whole

__all__ = ["fluid_bound", "paper_estimate", "throughput_bound"]


def paper_estimate(capacities: np.ndarray, m: int, r: float) -> float:
    """Section 4's estimate, ``min(1, P1 / r)``.

    P1 is the share of jobs processed where they enter when every server receives a
    job every step (r = 1) and nothing is shipped: a server completes the job of the
    step only if it fits in every resource, the cycles included (c <= speed, so it is
    done within the step). For r < 1 the jobs are assumed to move instantly to where
    there is room, so the system processes up to N * P1 jobs per step of the N * r
    that arrive. P1 is exact for the network's capacities: the mean over servers of
    prod_k (capacity_k / M).
    """
    p1 = float(np.prod(np.asarray(capacities, dtype=float) / m, axis=1).mean())
    return min(1.0, p1 / r) if r > 0 else 1.0


def throughput_bound(
    capacities: np.ndarray,
    requirements: np.ndarray,
    steps: int,
    *,
    whole_steps: bool = True,
) -> float:
    """An upper bound on G for one run: the fluid LP over the run's jobs (unit weights).

    Parameters
    ----------
    capacities
        ``(N, K)`` capacities, column 0 the speeds.
    requirements
        ``(jobs, K)`` requirements of the run's jobs, column 0 the cycles (repeats allowed;
        real counts are fine too, see :func:`fluid_bound`).
    steps
        T, the run's length in steps.
    whole_steps
        Service in whole steps, ceil(c / s) (the network's default), or c / s.

    Returns
    -------
    float
        max sum_ij n_ij / (number of jobs) over the LP in the module docstring; ``nan`` without jobs.
    """
    req = np.atleast_2d(np.asarray(requirements))
    if req.shape[0] == 0:
        return math.nan
    classes, counts = np.unique(req, axis=0, return_counts=True)
    return _lp(np.asarray(capacities), classes, counts.astype(float), steps, whole_steps)


def fluid_bound(capacities: np.ndarray, m: int, r: float, steps: int, *, whole_steps: bool = True) -> float:
    """:func:`throughput_bound` with the expected arrivals: N r T / M^K jobs of every requirement vector."""
    caps = np.asarray(capacities)
    n, k = caps.shape
    if r <= 0:
        return 1.0
    classes = np.array(list(itertools.product(range(1, m + 1), repeat=k)))
    counts = np.full(len(classes), n * r * steps / len(classes))
    return _lp(caps, classes, counts, steps, whole_steps)


def _lp(caps: np.ndarray, classes: np.ndarray, counts: np.ndarray, steps: int, whole_steps: bool) -> float:
    from scipy.optimize import linprog  # scipy is a dependency; imported here to keep the import of schedlab light

    whole("steps", steps, 1)
    if caps.ndim != 2 or classes.shape[1] != caps.shape[1]:
        raise ValueError(f"capacities {caps.shape} and requirements {classes.shape}: need the same K columns")
    fits = (classes[None, :, 1:] <= caps[:, None, 1:]).all(axis=2)  # (servers, classes)
    server, job_class = np.nonzero(fits)
    if server.size == 0:
        return 0.0
    ratio = classes[job_class, 0] / caps[server, 0]
    duration = np.ceil(ratio - 1e-12) if whole_steps else ratio
    from scipy.sparse import coo_matrix

    var = np.arange(server.size)
    a_time = coo_matrix((duration, (server, var)), shape=(caps.shape[0], var.size))
    a_jobs = coo_matrix((np.ones(var.size), (job_class, var)), shape=(len(classes), var.size))
    from scipy.sparse import vstack

    result = linprog(
        -np.ones(var.size),
        A_ub=vstack([a_time, a_jobs]).tocsr(),
        b_ub=np.concatenate([np.full(caps.shape[0], float(steps)), counts]),
        bounds=(0, None),
        method="highs",
    )
    if result.status != 0:
        raise RuntimeError(f"throughput bound: the LP failed ({result.message})")
    return float(-result.fun / counts.sum())

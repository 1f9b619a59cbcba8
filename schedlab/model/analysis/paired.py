"""Paired differences with t intervals: the same jobs (common random numbers) under two schedulers.

Replication ``r`` of every cell of a scenario runs on the same jobs, so the
difference of a metric between two schedulers is taken replication by replication;
its mean and 95% t half-width say whether, and by how much, one beats the other. With
two replications the t quantile has 1 degree of freedom (12.7): the interval is very
wide.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import stats

__all__ = ["paired_difference"]


def paired_difference(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> tuple[float, float, int]:
    """Mean of ``a - b`` over the pairs where both are finite, its 95% t half-width, and the pairs used.

    Examples
    --------
    >>> mean, half, n = paired_difference([3.0, 5.0, 4.0], [1.0, 2.0, 2.0])
    >>> round(mean, 3), n
    (2.333, 3)
    """
    if len(a) != len(b):
        raise ValueError(f"paired difference needs as many values on each side, got {len(a)} and {len(b)}")
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    d = d[np.isfinite(d)]
    if len(d) == 0:
        return math.nan, math.nan, 0
    if len(d) == 1:
        return float(d[0]), math.nan, 1
    half = float(stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / math.sqrt(len(d)))
    return float(d.mean()), half, len(d)

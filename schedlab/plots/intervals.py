"""A 95% interval of a mean that stays inside the values' range: the bootstrap percentile interval.

A mean ± t half-width is symmetric, so over a few skewed replications (waits, bounded
slowdowns) it reaches below 0 for a wait and below 1 for a bounded slowdown, values no
run can have. The percentile bootstrap resamples the replications' values and takes the
2.5% and 97.5% quantiles of the resampled means: each is a mean of the values, so the
interval lies within their range, and so within any bound the metric has.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

__all__ = ["RESAMPLES", "bootstrap_interval"]

#: resamples per interval: the quantiles' own noise is then far below the interval's width
RESAMPLES = 4_000


def bootstrap_interval(
    values: Iterable[float], level: float = 0.95, *, resamples: int = RESAMPLES, seed: int = 0
) -> tuple[float, float]:
    """The percentile bootstrap interval of the mean of ``values`` (NaNs left out).

    The same values and ``seed`` give the same interval: a figure drawn twice is the same
    figure. One value gives the point itself; none gives ``(nan, nan)``.
    """
    x = np.asarray(list(values), dtype=float)
    x = x[np.isfinite(x)]
    if x.size == 0:
        return (float("nan"), float("nan"))
    if x.size == 1 or np.all(x == x[0]):
        return (float(x[0]), float(x[0]))
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    chunk = max(1, 2_000_000 // x.size)  # at most ~16 MB of resampled values at once, however many replications
    for i in range(0, resamples, chunk):
        n = min(chunk, resamples - i)
        means[i : i + n] = x[rng.integers(0, x.size, (n, x.size))].mean(axis=1)
    lo, hi = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    # a quantile of means of values is within their range; clipping only removes float rounding
    return (float(max(lo, x.min())), float(min(hi, x.max())))

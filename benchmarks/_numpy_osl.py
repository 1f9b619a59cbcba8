"""The OSL grid of seed 003 as a plain vectorised numpy loop, without SimPy: the benchmark's reference.

Same model, same named streams and the same order of draws as
``schedlab.processes.grid.grid.GridModel`` with ``OrdinalSharing``, so the two produce
the same decisions and the same ALoR series. A FIFO resource that never idles while
jobs wait finishes a job at ``max(busy_until, submit) + J / C``, known at submission;
so completions are bucketed by the step they fall in, and each step's reward of
eqs. 4-5 is one ``np.add.at``.
"""

from __future__ import annotations

import math

import numpy as np

from schedlab.model.core.streams import Streams


def numpy_osl(
    agents: int,
    resources: int,
    xi: float,
    steps: int,
    *,
    seed: int | np.random.SeedSequence = 0,
    jmin: float = 5.0,
    jmax: float = 995.0,
    cmin: float = 50.0,
    cmax: float = 350.0,
    alpha: float = 0.5,
    beta: float = 0.5,
) -> dict[str, np.ndarray]:
    """Run ``steps`` steps; returns per-step ALoR, max LoR, std LoR and cumulative ATPT (after each step)."""
    streams = Streams(seed)
    caps = streams["capacities"].uniform(cmin, cmax, resources)
    arrivals, lengths_rng, rng = streams["arrivals"], streams["lengths"], streams["exploration"]
    n, m = agents, resources
    u = np.full((n, m), -1.0)
    outstanding = np.zeros((n, m))
    finished = np.zeros((n, m))
    busy = np.zeros(m)
    buckets: dict[int, list[tuple[int, int, float]]] = {}
    keep, a = 1.0 - alpha, alpha
    message = u[n - 1].copy()
    alor, lmax, lstd, atpt = (np.empty(steps + 1) for _ in range(4))
    done, tpt = 0, 0.0
    alor[0] = lmax[0] = lstd[0] = 0.0
    atpt[0] = math.nan
    for t in range(steps):
        now = float(t)
        counts = arrivals.poisson(xi, n)
        drawn = lengths_rng.uniform(jmin, jmax, int(counts.sum()))
        first = 0
        for i in range(n):
            row = u[i]
            row *= 1.0 - beta
            message *= beta  # a copy of the predecessor's row, used once
            row += message
            for length in drawn[first : first + counts[i]].tolist():
                j = int(row.argmax())
                ties = (row == row[j]).nonzero()[0]
                if ties.size > 1:
                    j = int(ties[rng.integers(ties.size)])
                row[j] = keep * row[j] - a
                outstanding[i, j] += 1
                start = busy[j] if busy[j] > now else now
                end = start + length / caps[j]
                busy[j] = end
                buckets.setdefault(math.ceil(end) - 1, []).append((i, j, end - now))
            first += counts[i]
            message = row.copy()
        ended = buckets.pop(t, None)
        if ended:
            who = np.array(ended)
            np.add.at(finished, (who[:, 0].astype(int), who[:, 1].astype(int)), 1.0)
            done += len(ended)
            tpt += float(who[:, 2].sum())
        outstanding -= finished
        u *= keep
        u += a * (finished - outstanding)
        finished.fill(0.0)
        lor = np.maximum(busy - (t + 1.0), 0.0)
        alor[t + 1], lmax[t + 1], lstd[t + 1] = lor.mean(), lor.max(), lor.std()
        atpt[t + 1] = tpt / done if done else math.nan
    return {"alor": alor, "lor_max": lmax, "lor_std": lstd, "atpt": atpt}

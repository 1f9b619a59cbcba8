"""Seeds: one SeedSequence per run, spawned per replication, split into named streams.

Every random draw in a model comes from a named stream (``streams["arrivals"]``),
never from global state. A stream's seed depends only on the run's seed, the
replication index and the stream's name, so adding a stream, or drawing more from
one, changes no other stream; the same seed gives the same records bit for bit,
whichever executor ran the replication.

Notes
-----
All cells of a sweep share the streams of a replication (common random numbers): in
replication r, FCFS and SJF see the same arrivals. This sharpens comparisons between
cells without biasing any one of them.
"""

from __future__ import annotations

import numpy as np

from schedlab.model.core.fields import is_int, whole

__all__ = ["replication_seeds"]


def replication_seeds(seed: int, reps: int) -> list[np.random.SeedSequence]:
    """The SeedSequences of replications ``0..reps-1`` of a run seeded with ``seed``."""
    whole("seed", seed, 0)
    if not is_int(reps, 1):
        raise ValueError(f"reps must be a whole number >= 1, got {reps!r}")
    return np.random.SeedSequence(int(seed)).spawn(int(reps))

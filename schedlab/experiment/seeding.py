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

from schedlab.model.core.fields import whole

__all__ = ["replication_seed", "replication_seeds"]


def replication_seed(seed: int, rep: int) -> np.random.SeedSequence:
    """The SeedSequence of replication ``rep`` of a run seeded with ``seed``, made on demand.

    It is the ``rep``-th child that ``SeedSequence(seed).spawn`` would give (same
    entropy, spawn key ``(rep,)``), without making the ``rep`` before it: a run's
    seeds cost nothing until its tasks are made, so a huge replication count is
    estimated, and refused, before any memory goes to it.
    """
    return np.random.SeedSequence(whole("seed", seed, 0), spawn_key=(whole("rep", rep, 0),))


def replication_seeds(seed: int, reps: int) -> list[np.random.SeedSequence]:
    """The SeedSequences of replications ``0..reps-1`` of a run seeded with ``seed``."""
    return [replication_seed(seed, r) for r in range(whole("reps", reps, 1))]

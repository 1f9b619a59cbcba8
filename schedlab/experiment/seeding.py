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

import zlib

import numpy as np

__all__ = ["Streams", "replication_seeds", "stream_key"]


def stream_key(name: str) -> int:
    """A stable 32-bit key for a stream name (CRC-32 of its UTF-8 bytes)."""
    return zlib.crc32(name.encode("utf-8"))


def replication_seeds(seed: int, reps: int) -> list[np.random.SeedSequence]:
    """The SeedSequences of replications ``0..reps-1`` of a run seeded with ``seed``."""
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be a whole number >= 0, got {seed!r}")
    if isinstance(reps, bool) or not isinstance(reps, int | np.integer) or reps < 1:
        raise ValueError(f"reps must be a whole number >= 1, got {reps!r}")
    return np.random.SeedSequence(int(seed)).spawn(int(reps))


class Streams:
    """The named random streams of one replication.

    ``streams["arrivals"]`` is a :class:`numpy.random.Generator`; asking twice for a
    name gives the same Generator, so a stream's draws continue where they stopped.
    ``replication`` is the replication's index, for scenarios whose replications are
    not random draws but, say, the windows of a trace.
    """

    def __init__(self, seed: np.random.SeedSequence | int, replication: int = 0) -> None:
        if not isinstance(seed, np.random.SeedSequence):
            seed = np.random.SeedSequence(seed)
        self.seed = seed
        self.replication = replication
        self._streams: dict[str, np.random.Generator] = {}

    def sequence(self, name: str) -> np.random.SeedSequence:
        """The SeedSequence of stream ``name`` (for libraries that take one)."""
        return np.random.SeedSequence(self.seed.entropy, spawn_key=(*self.seed.spawn_key, stream_key(name)))

    def __getitem__(self, name: str) -> np.random.Generator:
        rng = self._streams.get(name)
        if rng is None:
            rng = self._streams[name] = np.random.Generator(np.random.PCG64(self.sequence(name)))
        return rng

    def names(self) -> list[str]:
        """Streams drawn from so far."""
        return sorted(self._streams)

    def __repr__(self) -> str:
        return f"Streams(entropy={self.seed.entropy}, spawn_key={self.seed.spawn_key})"

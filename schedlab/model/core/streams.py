"""Named random streams: every random draw of a model comes from one, never from global state.

A stream's seed depends only on its parent SeedSequence and the stream's name (the
CRC-32 of the name appended to the spawn key), so adding a stream, or drawing more
from one, changes no other stream. The experiment runner gives each replication a
:class:`Streams` (:mod:`schedlab.experiment.seeding`); environments that build their
models themselves make one from the episode's seed, and so draw what a scenario
replication with the same seed draws.
"""

from __future__ import annotations

import zlib

import numpy as np

__all__ = ["Streams", "episode_sequence", "stream_key"]


def stream_key(name: str) -> int:
    """A stable 32-bit key for a stream name (CRC-32 of its UTF-8 bytes)."""
    return zlib.crc32(name.encode("utf-8"))


def episode_sequence(
    seed: int | None, root: np.random.SeedSequence | None
) -> tuple[np.random.SeedSequence, np.random.SeedSequence]:
    """An environment's next episode seed: ``(root, sequence)``, the root to keep and the episode's sequence.

    ``reset(seed=s)`` starts from ``SeedSequence(s)`` itself, so the episode draws what a
    scenario replication with seed s draws; ``reset()`` takes the next child of the kept
    root (a fresh, unseeded root the first time), so unseeded episodes differ from one
    another yet replay from the first seed. One rule for the environments that build
    their models from :class:`Streams` (the grid's and the network's agents).
    """
    if seed is not None:
        sequence = np.random.SeedSequence(seed)
        return sequence, sequence
    if root is None:
        root = np.random.SeedSequence()
    return root, root.spawn(1)[0]  # spawning counts on the root: the next call gets the next child


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

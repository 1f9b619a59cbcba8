"""RLScheduler's draw of window starts, reproduced exactly, so that its published tables can be re-run.

RLScheduler (Zhang et al., SC 2020; DIR-LAB/deep-batch-scheduler) seeds its environment
with the gym of 2019 (``gym.utils.seeding.np_random``): the seed's decimal string is
hashed with SHA-512, the first 8 bytes read as a little-endian integer, and that integer
split into 32-bit words seeds a legacy ``numpy.random.RandomState``. Each test window
then starts at ``randint(L, N - L - 1)``, where L is the window's length and N the
number of jobs loaded (or its ``batch_job_slice``, 10,000 for SDSC-SP2 and HPC2N in its
table script). Training episodes are drawn the same way with L = 256.

This is the one draw in schedlab that is not a named ``numpy.random.Generator`` stream
(:mod:`schedlab.model.core.streams`): it reproduces another tool's protocol, bit for bit, and
is used only where a setting asks for RLScheduler's windows.
"""

from __future__ import annotations

import hashlib
import struct

import numpy as np

__all__ = ["legacy_gym_rng", "rlscheduler_starts"]


def legacy_gym_rng(seed: int) -> np.random.RandomState:
    """The ``RandomState`` that gym's 2019 ``seeding.np_random(seed)`` returns."""
    if not isinstance(seed, int) or seed < 0:
        raise ValueError(f"RLScheduler's draw takes a seed >= 0, got {seed!r}")
    seed %= 2**64
    low, high = struct.unpack("<2I", hashlib.sha512(str(seed).encode()).digest()[:8])
    big = low + (high << 32)
    words = []
    while big > 0:
        big, word = divmod(big, 2**32)
        words.append(word)
    return np.random.RandomState(words or [0])


def rlscheduler_starts(n_jobs: int, length: int, count: int, seed: int, within: int = 0) -> list[int]:
    """``count`` window starts as RLScheduler's test script draws them (0-based job positions, in draw order).

    ``within`` is its ``batch_job_slice``: draw among the first ``within`` jobs (0: all).
    The draw needs ``length < n - length - 1`` (n = ``within`` or ``n_jobs``): RLScheduler
    never starts a window in the first ``length`` jobs.
    """
    n = min(within, n_jobs) if within else n_jobs
    if within and within < length:
        raise ValueError(
            f"RLScheduler's draw within the first {within} jobs needs windows shorter than that, got length {length}"
        )
    if length >= n - length - 1:
        raise ValueError(
            f"RLScheduler's draw of windows of {length} jobs needs more than {2 * length + 1} jobs "
            f"to draw from, the log gives {n}"
        )
    rng = legacy_gym_rng(seed)
    return [int(rng.randint(length, n - length - 1)) for _ in range(count)]

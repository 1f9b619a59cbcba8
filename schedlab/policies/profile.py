"""A machine's free CPUs over time, as a backfilling scheduler plans with them.

A :class:`Profile` is a step function: ``free[i]`` CPUs are free from
``times[i]`` until ``times[i + 1]`` (the last step lasts for ever). It starts from what
the machine runs now, each running job expected to end at its requested end (the
scheduler cannot know the real runtime), and reservations are carved out of it. This
is the "profile" of Mu'alem & Feitelson (2001), kept as two parallel sorted lists:
finding the earliest slot walks the steps once, and reserving inserts at most one
step, so a plan of ``w`` reservations over ``r`` running jobs has at most ``r + w + 1``
steps.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable

from schedlab.model.contracts.machine import RunningView

__all__ = ["Profile"]


class Profile:
    """Free CPUs over time from ``now`` on: a sorted step function.

    Parameters
    ----------
    now
        The first step's time.
    free
        CPUs free at ``now``.
    ends
        ``(time, cpus)`` pairs: ``cpus`` CPUs are freed at ``time``. Times at or
        before ``now`` are freed at ``now``; they need not be sorted.
    """

    __slots__ = ("free", "times")

    def __init__(self, now: float, free: int, ends: Iterable[tuple[float, int]] = ()) -> None:
        times = [now]
        frees = [free]
        for end, cpus in sorted(ends):
            if end <= now:
                frees[0] += cpus
            elif end == times[-1]:
                frees[-1] += cpus
            else:
                times.append(end)
                frees.append(frees[-1] + cpus)
        self.times = times
        self.free = frees

    @classmethod
    def of_running(cls, now: float, free: int, running: Iterable[RunningView]) -> Profile:
        """The profile of a machine with ``free`` CPUs free now and ``running`` jobs.

        A running job is expected to end at its ``requested_end``, or now if it has run
        past it (as :func:`~schedlab.policies.backfilling.reservation` reads it too).
        """
        return cls(now, free, [(r.requested_end, r.cpus) for r in running])

    def earliest(self, cpus: int, duration: float) -> int:
        """Index of the first step at which ``cpus`` CPUs stay free for ``duration``.

        The slot starts at a step (free CPUs only change at steps) and needs
        ``cpus`` free at that step and at every later step before ``start + duration``.
        Returns ``-1`` if no step ever has ``cpus`` free (wider than the machine).
        """
        times, free = self.times, self.free
        n = len(times)
        i = 0
        while i < n:
            if free[i] < cpus:
                i += 1
                continue
            end = times[i] + duration
            k = i + 1
            while k < n and times[k] < end:
                if free[k] < cpus:
                    break
                k += 1
            else:
                return i
            i = k + 1  # step k is too low: no slot can start before it ends
        return -1

    def take_earliest(self, cpus: int, duration: float) -> float:
        """Reserve the earliest slot of ``cpus`` CPUs for ``duration`` and say when it starts.

        :meth:`earliest` then :meth:`reserve`: how every conservative plan places a job.
        ``inf`` (nothing reserved) when no step ever has ``cpus`` free.
        """
        i = self.earliest(cpus, duration)
        if i < 0:
            return math.inf
        self.reserve(i, cpus, duration)
        return self.times[i]

    def reserve(self, i: int, cpus: int, duration: float) -> None:
        """Take ``cpus`` CPUs from step ``i``'s time for ``duration`` (a slot :meth:`earliest` found)."""
        times, free = self.times, self.free
        end = times[i] + duration
        k = bisect_left(times, end, i)
        if k == len(times) or times[k] != end:
            times.insert(k, end)  # the reservation ends between steps: split the step it ends in
            free.insert(k, free[k - 1])
        for m in range(i, k):
            free[m] -= cpus

    def reserve_at(self, time: float, cpus: int, duration: float) -> None:
        """Take ``cpus`` CPUs from ``time`` (at or after the first step) for ``duration``.

        A reservation kept from an earlier decision is carved where it was made, which
        need not be a step of this profile: the step it falls in is split there.
        """
        times, free = self.times, self.free
        i = bisect_left(times, time)
        if i == len(times) or times[i] != time:
            times.insert(i, time)
            free.insert(i, free[i - 1])
        self.reserve(i, cpus, duration)

    def advance(self, now: float) -> None:
        """Move the first step to ``now``: the steps that ended by then are dropped."""
        times = self.times
        k = bisect_right(times, now) - 1  # the step in force at now
        if k > 0:
            del times[:k]
            del self.free[:k]
        if times[0] < now:
            times[0] = now

    def __repr__(self) -> str:
        steps = ", ".join(f"({t:g}, {f})" for t, f in zip(self.times, self.free, strict=True))
        return f"Profile([{steps}])"

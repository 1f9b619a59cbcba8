"""Which of a machine's CPUs are free, and the rules that pick the ids a starting job gets.

A :class:`CpuMap` is one byte per CPU (0 free, 1 busy): a contiguous run of
``n`` free CPUs is found by ``bytearray.find`` in C, so giving ids costs a job
about a microsecond on a machine of thousands of CPUs. A rule is a function
``(map, n) -> ids``: :func:`first_fit` (the lowest contiguous block, else the lowest
free ids) is the default, :func:`lowest_free` ignores contiguity, and any other
function of that shape can be handed to a :class:`~schedlab.processes.machine.machine.Machine`.
Rules are deterministic: they read only the map (a random rule must draw from a named
stream it was given).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = ["ALLOCATIONS", "AllocationRule", "CpuMap", "first_fit", "lowest_free"]

_FREE, _BUSY, _DOWN = 0, 1, 2


class CpuMap:
    """``size`` CPUs, ids ``0 .. size - 1``, each free, busy or down.

    A CPU of a failed node is *down* (byte 2): no rule finds it free, and
    :meth:`take` refuses it, until :meth:`set_up` (:mod:`schedlab.processes.machine.node_failures`).
    """

    __slots__ = ("_ones", "busy", "down", "size")

    def __init__(self, size: int) -> None:
        self.size = size
        #: one byte per CPU: 0 free, 1 busy, 2 down
        self.busy = bytearray(size)
        #: how many CPUs are down now
        self.down = 0
        self._ones = b"\x01" * size  # sliced to mark a block busy in one C call

    def block(self, n: int) -> int:
        """The lowest id starting ``n`` free CPUs in a row, or -1."""
        return self.busy.find(bytes(n))

    def free_ids(self, n: int) -> list[int]:
        """The ``n`` lowest free ids (fewer if fewer are free)."""
        out: list[int] = []
        find, i = self.busy.find, 0
        while len(out) < n:
            i = find(_FREE, i)
            if i < 0:
                break
            out.append(i)
            i += 1
        return out

    def take(self, ids: Sequence[int]) -> None:
        """Mark ``ids`` busy; ValueError if one is busy already or out of range (a rule's error).

        A ``range`` (what :func:`first_fit` gives for a block) is checked and marked by
        slices, in C: a job's ids then cost about the same for 1 or 1,000 CPUs.
        """
        busy = self.busy
        if type(ids) is range and ids.step == 1:
            a, b = ids.start, ids.stop
            if (
                0 <= a <= b <= self.size
                and busy.find(_BUSY, a, b) < 0
                and (not self.down or busy.find(_DOWN, a, b) < 0)
            ):
                busy[a:b] = self._ones[: b - a]
                return
        for i in ids:
            if not 0 <= i < self.size or busy[i]:
                what = ("down" if busy[i] == _DOWN else "busy") if 0 <= i < self.size else "not on this machine"
                raise ValueError(f"CPU {i} is {what}")
            busy[i] = _BUSY

    def give_back(self, ids: Sequence[int]) -> None:
        """Mark ``ids`` free."""
        busy = self.busy
        if type(ids) is range and ids.step == 1:
            busy[ids.start : ids.stop] = bytes(len(ids))
            return
        for i in ids:
            busy[i] = _FREE

    def set_down(self, ids: Sequence[int]) -> None:
        """Mark free ``ids`` down (a failed node's, once its jobs are killed); ValueError if one is busy."""
        busy = self.busy
        for i in ids:
            if busy[i] == _BUSY:
                raise ValueError(f"CPU {i} is busy: kill its job before taking it down")
            if busy[i] == _FREE:
                busy[i] = _DOWN
                self.down += 1

    def set_up(self, ids: Sequence[int]) -> None:
        """Mark down ``ids`` free again (the node is repaired)."""
        busy = self.busy
        for i in ids:
            if busy[i] == _DOWN:
                busy[i] = _FREE
                self.down -= 1

    @property
    def free(self) -> int:
        """How many CPUs are free now, counted from the map (down ones are not free)."""
        return self.busy.count(_FREE)


#: a rule: the map and a count -> the ids to take (the machine marks them busy)
AllocationRule = Callable[[CpuMap, int], Sequence[int]]


def first_fit(procs: CpuMap, n: int) -> Sequence[int]:
    """The lowest block of ``n`` contiguous free CPUs (a ``range``); where none is left, the ``n``
    lowest free ids."""
    i = procs.block(n)
    return range(i, i + n) if i >= 0 else procs.free_ids(n)


def lowest_free(procs: CpuMap, n: int) -> Sequence[int]:
    """The ``n`` lowest free ids, contiguous or not."""
    return procs.free_ids(n)


#: rules by name (``Machine(allocation="first-fit")``)
ALLOCATIONS: dict[str, AllocationRule] = {"first-fit": first_fit, "lowest": lowest_free}

"""Which of a machine's processors are free, and the rules that pick the ids a starting job gets.

A :class:`ProcessorMap` is one byte per processor (0 free, 1 busy): a contiguous run of
``n`` free processors is found by ``bytearray.find`` in C, so giving ids costs a job
about a microsecond on a machine of thousands of processors. A rule is a function
``(map, n) -> ids``: :func:`first_fit` (the lowest contiguous block, else the lowest
free ids) is the default, :func:`lowest_free` ignores contiguity, and any other
function of that shape can be handed to a :class:`~schedlab.processes.machine.Machine`.
Rules are deterministic: they read only the map (a random rule must draw from a named
stream it was given).
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["ALLOCATIONS", "AllocationRule", "ProcessorMap", "first_fit", "lowest_free"]

_FREE, _BUSY = 0, 1


class ProcessorMap:
    """``size`` processors, ids ``0 .. size - 1``, each free or busy."""

    __slots__ = ("busy", "size")

    def __init__(self, size: int) -> None:
        self.size = size
        #: one byte per processor: 1 where busy
        self.busy = bytearray(size)

    def block(self, n: int) -> int:
        """The lowest id starting ``n`` free processors in a row, or -1."""
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

    def take(self, ids: list[int]) -> None:
        """Mark ``ids`` busy; ValueError if one is busy already or out of range (a rule's error)."""
        busy = self.busy
        for i in ids:
            if not 0 <= i < self.size or busy[i]:
                raise ValueError(f"processor {i} is {'busy' if 0 <= i < self.size else 'not on this machine'}")
            busy[i] = _BUSY

    def give_back(self, ids: list[int]) -> None:
        """Mark ``ids`` free."""
        busy = self.busy
        for i in ids:
            busy[i] = _FREE

    @property
    def free(self) -> int:
        return self.size - sum(self.busy)


#: a rule: the map and a count -> the ids to take (the machine marks them busy)
AllocationRule = Callable[[ProcessorMap, int], list[int]]


def first_fit(procs: ProcessorMap, n: int) -> list[int]:
    """The lowest block of ``n`` contiguous free processors; where none is left, the ``n`` lowest free ids."""
    i = procs.block(n)
    return list(range(i, i + n)) if i >= 0 else procs.free_ids(n)


def lowest_free(procs: ProcessorMap, n: int) -> list[int]:
    """The ``n`` lowest free ids, contiguous or not."""
    return procs.free_ids(n)


#: rules by name (``Machine(allocation="first-fit")``)
ALLOCATIONS: dict[str, AllocationRule] = {"first-fit": first_fit, "lowest": lowest_free}

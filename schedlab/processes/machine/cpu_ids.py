"""Which CPUs each job held: ids given at each allocation, kept as Batsim-style interval sets.

A :class:`~schedlab.processes.machine.machine.Machine` built with ``allocation=`` (a rule name
of :data:`~schedlab.model.contracts.cpu_map.ALLOCATIONS`, or any rule function) gives each
job specific CPU ids when it starts, gives them back when it ends or is
preempted, and gives back its highest ids when squeezed (a grown job takes new ones
by the rule). Each stretch a job held one set of ids is a *segment*:
``(job id, "0-3 7", start, end)`` in :meth:`CpuIds.allocation_rows`, in the order
they closed. A :class:`~schedlab.processes.cluster.cluster.Cluster` keeps its core ids here
too (its placement chooses them: :meth:`CpuIds.hold`).

A job's record carries the ids of the run that produced it
(:attr:`~schedlab.model.records.job_record.JobRecord.allocation`, the union of its
segments since its last start, resume or restart) and its node-failure restarts
(``restarts``): the segments stay here as the per-stretch detail a Gantt chart needs.

:class:`CpuIds` is a part the machine holds (``machine.ids``) and calls: only
:class:`~schedlab.processes.machine.with_ids.MachineWithIds` (what ``Machine(...,
allocation=...)`` builds) and a cluster feed it, from their own ``start``, ``resize``,
``_release`` and ``_leave``. A plain ``Machine`` holds an empty one, which it never calls
on its hot path: a test for ids in ``start`` and ``_release`` would be paid by every
machine, ids or not (measured: benchmarks/README.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import simpy

from schedlab.model.contracts.cpu_map import ALLOCATIONS, AllocationRule, CpuMap
from schedlab.model.core.job import Job
from schedlab.model.core.procset import format_procset, parse_procset
from schedlab.model.records.job_record import NO_IDS
from schedlab.processes.machine.parts_view import PartsView

__all__ = ["ALLOCATION_COLUMNS", "CpuIds", "allocation_rule"]

#: the columns of :meth:`CpuIds.allocation_rows`
ALLOCATION_COLUMNS = ("job", "procs", "start", "end")


def allocation_rule(name: str, allocation: str | AllocationRule) -> AllocationRule:
    """The rule ``allocation`` names (or is), for machine ``name``; anything else is a one-line ValueError."""
    if isinstance(allocation, str):
        if allocation not in ALLOCATIONS:
            raise ValueError(
                f"machine {name!r}: unknown allocation {allocation!r}; "
                f"choose from {', '.join(ALLOCATIONS)} or pass a rule function"
            )
        return ALLOCATIONS[allocation]
    if callable(allocation):
        return allocation
    raise ValueError(
        f"machine {name!r}: allocation must be a rule name or a function (map, n) -> ids, got {allocation!r}"
    )


class CpuIds:
    """The CPU ids each running job holds, and every stretch it held them (a machine's ``ids``).

    Parameters
    ----------
    env
        The machine's environment (segments are stamped with its clock).
    name
        The machine's name, for error messages.
    rule
        How :meth:`take` picks ids over :attr:`cpu_map`; ``None`` where the machine
        picks them itself (a cluster, through its placement) or gives none (a plain machine).
    size
        How many CPUs the free map has (with ``rule`` only).
    """

    @classmethod
    def of(cls, machine: PartsView, allocation: str | AllocationRule | None) -> CpuIds:
        """The ids part of ``machine``, built with ``allocation`` (a rule, its name, or ``None``: no ids)."""
        if allocation is None:
            return cls(machine.env, machine.name)
        rule = allocation_rule(machine.name, allocation)
        if not machine.gives_ids:
            raise TypeError(
                f"machine {machine.name!r}: a {type(machine).__name__} gives no CPU ids; "
                "build a Machine (which becomes a MachineWithIds) or derive from MachineWithIds"
            )
        return cls(machine.env, machine.name, rule, machine.max_capacity)

    def __init__(self, env: simpy.Environment, name: str, rule: AllocationRule | None = None, size: int = 0) -> None:
        self.env = env
        self.name = name
        self.rule = rule
        #: the CPUs, free or busy (None: no map here, so no rule picks ids)
        self.cpu_map: CpuMap | None = CpuMap(size) if rule is not None else None
        self._held: dict[Job, tuple[Sequence[int], float]] = {}
        # closed segments: (job id, its ids, start, end), the ids formatted when read
        self._segments: list[tuple[Any, Sequence[int], float, float]] = []
        # every id a job resized in its current run held in it (only resized jobs are here)
        self._run_union: dict[Job, set[int]] = {}

    # -- the machine's actions ------------------------------------------------------------------

    def hold(self, job: Job, ids: Sequence[int]) -> None:
        """``job`` holds ``ids`` from now on (ids its machine chose)."""
        self._held[job] = (ids, float(self.env.now))

    def take(self, job: Job, n: int) -> None:
        """``job`` started on ``n`` CPUs: give it ``n`` ids by the rule."""
        self._held[job] = (self._by_rule(n), float(self.env.now))

    def resize(self, job: Job, cpus: int) -> None:
        """``job`` now holds ``cpus`` CPUs: squeezed, it keeps its lowest ids; grown, it takes more."""
        ids, since = self._held[job]
        if cpus == len(ids):
            return
        now = float(self.env.now)
        self._segments.append((job.id, ids, since, now))
        self._run_union.setdefault(job, set(ids))
        kept = sorted(ids)[:cpus]
        procs = self.cpu_map
        assert procs is not None  # a machine that resizes with ids has a rule, so a map
        procs.give_back(sorted(ids)[cpus:])
        if cpus > len(ids):
            kept = kept + list(self._by_rule(cpus - len(ids)))
            self._run_union[job].update(kept)
        self._held[job] = (kept, now)

    def release(self, job: Job) -> None:
        """``job`` gives its ids back (it ended, or was preempted or killed): its segment closes."""
        ids, since = self._held.pop(job)
        if self.cpu_map is not None:
            self.cpu_map.give_back(ids)
        self._segments.append((job.id, ids, since, float(self.env.now)))  # formatted when read
        if self._run_union:
            self._run_union.pop(job, None)  # its run is over (ended, preempted or killed)

    def _by_rule(self, n: int) -> Sequence[int]:
        """``n`` ids by the rule, marked busy; a rule that gives the wrong count, or a busy id, is named."""
        procs, rule = self.cpu_map, self.rule
        assert procs is not None and rule is not None  # only a machine built with a rule takes ids
        ids = rule(procs, n)
        if type(ids) is not range:
            ids = list(ids)
        if len(ids) != n:
            raise ValueError(f"machine {self.name!r}: allocation rule {rule!r} gave {list(ids)!r} for {n} CPUs")
        try:
            procs.take(ids)  # a duplicate id is busy by its second turn
        except ValueError as exc:
            raise ValueError(
                f"machine {self.name!r}: allocation rule {rule!r} gave {list(ids)!r} for {n} CPUs: {exc}"
            ) from None
        return ids

    # -- what it answers ----------------------------------------------------------------------

    def run_allocation(self, job: Job) -> str:
        """The interval set of the ids ``job`` held in its current run (``""`` if it holds none).

        The union over the run's segments: a squeeze keeps the lowest ids and a growth
        adds new ones, so this is every CPU the run occupied (why a record keeps the
        union: :class:`~schedlab.model.records.job_record.JobRecord`).
        """
        held = self._held.get(job)
        if held is None:
            return NO_IDS
        union = self._run_union.get(job)
        return format_procset(held[0] if union is None else union)

    def held_ids(self, job: Job) -> list[int]:
        """The CPU ids ``job`` holds now (empty if it holds none, or the machine gives no ids)."""
        held = self._held.get(job)
        return sorted(held[0]) if held is not None else []

    def allocation_rows(self, *, running: bool = True) -> list[tuple[Any, str, float, float]]:
        """Every segment ``(job id, procset, start, end)`` closed so far, then (``running``) the open
        ones, ended now. Empty when the machine gives no ids."""
        rows = [(job, format_procset(ids), since, end) for job, ids, since, end in self._segments]
        if running:
            now = float(self.env.now)
            rows += [(job.id, format_procset(ids), since, now) for job, (ids, since) in self._held.items()]
        return rows

    def allocated(self) -> dict[Any, str]:
        """Per job id, every CPU it held over its life, as one interval set (Batsim's ``allocated_resources``)."""
        ids: dict[Any, set[int]] = {}
        for job, procs, _, _ in self.allocation_rows():
            ids.setdefault(job, set()).update(parse_procset(procs))
        return {job: format_procset(s) for job, s in ids.items()}

    def allocations_csv(self) -> str:
        """:meth:`allocation_rows` as CSV text with a header line (the procset has no comma to quote)."""
        lines = [",".join(ALLOCATION_COLUMNS)]
        lines += [f"{job},{procs},{start!r},{end!r}" for job, procs, start, end in self.allocation_rows()]
        return "\n".join(lines) + "\n"

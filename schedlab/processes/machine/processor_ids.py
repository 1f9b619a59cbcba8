"""Which processors each job held: ids given at each allocation, kept as Batsim-style interval sets.

A :class:`~schedlab.processes.machine.machine.Machine` built with ``allocation=`` (a rule name
of :data:`~schedlab.model.contracts.processor_map.ALLOCATIONS`, or any rule function) gives each
job specific processor ids when it starts, gives them back when it ends or is
preempted, and gives back its highest ids when squeezed (a grown job takes new ones
by the rule). Each stretch a job held one set of ids is a *segment*:
``(job id, "0-3 7", start, end)`` in :meth:`ProcessorIds.allocation_rows`, in the order
they closed. Without ``allocation`` (the default) a machine counts CPUs only and
none of this runs: the engine's speed is what it was (benchmarks/README.md).

A job's record carries the ids of the run that produced it
(:attr:`~schedlab.model.records.job_record.JobRecord.allocation`, the union of its
segments since its last start, resume or restart) and its node-failure restarts
(``restarts``): the segments stay here as the per-stretch detail a Gantt chart needs.

How, at no cost to a machine without ids: a machine built with ``allocation=`` is a
:class:`~schedlab.processes.machine.machine.MachineWithIds`, the explicit subclass whose
``start``, ``resize``, ``_release`` and ``_leave`` (:class:`GivesIds`, here) take or give
back ids around Machine's own; ``Machine(..., allocation=...)`` builds one. The plain
``Machine``'s methods, which every other machine runs, have no test for ids at all: a
test in ``start`` and ``_release`` would be paid by every machine, ids or not (measured:
benchmarks/README.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import simpy

from schedlab.model.contracts.processor_map import ALLOCATIONS, AllocationRule, ProcessorMap
from schedlab.model.core.job import Job
from schedlab.model.core.procset import format_procset
from schedlab.model.records.job_record import NO_IDS, Status

if TYPE_CHECKING:
    from schedlab.processes.machine.running import Running

__all__ = ["ALLOCATION_COLUMNS", "GivesIds", "ProcessorIds"]

#: the columns of :meth:`ProcessorIds.allocation_rows`
ALLOCATION_COLUMNS = ("job", "procs", "start", "end")


class ProcessorIds:
    """A mix-in of :class:`~schedlab.processes.machine.machine.Machine`: processor ids per running job."""

    env: simpy.Environment
    name: str
    max_capacity: int
    #: the processors, free or busy (None: the machine counts CPUs only)
    processors: ProcessorMap | None

    if TYPE_CHECKING:  # the host Machine's, which GivesIds extends (Machine follows it in the method order)

        def start(self, job: Job, cpus: int | None = None) -> None:
            """Start (or resume) waiting ``job`` (Machine's)."""
            ...

        def resize(self, job: Job, cpus: int) -> None:
            """Squeeze or grow running ``job`` (Machine's)."""
            ...

        def _release(self, run: Running) -> None: ...

        def _leave(
            self, run: Running, status: Status, now: float, restarts: int = 0, allocation: str = NO_IDS
        ) -> None: ...

    #: node-failure kills so far, per requeued job still here (NodeFaults')
    _attempts: dict[Job, int]

    def _init_ids(self, allocation: str | AllocationRule | None) -> None:
        self.processors = None
        self._rule: AllocationRule | None = None
        self._held: dict[Job, tuple[Sequence[int], float]] = {}
        # closed segments: (job id, its ids, start, end), the ids formatted when read
        self._segments: list[tuple[Any, Sequence[int], float, float]] = []
        # every id a job resized in its current run held in it (only resized jobs are here)
        self._run_union: dict[Job, set[int]] = {}
        if allocation is None:
            return
        if isinstance(allocation, str):
            if allocation not in ALLOCATIONS:
                raise ValueError(
                    f"machine {self.name!r}: unknown allocation {allocation!r}; "
                    f"choose from {', '.join(ALLOCATIONS)} or pass a rule function"
                )
            self._rule = ALLOCATIONS[allocation]
        elif callable(allocation):
            self._rule = allocation
        else:
            raise ValueError(
                f"machine {self.name!r}: allocation must be a rule name or a function "
                f"(map, n) -> ids, got {allocation!r}"
            )
        if not isinstance(self, GivesIds):
            raise TypeError(
                f"machine {self.name!r}: a {type(self).__name__} gives no processor ids; "
                "build a Machine (which becomes a MachineWithIds) or derive from MachineWithIds"
            )
        self.processors = ProcessorMap(self.max_capacity)

    def _ids_by_rule(self, procs: ProcessorMap, n: int) -> Sequence[int]:
        """``n`` ids by the rule, marked busy; a rule that gives the wrong count, or a busy id, is named."""
        ids = self._rule(procs, n)  # type: ignore[misc]  # set whenever ids are kept, the only time this runs
        if type(ids) is not range:
            ids = list(ids)
        if len(ids) != n:
            raise ValueError(
                f"machine {self.name!r}: allocation rule {self._rule!r} gave {list(ids)!r} for {n} processors"
            )
        try:
            procs.take(ids)  # a duplicate id is busy by its second turn
        except ValueError as exc:
            raise ValueError(
                f"machine {self.name!r}: allocation rule {self._rule!r} gave {list(ids)!r} for {n} processors: {exc}"
            ) from None
        return ids

    def _resize_ids(self, job: Job, cpus: int) -> None:
        """``job`` now holds ``cpus`` processors: squeezed, it keeps its lowest ids; grown, it takes more."""
        ids, since = self._held[job]
        now = float(self.env.now)
        self._segments.append((job.id, ids, since, now))
        self._run_union.setdefault(job, set(ids))
        kept = sorted(ids)[:cpus]
        procs = self.processors
        assert procs is not None
        procs.give_back(sorted(ids)[cpus:])
        if cpus > len(ids):
            kept = kept + list(self._ids_by_rule(procs, cpus - len(ids)))
            self._run_union[job].update(kept)
        self._held[job] = (kept, now)

    def _run_allocation(self, job: Job) -> str:
        """The interval set of the ids ``job`` held in its current run (``""`` if it holds none).

        The union over the run's segments: a squeeze keeps the lowest ids and a growth
        adds new ones, so this is every processor the run occupied (why a record keeps the
        union: :class:`~schedlab.model.records.job_record.JobRecord`).
        """
        held = self._held.get(job)
        if held is None:
            return NO_IDS
        union = self._run_union.get(job)
        return format_procset(held[0] if union is None else union)

    def held_ids(self, job: Job) -> list[int]:
        """The processor ids ``job`` holds now (empty if it holds none, or the machine gives no ids)."""
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
        """Per job id, every processor it held over its life, as one interval set (Batsim's ``allocated_resources``)."""
        from schedlab.model.core.procset import parse_procset

        ids: dict[Any, set[int]] = {}
        for job, procs, _, _ in self.allocation_rows():
            ids.setdefault(job, set()).update(parse_procset(procs))
        return {job: format_procset(s) for job, s in ids.items()}

    def allocations_csv(self) -> str:
        """:meth:`allocation_rows` as CSV text with a header line (the procset has no comma to quote)."""
        lines = [",".join(ALLOCATION_COLUMNS)]
        lines += [f"{job},{procs},{start!r},{end!r}" for job, procs, start, end in self.allocation_rows()]
        return "\n".join(lines) + "\n"


class GivesIds(ProcessorIds):
    """What :class:`~schedlab.processes.machine.machine.MachineWithIds` runs around Machine's own actions.

    Each method calls the machine's (``super()``), then takes or gives back processor
    ids; ``_leave`` first hands the record the run's ids and its restarts. A mix-in
    placed before ``Machine`` (``class MachineWithIds(GivesIds, Machine)``), so the
    class's method order shows what runs.
    """

    def start(self, job: Job, cpus: int | None = None) -> None:
        """Start (or resume) waiting ``job``, then give it ids by the machine's rule."""
        super().start(job, cpus)  # it checked cpus: the job runs on all it asked for, or on cpus
        procs = self.processors
        assert procs is not None  # a MachineWithIds always has its map (_init_ids)
        self._held[job] = (self._ids_by_rule(procs, job.cpus if cpus is None else int(cpus)), float(self.env.now))

    def resize(self, job: Job, cpus: int) -> None:
        """Squeeze or grow running ``job``, then give back its highest ids or take new ones."""
        before = len(self._held[job][0]) if job in self._held else None
        super().resize(job, cpus)
        if before is not None and before != cpus:
            self._resize_ids(job, int(cpus))

    def _release(self, run: Running) -> None:
        super()._release(run)
        job = run.job
        ids, since = self._held.pop(job)
        procs = self.processors
        assert procs is not None  # a MachineWithIds always has its map (_init_ids)
        procs.give_back(ids)
        self._segments.append((job.id, ids, since, float(self.env.now)))  # formatted when read
        if self._run_union:
            self._run_union.pop(job, None)  # its run is over (ended, preempted or killed)

    def _leave(self, run: Running, status: Status, now: float, restarts: int = 0, allocation: str = NO_IDS) -> None:
        job = run.job  # read before the machine's _leave releases the ids
        super()._leave(run, status, now, self._attempts.pop(job, 0), self._run_allocation(job))

"""A machine that names its CPUs: each job's ids, and nodes that fail.

:class:`MachineWithIds` is what ``Machine(..., allocation=...)`` builds (the class is
chosen then, once), and what a :class:`~schedlab.processes.cluster.cluster.Cluster` is.
Its ``start``, ``resize``, ``_release`` and ``_leave`` are the plain
:class:`~schedlab.processes.machine.machine.Machine`'s, with the ids taken, moved or given
back by its ``ids`` part (:mod:`~schedlab.processes.machine.cpu_ids`) around them. The
plain Machine's methods test nothing for ids, so a machine without them pays nothing
(measured: benchmarks/README.md). Its nodes can fail (``failures``:
:mod:`~schedlab.processes.machine.node_failures`); the methods below are the parts' answers,
asked of the machine.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import simpy

from schedlab.model.contracts.cpu_map import CpuMap
from schedlab.model.core.failures import NodeFailure
from schedlab.model.core.job import Job
from schedlab.model.records.job_record import NO_IDS, Status
from schedlab.model.records.node_fail import NodeKill, NodeOutage
from schedlab.processes.machine.machine import Machine
from schedlab.processes.machine.running import Running

__all__ = ["MachineWithIds"]


class MachineWithIds(Machine):
    """A :class:`~schedlab.processes.machine.machine.Machine` that gives each job CPU ids, and whose nodes fail.

    Built by ``Machine(..., allocation=...)``; its parameters are Machine's.
    """

    gives_ids = True

    # ------------------------------------------------------------------ Machine's, with the ids
    def start(self, job: Job, cpus: int | None = None) -> None:
        """Start (or resume) waiting ``job``, then give it ids (:meth:`CpuIds.take
        <schedlab.processes.machine.cpu_ids.CpuIds.take>`)."""
        super().start(job, cpus)  # it checked cpus: the job runs on all it asked for, or on cpus
        self.ids.take(job, job.cpus if cpus is None else int(cpus))

    def resize(self, job: Job, cpus: int) -> None:
        """Squeeze or grow running ``job``, then give back its highest ids or take new ones."""
        super().resize(job, cpus)
        self.ids.resize(job, int(cpus))

    def _release(self, run: Running) -> None:
        super()._release(run)
        self.ids.release(run.job)

    def _leave(self, run: Running, status: Status, now: float, restarts: int = 0, allocation: str = NO_IDS) -> None:
        job = run.job  # its restarts and ids, read before the machine's _leave releases them
        super()._leave(run, status, now, self.failures.ended(job), self.ids.run_allocation(job))

    # ------------------------------------------------------------------ how a node goes down and comes back
    def _take_down(self, node: int, ids: range) -> None:
        """``node``'s CPUs ``ids`` (its jobs killed, so free) go down: none is allocated, the capacity drops."""
        assert self.ids.cpu_map is not None  # a machine built with a rule has its map
        self.ids.cpu_map.set_down(ids)
        self.cpu_time.change_capacity(-len(ids))

    def _bring_up(self, node: int, ids: range) -> None:
        """``node`` is repaired: its CPUs ``ids`` are free again, the capacity grows back."""
        assert self.ids.cpu_map is not None
        self.ids.cpu_map.set_up(ids)
        self.cpu_time.change_capacity(len(ids))

    # ------------------------------------------------------------------ the ids part's answers
    @property
    def cpu_map(self) -> CpuMap | None:
        """The CPUs, free or busy (``None`` on a cluster, whose cores are mapped per node)."""
        return self.ids.cpu_map

    def held_ids(self, job: Job) -> list[int]:
        """The CPU ids ``job`` holds now (empty if it holds none)."""
        return self.ids.held_ids(job)

    def allocation_rows(self, *, running: bool = True) -> list[tuple[Any, str, float, float]]:
        """Every stretch a job held one set of ids: ``(job id, procset, start, end)``, closed ones first."""
        return self.ids.allocation_rows(running=running)

    def allocated(self) -> dict[Any, str]:
        """Per job id, every CPU it held over its life, as one interval set."""
        return self.ids.allocated()

    def allocations_csv(self) -> str:
        """:meth:`allocation_rows` as CSV text with a header line."""
        return self.ids.allocations_csv()

    # ------------------------------------------------------------------ the failures part's answers
    @property
    def node_kills(self) -> list[NodeKill]:
        """Every job a node failure killed, in order."""
        return self.failures.node_kills

    @property
    def node_outages(self) -> list[NodeOutage]:
        """Every stretch a node was down, in the order they began (``end`` nan while down)."""
        return self.failures.node_outages

    @property
    def node_count(self) -> int:
        """How many nodes the machine has."""
        return self.failures.node_count

    def node_procs(self, node: int) -> range:
        """The CPU ids of ``node``."""
        return self.failures.node_procs(node)

    def nodes_down(self) -> list[int]:
        """The nodes down now."""
        return self.failures.nodes_down()

    def restarts(self, job: Job) -> int:
        """Times ``job`` was killed by a node failure and requeued, while here."""
        return self.failures.restarts(job)

    def fail_nodes(self, nodes: Iterable[int]) -> None:
        """Nodes fail now: kill the jobs on them (requeue or drop), take their CPUs down, decide."""
        self.failures.fail_nodes(nodes)

    def repair_nodes(self, nodes: Iterable[int]) -> None:
        """One failure of each of ``nodes`` is repaired; a node with no failure left comes back up."""
        self.failures.repair_nodes(nodes)

    def inject_failures(self, failures: Sequence[NodeFailure]) -> simpy.Process:
        """Replay ``failures`` (sorted by time) on this machine: a SimPy process failing and repairing nodes."""
        return self.failures.inject_failures(failures)


#: ``Machine(..., allocation=...)`` builds this class (Machine.__new__); told here, where it is
#: defined, since machine.py cannot import its own subclass without a cycle
Machine.builds_with_ids = MachineWithIds

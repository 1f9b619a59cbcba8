"""A cluster's core ids: each started job takes, on each node its placement gave it, the lowest free cores.

Cores have ids, as Batsim numbers resources: node k's cores are ids ``first_k`` to
``first_k + cores_k - 1``, the nodes in the platform's order. On each node a job takes the
lowest block of contiguous free cores (else the lowest free ones). :class:`CoreIds` is the
cluster's ``ids`` part: a :class:`~schedlab.processes.machine.cpu_ids.CpuIds`
(the stretches each job held its ids, for ``allocation_rows`` and the records) whose ids
come from the placement, with a free map per node instead of one over the machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import simpy

from schedlab.model.contracts.cpu_map import CpuMap, first_fit
from schedlab.model.contracts.placement import Allocation, NodeState
from schedlab.model.core.job import Job
from schedlab.processes.machine.cpu_ids import CpuIds

__all__ = ["CoreIds", "PlacedCores"]


class PlacedCores(Protocol):
    """What :class:`CoreIds` reads of its cluster: its nodes, each node's first core id, and a job's placement.

    A protocol, not the ``Cluster`` class: cluster.py builds its ``CoreIds``, so importing it
    here, even for its type, would make the two modules a cycle.
    """

    env: simpy.Environment
    name: str
    nodes: list[NodeState]
    #: each node's first core id (the nodes in the platform's order), then one past the last
    _first_core: list[int]

    def plan(self, job: Job) -> Allocation | None:
        """The nodes and cores the placement gives ``job`` now (the plan its start just made)."""
        ...


class CoreIds(CpuIds):
    """The core ids of ``cluster``'s running jobs, given on the nodes the placement chose."""

    def __init__(self, cluster: PlacedCores) -> None:
        super().__init__(cluster.env, cluster.name)
        self.cluster = cluster
        self._core_maps = [CpuMap(n.cores) for n in cluster.nodes]  # a free map per node
        self._cores_of: dict[Job, list[tuple[int, Sequence[int]]]] = {}

    def take(self, job: Job, n: int) -> None:
        """``job`` started on all its cores: the cores it runs on, first fit within each of its nodes."""
        cluster = self.cluster
        alloc = cluster.plan(job)  # the plan its start just made
        assert alloc is not None
        held, ids = [], []
        for i, cores in alloc.items():
            local = first_fit(self._core_maps[i], cores)
            self._core_maps[i].take(local)
            held.append((i, local))
            ids += [cluster._first_core[i] + c for c in local]
        self._cores_of[job] = held
        self.hold(job, ids)

    def release(self, job: Job) -> None:
        """``job`` gives its cores back, on each node."""
        for i, local in self._cores_of.pop(job):
            self._core_maps[i].give_back(local)
        super().release(job)

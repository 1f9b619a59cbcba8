"""Where a :class:`~schedlab.processes.cluster.cluster.Cluster`'s jobs ran: placement table, core ids, node usage.

Each stretch a job ran on a node is a row ``(job, queue, node, kind, cores, start, end)``
(:data:`PLACEMENT_COLUMNS`), closed when the job leaves the node (the cluster's
``_release``). ``schedlab replay --platform`` saves the table beside the results, and
``schedlab plot`` draws a Gantt chart per node from it, with a band for every node of
:meth:`~PlacementTable.node_rows` (idle and failed ones too).

:class:`PlacementTable` is the part of the cluster that reads the table back (a mix-in:
the cluster has the state it reads, and writes the rows).
"""

from __future__ import annotations

from collections.abc import Mapping

import simpy

from schedlab.model.contracts.placement import Allocation, NodeState
from schedlab.model.core.job import Job

__all__ = ["NODE_COLUMNS", "PLACEMENT_COLUMNS", "PlacementTable"]

#: the columns of :meth:`PlacementTable.placement_rows`
PLACEMENT_COLUMNS = ("job", "queue", "node", "kind", "cores", "start", "end")
#: the columns of :meth:`PlacementTable.node_rows`: every node, in the cluster's order
NODE_COLUMNS = ("index", "node", "kind", "cores")


class PlacementTable:
    """A mix-in of :class:`~schedlab.processes.cluster.cluster.Cluster`: where its jobs ran, and where they run now."""

    env: simpy.Environment
    name: str
    max_capacity: int
    nodes: list[NodeState]
    allocations: dict[Job, Allocation]
    _rows: list[tuple[object, str, str, str, int, float, float]]
    _since: dict[Job, float]
    _first_core: list[int]

    def placement_rows(self, *, running: bool = True) -> list[tuple[object, str, str, str, int, float, float]]:
        """Where each job ran: one ``(job, queue, node, kind, cores, start, end)`` per job and node.

        The columns are :data:`PLACEMENT_COLUMNS`; ``queue`` is the job's ``job_class``.
        A preempted job has one row per stretch it ran. With ``running``, jobs still
        running are included, ending now.
        """
        rows = list(self._rows)
        if running:
            now = self.env.now
            for job, alloc in self.allocations.items():
                for i, cores in alloc.items():
                    node = self.nodes[i]
                    rows.append((job.id, job.job_class, node.name, node.kind, cores, self._since[job], now))
        return rows

    def core_of(self, core_id: int) -> tuple[str, int]:
        """The node (its name) and the core on it of the cluster-wide core id ``core_id``."""
        if not 0 <= core_id < self.max_capacity:
            raise ValueError(f"cluster {self.name!r}: no core {core_id} (ids 0-{self.max_capacity - 1})")
        i = max(k for k, first in enumerate(self._first_core) if first <= core_id)
        return self.nodes[i].name, core_id - self._first_core[i]

    def placements_csv(self) -> str:
        """:meth:`placement_rows` as CSV text, with a header line."""
        lines = [",".join(PLACEMENT_COLUMNS)]
        lines += [",".join(map(str, row)) for row in self.placement_rows()]
        return "\n".join(lines) + "\n"

    def node_rows(self) -> list[tuple[int, str, str, int]]:
        """Every node, ``(index, node, kind, cores)`` (:data:`NODE_COLUMNS`): what a chart needs
        to draw a node no job ran on, and to name the node of a failure (which counts nodes by index)."""
        return [(n.index, n.name, n.kind, n.cores) for n in self.nodes]

    def nodes_csv(self) -> str:
        """:meth:`node_rows` as CSV text, with a header line."""
        return "\n".join([",".join(NODE_COLUMNS)] + [",".join(map(str, row)) for row in self.node_rows()]) + "\n"

    def node_usage(self) -> Mapping[str, tuple[int, dict[str, float]]]:
        """Each node's cores and other resources in use now: ``{node: (cores, {resource: amount})}``."""
        return {
            n.name: (n.cores - n.free_cores, {r: n.resources[r] - n.free.get(r, 0.0) for r in n.resources})
            for n in self.nodes
        }

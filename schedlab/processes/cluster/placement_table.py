"""Where a :class:`~schedlab.processes.cluster.cluster.Cluster`'s jobs ran: placement table, core ids, node usage.

Each stretch a job ran on a node is a row ``(job, queue, node, kind, cores, start, end)``
(:data:`PLACEMENT_COLUMNS`), closed when the job leaves the node (the cluster's
``_release``). ``schedlab replay --platform`` saves the table beside the results, and
``schedlab plot`` draws a Gantt chart per node from it, with a band for every node of
:meth:`~PlacementTable.node_rows` (idle and failed ones too).

:class:`PlacementTable` is a part the cluster holds (``cluster.placements``): it keeps the
closed rows and when each running job was placed; the cluster writes them as jobs start
and leave, and answers ``placement_rows`` and the rest by asking it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import simpy

from schedlab.model.contracts.placement import Allocation, NodeState
from schedlab.model.core.job import Job

__all__ = ["NODE_COLUMNS", "PLACEMENT_COLUMNS", "PlacementRow", "PlacementTable"]

#: the columns of :meth:`PlacementTable.placement_rows`
PLACEMENT_COLUMNS = ("job", "queue", "node", "kind", "cores", "start", "end")
#: the columns of :meth:`PlacementTable.node_rows`: every node, in the cluster's order
NODE_COLUMNS = ("index", "node", "kind", "cores")

#: one stretch a job ran on a node: ``(job id, queue, node, kind, cores, start, end)``
PlacementRow = tuple[object, str, str, str, int, float, float]


class PlacementTable:
    """Where the jobs of a cluster ran, and where they run now (its ``placements`` part).

    ``nodes`` and ``allocations`` are the cluster's own, live; ``first_core`` is each
    node's first core id, then one past the last.
    """

    def __init__(
        self,
        env: simpy.Environment,
        name: str,
        nodes: Sequence[NodeState],
        allocations: Mapping[Job, Allocation],
        first_core: Sequence[int],
    ) -> None:
        self.env = env
        self.name = name
        self.nodes = nodes
        self.allocations = allocations
        self.first_core = first_core
        #: the stretches closed so far, in the order they closed (the cluster appends them)
        self.rows: list[PlacementRow] = []
        #: when each running job was placed on its nodes (the cluster sets it at the start)
        self.since: dict[Job, float] = {}

    def placement_rows(self, *, running: bool = True) -> list[PlacementRow]:
        """Where each job ran: one ``(job, queue, node, kind, cores, start, end)`` per job and node.

        The columns are :data:`PLACEMENT_COLUMNS`; ``queue`` is the job's ``job_class``.
        A preempted job has one row per stretch it ran. With ``running``, jobs still
        running are included, ending now.
        """
        rows = list(self.rows)
        if running:
            now = self.env.now
            for job, alloc in self.allocations.items():
                for i, cores in alloc.items():
                    node = self.nodes[i]
                    rows.append((job.id, job.job_class, node.name, node.kind, cores, self.since[job], now))
        return rows

    def core_of(self, core_id: int) -> tuple[str, int]:
        """The node (its name) and the core on it of the cluster-wide core id ``core_id``."""
        first = self.first_core
        if not 0 <= core_id < first[-1]:
            raise ValueError(f"cluster {self.name!r}: no core {core_id} (ids 0-{first[-1] - 1})")
        i = max(k for k, start in enumerate(first) if start <= core_id)
        return self.nodes[i].name, core_id - first[i]

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

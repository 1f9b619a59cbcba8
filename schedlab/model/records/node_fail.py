"""What node failures did to a run: one :class:`NodeKill` per job killed, one :class:`NodeOutage` per node down.

A machine that injects failures (:mod:`schedlab.processes.machine.node_failures`) keeps both
lists; the failure metrics (:mod:`schedlab.model.analysis.failures`) and the
conservation check are functions of them and of the job records.
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["NODE_KILL_COLUMNS", "NodeKill", "NodeOutage", "outages_csv"]


class NodeKill(NamedTuple):
    """One job killed by a node failure.

    ``start`` is when this attempt started, ``time`` when it was killed; ``cpu_time``
    the CPU-time the attempt held (lost, unless the job's body checkpointed);
    ``outcome`` is ``"requeued"`` (the job waits again, same id) or ``"dropped"`` (it
    ends with a ``NODE_FAIL`` record). ``attempt`` counts from 1: the attempt killed.
    """

    time: float
    node: int
    job: Any
    cpus: int
    start: float
    cpu_time: float
    outcome: str
    attempt: int


class NodeOutage(NamedTuple):
    """Node ``node`` (CPUs ``procs``, a ``"0-3"`` interval set) was down from ``start`` to ``end``.

    ``end`` is ``nan`` while it is still down.
    """

    node: int
    procs: str
    start: float
    end: float


#: the columns of a kills table (``NodeKill``'s fields)
NODE_KILL_COLUMNS: tuple[str, ...] = NodeKill._fields


def outages_csv(outages: list[NodeOutage]) -> str:
    """Outages as CSV text with a header line (``node,procs,start,end``; ``nan``: still down):
    the ``node_outages.csv`` a run saves, from which ``schedlab plot`` draws its nodes down."""
    return ",".join(NodeOutage._fields) + "\n" + "".join(",".join(map(str, row)) + "\n" for row in outages)

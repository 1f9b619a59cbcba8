"""Conservative backfilling on a cluster, rebuilt at each decision (``conservative-rebuild`` on a platform).

The cluster's :class:`~schedlab.policies.conservative_rebuild.RebuildConservative`:
no plan is kept, and at each decision every waiting job is planned again, in
priority order, in its pool's :class:`~schedlab.policies.profile.Profile` of free
cores (:func:`~schedlab.policies.partition_conservative.pool_profiles`: the nodes of a
partition, or of several partitions merged where they share nodes). A job starts now
only if its reservation is now and the placement rule can place it. The
arrival-reservation rule, whose reservations never move later, is
:class:`~schedlab.policies.partition_conservative.PartitionConservative`
(``conservative``); this one is kept because neither wins on mean wait.

Why pools: one count of free CPUs mixes partitions up: a GPU partition's idle
cores make a CPU job look as if it could start now, and a job started "in its slot"
may then take cores that an earlier job's reservation, in its own partition, needs.
So with disjoint partitions no job's plan reads another partition's cores. It still
counts cores within a pool: a job that must fit on one node (GPUs, an exclusive
placement) may be reserved at a time when its pool has the cores but no node has them
all; the cluster then keeps it waiting (``fits`` asks the placement rule) and its
reservation moves on at the next decision. On nodes of one core, where counting is
exact, with no partitions it is :class:`RebuildConservative` (``tests/test_cluster.py``
replays a SDSC-SP2 window both ways).

Why not reserve nodes, as :class:`~schedlab.policies.node_backfilling.NodeEASY` does for
its one head? A version that fixed each reservation's nodes when it planned them was
tried: on one-core nodes it made jobs wait longer than counting does (a 512-job
SDSC-SP2 window: mean wait 4,725 s counting, 7,354 s fixing nodes), because a
reservation's nodes are better chosen when it starts, and it cost far more time
(measured: benchmarks/README.md).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from schedlab.model.contracts.machine import Order, Score, Start
from schedlab.model.contracts.placement import ClusterView
from schedlab.model.core.job import Job
from schedlab.policies.backfilling import Backfilling
from schedlab.policies.partition_conservative import node_pools, pool_profiles
from schedlab.policies.scoring import as_order

__all__ = ["RebuildPartitionConservative", "partition_plan"]


def partition_plan(view: ClusterView, order: Order | Score | str = "fcfs") -> dict[Job, float]:
    """Every waiting job's reservation (start time) under :class:`RebuildPartitionConservative`, now.

    The cluster's :func:`~schedlab.policies.conservative_rebuild.plan`: the whole queue
    in ``order``'s ranking, each job in its pool's profile; ``inf`` for a job wider than
    its pool or with no node.
    """
    now = view.now
    queue = list(as_order(order).rank(view.waiting, now))
    allowed = [view.allowed_nodes(job) for job in queue]
    pool_of = node_pools(sorted(set(allowed)))
    profiles = pool_profiles(view, pool_of)
    return {
        job: profiles[pool_of[mine[0]]].take_earliest(job.cpus, job.requested_time) if mine else math.inf
        for job, mine in zip(queue, allowed, strict=True)
    }


@dataclass(frozen=True, init=False)
class RebuildPartitionConservative(Backfilling):
    """Conservative backfilling over ``order`` with a profile of free cores per pool, rebuilt at each decision.

    Needs a :class:`~schedlab.processes.cluster.cluster.Cluster` (its view is a
    :class:`~schedlab.model.contracts.placement.ClusterView`). See the module's docstring.
    """

    def _starts(self, view: ClusterView) -> Iterator[Start]:  # type: ignore[override]  # it runs on a Cluster, whose view is a ClusterView
        now = view.now
        queue: Sequence[Job] = list(self.order.rank(view.waiting, now))  # a copy: starting jobs changes the queue
        allowed = [view.allowed_nodes(job) for job in queue]
        pool_of = node_pools(sorted(set(allowed)))
        profiles = pool_profiles(view, pool_of)
        for job, mine in zip(queue, allowed, strict=True):
            if view.free == 0:
                return  # nothing more can start now: the rest need no plan
            if not mine:
                continue  # no node to run on
            profile = profiles[pool_of[mine[0]]]
            i = profile.earliest(job.cpus, job.requested_time)
            if i < 0:
                continue  # wider than its pool: it holds nothing
            profile.reserve(i, job.cpus, job.requested_time)
            if i == 0 and view.fits(job):
                yield Start(job)

    def __str__(self) -> str:
        return f"{self.order}+partition-conservative-rebuild"

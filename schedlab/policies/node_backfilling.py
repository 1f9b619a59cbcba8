"""EASY backfilling that reserves nodes, not a count of cores: for a cluster of nodes.

:class:`~schedlab.policies.backfilling.EASY` reasons with CPUs: the head job's
reservation is the time enough CPUs free up anywhere. On a cluster that is an
estimate: the cores may be on nodes of another partition, on nodes a GPU job cannot
use, or spread so that no node can hold the head. :class:`NodeEASY` asks the cluster's
own placement rule instead, on a copy of the nodes' state
(:class:`~schedlab.model.contracts.placement.ClusterView`):

1. jobs start in priority order while the rule can place them;
2. the first that cannot, the *head*, gets a reservation: the running jobs end, in the
   order of their requested ends, on a copy of the nodes, until the rule can place the
   head there (the *shadow time*, and the head's nodes then);
3. a later job starts now if the rule places it now and it either ends, by its
   requested time, no later than the shadow time, or leaves the head placeable at the
   shadow time with it still running.

So no backfilled job delays the head, as far as requested times tell, on nodes as
they are. On nodes of one core each with no partitions it starts the very jobs EASY
does (``tests/test_cluster.py`` replays a SDSC-SP2 window both ways).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from schedlab.model.contracts.machine import Order, Score, Start
from schedlab.model.contracts.placement import Allocation, ClusterView, NodeState, copy_nodes, hold, let_go
from schedlab.model.core.job import Job
from schedlab.policies.scoring import as_order

__all__ = ["NodeEASY", "node_reservation"]


def node_reservation(view: ClusterView, head: Job) -> tuple[float, list[NodeState] | None, Allocation | None]:
    """The head's shadow time, the nodes' state then, and where the head would go (``(inf, None, None)``: never).

    Running jobs end at their ``requested_end`` (now, for one that has overrun it); every
    job ending at the same time frees its nodes before the head is tried.
    """
    now = view.now
    nodes = copy_nodes(view.nodes)
    rule, allowed = view.placement, view.allowed_nodes(head)
    exclusive = rule.exclusive
    allocations = view.allocations
    ends = sorted(
        ((max(r.requested_end, now), i, r.job) for i, r in enumerate(view.running)), key=lambda e: (e[0], e[1])
    )
    mine = set(allowed)
    free = sum(nodes[i].free_cores for i in allowed)  # the head's partition's free cores, kept up to date
    k = 0
    while k < len(ends):
        end = ends[k][0]
        while k < len(ends) and ends[k][0] == end:  # every job ending then frees its nodes
            job = ends[k][2]
            alloc = allocations[job]
            before = sum(nodes[i].free_cores for i in alloc if i in mine)
            let_go(nodes, job, alloc, exclusive)
            free += sum(nodes[i].free_cores for i in alloc if i in mine) - before
            k += 1
        if free >= head.cpus:  # the rule is asked only when the partition has the cores at all
            placed = rule.place(head, nodes, allowed)
            if placed is not None:
                return end, nodes, placed
    return float("inf"), None, None


@dataclass(frozen=True, init=False)
class NodeEASY:
    """EASY backfilling over ``order`` that reserves nodes through the cluster's placement rule.

    Needs a :class:`~schedlab.processes.cluster.cluster.Cluster` (its view is a
    :class:`~schedlab.model.contracts.placement.ClusterView`). ``order`` is an order or
    a score, as :class:`~schedlab.policies.backfilling.EASY` takes it (default FCFS).
    """

    order: Order

    def __init__(self, order: Order | Score | str = "fcfs") -> None:
        object.__setattr__(self, "order", as_order(order))  # frozen: set once, here

    def __call__(self, view: ClusterView) -> Iterator[Start] | None:
        if not view.waiting:
            return None
        return self._starts(view)

    def _starts(self, view: ClusterView) -> Iterator[Start]:
        now = view.now
        queue = list(self.order.rank(view.waiting, now))  # a copy: starting jobs changes the queue
        i = 0
        while i < len(queue) and view.fits(queue[i]):
            yield Start(queue[i])
            i += 1
        if i >= len(queue) - 1:
            return  # nothing blocked, or nothing behind the blocked head
        free = view.free
        if not any(job.cpus <= free for job in queue[i + 1 :]):
            # no job behind the head could start now: no reservation to work out (a copy of every
            # node; measured: benchmarks/README.md)
            return
        head = queue[i]
        shadow, at_shadow, reserved = node_reservation(view, head)
        rule = view.placement
        head_nodes = view.allowed_nodes(head)
        for job in queue[i + 1 :]:
            if view.free == 0:
                return
            if job.cpus > view.free or not view.fits(job):
                continue
            if now + job.requested_time <= shadow:  # ends before the head's reservation
                yield Start(job)
                continue
            if at_shadow is None:
                continue  # shadow is inf: every job ends before it (handled above)
            alloc: Allocation | None = view.plan(job)
            if alloc is None:
                continue
            hold(at_shadow, job, alloc, rule.exclusive)  # it would still run at the shadow time
            # On none of the head's reserved nodes, those are as they were, so the head still
            # fits there: the rule is asked only when the job would share one of them, and
            # where it then places the head becomes the reservation the next jobs must spare
            # (the same schedule, in less time; measured: benchmarks/README.md).
            if reserved is not None and reserved.keys().isdisjoint(alloc):
                placed: Allocation | None = reserved
            else:
                placed = rule.place(head, at_shadow, head_nodes)
            if placed is not None:
                reserved = placed
                yield Start(job)
            else:
                let_go(at_shadow, job, alloc, rule.exclusive)

    def __str__(self) -> str:
        return f"{self.order}+node-easy"

"""Multi-queue policies: pick across a platform's queues by strict priority or weighted round robin.

A job's queue is its ``job_class`` (SWF field 15), matched to a
:class:`~schedlab.model.core.platform.Queue` of the platform by name or SWF number; jobs of
no known queue form one more queue, of priority 0 and weight 1. Within a queue jobs go
in the order of an inner :class:`~schedlab.model.contracts.machine.Order` or score (FCFS by default).

- :class:`StrictPriority`: the highest-priority queue first. As Slurm's main scheduling
  loop does, a job that does not fit blocks the later jobs *of its partition* only
  (nodes of other partitions are no use to it), and jobs of other partitions go on.
  Its :meth:`~StrictPriority.rank` is the same order, so ``EASY(StrictPriority(...))``
  backfills over it.
- :class:`WeightedRoundRobin`: each start goes to the queue furthest behind its share
  (jobs started over weight, smallest first; ties to the higher priority); a queue
  whose first job does not fit is passed over until the next decision. Stateful: one
  per run.

Per-queue runtime limits are not a policy matter: :meth:`Platform.admit
<schedlab.model.core.platform.Platform.admit>` makes a queue's limit the job's requested
time, which the walltime kill and backfilling then use.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from schedlab.model.contracts.machine import MachineView, Order, Score, Start
from schedlab.model.contracts.placement import ClusterPolicy
from schedlab.model.core.job import Job
from schedlab.model.core.platform import Platform, Queue
from schedlab.policies.batch import make_policy
from schedlab.policies.node_backfilling import NodeEASY
from schedlab.policies.partition_conservative import PartitionConservative
from schedlab.policies.partition_conservative_rebuild import RebuildPartitionConservative
from schedlab.policies.scoring import as_order

__all__ = ["QUEUE_POLICIES", "StrictPriority", "WeightedRoundRobin", "make_queue_policy"]

#: the queue jobs of no known queue go to
_OTHER = Queue("(other)")


def _queue(platform: Platform, job: Job) -> Queue:
    return platform.queue_of(job) or _OTHER


def _partition(platform: Platform, job: Job) -> str:
    partition = platform.partition_of(job)
    return partition.name if partition is not None else ""


@dataclass(frozen=True, init=False)
class StrictPriority:
    """Queues by priority (highest first), each in ``order``; a blocked job blocks only its partition.

    ``order`` is an order or a score, as :class:`~schedlab.policies.backfilling.EASY`
    takes it (default FCFS). It is itself an order (:meth:`rank`).
    """

    platform: Platform
    order: Order

    def __init__(self, platform: Platform, order: Order | Score | str = "fcfs") -> None:
        object.__setattr__(self, "platform", platform)  # frozen: set once, here
        object.__setattr__(self, "order", as_order(order))

    def rank(self, waiting: Sequence[Job], now: float) -> list[Job]:
        """The waiting jobs by queue priority, then by ``order`` within a queue (a stable sort)."""
        platform = self.platform
        return sorted(self.order.rank(waiting, now), key=lambda job: -_queue(platform, job).priority)

    def __call__(self, view: MachineView) -> Iterator[Start] | None:
        if not view.waiting:
            return None
        return self._starts(view)

    def _starts(self, view: MachineView) -> Iterator[Start]:
        blocked: set[str] = set()
        for job in self.rank(view.waiting, view.now):
            partition = _partition(self.platform, job)
            if partition in blocked:
                continue
            if view.fits(job):
                yield Start(job)
            else:
                blocked.add(partition)

    def __str__(self) -> str:
        return f"strict-priority({self.order})"


class WeightedRoundRobin:
    """Each start to the queue furthest behind its weight's share; a blocked queue waits for the next decision."""

    def __init__(self, platform: Platform, order: Order | Score | str = "fcfs") -> None:
        self.platform = platform
        self.order = as_order(order)
        #: jobs started so far per queue name: the round robin's state
        self.started: dict[str, int] = {}

    def __call__(self, view: MachineView) -> Iterator[Start] | None:
        if not view.waiting:
            return None
        return self._starts(view)

    def _starts(self, view: MachineView) -> Iterator[Start]:
        queues: dict[str, list[Job]] = {}
        info: dict[str, Queue] = {}
        for job in self.order.rank(view.waiting, view.now):
            queue = _queue(self.platform, job)
            queues.setdefault(queue.name, []).append(job)
            info[queue.name] = queue
        heads = dict.fromkeys(queues, 0)
        started = self.started
        while heads:
            name = min(heads, key=lambda q: ((started.get(q, 0) + 1) / info[q].weight, -info[q].priority, q))
            jobs, i = queues[name], heads[name]
            job = jobs[i]
            if not view.fits(job):
                del heads[name]  # this queue waits for the next decision
                continue
            yield Start(job)
            started[name] = started.get(name, 0) + 1
            if i + 1 < len(jobs):
                heads[name] = i + 1
            else:
                del heads[name]

    def __str__(self) -> str:
        return f"weighted-round-robin({self.order})"

    def __repr__(self) -> str:
        return f"WeightedRoundRobin({self.platform.name!r}, {self.order})"


#: how queues share a cluster, by the names the command line uses: one queue in the
#: score's order (``none``), strict priority, weighted round robin
QUEUE_POLICIES = ("none", "strict", "wrr")


def make_queue_policy(
    platform: Platform, queues: str = "none", score: str = "fcfs", backfill: str = "none"
) -> ClusterPolicy:
    """The policy ``schedlab replay --platform`` runs: a score and a backfilling, across queues as ``queues`` says.

    ``none`` is one queue in the score's order; ``strict`` is :class:`StrictPriority`'s
    order; ``wrr`` has no backfilling. EASY on a platform is
    :class:`~schedlab.policies.node_backfilling.NodeEASY`, which reserves nodes through
    the cluster's placement rule; conservative is
    :class:`~schedlab.policies.partition_conservative.PartitionConservative`, which, like
    :class:`~schedlab.policies.conservative.Conservative` on a machine, gives each job a
    reservation at its arrival that only ever moves earlier, counting cores per
    partition; conservative-rebuild is
    :class:`~schedlab.policies.partition_conservative_rebuild.RebuildPartitionConservative`,
    which rebuilds that plan at each decision, like
    :class:`~schedlab.policies.conservative_rebuild.RebuildConservative`.
    """
    if queues not in QUEUE_POLICIES:
        raise ValueError(f"unknown queue policy {queues!r}; choose from {', '.join(QUEUE_POLICIES)}")
    make_policy(score, backfill)  # names an unknown score or backfill
    order = as_order(score)
    if queues == "none":
        if backfill == "easy":
            return NodeEASY(order)
        if backfill.startswith("conservative"):
            return _conservative(backfill, order)
        return make_policy(score, backfill)
    if queues == "wrr":
        if backfill != "none":
            raise ValueError(f"weighted round robin has no backfilling: use backfill none, not {backfill!r}")
        return WeightedRoundRobin(platform, order)
    strict = StrictPriority(platform, order)
    if backfill == "easy":
        return NodeEASY(strict)
    if backfill.startswith("conservative"):
        return _conservative(backfill, strict)
    return strict


def _conservative(backfill: str, order: Order) -> PartitionConservative | RebuildPartitionConservative:
    """The cluster's conservative backfilling called ``backfill`` (as on a machine), over ``order``."""
    return RebuildPartitionConservative(order) if backfill == "conservative-rebuild" else PartitionConservative(order)

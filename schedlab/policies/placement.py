"""Placement rules: which nodes a starting job runs on, and how many of its cores each holds.

Placement is a policy decision, separate from the order jobs start in: a
:class:`~schedlab.processes.cluster.cluster.Cluster` asks its rule each time it checks
whether a job fits and when it starts it. The rules, all written against
:mod:`schedlab.model.contracts.placement`:

- :class:`FirstFitPlacement`: the whole job on the first node (in platform order) that
  can hold it;
- :class:`BestFitPlacement`: the whole job on the node it leaves with the fewest free cores
  (under both, a job that one node could hold waits for one, as a GPU job asking for
  ``--gres=gpu:1`` waits for a node with a free GPU rather than take half of two);
- :class:`ExclusivePlacement`: whole idle nodes, held by the job alone (Slurm's
  ``--exclusive``, Batsim's hosts);
- :class:`PackPlacement`: the job's cores anywhere there is room, partly used nodes
  first, so a job may be split over several nodes although one could hold it (fewest
  idle nodes touched; a job never waits for lack of a node when enough cores are free).

A job wider than any node of its partition is spread over several by
:class:`FirstFitPlacement` (nodes in order) and :class:`BestFitPlacement` (the roomiest
first, the last piece best-fitted). The names carry ``Placement`` because
:mod:`schedlab.policies` already has a ``FirstFit`` (the site supervisor's) and a
``BestFit`` (a job order). A job's memory and GPUs go with its cores, in proportion
(:func:`schedlab.model.contracts.placement.share`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from schedlab.model.contracts.placement import Allocation, NodeState, fits_one_node, room
from schedlab.model.core.job import Job

__all__ = [
    "PLACEMENTS",
    "BestFitPlacement",
    "ExclusivePlacement",
    "FirstFitPlacement",
    "PackPlacement",
    "make_placement",
]


def _spread(job: Job, rooms: Iterable[tuple[int, int]]) -> dict[int, int] | None:
    """Take cores from ``(node, room)`` in the given order until the job has all of them."""
    need = job.cpus
    out: dict[int, int] = {}
    for index, free in rooms:
        take = min(free, need)
        if take > 0:
            out[index] = take
            need -= take
            if need == 0:
                return out
    return None


@dataclass(frozen=True)
class FirstFitPlacement:
    """The first node (in platform order) that can hold the whole job; a job wider than any node: nodes in order."""

    exclusive = False

    def place(self, job: Job, nodes: Sequence[NodeState], allowed: Sequence[int]) -> Allocation | None:
        """The first allowed node that can hold the job whole, else cores from the nodes in order."""
        # Two passes at most, each stopping early: a job one node could hold scans for the
        # first node with room; a wider one takes nodes in order until it has its cores:
        # placement is asked at every start and backfilling test, so it must not weigh
        # every node first (measured: benchmarks/README.md).
        cpus = job.cpus
        if not job.demands:  # cores only: the same answer in plain loops, no call per node
            one_node = False
            for i in allowed:
                node = nodes[i]
                if node.cores >= cpus:
                    one_node = True
                    if node.free_cores >= cpus and not node.exclusive:
                        return {i: cpus}
            if one_node:
                return None  # it waits for one node
            out, need = {}, cpus
            for i in allowed:
                node = nodes[i]
                if node.free_cores and not node.exclusive:
                    take = out[i] = min(node.free_cores, need)
                    need -= take
                    if not need:
                        return out
            return None
        if fits_one_node(job, nodes, allowed):
            return next(({i: cpus} for i in allowed if room(nodes[i], job) >= cpus), None)
        return _spread(job, ((i, room(nodes[i], job)) for i in allowed))  # lazily: it stops once placed

    def __str__(self) -> str:
        return "first-fit"


@dataclass(frozen=True)
class BestFitPlacement:
    """The node the whole job leaves with the fewest free cores; a job wider than any node: the roomiest first."""

    exclusive = False

    def place(self, job: Job, nodes: Sequence[NodeState], allowed: Sequence[int]) -> Allocation | None:
        """The node left with the fewest free cores that holds the job whole, else the fewest nodes."""
        rooms = [(i, room(nodes[i], job)) for i in allowed]
        whole = [(nodes[i].free_cores - job.cpus, i) for i, free in rooms if free >= job.cpus]
        if whole:
            return {min(whole)[1]: job.cpus}
        if fits_one_node(job, nodes, allowed):
            return None  # it waits for one node
        rooms.sort(key=lambda item: (-item[1], item[0]))  # fewest nodes: the roomiest first
        picked = _spread(job, rooms)
        if picked is None:
            return None
        # the last piece goes to the tightest node that can take it, not the next roomiest
        last = list(picked)[-1]
        piece = picked[last]
        fits = [(free, i) for i, free in rooms if free >= piece and (i == last or i not in picked)]
        best = min(fits)[1]
        if best != last:
            del picked[last]
            picked[best] = piece
        return picked

    def __str__(self) -> str:
        return "best-fit"


@dataclass(frozen=True)
class ExclusivePlacement:
    """Whole idle nodes, in platform order, until their cores and resources cover the job."""

    exclusive = True

    def place(self, job: Job, nodes: Sequence[NodeState], allowed: Sequence[int]) -> Allocation | None:
        """Whole idle nodes, in order, until they have the job's cores and other resources."""
        cores = 0
        held: dict[str, float] = {}
        out: dict[int, int] = {}
        for i in allowed:
            node = nodes[i]
            if not node.idle:
                continue
            out[i] = node.cores
            cores += node.cores
            for r, a in node.resources.items():
                held[r] = held.get(r, 0.0) + a
            if cores >= job.cpus and all(held.get(r, 0.0) >= a * (1 - 1e-9) for r, a in job.demands.items()):
                return out
        return None

    def __str__(self) -> str:
        return "exclusive"


@dataclass(frozen=True)
class PackPlacement:
    """The job's cores wherever there is room: partly used nodes first (least room first), idle ones last."""

    exclusive = False

    def place(self, job: Job, nodes: Sequence[NodeState], allowed: Sequence[int]) -> Allocation | None:
        """Cores from partly used nodes first, least room first; idle nodes last, so they stay whole."""
        rooms = [(i, room(nodes[i], job)) for i in allowed]
        rooms.sort(key=lambda item: (nodes[item[0]].idle, item[1], item[0]))
        return _spread(job, rooms)

    def __str__(self) -> str:
        return "pack"


#: the placement rules by the names the command line and platform files use
PLACEMENTS: dict[str, type[FirstFitPlacement | BestFitPlacement | ExclusivePlacement | PackPlacement]] = {
    "first-fit": FirstFitPlacement,
    "best-fit": BestFitPlacement,
    "exclusive": ExclusivePlacement,
    "pack": PackPlacement,
}


def make_placement(name: str) -> FirstFitPlacement | BestFitPlacement | ExclusivePlacement | PackPlacement:
    """The placement rule called ``name`` (one of :data:`PLACEMENTS`)."""
    if name not in PLACEMENTS:
        raise ValueError(f"unknown placement {name!r}; choose from {', '.join(PLACEMENTS)}")
    return PLACEMENTS[name]()

"""The read-only face of a :class:`~schedlab.processes.cluster.cluster.Cluster` that its policy sees.

It implements :class:`schedlab.model.contracts.placement.ClusterView`: a machine's view
(:class:`~schedlab.processes.machine.view.PolicyView`) and the cluster's nodes, placements
and placement rule, each a C-level ``attrgetter`` or the cluster's own bound method.

The view is typed against :class:`ViewedCluster`, the few attributes it reads, rather
than against ``Cluster`` itself: ``cluster.py`` builds the view, so importing ``Cluster``
here (even for type checking only) would make the two modules import each other.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Protocol

from schedlab.model.contracts.placement import Allocation
from schedlab.model.core.job import Job
from schedlab.processes.machine.view import PolicyView, ViewedMachine

__all__ = ["ClusterPolicyView", "ViewedCluster"]


class ViewedCluster(ViewedMachine, Protocol):
    """What :class:`ClusterPolicyView` reads of the cluster it shows, beyond a machine's (``Cluster`` has all of it)."""

    @property
    def allowed_nodes(self) -> Callable[[Job], tuple[int, ...]]:
        """The nodes a job may run on (the view's ``allowed_nodes``)."""
        ...

    @property
    def plan(self) -> Callable[[Job], Allocation | None]:
        """Where a job would run if it started now (the view's ``plan``)."""
        ...


class ClusterPolicyView(PolicyView):
    """What ``cluster.view`` is: a machine's view, and the nodes, placements and rule
    (:class:`~schedlab.model.contracts.placement.ClusterView`), live and read-only."""

    __slots__ = ("allowed_nodes", "plan")

    def __init__(self, cluster: ViewedCluster) -> None:
        super().__init__(cluster)
        self.allowed_nodes = cluster.allowed_nodes
        self.plan = cluster.plan

    nodes = property(attrgetter("_m.nodes"))
    allocations = property(attrgetter("_m.allocations"))
    placement = property(attrgetter("_m.placement"))

"""Decision rules called at decision events: each gets a read-only view, returns an action.

Every policy of every model kind is exported here, grouped by the contract it is
written against (see docs/models.md):

- machine (:class:`~schedlab.model.contracts.machine.MachineView` -> actions): FCFS, SJF,
  BestFit, Tetris, Priority (scores: SCORES), EASY, Conservative (every waiting job
  reserved in a Profile of free CPUs at its arrival, the plan compressed when jobs end
  early), RebuildConservative (the plan rebuilt at each decision) and Committed backfilling,
  UtilityScheduler, AggressiveScheduler, the site supervisor's FirstFit, EDF,
  InteractiveFirst, ShortestFirst, GreedyReward and SarsaScheduler; ``make_policy``
  builds the batch policies by name.
- a cluster's placement (:class:`~schedlab.model.contracts.placement.NodeState` -> an allocation):
  FirstFitPlacement, BestFitPlacement, ExclusivePlacement, PackPlacement
  (``make_placement`` by name); on a cluster, NodeEASY (EASY reserving nodes),
  PartitionConservative (reservations at arrival, a profile of free cores per
  partition), RebuildPartitionConservative (that plan rebuilt at each decision) and the multi-queue
  StrictPriority and WeightedRoundRobin (``make_queue_policy``).
- a powered cluster's energy (:class:`~schedlab.model.contracts.power.PowerView` ->
  ``SwitchOff``/``SwitchOn``/``WakeAt``/``SetPstate``): IdleShutdown and QueueDVFS (both an ``AroundJobs``), around
  any machine policy.
- grid (:class:`~schedlab.model.contracts.grid.GridView` -> a resource): RandomSelection (RS),
  LeastLoaded (LLS), DecentralisedMinMin (DMMS).
- server network (:class:`~schedlab.model.contracts.network.NetworkView` -> ``Ship``):
  LoadBalancing (LB), RandomVectors (RAND), ShippingAgents (the learners' rule).
- slotted DeepRM machine (:class:`~schedlab.model.contracts.slotted.SlottedView` -> a slot):
  ``slotted_fcfs``, ``slotted_sjf``, ``slotted_tetris``, ``slotted_random`` and
  ``SLOTTED_BASELINES`` by name. They carry a ``slotted_`` prefix here because
  ``fcfs`` and ``sjf`` in :mod:`schedlab.policies.scoring` are the machine's priority
  scores; :mod:`schedlab.policies.slotted` keeps their short names.
"""

import importlib
from typing import TYPE_CHECKING, Any

from schedlab.policies.around_jobs import AroundJobs
from schedlab.policies.backfilling import EASY, Backfilling, Committed, reservation
from schedlab.policies.batch import BACKFILLS, make_policy
from schedlab.policies.conservative import Conservative
from schedlab.policies.conservative_rebuild import RebuildConservative
from schedlab.policies.dvfs import QueueDVFS
from schedlab.policies.idle_shutdown import IdleShutdown
from schedlab.policies.node_backfilling import NodeEASY
from schedlab.policies.ordering import FCFS, SJF, BestFit, expected_utility
from schedlab.policies.packing import Tetris, alignment
from schedlab.policies.partition_conservative import PartitionConservative
from schedlab.policies.partition_conservative_rebuild import RebuildPartitionConservative
from schedlab.policies.placement import (
    PLACEMENTS,
    BestFitPlacement,
    ExclusivePlacement,
    FirstFitPlacement,
    PackPlacement,
    make_placement,
)
from schedlab.policies.profile import Profile
from schedlab.policies.queues import StrictPriority, WeightedRoundRobin, make_queue_policy
from schedlab.policies.scoring import SCORES, Priority, order
from schedlab.policies.site_supervisor import (
    EarliestDeadlineFirst,
    FirstFit,
    GreedyReward,
    InteractiveFirst,
    SarsaScheduler,
    ShortestFirst,
)
from schedlab.policies.slotted import BASELINES as SLOTTED_BASELINES
from schedlab.policies.slotted import fcfs as slotted_fcfs
from schedlab.policies.slotted import random_agent as slotted_random
from schedlab.policies.slotted import sjf as slotted_sjf
from schedlab.policies.slotted import tetris as slotted_tetris
from schedlab.policies.utility_scheduling import AggressiveScheduler, UtilityScheduler

if TYPE_CHECKING:
    from schedlab.policies.grid import DecentralisedMinMin, LeastLoaded, RandomSelection
    from schedlab.policies.load_balancing import LoadBalancing, job_load, server_loads
    from schedlab.policies.shipping import RandomVectors, ShippingAgents

#: the grid's and the server network's rules import on first use: their contracts
#: (model/contracts/grid, model/contracts/network) import NetworkX, an import a
#: machine-only run (``schedlab run scenarios/mmc.py``) does not need to pay
_NETWORKX = {
    "DecentralisedMinMin": "grid",
    "LeastLoaded": "grid",
    "RandomSelection": "grid",
    "LoadBalancing": "load_balancing",
    "job_load": "load_balancing",
    "server_loads": "load_balancing",
    "RandomVectors": "shipping",
    "ShippingAgents": "shipping",
}

__all__ = [
    "BACKFILLS",
    "EASY",
    "FCFS",
    "PLACEMENTS",
    "SCORES",
    "SJF",
    "SLOTTED_BASELINES",
    "AggressiveScheduler",
    "AroundJobs",
    "Backfilling",
    "BestFit",
    "BestFitPlacement",
    "Committed",
    "Conservative",
    "DecentralisedMinMin",
    "EarliestDeadlineFirst",
    "ExclusivePlacement",
    "FirstFit",
    "FirstFitPlacement",
    "GreedyReward",
    "IdleShutdown",
    "InteractiveFirst",
    "LeastLoaded",
    "LoadBalancing",
    "NodeEASY",
    "PackPlacement",
    "PartitionConservative",
    "Priority",
    "Profile",
    "QueueDVFS",
    "RandomSelection",
    "RandomVectors",
    "RebuildConservative",
    "RebuildPartitionConservative",
    "SarsaScheduler",
    "ShippingAgents",
    "ShortestFirst",
    "StrictPriority",
    "Tetris",
    "UtilityScheduler",
    "WeightedRoundRobin",
    "alignment",
    "expected_utility",
    "job_load",
    "make_placement",
    "make_policy",
    "make_queue_policy",
    "order",
    "reservation",
    "server_loads",
    "slotted_fcfs",
    "slotted_random",
    "slotted_sjf",
    "slotted_tetris",
]


def __getattr__(name: str) -> Any:
    module = _NETWORKX.get(name)
    if module is None:
        raise AttributeError(f"module 'schedlab.policies' has no attribute {name!r}")
    return getattr(importlib.import_module(f"schedlab.policies.{module}"), name)

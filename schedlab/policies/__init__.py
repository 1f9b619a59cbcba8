"""Decision rules called at decision events: each gets a read-only view, returns an action."""

from schedlab.policies.grid import DecentralisedMinMin, LeastLoaded, RandomSelection
from schedlab.policies.load_balancing import LoadBalancing, job_load, server_loads
from schedlab.policies.ordering import FCFS, SJF, BestFit, expected_utility
from schedlab.policies.packing import Tetris, alignment
from schedlab.policies.shipping import RandomVectors, ShippingAgents
from schedlab.policies.site_supervisor import EarliestDeadlineFirst, FirstFit, SarsaScheduler
from schedlab.policies.utility_scheduling import AggressiveScheduler, UtilityScheduler

__all__ = [
    "FCFS",
    "SJF",
    "AggressiveScheduler",
    "BestFit",
    "DecentralisedMinMin",
    "EarliestDeadlineFirst",
    "FirstFit",
    "LeastLoaded",
    "LoadBalancing",
    "RandomSelection",
    "RandomVectors",
    "SarsaScheduler",
    "ShippingAgents",
    "Tetris",
    "UtilityScheduler",
    "alignment",
    "expected_utility",
    "job_load",
    "server_loads",
]

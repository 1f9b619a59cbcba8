"""Decision rules called at decision events: each gets a read-only view, returns an action."""

from schedlab.policies.ordering import FCFS, SJF, BestFit, expected_utility

__all__ = ["FCFS", "SJF", "BestFit", "expected_utility"]
from schedlab.policies.grid import DecentralisedMinMin, LeastLoaded, RandomSelection

__all__ += ["DecentralisedMinMin", "LeastLoaded", "RandomSelection"]

from schedlab.policies.packing import Tetris, alignment  # noqa: E402

__all__ = [*__all__, "Tetris", "alignment"]

from schedlab.policies.load_balancing import LoadBalancing, RandomVectors, job_load, server_loads  # noqa: E402

__all__ = [*__all__, "LoadBalancing", "RandomVectors", "job_load", "server_loads"]

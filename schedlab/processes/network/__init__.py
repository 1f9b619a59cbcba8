"""The server network kind's processes (seed 004): servers on a graph shipping jobs to each other.

``network.py`` (:class:`ServerNetwork`), ``server.py`` (:class:`NetworkServer`) and
``outcome.py`` (a run's touches and outcome). Each name is imported from its defining
module; this package re-exports nothing.
"""

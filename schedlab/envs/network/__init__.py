"""The server network's shipping agents as PettingZoo agents (seed 004).

``agents.py`` (the environments) and ``obs.py`` (what a server's agent observes). Each name
is imported from its defining module; this package re-exports nothing.
"""

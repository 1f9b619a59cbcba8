"""The grid's brokers as PettingZoo agents (seed 003), AEC and Parallel.

``agents.py`` (the AEC environment), ``parallel.py`` (the Parallel one), ``obs.py`` (what a
broker observes) and ``policy.py`` (a trained policy as a grid policy). Each name is
imported from its defining module; this package re-exports nothing.
"""

"""The slotted machine kind's processes (seed 002, DeepRM): a machine run in time steps.

``slotted.py`` (:class:`SlottedMachine` and its agent's process). Each name is imported
from its defining module; this package re-exports nothing.
"""

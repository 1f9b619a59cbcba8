"""``DeepRM-v0``: the slotted machine as a Gymnasium environment (seed 002).

``deeprm.py``. This package re-exports nothing.
"""

"""The grid kind's processes (seed 003): brokers taking turns over shared resources.

``grid.py`` (:class:`GridModel`, the brokers and the clock) and ``resources.py``
(:class:`GridResources`, M FIFO servers and their loads). Each name is imported from its
defining module; this package re-exports nothing.
"""

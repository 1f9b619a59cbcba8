"""The cluster kind's processes: a machine made of nodes, its placement table, power and pstates.

``cluster.py`` (:class:`Cluster`), ``view.py`` (what its policy reads), ``placement_table.py``,
``power.py`` (:class:`PoweredCluster`: Batsim's power states) and ``pstates.py`` (DVFS).
Each name is imported from its defining module; this package re-exports nothing.
"""

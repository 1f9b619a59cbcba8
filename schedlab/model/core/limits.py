"""How large a machine schedlab builds: caps checked before anything is allocated.

A machine keeps one byte per CPU (which CPUs are busy) and a cluster one
per core and an object per node, so a size read from a file (a platform's ``count``
or ``cores``, a log's ``MaxProcs``, a Batsim workload's ``nb_res``, ``--cpus``) is
checked against these caps first: a typo such as ``count = 10**12`` is then a one-line
error naming the file, field and value, not minutes of allocation ending in a bare
``MemoryError``.

The caps are above the largest machines there are (Sunway TaihuLight's 10,649,600
cores; Fugaku's 158,976 nodes) and cheap to build (a platform of ``MAX_NODES``
nodes takes about 2 s and 100 MB).
"""

from __future__ import annotations

__all__ = ["MAX_CPUS", "MAX_NODES"]

#: the most CPUs (a machine's) or cores (a platform's, all nodes together) a replay builds
MAX_CPUS = 2**24  # 16,777,216
#: the most nodes a platform may have, all node types together
MAX_NODES = 2**18  # 262,144

"""The machine kind's processes: a multi-CPU machine, its jobs' running state, and what plugs into it.

``machine.py`` (:class:`Machine`), ``with_ids.py`` (``MachineWithIds``), ``view.py`` (what its
policy reads), ``running.py`` (a job's allocation and work left); the machine's parts, typed
against ``parts_view.py`` (the machine as they see it):
``decisions.py``, ``capacity.py``, ``job_end.py`` and ``job_body.py`` (how a job ends: a timeout
callback, or a SimPy process body), ``reallocation.py``, ``cpu_ids.py`` (CPU ids per
allocation), ``node_failures.py`` (node failures); ``job_snapshot.py`` (records of the jobs still there),
``elastic.py`` (seed 001's elastic pool), ``replay.py`` (a log's window on an empty machine)
and ``simpy_machine.py`` (the founding shape in plain SimPy, the tutorials' bridge).
Each name is imported from its defining module; this package re-exports nothing.
"""

# with_ids.py tells Machine which class ``Machine(..., allocation=...)`` builds when it is
# imported; importing it here, which every import of the package's modules runs first,
# makes sure it is told before any Machine is built.
from schedlab.processes.machine import with_ids  # noqa: F401

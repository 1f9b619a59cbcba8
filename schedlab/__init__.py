"""schedlab: discrete-event modeling of job scheduling in clusters and grids.

Import the parts you need from the subpackages: :mod:`schedlab.model` (plain data),
:mod:`schedlab.processes` (SimPy processes), :mod:`schedlab.policies`,
:mod:`schedlab.experiment` (seeds, replications, sweeps, results, CLI).
"""

__version__ = "0.1.0"

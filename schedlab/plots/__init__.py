"""Plots of runs and results (the ``plot`` extra: ``pip install schedlab[plot]``).

Every function returns a matplotlib ``Figure`` built without pyplot, so nothing opens a
window and any backend works (save with ``fig.savefig("x.png")``). matplotlib is
imported only when a plot is made: importing this package works without it, and a
plot asked for without it raises an ImportError that names the extra to install.

- :func:`gantt`: one bar per job (or per allocation segment, from a trace).
- :func:`node_gantt`: a cluster's Gantt chart per node, a row per core, nodes down hatched.
- :func:`cpu_gantt`: jobs over the CPU ids they held, coloured by wait, CPUs down hatched.
- :func:`machine_states`: machines (nodes or CPUs) computing, down and idle over time.
- :func:`utilization_queue`: busy CPUs (and CPUs down) and queue length over time.
- :func:`draw_topology`: a small-world ring or a broker/resource grid.
- :func:`metric_vs_factor`: a metric of ``summary.csv`` against a factor, with 95% intervals
  (bootstrap percentile intervals of the replications, within the metric's bounds), a
  panel per unit.
- :func:`validation_curves`: trained models' validation scores over SJF's, against their
  training's progress (search generations, then PPO's validations).
- :func:`plot_results`: all of the above that a results folder allows, as PNG files
  (:func:`~schedlab.plots.results.result_figures`: the same figures, for reading back).

Every time axis names its unit and its origin; every chart of nodes or CPUs draws
them down where the run's outages say they were.

:func:`agg_pyplot` is pyplot for the writers that save figures beside a table they wrote
(a scenario's ``figures``), or None where matplotlib is missing.
"""

from schedlab.plots._mpl import agg_pyplot
from schedlab.plots.cpu_gantt import cpu_gantt
from schedlab.plots.factors import metric_vs_factor, split_columns
from schedlab.plots.gantt import Segment, gantt, node_gantt, segments_from_records, segments_from_trace
from schedlab.plots.machine_states import machine_states
from schedlab.plots.results import plot_results
from schedlab.plots.timeseries import occupancy, utilization_queue
from schedlab.plots.topology import draw_topology
from schedlab.plots.validation_curves import validation_curves

__all__ = [
    "Segment",
    "agg_pyplot",
    "cpu_gantt",
    "draw_topology",
    "gantt",
    "machine_states",
    "metric_vs_factor",
    "node_gantt",
    "occupancy",
    "plot_results",
    "segments_from_records",
    "segments_from_trace",
    "split_columns",
    "utilization_queue",
    "validation_curves",
]

"""Plain data, no SimPy: what the processes, policies and learners share, by concept.

- :mod:`~schedlab.model.contracts`: one decision contract per model kind (``machine``,
  ``grid``, ``network``, ``slotted``), the placement and power contracts, the site
  supervisor's state, signals and routing;
- :mod:`~schedlab.model.core`: the job, size distributions, workloads, time-utility
  functions, random streams, checked config fields, platforms and interval sets;
- :mod:`~schedlab.model.records`: one record per job, the record log kept by columns,
  and the table they make;
- :mod:`~schedlab.model.formats`: reading real logs and platforms (SWF, platform files,
  logs, window draws, EGEE, Batsim, failure logs);
- :mod:`~schedlab.model.analysis`: metrics, closed-form queueing results, the
  conservation law, paired statistics, fair share, runtime estimates, energy and failures.

A single paper's published tables are not model data: they are in :mod:`schedlab.papers`.

Every public name has one import path, its defining module's
(``from schedlab.model.core.job import Job``); the packages re-export nothing.
"""

"""The replay command's scenario: what ``schedlab replay`` runs.

- :mod:`.log_replay`: replay a real log (SWF) on a machine or a cluster under a
  scheduling policy, and evaluate the schedule against the one that ran;
- :mod:`.batsim_log`: a Batsim workload (JSON) read as a log to replay;
- :mod:`.costs`: what a window's energy and node failures cost, the metrics
  ``log_replay.measure`` adds on a cluster.

The repository's ``scenarios/log_replay.py`` extends it for ``schedlab run``. The
scenarios of the seed papers live as scripts in the repository's ``scenarios/`` folder;
they follow the same shape (``Config``, ``cells``, ``build``, ``measure``).
"""

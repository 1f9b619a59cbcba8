"""schedlab: discrete-event modeling of job scheduling in clusters and grids.

The front door. ``from schedlab import ...`` gives the names a scenario needs most:

- to build a model: :class:`Machine`, :class:`Cluster`, :class:`PoweredCluster`,
  :class:`Source`, :class:`Model`, :class:`Signal`, :class:`Job`, :class:`Streams`,
  :func:`load_log` (an SWF log, read and cleaned);
- to decide: :class:`FCFS`, :class:`SJF`, :class:`BestFit`, :class:`Priority`,
  :class:`EASY`, :class:`Conservative`, :func:`make_policy`, and the registry of queue
  orders, :func:`order` and :data:`SCORES`;
- to run: :func:`run` (a scenario's replications, from Python), :func:`cli_main` (a
  scenario script's ``if __name__ == "__main__"``), :class:`Scenario`;
- to learn: :func:`make_env` (``gymnasium.make`` for schedlab's environments).

Every other name is imported from its defining module, sorted by layer and then by model
kind (docs/architecture.md): :mod:`schedlab.model` (plain data), :mod:`schedlab.processes`
(SimPy processes), :mod:`schedlab.policies`, :mod:`schedlab.learners`,
:mod:`schedlab.envs`, :mod:`schedlab.experiment`, ... Names are imported on first use, so
``import schedlab`` loads nothing else, and a scenario pays only for what it touches.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

#: each front-door name -> the module that defines it
_WHERE = {
    "Machine": "schedlab.processes.machine.machine",
    "Cluster": "schedlab.processes.cluster.cluster",
    "PoweredCluster": "schedlab.processes.cluster.power",
    "Source": "schedlab.processes.source",
    "Model": "schedlab.processes.model",
    "Signal": "schedlab.processes.signal",
    "Job": "schedlab.model.core.job",
    "Streams": "schedlab.model.core.streams",
    "load_log": "schedlab.model.formats.logs",
    "FCFS": "schedlab.policies.ordering",
    "SJF": "schedlab.policies.ordering",
    "BestFit": "schedlab.policies.ordering",
    "Priority": "schedlab.policies.scoring",
    "SCORES": "schedlab.policies.scoring",
    "order": "schedlab.policies.scoring",
    "EASY": "schedlab.policies.backfilling",
    "Conservative": "schedlab.policies.conservative",
    "make_policy": "schedlab.policies.batch",
    "run": "schedlab.experiment.runner",
    "cli_main": "schedlab.experiment.cli",
    "Scenario": "schedlab.experiment.scenario",
    "make_env": "schedlab.envs",
}

__all__ = ["__version__", *sorted(_WHERE)]


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'schedlab' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))

"""Experiments: seeding, one run, replications, sweeps, executors, results and the CLI.

Names are imported lazily so that ``schedlab --help`` and ``cli_main`` start fast.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "ConfigError",
    "ExperimentError",
    "Results",
    "Scenario",
    "ScenarioError",
    "build_model",
    "cli_main",
    "load_scenario",
    "replication_seeds",
    "run",
    "standard_metrics",
]

_WHERE = {
    "ConfigError": "scenario",
    "Scenario": "scenario",
    "ScenarioError": "scenario",
    "load_scenario": "scenario",
    "ExperimentError": "runner",
    "build_model": "runner",
    "run": "runner",
    "standard_metrics": "runner",
    "Results": "results",
    "replication_seeds": "seeding",
    "cli_main": "cli",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(f"schedlab.experiment.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'schedlab.experiment' has no attribute {name!r}")

"""Value estimates and their update rules, each fed by completion events.

Fuzzy rulebase + TD(0) average reward (seed 000), SARSA with echo state network or MLP
approximators (seed 001), DQN (seed 002), Ordinal Sharing Learning and SLS (seed 003),
collectives and their utilities (seed 004).

The torch-based learners (``Sarsa``, the approximators, ``DQN``) are imported on first
use, so a model that needs none of them does not pay for importing torch.
"""

from __future__ import annotations

import importlib
from typing import Any

from schedlab.learners.collectives import CollectiveLearner, VectorLearner
from schedlab.learners.fuzzy_rulebase import FuzzyRulebase
from schedlab.learners.osl import OrdinalSharing
from schedlab.learners.sls import SimpleLearning
from schedlab.learners.td import AverageRewardTD, LearningRate, TDConfig
from schedlab.learners.utilities import clamped_world_utility, selfish, team_game, wonderful_life, world_utility

#: name -> module of the exports that need torch
_TORCH = {
    "DQN": "dqn",
    "DQNConfig": "dqn",
    "Sarsa": "sarsa",
    "SarsaConfig": "sarsa",
    "ApproximatorConfig": "approximators",
    "EchoStateNetwork": "approximators",
    "MLPApproximator": "approximators",
    "make_approximator": "approximators",
}

__all__ = [
    "AverageRewardTD",
    "CollectiveLearner",
    "FuzzyRulebase",
    "LearningRate",
    "OrdinalSharing",
    "SimpleLearning",
    "TDConfig",
    "VectorLearner",
    "clamped_world_utility",
    "selfish",
    "team_game",
    "wonderful_life",
    "world_utility",
    *_TORCH,
]


def __getattr__(name: str) -> Any:
    module = _TORCH.get(name)
    if module is None:
        raise AttributeError(f"module 'schedlab.learners' has no attribute {name!r}")
    return getattr(importlib.import_module(f"schedlab.learners.{module}"), name)

"""Reserved for later issues (see ../shared/DESIGN.md)."""

from schedlab.learners.osl import OrdinalSharing
from schedlab.learners.sls import SimpleLearning

__all__ = [*globals().get("__all__", []), "OrdinalSharing", "SimpleLearning"]

from schedlab.learners.dqn import DQN, DQNConfig

__all__ = [*__all__, "DQN", "DQNConfig"]

from schedlab.learners.collectives import CollectiveRule, VectorLearner
from schedlab.learners.utilities import (
    clamped_world_utility,
    selfish,
    team_game,
    wonderful_life,
    world_utility,
)

__all__ = [
    *__all__,
    "CollectiveRule",
    "VectorLearner",
    "clamped_world_utility",
    "selfish",
    "team_game",
    "wonderful_life",
    "world_utility",
]

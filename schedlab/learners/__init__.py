"""Reserved for later issues (see ../shared/DESIGN.md)."""

from schedlab.learners.osl import OrdinalSharing
from schedlab.learners.sls import SimpleLearning

__all__ = [*globals().get("__all__", []), "OrdinalSharing", "SimpleLearning"]

from schedlab.learners.dqn import DQN, DQNConfig  # noqa: E402

__all__ = [*__all__, "DQN", "DQNConfig"]

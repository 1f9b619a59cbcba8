"""Reserved for later issues (see ../shared/DESIGN.md)."""

from schedlab.learners.osl import OrdinalSharing
from schedlab.learners.sls import SimpleLearning

__all__ = [*globals().get("__all__", []), "OrdinalSharing", "SimpleLearning"]

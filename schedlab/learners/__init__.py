"""Reserved for later issues (see ../shared/DESIGN.md)."""
from schedlab.learners.osl import OrdinalSharing  # noqa: E402
from schedlab.learners.sls import SimpleLearning  # noqa: E402

__all__ = [*globals().get("__all__", []), "OrdinalSharing", "SimpleLearning"]

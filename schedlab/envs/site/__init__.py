"""Seed 001's grid-site supervisor as a Gymnasium environment (``schedlab/SiteSupervisor-v0``).

- :mod:`~schedlab.envs.site.config`: :class:`SiteEnvConfig`, the episode's workload and reward;
- :mod:`~schedlab.envs.site.slots`: the paper's state, and its actions as candidate slots;
- :mod:`~schedlab.envs.site.reward`: the election's reward, as printed or as the text describes;
- :mod:`~schedlab.envs.site.env`: :class:`SiteSupervisorEnv`, an election per step;
- :mod:`~schedlab.envs.site.heuristics`: FIFO, PRIO, EDF, SJF and the greedy reward as slot choices;
- :mod:`~schedlab.envs.site.policy`: :class:`SlotPolicy`, an agent of the environment as a machine policy.
"""

from schedlab.envs.site.config import SiteEnvConfig
from schedlab.envs.site.env import SiteSupervisorEnv
from schedlab.envs.site.policy import SlotPolicy

__all__ = ["SiteEnvConfig", "SiteSupervisorEnv", "SlotPolicy"]

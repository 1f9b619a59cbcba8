"""Gymnasium environments over schedlab models (a decision event is a step).

``DeepRMEnv`` is DeepRM's single multi-resource machine (seed 002): it is registered
with Gymnasium as ``schedlab/DeepRM-v0``, so ``gymnasium.make("schedlab/DeepRM-v0")``
works once ``schedlab.envs`` is imported. The pieces under it are usable on their own:
``SlottedMachine`` (the SimPy model), ``DeepRMJobs`` (the job sequences), the baseline
agents, and ``drive``/``episode_metrics`` to run any agent inside a scenario.
"""

import gymnasium as gym

from schedlab.envs.baselines import BASELINES, fcfs, random_agent, sjf, tetris
from schedlab.envs.deeprm import DeepRMConfig, DeepRMEnv
from schedlab.envs.episode import drive, episode_metrics
from schedlab.envs.jobs import DeepRMJobs
from schedlab.envs.slotted import SlottedMachine

__all__ = [
    "BASELINES",
    "DeepRMConfig",
    "DeepRMEnv",
    "DeepRMJobs",
    "SlottedMachine",
    "drive",
    "episode_metrics",
    "fcfs",
    "random_agent",
    "sjf",
    "tetris",
]

if "schedlab/DeepRM-v0" not in gym.registry:
    gym.register(id="schedlab/DeepRM-v0", entry_point="schedlab.envs.deeprm:DeepRMEnv")

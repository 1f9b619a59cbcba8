"""Gymnasium environments over schedlab models (a decision event is a step).

``DeepRMEnv`` is DeepRM's single multi-resource machine (seed 002): it is registered
with Gymnasium as ``schedlab/DeepRM-v0``, so ``gymnasium.make("schedlab/DeepRM-v0")``
works once ``schedlab.envs`` is imported. The pieces under it are usable on their own:
``SlottedMachine`` (the SimPy model), ``DeepRMJobs`` (the job sequences), the baseline
agents, and ``drive``/``episode_metrics`` to run any agent inside a scenario.

``MachineEnv`` (``schedlab/Machine-v0``) is any schedlab Machine, in continuous time,
with the agent as its scheduler, fed synthetic jobs (``SyntheticJobs``), windows of an
SWF log (``TraceWindows``) or any ``jobs(rng)``; ``AgentPolicy`` runs a trained agent
back inside scenarios as an ordinary machine policy.

``GridAgentsEnv`` is seed 003's grid as a PettingZoo AEC environment (the N schedulers
are the agents, one decision per job); it is imported on first use, so PettingZoo (the
rl extra) is needed only for it. ``PolicyDecider`` runs a per-agent policy back inside a
``GridModel``; ``least_loaded`` and ``random_resource`` are LLS and RS as such policies.
"""

from typing import Any

import gymnasium as gym

from schedlab.envs.agent_policy import AgentPolicy
from schedlab.envs.baselines import BASELINES, fcfs, random_agent, sjf, tetris
from schedlab.envs.deeprm import DeepRMConfig, DeepRMEnv
from schedlab.envs.episode import drive, episode_metrics
from schedlab.envs.grid_obs import GridAgentsConfig, GridObserver, grid_model
from schedlab.envs.grid_policy import PolicyDecider, least_loaded, random_resource
from schedlab.envs.jobs import DeepRMJobs
from schedlab.envs.machine_env import MachineEnv, MachineEnvConfig, agent_machine
from schedlab.envs.machine_jobs import SyntheticJobs, TraceWindows
from schedlab.envs.machine_obs import MachineObserver
from schedlab.envs.slotted import SlottedMachine

__all__ = [
    "BASELINES",
    "AgentPolicy",
    "DeepRMConfig",
    "DeepRMEnv",
    "DeepRMJobs",
    "GridAgentsConfig",
    "GridAgentsEnv",
    "GridObserver",
    "MachineEnv",
    "MachineEnvConfig",
    "MachineObserver",
    "PolicyDecider",
    "SlottedMachine",
    "SyntheticJobs",
    "TraceWindows",
    "agent_machine",
    "drive",
    "episode_metrics",
    "fcfs",
    "grid_model",
    "least_loaded",
    "random_agent",
    "random_resource",
    "sjf",
    "tetris",
]

if "schedlab/DeepRM-v0" not in gym.registry:
    gym.register(id="schedlab/DeepRM-v0", entry_point="schedlab.envs.deeprm:DeepRMEnv")
if "schedlab/Machine-v0" not in gym.registry:
    gym.register(id="schedlab/Machine-v0", entry_point="schedlab.envs.machine_env:MachineEnv")


def __getattr__(name: str) -> Any:
    # PettingZoo is optional: GridAgentsEnv is imported when first asked for, not with schedlab.envs
    if name == "GridAgentsEnv":
        from schedlab.envs.grid_agents import GridAgentsEnv

        return GridAgentsEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

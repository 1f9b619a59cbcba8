"""Gymnasium environments over schedlab models (a decision event is a step).

``DeepRMEnv`` is DeepRM's single multi-resource machine (seed 002): it is registered
with Gymnasium as ``schedlab/DeepRM-v0``, so ``gymnasium.make("schedlab/DeepRM-v0")``
works once ``schedlab.envs`` is imported. It is an adapter over the slotted model kind:
its contract is :mod:`schedlab.model.contracts.slotted` (with the job sequences of
:mod:`schedlab.model.core.deeprm_jobs`), its process :mod:`schedlab.processes.slotted.slotted`
(``SlottedMachine``, ``drive``) and its baselines :mod:`schedlab.policies.slotted`.

``MachineEnv`` (``schedlab/Machine-v0``) is any schedlab Machine, in continuous time,
with the agent as its scheduler, fed synthetic jobs (``SyntheticJobs``), windows of an
SWF log (``LogWindows``) or any ``jobs(rng)``; ``AgentPolicy`` runs a trained agent
back inside scenarios as an ordinary machine policy.

``RLSchedulerEnv`` (``schedlab/RLScheduler-v0``) is RLScheduler's protocol over the same
Machine: sequences of a real log, the agent picks which waiting job the machine commits
to next, the reward is minus the sequence's mean bounded slowdown. ``KernelPolicy`` and
``MaskableKernelPolicy`` (:mod:`schedlab.envs.kernel_policy`, the rl extra) are its
permutation-invariant SB3 policies: schedlab's way to learn a queue order.

``SiteSupervisorEnv`` (``schedlab/SiteSupervisor-v0``, :mod:`schedlab.envs.site`) is seed
001's grid-site supervisor: at each decision epoch it elects a waiting job among
candidate slots (one per job type and VO), seeing the paper's state; the reward is the
paper's ``lambda W + (1 - lambda) F`` or the relative overhead its text targets.

``GridAgentsEnv`` is seed 003's grid as a PettingZoo AEC environment (the N schedulers
are the agents, one decision per job, in the model's turn order) and ``GridParallelEnv``
the same grid behind the Parallel API (every agent with a job acts at once: the route
to SuperSuit's vector envs and a shared Stable-Baselines3 policy, :mod:`schedlab.envs.sb3`).
``NetworkAgentsEnv`` is seed 004's server network with its shipping agents (one
decision per head job) behind the Parallel API, ``network_aec_env`` behind AEC.
They are imported on first use, so PettingZoo (the rl extra) is needed only for them.
``make_parallel("GridParallel-v0", topology="tree")`` makes the Parallel grid by name
(:mod:`schedlab.envs.parallel_registry`, schedlab's registry of Parallel environments).
``GridAgentPolicy`` runs a per-agent policy back inside a ``GridModel``; ``least_loaded``
and ``random_resource`` are LLS and RS as such policies.
"""

from typing import Any

import gymnasium as gym

from schedlab.envs.machine.agent_policy import AgentPolicy
from schedlab.envs.machine.config import MachineEnvConfig, agent_machine
from schedlab.envs.machine.env import MachineEnv
from schedlab.envs.machine.jobs import LogWindows, SyntheticJobs
from schedlab.envs.machine.obs import MachineObserver
from schedlab.envs.parallel_registry import make_parallel, register_parallel
from schedlab.envs.slotted.deeprm import DeepRMConfig, DeepRMEnv

__all__ = [
    "MAX_EPISODE_STEPS",
    "AgentPolicy",
    "DeepRMConfig",
    "DeepRMEnv",
    "GridAgentPolicy",
    "GridAgentsConfig",
    "GridAgentsEnv",
    "GridObserver",
    "GridParallelEnv",
    "KernelPolicy",
    "LogWindows",
    "MachineEnv",
    "MachineEnvConfig",
    "MachineObserver",
    "MaskableKernelPolicy",
    "NetworkAgentsConfig",
    "NetworkAgentsEnv",
    "RLSchedulerConfig",
    "RLSchedulerEnv",
    "SyntheticJobs",
    "agent_machine",
    "grid_model",
    "kernel_layout",
    "least_loaded",
    "make_env",
    "make_parallel",
    "network_aec_env",
    "random_resource",
    "register_parallel",
]

#: env steps after which ``gymnasium.make`` truncates an episode (a TimeLimit): far above a default
#: episode's steps (DeepRM: at most max_time=1000 waits plus one placement per job; Machine: a start per
#: job and a wait per event), so they only stop an agent that loops, in an environment made with other settings
MAX_EPISODE_STEPS = {
    "schedlab/DeepRM-v0": 5_000,
    "schedlab/Machine-v0": 10_000,
    "schedlab/RLScheduler-v0": 10_000,
    "schedlab/SiteSupervisor-v0": 1_000_000,  # one election per job: episodes of any size end by themselves
}

#: each Gymnasium environment's entry point, registered on import (once: a reload keeps the first)
ENTRY_POINTS = {
    "schedlab/DeepRM-v0": "schedlab.envs.slotted.deeprm:DeepRMEnv",
    "schedlab/Machine-v0": "schedlab.envs.machine.env:MachineEnv",
    "schedlab/RLScheduler-v0": "schedlab.envs.rlscheduler.env:RLSchedulerEnv",
    "schedlab/SiteSupervisor-v0": "schedlab.envs.site.env:SiteSupervisorEnv",
}
for _env_id, _entry_point in ENTRY_POINTS.items():
    if _env_id not in gym.registry:
        gym.register(id=_env_id, entry_point=_entry_point, max_episode_steps=MAX_EPISODE_STEPS[_env_id])

# PettingZoo Parallel environments by name (PettingZoo has no registry of its own): made on first use
register_parallel("schedlab/GridParallel-v0", "schedlab.envs.grid.named:grid_parallel_env")


def make_env(name: str, **settings: Any) -> gym.Env[Any, Any]:
    """One of schedlab's Gymnasium environments, made by ``gymnasium.make``: ``make_env("Machine-v0")``.

    ``name`` is a registered id, with or without its ``schedlab/`` namespace; ``settings``
    go to the environment as ``gymnasium.make``'s keyword arguments. An unknown name is
    refused in one line that lists schedlab's environments.
    """
    full = name if "/" in name else f"schedlab/{name}"
    if full not in gym.registry:
        known = ", ".join(sorted(env_id for env_id in gym.registry if env_id.startswith("schedlab/")))
        raise ValueError(f"unknown environment {name!r}; schedlab's are {known}")
    return gym.make(full, **settings)


#: names imported on first use: the grid's pieces (and PettingZoo, for the environments) load only when asked for
_LAZY = {
    "GridAgentsEnv": "schedlab.envs.grid.agents",
    "GridParallelEnv": "schedlab.envs.grid.parallel",
    "NetworkAgentsEnv": "schedlab.envs.network.agents",
    "network_aec_env": "schedlab.envs.network.agents",
    "NetworkAgentsConfig": "schedlab.envs.network.obs",
    "GridAgentsConfig": "schedlab.envs.grid.obs",
    "GridObserver": "schedlab.envs.grid.obs",
    "grid_model": "schedlab.envs.grid.obs",
    "GridAgentPolicy": "schedlab.envs.grid.policy",
    "PolicyDecider": "schedlab.envs.grid.policy",  # old name kept: deprecated, warns
    "RLSchedulerConfig": "schedlab.envs.rlscheduler.env",
    "RLSchedulerEnv": "schedlab.envs.rlscheduler.env",
    "KernelPolicy": "schedlab.envs.kernel_policy",
    "MaskableKernelPolicy": "schedlab.envs.kernel_policy",
    "kernel_layout": "schedlab.envs.kernel_policy",
    "least_loaded": "schedlab.envs.grid.policy",
    "random_resource": "schedlab.envs.grid.policy",
}


def __getattr__(name: str) -> Any:
    # PettingZoo is optional: the multi-agent environments are imported when first asked for
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""A trained agent as an ordinary schedlab machine policy.

:class:`AgentPolicy` wraps any agent that maps an observation and an action mask to an
action (``agent.act(obs, mask)``, as :class:`schedlab.learners.dqn.DQN` does, or a plain
function ``agent(obs, mask)``) into a policy ``policy(view) -> Start | None``, reading
the view through the same :class:`~schedlab.envs.machine.obs.MachineObserver` as
:class:`~schedlab.envs.machine.env.MachineEnv`. So an agent trained in the environment
runs unchanged in any scenario, sweep or replay that takes a machine policy.

On a Machine with ``batch_decisions=True`` (what
:func:`~schedlab.envs.machine.config.agent_machine` builds) it makes the same decisions
as in the environment, on the same jobs; on a Machine deciding at every event it is
also asked between two arrivals of the same instant, which the environment never does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from schedlab.envs.machine.obs import MachineObserver
from schedlab.model.contracts.machine import MachineView, Start

__all__ = ["AgentPolicy"]


class AgentPolicy:
    """Ask ``agent`` at each decision event where a window job fits; start what it picks.

    Parameters
    ----------
    agent
        An object with ``act(obs, mask) -> int``, or a callable ``(obs, mask) -> int``.
    observer
        The environment's observer (``env.unwrapped.observer``): the window, the time
        scale and what the agent is told of runtimes must be those it was trained with.

    Attributes
    ----------
    decisions
        How many times the agent was asked.
    invalid_actions
        How many of its answers were invalid (taken as in the environment: wait, or
        on an idle machine the oldest window job that fits).
    """

    def __init__(self, agent: Any, observer: MachineObserver) -> None:
        act = getattr(agent, "act", agent)
        if not callable(act):
            raise TypeError(f"agent must have act(obs, mask) or be a callable (obs, mask) -> action, got {agent!r}")
        self.agent = agent
        self._act: Callable[[np.ndarray, np.ndarray], Any] = act
        self.observer = observer
        self.decisions = 0
        self.invalid_actions = 0

    def __call__(self, view: MachineView) -> Start | None:
        observer = self.observer
        mask = observer.mask(view)
        if not mask[: observer.window].any():
            return None  # nothing fits now: not a decision, as in the environment
        self.decisions += 1
        slot, valid = observer.resolve(self._act(observer.observe(view, mask), mask), mask)
        self.invalid_actions += not valid
        return None if slot is None else Start(view.waiting[slot])

    def __repr__(self) -> str:
        return f"AgentPolicy({self.agent!r}, window={self.observer.window})"

"""An agent of ``SiteSupervisor-v0`` as an ordinary machine policy, for scenarios.

:class:`SlotPolicy` reads the view through the environment's
:class:`~schedlab.envs.site.slots.SiteSlots` and starts the job of the slot the agent
picks. On a Machine with ``batch_decisions=True``
(:func:`~schedlab.envs.machine.config.agent_machine`, the environment's own) it elects
exactly as in the environment, on the same jobs: the same epochs, observations and masks.
"""

from __future__ import annotations

from typing import Any

from schedlab.envs.site.slots import SiteSlots
from schedlab.model.contracts.machine import MachineView, Start

__all__ = ["SlotPolicy"]


class SlotPolicy:
    """Ask ``agent`` (``act(obs, mask) -> slot``) at each epoch where a core is free and a job waits.

    Parameters
    ----------
    agent
        An object with ``act(obs, mask)`` (:class:`~schedlab.training.MLPPolicy`), or such a callable.
    slots
        The environment's slots (``env.unwrapped.slots``): the settings it was trained with.
    """

    def __init__(self, agent: Any, slots: SiteSlots) -> None:
        self._act = getattr(agent, "act", agent)
        if not callable(self._act):
            raise TypeError(f"agent must have act(obs, mask) or be a callable (obs, mask) -> slot, got {agent!r}")
        self.slots = slots
        self.decisions = 0

    def __call__(self, view: MachineView) -> Start | None:
        if view.free < 1:
            return None
        candidates = self.slots.candidates(view)
        mask = self.slots.mask(candidates)
        if not mask.any():
            return None
        self.decisions += 1
        job = candidates[int(self._act(self.slots.observe(view, candidates), mask))]
        if job is None:
            raise ValueError(f"the agent picked an empty slot (mask {mask.tolist()})")
        return Start(job)

"""Per-agent grid policies: the adapter that runs them inside a GridModel, and two baselines.

A *policy* maps one agent's observation (:mod:`schedlab.envs.grid.obs`) to a resource
index: a callable ``policy(obs) -> int`` or an object with ``act(obs)``. The PettingZoo
environment (:class:`~schedlab.envs.grid.agents.GridAgentsEnv`) asks it once per job;
:class:`GridAgentPolicy` turns the same policy into a
:class:`~schedlab.model.contracts.grid.GridPolicy`, so a trained policy decides in any
scenario that builds a :class:`~schedlab.processes.grid.grid.GridModel`, with the
observations it was trained on and the same decisions on the same jobs.

Its name before issue 34's vocabulary (:data:`RENAMED`, a tutorial's) still works with a
:class:`DeprecationWarning`: what decides is a policy.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from schedlab.envs.grid.obs import AgentJobs, GridAgentsConfig, GridObserver, resource_index
from schedlab.model.contracts.grid import GridCompletion, GridView

__all__ = ["GridAgentPolicy", "least_loaded", "random_resource"]

#: one agent's policy: its observation -> a resource index
ObsPolicy = Callable[[np.ndarray], Any]


def _callable(policy: Any) -> ObsPolicy:
    act = getattr(policy, "act", policy)
    if not callable(act):
        raise TypeError(f"policy must be a callable obs -> resource or have act(obs), got {policy!r}")
    return act


class GridAgentPolicy:
    """A per-agent policy as the policy of every agent of a GridModel.

    Parameters
    ----------
    policy
        One policy for every agent, or a sequence of N policies (agent i's is ``policy[i]``).
    config
        The environment's settings (or its observer): the scales of the observation must
        be those the policy was trained with.

    Notes
    -----
    Each agent is asked once per new job, in its turn on the ring; the job is queued
    before the next question, so the next observation shows it, as in the environment.
    Nothing travels on the ring (``shares = False``). A policy answering anything but a
    resource index stops the run with a one-line error naming the agent and the answer.

    Attributes
    ----------
    jobs
        The bookkeeping of each agent's unfinished jobs (after :meth:`bind`).
    decisions
        How many times a policy was asked.
    """

    #: nothing travels on the ring: only agents with new jobs take a turn
    shares = False

    def __init__(self, policy: Any, config: GridAgentsConfig | GridObserver) -> None:
        self.observer = config.observer if isinstance(config, GridAgentsConfig) else config
        if isinstance(policy, Sequence) and not callable(policy):
            self._policies: list[ObsPolicy] | None = [_callable(p) for p in policy]
            self._policy: ObsPolicy | None = None
        else:
            self._policies, self._policy = None, _callable(policy)
        self.decisions = 0

    def bind(self, view: GridView) -> None:
        """Check the policy fits the grid (its M, one policy per agent if several), and keep its view."""
        if view.resources != self.observer.resources:
            raise ValueError(
                f"resources: the policy's observer has M = {self.observer.resources}, the grid {view.resources}"
            )
        if self._policies is not None and len(self._policies) != view.agents:
            raise ValueError(f"policy: {len(self._policies)} policies given for a grid of {view.agents} agents")
        self._view = view
        self.jobs = AgentJobs(view.agents, view.resources)
        view.completed.connect(self.completed)
        view.step_ended.connect(self.end_step)

    def message(self, agent: int) -> None:
        """Nothing to share: the policies read the observation only."""
        return None

    def receive(self, agent: int, message: object) -> None:
        """Nothing to read: no agent sends a message."""
        pass

    def assign(self, agent: int, lengths: np.ndarray) -> Iterator[tuple[int, int]]:
        """Each of ``agent``'s jobs in turn, observed as the environment would, to the resource its policy picks."""
        policy = self._policy if self._policies is None else self._policies[agent]
        assert policy is not None  # one policy, or one per agent
        observe, view, jobs, m = self.observer.observe, self._view, self.jobs, self.observer.resources
        who = f"scheduler_{agent}"
        for pos in range(len(lengths)):
            obs = observe(view, float(lengths[pos]), len(lengths) - pos, jobs.unfinished[agent], agent)
            resource = resource_index(policy(obs), m, who)
            self.decisions += 1
            jobs.submitted(agent, resource)
            yield pos, resource

    def completed(self, event: GridCompletion) -> None:
        """Book a completion, as the environment does for its rewards."""
        self.jobs.completed(event.agent, event.resource, event.record)

    def end_step(self, step: int) -> None:
        """Close the step's book of completions."""
        self.jobs.end_step()

    def __repr__(self) -> str:
        return f"GridAgentPolicy({self._policy or self._policies!r})"


def least_loaded(rng: np.random.Generator, observer: GridObserver) -> ObsPolicy:
    """LLS as a policy: the resource of least load in the observation, ties uniformly at random with ``rng``.

    With the default ``time_scale`` (1) it draws exactly as
    :class:`~schedlab.policies.grid.LeastLoaded` given the same Generator: one
    ``rng.integers(ties)`` per job with tied resources, none otherwise.
    """

    def policy(obs: np.ndarray) -> int:
        loads = observer.loads(obs)
        ties = np.flatnonzero(loads == loads.min())
        return int(ties[rng.integers(ties.size)]) if ties.size > 1 else int(ties[0])

    return policy


def random_resource(rng: np.random.Generator, observer: GridObserver) -> ObsPolicy:
    """RS as a policy: a resource uniformly at random."""

    def policy(obs: np.ndarray) -> int:
        return int(rng.integers(observer.resources))

    return policy


#: names this module had before issue 34's vocabulary, old -> new (a tutorial used them)
RENAMED = {"PolicyDecider": "GridAgentPolicy"}  # old name kept


def __getattr__(name: str) -> object:
    """An old name of :data:`RENAMED`: today's object, with a DeprecationWarning."""
    if name in RENAMED:
        warnings.warn(f"{__name__}.{name} is now {RENAMED[name]}", DeprecationWarning, stacklevel=2)
        return globals()[RENAMED[name]]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

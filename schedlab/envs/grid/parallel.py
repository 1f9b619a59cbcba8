"""Seed 003's grid as a PettingZoo Parallel environment: every agent with a job to place acts at once.

The same model, observations and rewards as the AEC environment
(:class:`~schedlab.envs.grid.agents.GridAgentsEnv`, :mod:`schedlab.envs.grid.obs`); only
who decides when differs. Inside a model step, the agents' new jobs are placed in
*rounds*: in round k every agent with a k-th new job decides it, all on the same
observation of the loads (the step's opening ones, plus the earlier rounds'
submissions), and the round's jobs are queued in the model's turn order. An agent
without a job in the round is still stepped, so the agent set never changes (what
SuperSuit's ``pettingzoo_env_to_vec_env_v1`` needs): its observation says it has no
job (``obs[0] == obs[1] == 0``), its ``infos[agent]["decides"]`` is False and its
action is ignored. Steps of the model without any new job pass without a decision.

Why both APIs. AEC is the model's own order: each agent reads the loads its
predecessors' submissions left, as :class:`~schedlab.policies.grid.LeastLoaded` does.
The Parallel step is what vectorised trainers take: SuperSuit turns it into one
vector environment with an entry per agent, and Stable-Baselines3 trains a policy
shared by all agents on it (``docs/rl.md``). Training a shared policy through AEC
with ``turn_based_aec_to_parallel`` instead steps one agent at a time and gives the
others a no-op each time, so most samples teach nothing; a PPO trained that way did
worse than random.

Rewards are paid at the model's step ends, as in AEC, and reach each agent with the
next Parallel step's returns. ``infos[agent]`` carries the system's state (as AEC's),
``decides`` and ``action_mask`` (the resources the broker may reach: every one on the
paper's complete grid, fewer on a topology with ``hops``). Every agent is truncated after ``steps`` model steps.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from pettingzoo import ParallelEnv

from schedlab.envs.grid.agents import GridEnvParts, grid_text, system_info
from schedlab.envs.grid.obs import GridAgentsConfig, resource_index
from schedlab.model.core.job import Job

__all__ = ["GridParallelEnv"]


class GridParallelEnv(GridEnvParts, ParallelEnv):
    """Seed 003's grid with the N schedulers as PettingZoo Parallel agents (see the module's notes).

    Parameters
    ----------
    config
        A :class:`~schedlab.envs.grid.obs.GridAgentsConfig`; keyword arguments override its fields.
    render_mode
        ``"ansi"`` (the state as text) or None.

    Notes
    -----
    Seeding is the AEC environment's: ``reset(seed=s)`` draws capacities and jobs from
    the named streams of ``Streams(s)``, so both environments, and a scenario's
    ``GridModel`` with that seed, see the same grid and jobs.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "name": "schedlab_grid_parallel_v0"}
    _turn_step: int  # the model step whose arrivals' turn is held (-1: none yet)
    _held: bool  # whether that turn is held until the step's jobs are all placed

    def __init__(self, config: GridAgentsConfig | None = None, *, render_mode: str | None = None, **overrides: Any):
        self._configure(config, render_mode, overrides)
        # the topology's reach, per broker
        self._masks = [self.config.action_mask(i) for i in range(self.config.agents)]

    # ------------------------------------------------------------------ the model
    def _advance(self) -> bool:
        """Run the model to the next round with a job to place; False once the horizon is reached."""
        model, sim = self.model, self._sim
        assert model is not None
        while True:
            if any(self._next[i] < len(q) for i, q in enumerate(self._queues)):
                return True
            if self._held:  # the step's jobs are all placed: let the turn the arrivals owed go on
                self._held = False
                model.release_turn()
                continue
            if model.owed:
                model.owed = False
                if model.step != self._turn_step:
                    # the step's arrivals: take every agent's new jobs; the agents' own turns then find none
                    self._turn_step, self._held = model.step, True
                    for i, scheduler in enumerate(model.agent_list):
                        self._queues[i], scheduler.buffer = scheduler.buffer, []
                        self._next[i] = 0
                    continue
                model.release_turn()  # an agent's (empty) turn: pass it on
                continue
            if not model.done.is_alive:
                return False
            sim.step()

    def _deciding(self) -> list[int]:
        """The agents with a job in the current round, in the model's turn order."""
        assert self.model is not None
        return [i for i in self.model.order if self._next[i] < len(self._queues[i])]

    def _observe(self, i: int) -> np.ndarray:
        assert self.model is not None
        queue, k = self._queues[i], self._next[i]
        length = queue[k].runtime if k < len(queue) else 0.0
        return self.observer.observe(self.model.view, length, len(queue) - k, self._grid_policy.jobs.unfinished[i], i)

    def _returns(self, done: bool) -> tuple[dict, dict, dict, dict, dict]:
        names = self.possible_agents
        deciding = set() if done else set(self._deciding())
        observations = {a: self._observe(i) for i, a in enumerate(names)}
        rewards = {a: float(self._pending[i]) * self.config.reward_scale for i, a in enumerate(names)}
        self._pending.fill(0.0)
        assert self.model is not None
        info = system_info(self.model)
        masks = self._masks
        infos = {a: {**info, "decides": i in deciding, "action_mask": masks[i].copy()} for i, a in enumerate(names)}
        terminations = dict.fromkeys(names, False)
        truncations = dict.fromkeys(names, done)
        return observations, rewards, terminations, truncations, infos

    # ------------------------------------------------------------------ PettingZoo
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        """Start an episode on a fresh grid drawn from ``seed``, and run it to the first round of jobs to place."""
        self._new_model(seed)
        n = self.config.agents
        self._queues: list[list[Job]] = [[] for _ in range(n)]
        self._next = [0] * n
        self._turn_step, self._held = -1, False
        self.agents = self.possible_agents[:]
        done = not self._advance()
        self._pending.fill(0.0)  # before the first job is placed no job is unfinished: nothing earned yet
        observations, _, _, _, infos = self._returns(done)
        return observations, infos

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Each deciding agent sends its next job where its action says; the model runs on to the next round."""
        if self.model is None:
            raise RuntimeError("call reset() before step()")
        if not self.agents:
            raise RuntimeError("the episode is over (every agent was truncated): call reset()")
        names, submitter = self.possible_agents, self.model.submitter
        for i in self._deciding():
            agent = names[i]
            if agent not in actions:
                raise ValueError(f"{agent} has a job to place this step but no action was given")
            resource = resource_index(actions[agent], self.config.resources, agent)
            submitter(i)(resource, self._queues[i][self._next[i]])  # over the topology's links
            self._grid_policy.jobs.submitted(i, resource)
            self._next[i] += 1
        done = not self._advance()
        out = self._returns(done)
        if done:
            self.agents = []
        return out

    def observe(self, agent: str) -> np.ndarray:
        """What ``agent`` sees now: what the last ``reset`` or ``step`` returned it (for rules reading the env)."""
        if self.model is None:
            raise RuntimeError("call reset() before observe()")
        return self._observe(self.possible_agents.index(agent))

    def render(self) -> str | None:
        """The state as text (``render_mode="ansi"``): the clock, the loads, who places which job."""
        if self.render_mode is None:
            return None
        if self.model is None:
            return "GridParallelEnv (not reset)"
        jobs = [(self.possible_agents[i], self._queues[i][self._next[i]]) for i in self._deciding()]
        deciding = [f"{agent}: {job.runtime:.0f}" for agent, job in jobs]
        return grid_text(self.model, "to place: " + (", ".join(deciding) or "-"))

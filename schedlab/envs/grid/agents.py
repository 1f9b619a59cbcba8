"""Seed 003's grid as a PettingZoo AEC environment: N scheduler agents, each job one decision.

Each episode builds a fresh :class:`~schedlab.processes.grid.grid.GridModel` (the model of
``scenarios/osl_grid.py``, built by :func:`~schedlab.envs.grid.obs.grid_model`) and runs
it; the agents are its N schedulers (``scheduler_0`` ... in ring order), and an agent
acts once for each of its new jobs: the action is the resource (``Discrete(M)``) the
job is queued at. Observation and rewards are those of :mod:`schedlab.envs.grid.obs`.

Why AEC: inside a step the model's agents decide one after the other, in ring order,
and each decision reads the loads its predecessors' submissions left (an agent's own
earlier jobs of the step included); so the environment selects, one job at a time, the
agent whose turn it is, exactly as the model's phases order them. Agents without new
jobs are not asked in that step (as in the model, where they have nothing to do);
their rewards wait for their next turn, as AEC's cumulative rewards do. For
vectorised training of a shared policy, :class:`~schedlab.envs.grid.parallel.GridParallelEnv`
is the same grid behind PettingZoo's Parallel API (every agent with a job acts at once).

How the model is driven: each turn on the ring is a point where the environment stops
the simulation (:class:`SteppedGrid`, a GridModel whose ``pass_turn`` waits for it);
there it takes the agent's jobs from its buffer and asks for them one by one, queuing
each at once with ``GridResources.submit`` (the call the agent's process makes), then
lets the turn pass on. The clock, arrivals, execution, the completion signal, the step
ends and the series are the model's own: with a policy equal to LLS the records and
ALoR series are those of ``GridModel`` with :class:`~schedlab.policies.grid.LeastLoaded`.

Rewards arrive at each step's end for every agent (with ``reward="tpt"`` the return of
agent i is minus the total time its jobs spent unfinished). The episode never
terminates; every agent is truncated after ``steps`` steps. ``infos`` (one dict shared
by every agent) carry the system's state: ``time``, ``step``, ``alor``, ``lor_max``,
``lor_std`` (eq. 2, now), ``system_load`` (eq. 7 with this episode's capacities),
``completed`` (jobs so far) and, once a job completed, ``atpt`` (eq. 1, so far).
Every resource accepts every job: there is no action mask. :meth:`GridAgentsEnv.state`
is the global state for centralised critics: ``now / steps``, then per resource its
load, its capacity (scaled as in the observation) and every agent's unfinished jobs there.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
import simpy
from pettingzoo import AECEnv

from schedlab.envs.grid.obs import AgentJobs, GridAgentsConfig, grid_model, resource_index
from schedlab.envs.grid.policy import GridAgentPolicy
from schedlab.model.analysis import metrics
from schedlab.model.contracts.grid import GridCompletion, GridView
from schedlab.model.core.job import Job
from schedlab.model.core.streams import Streams, episode_sequence
from schedlab.model.records.job_record import JobRecord
from schedlab.processes.grid.grid import GridModel

__all__ = ["GridAgentsEnv", "GridEnvParts"]


class SteppedGrid(GridModel):
    """A GridModel whose turns wait for the environment: passing the turn only notes that one is owed."""

    owed = False

    def pass_turn(self) -> None:
        """Note that a turn is owed, instead of passing it: the environment lets it go on."""
        self.owed = True

    def release_turn(self) -> None:
        """Let the owed turn go on, as GridModel's ``pass_turn`` would have done at once."""
        super().pass_turn()


class EnvGridPolicy:
    """The model's policy in the environment: the bookkeeping, and the step's end; no decisions.

    The environment queues every job itself before the agent's turn runs, so the
    model never asks :meth:`assign`.
    """

    shares = False

    def __init__(self, on_step_end: Callable[[], None]) -> None:
        self._on_step_end = on_step_end

    def bind(self, view: GridView) -> None:
        """Keep the agents' job book and listen to the grid's completions and step ends."""
        self.jobs = AgentJobs(view.agents, view.resources)
        view.completed.connect(self.completed)
        view.step_ended.connect(self.end_step)

    def message(self, agent: int) -> None:
        """Nothing to share: the environment's agents send no messages."""
        return None

    def receive(self, agent: int, message: object) -> None:
        """Nothing to read: no agent sends a message."""
        pass

    def assign(self, agent: int, lengths: np.ndarray) -> list[tuple[int, int]]:
        """Never called: the environment places each job itself; a call is a bug, and raises."""
        raise RuntimeError(f"agent {agent} found jobs in its buffer: the environment should have placed them")

    def completed(self, event: GridCompletion) -> None:
        """Book a completion for the rewards."""
        self.jobs.completed(event.agent, event.resource, event.record)

    def end_step(self, step: int) -> None:
        """The step is over: the environment collects its rewards."""
        self._on_step_end()


class GridEnvParts:
    """What the AEC and the Parallel grid environments share: config, spaces, seeding, the model, state, records.

    The two differ only in who decides when (:class:`GridAgentsEnv`'s ``_advance`` and
    :class:`~schedlab.envs.grid.parallel.GridParallelEnv`'s); everything here is one
    piece of code for both.
    """

    metadata: ClassVar[dict[str, Any]]
    model: SteppedGrid | None

    def _configure(self, config: GridAgentsConfig | None, render_mode: str | None, overrides: dict[str, Any]) -> None:
        cfg = config or GridAgentsConfig()
        if overrides:
            cfg = GridAgentsConfig(**{**cfg.__dict__, **overrides})
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.config = cfg
        self.render_mode = render_mode
        self.observer = cfg.observer
        self.possible_agents = [f"scheduler_{i}" for i in range(cfg.agents)]
        self.agents: list[str] = []
        self.observation_spaces = {a: self.observer.observation_space() for a in self.possible_agents}
        self.action_spaces = {a: gym.spaces.Discrete(cfg.resources) for a in self.possible_agents}
        m = cfg.resources
        high = np.concatenate([[1.0], np.full(m, np.inf), np.ones(m), np.full(m, np.inf)])
        self.state_space = gym.spaces.Box(np.zeros(1 + 3 * m), high, dtype=np.float64)
        self.model = None
        self._root: np.random.SeedSequence | None = None

    def _new_model(self, seed: int | None) -> None:
        """A fresh grid drawn from ``seed`` (or the next child of the last seed), with no reward pending."""
        self._root, sequence = episode_sequence(seed, self._root)
        self._sim = simpy.Environment()
        self._grid_policy = EnvGridPolicy(self._step_ended)
        model = grid_model(self._sim, self.config, self._grid_policy, Streams(sequence), SteppedGrid)
        assert isinstance(model, SteppedGrid)
        self.model = model
        self._pending = np.zeros(self.config.agents)

    def _step_ended(self) -> None:
        self._pending += self._grid_policy.jobs.end_step(self.config.reward)

    def observation_space(self, agent: str) -> gym.spaces.Box:
        """Agent ``agent``'s observation space (the same object each call: PettingZoo seeds it)."""
        # the same object each time (PettingZoo seeds spaces through it): one space per agent, kept
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gym.spaces.Discrete:
        """Agent ``agent``'s action space: one action per resource."""
        return self.action_spaces[agent]

    def state(self) -> np.ndarray:
        """``now / steps``, each resource's load and capacity (as observed) and all agents' unfinished jobs there."""
        if self.model is None:
            raise RuntimeError("call reset() before state()")
        # an observation with no job to place carries the time, loads and capacities; only the job counts differ
        obs = self.observer.observe(self.model.view, 0.0, 0, self._grid_policy.jobs.unfinished.sum(axis=0))
        return obs[2 : self.observer.base_size]  # the features' extras are per agent: not global state

    def close(self) -> None:
        """End the episode: no agent is left."""
        self.agents = []

    def records(self) -> list[JobRecord]:
        """The episode's job records (completed first, then any still queued or running)."""
        if self.model is None:
            raise RuntimeError("call reset() before records()")
        return self.model.all_records()

    def __str__(self) -> str:
        return str(self.metadata["name"])


def system_info(model: GridModel) -> dict[str, Any]:
    """The system's state as both grid environments report it in ``infos``."""
    summary = metrics.load_summary(model.view.lor())
    info = {
        "time": float(model.env.now),
        "step": model.step,
        "alor": summary["alor"],
        "lor_max": summary["max_lor"],
        "lor_std": summary["std_lor"],
        "system_load": model.load,
        "completed": model.series.completed,
    }
    if model.series.completed:  # ATPT is undefined (nan) before the first completion: left out, not nan
        info["atpt"] = model.series.atpt
    return info


def grid_text(model: GridModel, who: str, width: int = 12) -> str:
    """The grid as text: the clock and load summary, the first ``width`` resources' LoR, who acts."""
    info = system_info(model)
    lor = model.view.lor()
    shown = " ".join(f"{x:.0f}" for x in lor[:width]) + (" ..." if len(lor) > width else "")
    return (
        f"t={info['time']:g} step={info['step']} ALoR={info['alor']:.1f} max={info['lor_max']:.1f} "
        f"completed={info['completed']}\n  LoR: {shown}\n  {who}"
    )


class GridAgentsEnv(GridEnvParts, AECEnv):
    """Seed 003's grid with the N schedulers as PettingZoo agents (see the module's notes).

    Parameters
    ----------
    config
        A :class:`~schedlab.envs.grid.obs.GridAgentsConfig`; keyword arguments override its fields.

    Notes
    -----
    ``reset(seed=s)`` draws capacities and jobs from the named streams of seed ``s``
    (those of ``Streams(s)`` in a scenario); a reset without a seed takes the next
    child of the last seed (fresh OS entropy the first time). ``options`` are unused.
    After an episode ``env.model`` is its GridModel (``series``, ``all_records()``).
    :meth:`as_grid_policy` turns a policy into a GridPolicy for scenarios.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "name": "schedlab_grid_agents_v0"}
    _jobs: list[Job]  # the current turn's jobs, placed one per step
    _turn_step: int  # the model step whose first turn was taken (-1: none yet)
    _turns: list[int]  # the agents still to take a turn in that step, last first

    def __init__(
        self, config: GridAgentsConfig | None = None, *, render_mode: str | None = None, **overrides: Any
    ) -> None:
        super().__init__()
        self._configure(config, render_mode, overrides)
        self._index = {a: i for i, a in enumerate(self.possible_agents)}

    # ------------------------------------------------------------------ the model
    def _advance(self) -> bool:
        """Run the model to the next job to place; False once the horizon is reached."""
        sim, model = self._sim, self.model
        assert model is not None
        while True:
            if self._jobs:  # the turn goes on: the agent's next job, at the same instant
                return True
            if model.owed:
                model.owed = False
                if model.step != self._turn_step:
                    # the first turn owed in a step comes from its arrivals: the model's own turn list,
                    # the agents with new jobs in ring order (reversed, to pop from the end as it does)
                    self._turn_step = model.step
                    self._turns = [i for i in reversed(model.order) if model.agent_list[i].buffer]
                if self._turns:
                    agent = self._turns.pop()
                    scheduler = model.agent_list[agent]
                    self._jobs, scheduler.buffer = scheduler.buffer, []
                    self._agent, self._next = agent, 0
                    return True
                model.release_turn()  # the step has no more turns: nothing to wake
            if not model.done.is_alive:
                return False
            sim.step()

    def _place(self, resource: int) -> None:
        """Queue the current job at ``resource``; after the turn's last job, let the turn pass."""
        assert self.model is not None
        job: Job = self._jobs[self._next]
        self.model.submitter(self._agent)(resource, job)  # over the topology's links (at once on the complete grid)
        self._grid_policy.jobs.submitted(self._agent, resource)
        self._next += 1
        if self._next == len(self._jobs):
            self._jobs = []
            self.model.release_turn()

    # ------------------------------------------------------------------ PettingZoo
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start an episode on a fresh grid drawn from ``seed``, and run it to the first job to place."""
        self._new_model(seed)
        self._turn_step, self._turns = -1, []
        self._jobs = []
        self._agent, self._next = 0, 0
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        # before the first job is placed no job is unfinished: every reward so far is 0
        more = self._advance()
        self._pending.fill(0.0)
        self._settle(more)

    def _settle(self, more: bool) -> None:
        """After the model ran: the rewards it paid, the infos, and who acts next (or the truncation)."""
        assert self.model is not None
        info = system_info(self.model)
        self.infos = {a: info for a in self.agents}
        names = self.possible_agents
        for i in np.flatnonzero(self._pending).tolist():
            if names[i] in self.rewards:
                self.rewards[names[i]] = float(self._pending[i]) * self.config.reward_scale
        if more:
            self.agent_selection = names[self._agent]
        else:
            self.truncations = dict.fromkeys(self.agents, True)
            self._jobs = []
            self.agent_selection = self.agents[0]

    def observe(self, agent: str) -> np.ndarray:
        """What ``agent`` sees now: the grid, and its next job if it is the one to act."""
        if self.model is None:
            raise RuntimeError("call reset() before observe()")
        i = self._index[agent]
        mine = bool(self._jobs) and i == self._agent
        length = self._jobs[self._next].runtime if mine else 0.0
        left = len(self._jobs) - self._next if mine else 0
        return self.observer.observe(self.model.view, length, left, self._grid_policy.jobs.unfinished[i], i)

    def step(self, action: Any) -> None:
        """The acting agent sends its job to resource ``action``; the model runs on to the next job to place."""
        if self.model is None:
            raise RuntimeError("call reset() before step()")
        if not self.agents:
            raise RuntimeError("the episode is over (every agent was truncated and stepped): call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        resource = resource_index(action, self.config.resources, agent)
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self._place(resource)
        self._pending.fill(0.0)
        self._settle(self._advance())
        self._accumulate_rewards()

    def render(self) -> str | None:
        """The state as text (``render_mode="ansi"``): the clock, the loads, the agent to act and its job."""
        if self.render_mode is None:
            return None
        if self.model is None:
            return "GridAgentsEnv (not reset)"
        job = f"{self._jobs[self._next].runtime:.0f}" if self._jobs else "-"
        return grid_text(self.model, f"to act: {self.agent_selection}, job length {job}")

    # ------------------------------------------------------------------ helpers
    def as_grid_policy(self, policy: Any) -> GridAgentPolicy:
        """``policy`` (obs -> resource, ``act(obs)``, or N of them) as a GridPolicy seeing these observations."""
        return GridAgentPolicy(policy, self.observer)

    def as_decider(self, policy: Any) -> GridAgentPolicy:  # old name kept
        """Deprecated: :meth:`as_grid_policy` (its name before issue 34's vocabulary, in docs/rl.md)."""
        old = "as_decider"  # old name kept
        warnings.warn(f"GridAgentsEnv.{old} is now as_grid_policy", DeprecationWarning, stacklevel=2)
        return self.as_grid_policy(policy)

"""Seed 004's server network as PettingZoo environments: the shipping agents decide on head jobs.

Each episode builds a fresh one-run :class:`~schedlab.processes.network.network.ServerNetwork`
(:func:`~schedlab.envs.network.obs.network_model`, drawn as ``scenarios/collectives.py``
draws its networks) and pauses it at every step's decisions phase. There, for each
server with a waiting job, the agent owning the head job's class decides (one decision
per head job): keep it, or ship it to a neighbour. Agents, observation and actions are
those of :mod:`schedlab.envs.network.obs`.

- :class:`NetworkAgentsEnv` is the Parallel API: every agent with a head job acts at
  once, exactly as the model's rules decide (all heads of a step are read at the
  decisions phase, and shipping one does not change another). Every agent is stepped
  each time (a constant agent set, for SuperSuit's vector envs); ``infos[agent]["decides"]``
  says whether its action counts, and ``infos[agent]["action_mask"]`` which actions exist
  (an action past the server's degree, masked out, keeps the job).
- :func:`network_aec_env` is the same game behind the AEC API, through PettingZoo's
  ``parallel_to_aec``.

Rewards (``reward=``) are paid at each step's end: ``"team"`` gives every agent the
step's completions over the whole network divided by N (the team game); ``"selfish"``
gives each agent the completions of its class's jobs at its server. Steps of the run
where no server has a waiting job pass without a decision. Every agent is truncated
after ``steps`` steps. ``infos`` carry ``step``, ``executed`` (jobs of the run
completed so far), ``arrived`` and ``efficiency`` (G of eq. 6 so far).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import simpy
from pettingzoo import ParallelEnv
from pettingzoo.utils.conversions import parallel_to_aec

from schedlab.envs.network.obs import EnvRule, NetworkAgentsConfig, NetworkObserver, SteppedNetwork, network_model
from schedlab.model.contracts.network import Ship
from schedlab.model.core.fields import is_int
from schedlab.model.core.streams import Streams, episode_sequence
from schedlab.model.records.job_record import JobRecord

__all__ = ["NetworkAgentsEnv", "network_aec_env"]


class NetworkAgentsEnv(ParallelEnv):
    """Seed 004's shipping agents as PettingZoo Parallel agents (see the module's notes).

    Parameters
    ----------
    config
        A :class:`~schedlab.envs.network.obs.NetworkAgentsConfig`; keyword arguments override its fields.
    render_mode
        ``"ansi"`` (the state as text) or None.

    Notes
    -----
    ``reset(seed=s)`` draws the graph, capacities and jobs from the named streams of
    ``Streams(s)``; a reset without a seed takes the next child of the last seed.
    After an episode ``env.model`` is the network (``curve``, ``all_records()``).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "name": "schedlab_network_agents_v0"}

    def __init__(
        self, config: NetworkAgentsConfig | None = None, *, render_mode: str | None = None, **overrides: Any
    ) -> None:
        cfg = config or NetworkAgentsConfig()
        if overrides:
            cfg = NetworkAgentsConfig(**{**cfg.__dict__, **overrides})
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.config = cfg
        self.render_mode = render_mode
        degree = 4 if cfg.graph is None else max(d for _, d in cfg.graph.degree)  # small_world_ring's max_degree
        self.observer = NetworkObserver(cfg, degree)
        self.possible_agents = cfg.agent_names()
        self.agents: list[str] = []
        self.observation_spaces = {a: self.observer.observation_space() for a in self.possible_agents}
        self.action_spaces = {a: self.observer.action_space() for a in self.possible_agents}
        self.model: SteppedNetwork | None = None
        self._root: np.random.SeedSequence | None = None

    def observation_space(self, agent: str) -> Any:
        """Agent ``agent``'s observation space (the same object each call: PettingZoo seeds it)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> Any:
        """Agent ``agent``'s actions: keep the job, or ship it to a neighbour."""
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ the model
    def _completed(self, event: tuple[int, JobRecord]) -> None:
        server, record = event
        assert self.model is not None
        self._done_step[server * self.config.classes + self.model.job_class(record)] += 1.0

    def _step_ended(self, step: int) -> None:
        done = self._done_step
        if self.config.reward == "team":
            self._pending += done.sum() / self.config.servers
        else:
            self._pending += done
        done.fill(0.0)

    def _advance(self) -> bool:
        """Run the model to the next decisions phase with a head job; False once the run is over."""
        model, sim = self.model, self._sim
        assert model is not None
        while True:
            if model.paused is not None:
                self._heads = model.heads()
                if self._heads:
                    return True
                model.resume()  # nothing waits anywhere: no decision this step
            if not model.done.is_alive:
                return False
            sim.step()

    def _deciding(self) -> dict[int, tuple[int, Any]]:
        """Agent index -> (server, head job) for every agent that decides now."""
        assert self.model is not None
        classes, job_class = self.config.classes, self.model.job_class
        return {s * classes + job_class(job): (s, job) for s, job in self._heads}

    def _returns(self, done: bool) -> tuple[dict, dict, dict, dict, dict]:
        model, names, classes = self.model, self.possible_agents, self.config.classes
        assert model is not None
        deciding = {} if done else self._deciding()
        loads = model.loads()
        observations = {}
        for a, name in enumerate(names):
            server, job = deciding.get(a, (a // classes, None))
            observations[name] = self.observer.observe(server, job, loads)
        rewards = {name: float(self._pending[a]) * self.config.reward_scale for a, name in enumerate(names)}
        self._pending.fill(0.0)
        executed, arrived = model.executed(), model.arrived
        info: dict[str, float] = {"step": self._step, "executed": executed, "arrived": arrived}
        info["efficiency"] = executed / arrived if arrived else float("nan")
        if done and model.curve:
            info["efficiency"] = model.curve[-1]
        infos = {
            name: {**info, "decides": a in deciding, "action_mask": self.observer.mask(a // classes)}
            for a, name in enumerate(names)
        }
        return observations, rewards, dict.fromkeys(names, False), dict.fromkeys(names, done), infos

    # ------------------------------------------------------------------ PettingZoo
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        """A new episode on a fresh network drawn from ``seed`` (or the next child of the last seed)."""
        self._root, sequence = episode_sequence(seed, self._root)
        self._sim = simpy.Environment()
        self._rule = EnvRule()
        self.model = network_model(self._sim, self.config, self._rule, Streams(sequence))
        self.observer.bind(self.model)
        self._pending = np.zeros(self.config.agents)
        self._done_step = np.zeros(self.config.agents)
        self.model.completed.connect(self._completed)
        self.model.step_ended.connect(self._step_ended)
        self._step = 0
        self.model.step_ended.connect(self._count_step)
        self.agents = self.possible_agents[:]
        done = not self._advance()
        observations, _, _, _, infos = self._returns(done)
        return observations, infos

    def _count_step(self, step: int) -> None:
        self._step = step + 1

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Apply every deciding agent's action, then run the network to the next decisions."""
        model = self.model
        if model is None:
            raise RuntimeError("call reset() before step()")
        if not self.agents:
            raise RuntimeError("the episode is over (every agent was truncated): call reset()")
        names, touch = self.possible_agents, model.touches == "decision"
        ships = []
        for a, (server, job) in sorted(self._deciding().items(), key=lambda item: item[1][0]):
            name = names[a]
            if name not in actions:
                raise ValueError(f"{name} has a head job to decide on but no action was given")
            k = _action(actions[name], self.observer.mask(server), name)
            if touch:
                model.touch(a, job)
            if k:
                ships.append(Ship(server, job, self.observer.neighbours[server][k - 1]))
        self._rule.ships = ships
        model.resume()
        done = not self._advance()
        out = self._returns(done)
        if done:
            self.agents = []
        return out

    def render(self) -> str | None:
        """The state as text (``render_mode="ansi"``): the step, the run's efficiency so far, the heads."""
        if self.render_mode is None:
            return None
        if self.model is None:
            return "NetworkAgentsEnv (not reset)"
        model = self.model
        heads = ", ".join(f"{s}:{job.id}" for s, job in self._heads[:12]) + (" ..." if len(self._heads) > 12 else "")
        return (
            f"step={self._step} arrived={model.arrived} executed={model.executed()} queued={model.queued()} "
            f"in transit={model.in_transit()}\n  heads (server:job): {heads or '-'}"
        )

    def state(self) -> np.ndarray:
        """Every server's load and waiting jobs ``q / (q + 1)`` (a global state for centralised critics)."""
        if self.model is None:
            raise RuntimeError("call reset() before state()")
        q = np.array([len(self.model.waiting(s)) for s in range(self.model.n)], dtype=float)
        return np.concatenate([self.model.loads(), q / (q + 1)]).astype(np.float32)

    def close(self) -> None:
        """End the episode: no agent is left."""
        self.agents = []

    def records(self) -> list[JobRecord]:
        """The run's job records so far (the network keeps them until the run ends)."""
        if self.model is None:
            raise RuntimeError("call reset() before records()")
        return self.model.all_records()

    def __str__(self) -> str:
        return str(self.metadata["name"])


def _action(action: Any, mask: np.ndarray, who: str) -> int:
    """``action`` as keep (0) or a neighbour's index; a masked-out one (past the server's degree) keeps the job."""
    if isinstance(action, np.ndarray) and action.shape in ((), (1,)):
        action = action.reshape(())[()]
    if not is_int(action, 0) or action >= len(mask):  # numpy's bool is no integer either
        raise ValueError(f"action of {who}: {action!r} is not an action in 0..{len(mask) - 1}")
    return int(action) if mask[action] else 0


def network_aec_env(config: NetworkAgentsConfig | None = None, **overrides: Any):
    """The same game behind PettingZoo's AEC API (``parallel_to_aec``): the agents act in turn, in server order."""
    return parallel_to_aec(NetworkAgentsEnv(config, **overrides))

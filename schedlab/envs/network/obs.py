"""What a shipping agent of seed 004 sees and earns: the settings, the model, the observation.

Shared by the PettingZoo environments of :mod:`schedlab.envs.network.agents`. The
agents are the network's shipping agents (section 3.2): 2^K per server, one per job
class, agent ``a = server * 2^K + class`` (named ``server_{s}_class_{c}``). At each step
the agent owning a server's head job decides its fate: keep it (action 0) or ship it
to the server's k-th neighbour (action k, neighbours in increasing order), as
:class:`~schedlab.policies.shipping.ShippingAgents` does.

The observation of an agent, one float32 vector of ``3 + 2K + 2D`` numbers, ``D`` the
largest degree of the graph (every entry in ``[0, 1]``):

=======================  =====================================================================
slice                    meaning
=======================  =====================================================================
``[0]``                  1 if the agent decides now (its class's job heads its server's queue)
``[1 : 1+K]``            that job's requirements over M (zeros when it does not decide)
``[1+K : 1+2K]``         its server's capacities over M
``[1+2K]``               its server's load L_i (section 3.4; held requirements over capacity)
``[2+2K]``               its server's waiting jobs q, as ``q / (q + 1)``
``[3+2K : 3+2K+D]``      each neighbour's load (zeros past the server's degree)
``[3+2K+D : 3+2K+2D]``   1 for each neighbour the server has (the action mask, less "keep")
=======================  =====================================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import gymnasium as gym
import networkx as nx
import numpy as np
import simpy

from schedlab.model.contracts.network import Ship, ShippingRule
from schedlab.model.contracts.routing import neighbour_lists
from schedlab.model.core.fields import number, validate
from schedlab.model.core.job import Job
from schedlab.model.core.streams import Streams
from schedlab.processes.network.network import ServerNetwork
from schedlab.topologies import small_world_ring

__all__ = ["REWARDS", "NetworkAgentsConfig", "NetworkObserver", "SteppedNetwork", "network_model"]

#: "team": every agent earns the step's completions over the network / N; "selfish": its own class's at its server
REWARDS = ("team", "selfish")


@dataclass(frozen=True)
class NetworkAgentsConfig:
    """Seed 004's network for the multi-agent environments: one episode is one run of ``steps`` steps.

    Parameters
    ----------
    servers
        N servers on a small-world ring (``shortcut_prob``), drawn per episode from the
        ``topology`` stream, unless ``graph`` is given.
    resources
        K resources per server (2^K agents each).
    max_requirement
        M: requirements and capacities are uniform on ``{1..M}``.
    arrival_prob
        r: each server's probability of a new job per step.
    steps
        Steps of the run (the episode's length).
    reward, reward_scale
        See :data:`REWARDS`; every reward is multiplied by ``reward_scale``.
    graph
        Any connected NetworkX graph over ``0..N-1`` to use instead of the ring.
    touches
        The network's reading of I_k^eta (``"visit"`` or ``"decision"``).
    """

    servers: int = number(50, low=1, integer=True)
    resources: int = number(2, low=1, integer=True)
    max_requirement: int = number(8, low=1, integer=True)
    arrival_prob: float = number(0.8, high=1)
    steps: int = number(400, low=1, integer=True)
    shortcut_prob: float = number(0.5, high=1)
    reward: Literal["team", "selfish"] = "team"
    reward_scale: float = number(1.0, gt=0)
    graph: nx.Graph | None = None
    touches: str = "visit"

    def __post_init__(self) -> None:
        validate(self)  # every number finite and in range (model/fields); the rules below relate fields
        if self.reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {self.reward!r}")
        if self.graph is not None and self.graph.number_of_nodes() != self.servers:
            raise ValueError(f"graph: has {self.graph.number_of_nodes()} nodes, servers={self.servers}")

    @property
    def classes(self) -> int:
        """Job classes: one per subset of the resources, ``2 ** resources``."""
        return 2**self.resources

    @property
    def agents(self) -> int:
        """Agents: one per (server, job class)."""
        return self.servers * self.classes

    def agent_names(self) -> list[str]:
        """The agents' names, ``server_s_class_c``, server by server."""
        return [f"server_{s}_class_{c}" for s in range(self.servers) for c in range(self.classes)]


class SteppedNetwork(ServerNetwork):
    """A ServerNetwork that pauses at each step's decisions phase, so that an environment can decide.

    At each step's :meth:`~schedlab.processes.network.network.ServerNetwork.decision_point`, after
    the deliveries and arrivals, the clock waits on :attr:`paused` (an event the
    environment fires with :meth:`resume` at a higher priority than the servers' events
    of that instant, so nothing happens between the arrivals and the decisions, as in
    the model). ``tests/test_env_network_agents.py`` checks that the records and
    efficiencies are the model's own under the same decisions.
    """

    paused: simpy.Event | None = None

    def resume(self) -> None:
        """Let the paused decisions phase go on (the rule's ``decide`` then returns what the environment chose)."""
        event, self.paused = self.paused, None
        assert event is not None
        event._ok, event._value = True, None
        self.env.schedule(event, simpy.events.URGENT)

    def decision_point(self) -> simpy.Event:
        """Pause the decisions phase until the environment has chosen (:meth:`resume`)."""
        self.paused = simpy.Event(self.env)
        return self.paused


class EnvRule:
    """The network's rule in the environment: ships what the environment chose (and records the touches)."""

    def __init__(self) -> None:
        self.ships: list[Ship] = []

    def bind(self, network: Any) -> None:
        """Keep the network the environment's agents ship on."""
        self.network = network

    def begin_run(self, run: int) -> None:
        """Nothing to prepare: the agents act through the environment."""
        pass

    def decide(self, network: Any) -> list[Ship]:
        """The ships the agents chose since the last call, handed over once."""
        ships, self.ships = self.ships, []
        return ships


def network_model(sim: simpy.Environment, config: NetworkAgentsConfig, rule: ShippingRule, streams: Streams):
    """The one-run ServerNetwork of an episode: graph from ``topology``, capacities from ``capacities``.

    As ``scenarios/collectives.py`` draws them, so a scenario with ``Streams(s)`` and an
    environment reset with ``seed=s`` run on the same network and jobs.
    """
    cfg = config
    graph = (
        cfg.graph
        if cfg.graph is not None
        else small_world_ring(cfg.servers, cfg.shortcut_prob, seed=streams["topology"])
    )
    capacities = streams["capacities"].integers(1, cfg.max_requirement + 1, size=(cfg.servers, cfg.resources))
    return SteppedNetwork(
        sim,
        graph,
        capacities,
        cfg.arrival_prob,
        cfg.max_requirement,
        rule,
        streams["arrivals"],
        streams["requirements"],
        steps=cfg.steps,
        runs=1,
        keep_records=True,
        touches=cfg.touches,
    )


class NetworkObserver:
    """Builds the module's observation and action masks for one network (its graph fixes D)."""

    def __init__(self, config: NetworkAgentsConfig, degree: int) -> None:
        self.k, self.m, self.degree = config.resources, float(config.max_requirement), int(degree)
        self.classes = config.classes
        self.size = 3 + 2 * self.k + 2 * self.degree
        self.n_actions = 1 + self.degree

    def observation_space(self) -> gym.spaces.Box:
        """One agent's observation: ``size`` values in [0, 1]."""
        return gym.spaces.Box(0.0, 1.0, shape=(self.size,), dtype=np.float32)

    def action_space(self) -> gym.spaces.Discrete:
        """One agent's actions: keep the job or ship it along a link."""
        return gym.spaces.Discrete(self.n_actions)

    def bind(self, network: ServerNetwork) -> None:
        """Per episode: the network's neighbours and capacities."""
        self.neighbours = neighbour_lists(network.graph)
        if max(len(nb) for nb in self.neighbours) > self.degree:
            raise ValueError(f"graph: a server has more than D = {self.degree} neighbours")
        self.network = network
        self._capacities = network.capacities / self.m
        self._masks = np.zeros((network.n, self.n_actions), dtype=np.int8)
        for s, nb in enumerate(self.neighbours):
            self._masks[s, : 1 + len(nb)] = 1

    def mask(self, server: int) -> np.ndarray:
        """The actions open to an agent of ``server`` (a copy: the caller may change it)."""
        return self._masks[server].copy()

    def observe(self, server: int, job: Job | None, loads: np.ndarray) -> np.ndarray:
        """The observation of an agent of ``server``; ``job`` is the head job it decides on, or None."""
        k, d = self.k, self.degree
        obs = np.zeros(self.size, dtype=np.float32)
        if job is not None:
            obs[0] = 1.0
            obs[1] = job.runtime / self.m
            for i, v in enumerate(job.demands.values(), start=2):
                obs[i] = v / self.m
        obs[1 + k : 1 + 2 * k] = self._capacities[server]
        obs[1 + 2 * k] = min(1.0, loads[server])
        q = len(self.network.waiting(server))
        obs[2 + 2 * k] = q / (q + 1)
        nb = self.neighbours[server]
        obs[3 + 2 * k : 3 + 2 * k + len(nb)] = np.minimum(1.0, loads[nb])
        obs[3 + 2 * k + d : 3 + 2 * k + d + len(nb)] = 1.0
        return obs

"""What a grid scheduler agent sees and earns (seed 003): the settings, the observation, the job bookkeeping.

Shared by the PettingZoo environment (:mod:`schedlab.envs.grid.agents`) and by
:class:`~schedlab.envs.grid.policy.GridAgentPolicy`, which runs a per-agent policy back
inside an ordinary :class:`~schedlab.processes.grid.grid.GridModel`: both build the same
observation from the same :class:`~schedlab.model.contracts.grid.GridView` and the same
bookkeeping, so a policy decides alike in both. Nothing here needs PettingZoo.

The observation of agent i, one float64 vector of ``3 + 3 M`` numbers (float64, not
float32, so that loads reach a policy exactly as the model holds them: a least-loaded
rule reading them breaks the same ties as :class:`~schedlab.policies.grid.LeastLoaded`):

=======================  =====  =============================================================
slice                    bound  meaning
=======================  =====  =============================================================
``[0]``                  [0,1]  the current job's length over ``jmax`` (0: no job to place)
``[1]``                  >= 0   the agent's jobs still to place this step, the current one included
``[2]``                  [0,1]  the clock over the horizon, ``now / steps``
``[3 : 3+M]``            >= 0   each resource's LoR (eq. 2: queued length over capacity,
                                the job in service by what is left of it) over ``time_scale``
``[3+M : 3+2M]``         [0,1]  each resource's capacity over ``cmax``
``[3+2M : 3+3M]``        >= 0   the agent's own unfinished jobs at each resource (OSL's
                                Submitted Jobs List, counted)
=======================  =====  =============================================================

``features`` (a config field, default none) appends numbers in the order named, M each
but ``agent``'s N:

- ``"runtime"``: the current job's run time at each resource, ``length / capacity``, over
  ``time_scale`` (0 with no job to place): with the loads, the time the job would finish
  there, which a small network cannot divide out of the length and capacity itself;
- ``"latency"``: the route latency from the agent to each resource, over ``time_scale``
  (0 on the complete grid, and in an observation without an agent): what a job pays on
  the links before it queues, and how old the agent's view of that load is.
- ``"agent"``: the agent's index, one-hot (N numbers; 0 without an agent): lets one
  policy shared by every agent tell them apart, so that agents deciding at once on the
  same loads (the Parallel API's rounds) need not all pick the same resource.

The loads are global information, as LLS assumes (an ideal grid information service);
a decentralised learner may ignore them and use its own unfinished jobs, as OSL does.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

import gymnasium as gym
import numpy as np
import simpy

from schedlab.envs.action_rows import ActionRows
from schedlab.model.contracts.grid import GridPolicy, GridTopology, GridView
from schedlab.model.core.fields import is_int, number, validate, whole
from schedlab.model.core.streams import Streams
from schedlab.model.core.workloads import PoissonJobs
from schedlab.model.records.job_record import JobRecord
from schedlab.processes.grid.grid import GridModel
from schedlab.topologies import ordinal_ring, resource_capacities

__all__ = [
    "FEATURES",
    "REWARDS",
    "AgentJobs",
    "GridAgentsConfig",
    "GridObserver",
    "grid_model",
    "resource_index",
]

REWARDS = ("tpt", "osl")
#: extra per-resource observation features, appended in the order named (see the module's notes)
FEATURES = ("runtime", "latency", "agent")


def _count(name: str, value: Any) -> None:
    whole(name, value, 1)


@dataclass(frozen=True)
class GridAgentsConfig:
    """The grid of the multi-agent environment: seed 003's ``(N, M, xi, [Jmin, Jmax], [Cmin, Cmax])``.

    Parameters
    ----------
    agents
        N, the scheduler agents (the PettingZoo agents ``scheduler_0`` ... ``scheduler_{N-1}``).
    resources
        M, the resources: each agent's action is a resource index in ``0..M-1``.
    rate
        xi, each agent's Poisson arrival rate of jobs per step.
    jmin, jmax
        Job lengths are uniform in ``[jmin, jmax]``.
    cmin, cmax
        Capacities are uniform in ``[cmin, cmax]``, drawn anew each episode.
    steps
        The horizon: the episode is truncated after this many steps.
    reward
        ``"tpt"``: minus the time the agent's jobs spent unfinished during the step, so
        an agent's return is minus the total time-per-token (eq. 1) of its jobs (time
        up to the horizon for those left unfinished); ``"osl"``: OSL's per-step reward
        of eqs. 4-5 summed over the resources, +1 per job of the agent finished during
        the step and -1 per job of the agent still unfinished.
    reward_scale
        Multiplies every reward.
    time_scale
        Divides the loads in the observation; the default 1 gives LoR in steps, exactly.
    record_every
        The model samples ALoR, max/std LoR and ATPT every this many steps (``model.series``).
    topology
        Where brokers and resources sit (:func:`schedlab.topologies.grid_topology`: link
        latency, the resources each broker may reach, the sharing graph); default the
        paper's complete grid. A broker's actions outside its reach are masked
        (``infos[agent]["action_mask"]`` in the Parallel API) and refused by the model.
        The resources' capacities are drawn from the ``capacities`` stream either way
        (they replace the topology's), so a reset's seed decides them.
    features
        Extra per-resource observation features (:data:`FEATURES`, the module's notes),
        appended in the order named; default none (the observation of ``3 + 3 M``).
    """

    agents: int = number(10, low=1, integer=True)
    resources: int = number(25, low=1, integer=True)
    rate: float = number(0.7)
    jmin: float = number(5.0, gt=0)
    jmax: float = number(995.0, gt=0)
    cmin: float = number(50.0, gt=0)
    cmax: float = number(350.0, gt=0)
    steps: int = number(200, low=1, integer=True)
    reward: Literal["tpt", "osl"] = "tpt"
    reward_scale: float = number(1.0, gt=0)
    time_scale: float = number(1.0, gt=0)
    record_every: int = number(1, low=1, integer=True)
    topology: GridTopology | None = None
    features: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        validate(self)  # every number finite and in range (model/fields); the rules below relate fields
        object.__setattr__(self, "features", tuple(self.features))  # frozen: a list given becomes a tuple
        for name in self.features:
            if name not in FEATURES or self.features.count(name) > 1:
                raise ValueError(f"features must be distinct names among {', '.join(FEATURES)}, got {self.features!r}")
        if self.reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {self.reward!r}")
        if self.jmax < self.jmin:
            raise ValueError(f"jmax must be >= jmin = {self.jmin!r}, got {self.jmax!r}")
        if self.cmax < self.cmin:
            raise ValueError(f"cmax must be >= cmin = {self.cmin!r}, got {self.cmax!r}")
        if self.topology is not None and (self.topology.agents, self.topology.resources) != (
            self.agents,
            self.resources,
        ):
            raise ValueError(
                f"topology: built for {self.topology.agents} brokers x {self.topology.resources} "
                f"resources, the environment has {self.agents} x {self.resources}"
            )

    def action_mask(self, agent: int) -> np.ndarray:
        """The resources broker ``agent`` may send to, as 0/1 (all of them on the complete grid)."""
        if self.topology is None:
            return np.ones(self.resources, dtype=np.int8)
        return self.topology.reach[agent].astype(np.int8)

    @property
    def system_load(self) -> float:
        """The expected system load of eq. 7 with the mean capacity (each episode's drawn ones differ)."""
        return self.agents * self.rate * (self.jmin + self.jmax) / 2 / (self.resources * (self.cmin + self.cmax) / 2)

    @property
    def observer(self) -> GridObserver:
        """The observer of this grid's observations, scaled by the config's bounds (jmax, cmax, steps)."""
        return GridObserver(
            self.resources,
            agents=self.agents,
            jmax=self.jmax,
            cmax=self.cmax,
            steps=self.steps,
            time_scale=self.time_scale,
            features=self.features,
        )


def grid_model(
    sim: simpy.Environment,
    config: GridAgentsConfig,
    grid_policy: GridPolicy,
    streams: Streams,
    model_class: type[GridModel] = GridModel,
) -> GridModel:
    """The GridModel the environment runs for ``config``, with ``grid_policy`` deciding for every agent.

    Capacities come from ``streams["capacities"]``, job counts from ``arrivals`` and
    lengths from ``lengths``, as in ``scenarios/osl_grid.py``: an environment reset with
    ``seed=s`` and this model with ``Streams(s)`` see the same
    resources and jobs.
    """
    capacities = resource_capacities(config.resources, (config.cmin, config.cmax), streams["capacities"])
    jobs = PoissonJobs(config.rate, config.jmin, config.jmax, streams["arrivals"], streams["lengths"])
    if config.topology is None:
        topology = GridTopology.complete(config.agents, capacities, sharing=ordinal_ring(config.agents))
    else:  # the config's placement, with the capacities drawn here (the stream decides them, as it does above)
        topology = dataclasses.replace(config.topology, capacities=capacities)
    return model_class(sim, topology, grid_policy, jobs, steps=config.steps, record_every=config.record_every)


def resource_index(action: Any, resources: int, who: str) -> int:
    """``action`` as a resource index, or a one-line error naming ``who`` and the action."""
    if isinstance(action, np.ndarray) and action.shape in ((), (1,)):
        action = action.reshape(())[()]
    if not is_int(action, 0) or action >= resources:  # numpy's bool is no integer either
        raise ValueError(f"action of {who}: {action!r} is not a resource index in 0..{resources - 1}")
    return int(action)


class GridObserver:
    """Builds the observation of the module's table from a :class:`GridView`.

    Parameters
    ----------
    resources
        M.
    jmax, cmax, steps, time_scale
        The scales of the job length, the capacities, the clock and the loads.
    features
        Extra features (:data:`FEATURES`), appended in this order.
    agents
        N (needed by the ``agent`` feature only).
    """

    def __init__(
        self,
        resources: int,
        *,
        agents: int = 1,
        jmax: float,
        cmax: float,
        steps: int,
        time_scale: float,
        features: tuple[str, ...] = (),
    ) -> None:
        _count("resources (M)", resources)
        self.resources = int(resources)
        self.jmax, self.cmax, self.steps, self.time_scale = float(jmax), float(cmax), int(steps), float(time_scale)
        m = self.resources
        self.features = tuple(features)
        #: the length of the observation without features (its layout is the module's table)
        self.base_size = 3 + 3 * m
        self._loads = slice(3, 3 + m)
        self._capacities = slice(3 + m, 3 + 2 * m)
        self._unfinished = slice(3 + 2 * m, 3 + 3 * m)
        self._extra: dict[str, slice] = {}
        at = self.base_size
        for name in self.features:
            width = int(agents) if name == "agent" else m
            self._extra[name], at = slice(at, at + width), at + width
        self.size = at

    def observation_space(self) -> gym.spaces.Box:
        """The observation: fractions in [0, 1] where bounded (progress, capacities), the rest >= 0."""
        high = np.full(self.size, np.inf)
        high[[0, 2]] = 1.0
        high[self._capacities] = 1.0
        return gym.spaces.Box(np.zeros(self.size), high, dtype=np.float64)

    def observe(
        self, view: GridView, length: float, jobs_left: int, unfinished: np.ndarray, agent: int | None = None
    ) -> np.ndarray:
        """The observation of an agent about to place a job of ``length`` (0: none) with ``jobs_left`` to place.

        With ``agent`` the loads are those that broker sees (one link latency old on a
        topology with latency; exact on the complete grid); without, the exact ones.
        """
        obs = np.empty(self.size)
        obs[0] = length / self.jmax
        obs[1] = jobs_left
        obs[2] = view.now / self.steps
        loads = view.lor() if agent is None else view.seen_lor(agent)
        np.divide(loads, self.time_scale, out=obs[self._loads])
        np.divide(view.capacities, self.cmax, out=obs[self._capacities])
        obs[self._unfinished] = unfinished
        if "runtime" in self._extra:
            np.divide(length, view.capacities * self.time_scale, out=obs[self._extra["runtime"]])
        if "latency" in self._extra:
            latency = obs[self._extra["latency"]]
            latency[:] = 0.0 if agent is None else view.topology.latency[agent] / self.time_scale
        if "agent" in self._extra:
            one_hot = obs[self._extra["agent"]]
            one_hot[:] = 0.0
            if agent is not None:
                one_hot[agent] = 1.0
        return obs

    def action_rows(self) -> ActionRows:
        """Each resource's row for a per-resource (kernel) scorer: MCT's form, a function of that resource alone.

        Per resource: its load, its capacity, the broker's unfinished jobs there, then
        the ``runtime`` and ``latency`` features where observed; shared by every row: the
        job's length, the jobs left, the clock and the ``agent`` one-hot where observed.
        """
        m = self.resources
        columns = [self._loads, self._capacities, self._unfinished]
        columns += [self._extra[name] for name in ("runtime", "latency") if name in self._extra]
        index = np.stack([np.arange(self.size)[c] for c in columns], axis=1)
        shared = [0, 1, 2, *np.arange(self.size)[self._extra["agent"]]] if "agent" in self._extra else [0, 1, 2]
        assert index.shape[0] == m
        return ActionRows(self.size, index, np.asarray(shared))

    def loads(self, obs: np.ndarray) -> np.ndarray:
        """Each resource's LoR over ``time_scale``, read from an observation."""
        return obs[self._loads]

    def capacities(self, obs: np.ndarray) -> np.ndarray:
        """Each resource's capacity over ``cmax``, read from an observation."""
        return obs[self._capacities]

    def unfinished(self, obs: np.ndarray) -> np.ndarray:
        """The agent's unfinished jobs at each resource, read from an observation."""
        return obs[self._unfinished]

    def feature(self, obs: np.ndarray, name: str) -> np.ndarray:
        """The extra feature ``name`` (one of the observer's ``features``), read from an observation."""
        if name not in self._extra:
            raise ValueError(f"feature: {name!r} is not in this observer's features {self.features!r}")
        return obs[self._extra[name]]

    def __repr__(self) -> str:
        return f"GridObserver(resources={self.resources}, size={self.size})"


class AgentJobs:
    """Every agent's jobs: unfinished ones per resource, and those finished during the current step.

    Fed by submissions (:meth:`submitted`) and the model's completion signal
    (:meth:`completed`); :meth:`end_step`, called at each step's end, turns the step into
    one reward per agent and starts the next step.
    """

    def __init__(self, agents: int, resources: int) -> None:
        #: jobs of agent i at resource j not yet finished (float: it goes into observations as is)
        self.unfinished = np.zeros((agents, resources))
        self.finished = np.zeros(agents)
        # sum over the jobs finished this step of (end - step start): the time they were unfinished in it
        self._finished_time = np.zeros(agents)
        self.step_start = 0.0

    def submitted(self, agent: int, resource: int) -> None:
        """Count a job ``agent`` sent to ``resource`` as unfinished."""
        self.unfinished[agent, resource] += 1.0

    def completed(self, agent: int, resource: int, record: JobRecord) -> None:
        """Count ``agent``'s job at ``resource`` as finished this step, with its time in the step."""
        self.unfinished[agent, resource] -= 1.0
        self.finished[agent] += 1.0
        self._finished_time[agent] += record.end - self.step_start

    def end_step(self, reward: str = "tpt") -> np.ndarray:
        """Each agent's reward for the step that ends now (see :class:`GridAgentsConfig`), and a fresh step."""
        still = self.unfinished.sum(axis=1)
        # "tpt": a job unfinished at the step's end was there all step (jobs are submitted at a step's start)
        out = -(still + self._finished_time) if reward == "tpt" else self.finished - still
        self.finished.fill(0.0)
        self._finished_time.fill(0.0)
        self.step_start += 1.0
        return out

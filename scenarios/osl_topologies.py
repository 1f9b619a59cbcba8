"""OSL, LLS and RS on three grid topologies: the paper's complete grid, a broker tree, a small world with latency.

Seed 003's grid (Wu et al. 2011) lets every broker reach every resource at once and
lets LLS read every load exactly. Real grids are neither: brokers sit in a hierarchy
or on a wide-area network, a job takes time to reach a remote site, and what a broker
knows of a remote queue is as old as that delay. This scenario runs the same brokers,
resources and jobs (common random numbers: one replication's capacities and jobs are
the same in every cell) on

- ``complete``: :func:`~schedlab.topologies.bipartite_grid`, no latency (the paper's grid);
- ``tree``: :func:`~schedlab.topologies.hierarchical_grid`, a top broker over
  ``agents`` regional brokers (the agents), each over ``sites_per_broker`` sites of
  ``resources_per_site`` resources; link latency per level ``tree_latency``;
- ``small_world``: :func:`~schedlab.topologies.small_world_grid`, brokers and
  resources as hosts of a Newman-Watts network, each link's latency uniform in
  ``sw_latency``;

- your own: ``--set topologies=complete,mesh.py:mesh`` loads the function ``mesh`` from
  the file ``mesh.py``, ``mesh(agents, resources, capacities, rng) -> networkx.Graph``,
  whose nodes include the brokers ``("agent", i)`` and the resources ``("resource", j)``
  (any other nodes are routers; a link's ``latency`` attribute is its delay). No edit to
  the package or to this file (docs/grid.md, "Your own topology");

each turned into latency and reach by :func:`~schedlab.topologies.grid_topology`
(``hops`` limits reach on the tree and the small world). A job sent over a route of
latency L reaches its queue L later; LLS sees each load as it was L ago. ALoR (eq. 2)
counts only work queued at resources, not work on the links, so ATPT (eq. 1, from
submission to completion, transit included) is reported beside it, with the mean
route latency of the jobs sent.

    schedlab run scenarios/osl_topologies.py --quick
    schedlab run scenarios/osl_topologies.py --workers 1
    schedlab run scenarios/osl_topologies.py --set hops=2 --set topologies=tree
    schedlab run scenarios/osl_topologies.py --sweep latency_scale=0,0.25,1 --set policies=osl,lls

Measured (default settings, 5 replications): on the complete grid LLS is best (ALoR
1.20, OSL 1.47); with latency the ranking flips (tree: OSL 3.74, LLS 8.58; small world:
OSL 3.50, LLS 7.00), because every broker of a step decides on the same picture, which
lacks that step's jobs still on the links, and LLS's brokers pile onto the same
resources, while OSL learns from its own completions. RS ignores both information and
distance (ALoR 130 everywhere). The table, the latency sweep and the readings:
docs/grid.md, section "Topologies".
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import networkx as nx
import numpy as np
import simpy

from schedlab.experiment import cli_main
from schedlab.learners import OrdinalSharing
from schedlab.model.contracts.grid import GridTopology
from schedlab.model.core.fields import items, number
from schedlab.model.core.streams import Streams
from schedlab.model.core.workloads import PoissonJobs
from schedlab.policies import LeastLoaded, RandomSelection
from schedlab.processes import Model
from schedlab.processes.grid.grid import GridModel
from schedlab.topologies import grid_topology, named_topology, resource_capacities
from schedlab.topologies.named import SW_LATENCY, SW_NEIGHBOURS, SW_SHORTCUT, TOPOLOGIES, TREE_LATENCY, TREE_SITES

POLICIES = ("osl", "lls", "rs")

#: a user's topology: ``builder(agents, resources, capacities, rng) -> networkx.Graph``
Builder = Callable[[int, int, np.ndarray, np.random.Generator], nx.Graph]


def user_builder(spec: str) -> Builder:
    """The function ``name`` of the file ``path`` named by ``spec = "path.py:name"``; a bad spec is one line."""
    path, _, name = spec.rpartition(":")
    file = Path(path).expanduser()
    if not path.endswith(".py") or not name.isidentifier():
        raise ValueError(f"topologies: unknown {spec!r}; choose from {', '.join(TOPOLOGIES)}, or FILE.py:FUNCTION")
    if not file.is_file():
        raise ValueError(f"topologies: {spec!r}: no file {file}")
    module_spec = importlib.util.spec_from_file_location(f"_topology_{file.stem}", file)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    builder = getattr(module, name, None)
    if not callable(builder):
        raise ValueError(f"topologies: {spec!r}: {file} defines no function {name!r}")
    return builder


@dataclass(frozen=True)
class Config:
    #: topologies compared: complete, tree, small_world, or FILE.py:FUNCTION (your own graph)
    topologies: tuple[str, ...] = TOPOLOGIES
    #: selection rules compared: osl, lls, rs
    policies: tuple[str, ...] = POLICIES
    #: N scheduler agents (the tree's regional brokers)
    agents: int = number(10, low=1)
    #: sites under each regional broker of the tree
    sites_per_broker: int = number(TREE_SITES, low=1)
    #: resources per site; M = agents x sites_per_broker x resources_per_site on every topology
    resources_per_site: int = number(3, low=1)
    #: system load of eq. 7 (sets xi, the jobs per agent per step)
    load: float = number(0.7, gt=0)
    #: capacity range [C_min, C_max] of the resources
    capacity_range: tuple[float, ...] = items((50.0, 350.0), low=None, gt=0)
    #: job length range [J_min, J_max]
    length_range: tuple[float, ...] = items((5.0, 995.0), low=None, gt=0)
    #: tree link latency per level: top -> regional broker, broker -> site, site -> resource
    tree_latency: tuple[float, ...] = TREE_LATENCY
    #: small world: links from each host to its nearest hosts on the ring (k, even)
    sw_neighbours: int = number(SW_NEIGHBOURS, low=2)
    #: small world: probability of a shortcut per ring link
    sw_shortcut_prob: float = number(SW_SHORTCUT, high=1)
    #: small world: each link's latency is uniform in this range
    sw_latency: tuple[float, ...] = SW_LATENCY
    #: every link latency (tree and small world) times this; 0 makes both the complete grid, bit for bit
    latency_scale: float = 1.0
    #: a broker may use only the resources within this many links (0: every resource it is connected to)
    hops: int = 0
    #: OSL learning rate alpha (eq. 3)
    alpha: float = number(0.5, high=1)
    #: OSL sharing factor beta (eq. 6)
    beta: float = number(0.5, high=1)
    #: time steps per run
    steps: int = number(1000, low=1, work=True)
    #: sample ALoR, LoR max/std and ATPT every this many steps
    record_every: int = number(10, low=1)
    #: replications per cell when --reps is not given
    replications: int = number(5, low=1, work=True)

    def __post_init__(self) -> None:
        for spec in self.topologies:
            if spec not in TOPOLOGIES:
                user_builder(spec)  # a bad name, file or function is named now, before any cell runs
        for name, allowed in (("topologies", TOPOLOGIES), ("policies", POLICIES)):
            values = getattr(self, name)
            bad = [v for v in values if v not in allowed and not (name == "topologies" and ":" in v)]
            if not values or bad:
                raise ValueError(
                    f"{name}: unknown {bad[0]!r}; choose from {', '.join(allowed)}"
                    if bad
                    else f"{name}: need at least one of {', '.join(allowed)}"
                )
        for name in ("capacity_range", "length_range", "sw_latency"):
            pair = getattr(self, name)
            if len(pair) != 2 or not 0 <= pair[0] <= pair[1] or not all(map(math.isfinite, pair)):
                raise ValueError(f"{name} must be two finite numbers 0 <= low <= high, got {pair}")
        if len(self.tree_latency) != 3 or not all(math.isfinite(x) and x >= 0 for x in self.tree_latency):
            raise ValueError(f"tree_latency must be three finite numbers >= 0, got {self.tree_latency}")
        if self.sw_neighbours % 2 or self.sw_neighbours >= self.agents + self.resources:
            raise ValueError(
                f"sw_neighbours must be even and below N + M = {self.agents + self.resources}, got {self.sw_neighbours}"
            )

    @property
    def resources(self) -> int:
        """M, the same on every topology."""
        return self.agents * self.sites_per_broker * self.resources_per_site

    @property
    def xi(self) -> float:
        """Jobs per agent per step giving ``load`` (eq. 7 with the mean capacity)."""
        return self.load * self.resources * np.mean(self.capacity_range) / (self.agents * np.mean(self.length_range))


QUICK = dict(steps=150, replications=1, agents=6, record_every=5)


def REPS(cfg: Config) -> int:
    """``replications`` (one for --quick)."""
    return cfg.replications


def cells(cfg: Config) -> list[dict]:
    """One cell per (topology, policy)."""
    return [{"topology": t, "policy": p} for t in cfg.topologies for p in cfg.policies]


def topology(cfg: Config, name: str, capacities: np.ndarray, rng: np.random.Generator) -> GridTopology:
    """The grid ``name`` over these capacities, as latency, reach and the sharing ring."""
    if name not in TOPOLOGIES:
        graph = user_builder(name)(cfg.agents, cfg.resources, capacities, rng)
        return grid_topology(graph, hops=cfg.hops or None, capacities=capacities)
    return named_topology(
        name,
        cfg.agents,
        cfg.resources,
        capacities=capacities,
        latency_scale=cfg.latency_scale,
        hops=cfg.hops,
        rng=rng,
        tree_sites=cfg.sites_per_broker,
        tree_latency=cfg.tree_latency,
        sw_neighbours=cfg.sw_neighbours,
        sw_shortcut=cfg.sw_shortcut_prob,
        sw_latency=cfg.sw_latency,
    )


def grid_policy(cfg: Config, policy: str, streams: Streams):
    if policy == "osl":
        return OrdinalSharing(cfg.alpha, cfg.beta, rng=streams["exploration"])
    if policy == "lls":
        return LeastLoaded(streams["routing"])
    return RandomSelection(streams["routing"])


def build(env: simpy.Environment, cfg: Config, cell: dict, streams: Streams) -> Model:
    # the same capacities and jobs on every topology of a replication; the small world's links from their own stream
    capacities = resource_capacities(cfg.resources, tuple(cfg.capacity_range), streams["capacities"])
    topo = topology(cfg, cell["topology"], capacities, streams["topology"])
    jobs = PoissonJobs(cfg.xi, *cfg.length_range, streams["arrivals"], streams["lengths"])
    model = GridModel(
        env, topo, grid_policy(cfg, cell["policy"], streams), jobs, steps=cfg.steps, record_every=cfg.record_every
    )
    return Model(env, [], until=model.done, parts={"cfg": cfg, "grid": model})


def measure(model: Model) -> dict[str, float]:
    cfg: Config = model["cfg"]
    grid: GridModel = model["grid"]
    series = grid.series.as_dict()
    t, alor = series["time"], series["alor"]
    last_quarter = t >= 0.75 * cfg.steps
    records = grid.all_records()
    topo = grid.topology
    routes = [topo.latency[r.origin, int(r.machine[1:])] for r in records]  # resource j's server is "r<j>"
    nearest = topo.latency.min(axis=1, where=topo.reach, initial=math.inf)
    near = [topo.latency[r.origin, int(r.machine[1:])] <= nearest[r.origin] for r in records]
    return {
        "alor": float(alor[last_quarter].mean()),  # ALoR over the last quarter: past the learners' start
        "alor_final": float(alor[-1]),
        "lor_std": float(series["lor_std"][last_quarter].mean()),
        "atpt": grid.series.atpt,
        "route_latency": float(np.mean(routes)) if routes else math.nan,
        "nearest_share": float(np.mean(near)) if near else math.nan,
        "mean_latency": float(topo.latency[topo.reach].mean()),
        "completed_fraction": grid.series.completed / max(grid.resources.submitted, 1),
    }


if __name__ == "__main__":
    cli_main()

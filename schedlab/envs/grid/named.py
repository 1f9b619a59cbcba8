"""The grid's Parallel environment made from plain settings: topologies by name, for registries and the CLI.

``schedlab train GridParallel-v0 --set env.topology=tree`` hands the environment JSON
values only, while :class:`~schedlab.envs.grid.obs.GridAgentsConfig` takes a
:class:`~schedlab.model.contracts.grid.GridTopology` object. :func:`grid_parallel_env`
bridges them: every field of the config by name, and the topology by name, built with
the settings of ``docs/grid.md`` ("Topologies", ``scenarios/osl_topologies.py``):

- ``complete``: the paper's grid, every broker reaching every resource at once;
- ``tree``: a top broker over the N brokers (the agents), each over 2 sites; latency 2
  from the top to a broker, 0.5 from a broker to a site, 0 inside a site. The M
  resources are spread over the brokers as evenly as they go (25 over 10 brokers: 3
  under each of the first five, 2 under the others), each broker's over its 2 sites;
- ``small_world``: brokers and resources as the hosts of a Newman-Watts ring (k = 4,
  p = 0.1), each link's latency uniform in [0.5, 1.5].

``latency_scale`` multiplies every latency (0 gives the complete grid's latencies on the
same graph) and ``hops`` limits each broker's reach. The graph (the small world's links
and latencies) is drawn once, from the ``topology`` stream of ``topology_seed``: one
environment is one network, and every episode runs on it (the capacities are drawn per
episode, as on the complete grid).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from schedlab.envs.grid.obs import GridAgentsConfig
from schedlab.envs.grid.parallel import GridParallelEnv
from schedlab.model.contracts.grid import GridTopology
from schedlab.model.core.streams import Streams
from schedlab.topologies import bipartite_grid, grid_topology, hierarchical_grid, small_world_grid

__all__ = ["TOPOLOGIES", "grid_parallel_env", "named_topology"]

TOPOLOGIES = ("complete", "tree", "small_world")
#: docs/grid.md's tree: latency top -> broker, broker -> site, site -> resource; sites per broker
TREE_LATENCY, TREE_SITES = (2.0, 0.5, 0.0), 2
#: docs/grid.md's small world: ring neighbours k, shortcut probability p, each link's latency range
SW_NEIGHBOURS, SW_SHORTCUT, SW_LATENCY = 4, 0.1, (0.5, 1.5)


def _tree_counts(agents: int, resources: int) -> list[int]:
    """Resources per site: M spread over the N brokers as evenly as it goes, each broker's over its sites."""
    if resources < agents * TREE_SITES:
        raise ValueError(
            f"topology: a tree needs M >= {TREE_SITES} N = {agents * TREE_SITES} resources, got {resources}"
        )
    counts = []
    for share in np.array_split(np.arange(resources), agents):
        counts += [len(part) for part in np.array_split(share, TREE_SITES)]
    return counts


def named_topology(
    name: str,
    agents: int,
    resources: int,
    *,
    latency_scale: float = 1.0,
    hops: int = 0,
    rng: np.random.Generator,
) -> GridTopology:
    """The grid ``name`` (:data:`TOPOLOGIES`) of ``agents`` brokers and ``resources`` resources (module notes)."""
    if name not in TOPOLOGIES:
        raise ValueError(f"topology: unknown {name!r}; choose from {', '.join(TOPOLOGIES)}")
    if not latency_scale >= 0:
        raise ValueError(f"latency_scale must be >= 0, got {latency_scale!r}")
    placeholder = np.ones(resources)  # the environment draws each episode's capacities itself
    if name == "complete":
        graph = bipartite_grid(agents, resources, capacities=placeholder)
    elif name == "tree":
        lat = tuple(latency_scale * x for x in TREE_LATENCY)
        graph = hierarchical_grid(
            (agents, TREE_SITES), _tree_counts(agents, resources), capacities=placeholder, latency=lat
        )
    else:
        graph = small_world_grid(
            agents,
            resources,
            neighbours=SW_NEIGHBOURS,
            shortcut_prob=SW_SHORTCUT,
            capacities=placeholder,
            latency_range=(latency_scale * SW_LATENCY[0], latency_scale * SW_LATENCY[1]),
            seed=rng,
        )
    return grid_topology(graph, hops=hops or None)


def grid_parallel_env(
    topology: str = "complete",
    *,
    latency_scale: float = 1.0,
    hops: int = 0,
    topology_seed: int = 0,
    render_mode: str | None = None,
    **fields: Any,
) -> GridParallelEnv:
    """A :class:`GridParallelEnv` on the grid ``topology``, its config's other ``fields`` by name.

    Parameters
    ----------
    topology
        ``complete``, ``tree`` or ``small_world`` (the module's notes).
    latency_scale
        Every link latency times this.
    hops
        A broker reaches only the resources within this many links (0: all it is connected to).
    topology_seed
        Seeds the ``topology`` stream the small world's graph is drawn from.
    render_mode
        As :class:`GridParallelEnv`'s.
    **fields
        :class:`GridAgentsConfig` fields (``agents``, ``resources``, ``rate``, ``features``...);
        an unknown one is refused in one line.
    """
    known = GridAgentsConfig.__dataclass_fields__.keys() - {"topology"}
    unknown = sorted(set(fields) - known)
    if unknown:
        raise ValueError(f"env: {unknown[0]!r} is not a grid setting; the grid's are {', '.join(sorted(known))}")
    if "features" in fields and isinstance(fields["features"], str):  # --set env.features=runtime,latency
        fields["features"] = tuple(f for f in fields["features"].split(",") if f)
    base = GridAgentsConfig(**fields)
    rng = Streams(topology_seed)["topology"]
    topo = named_topology(topology, base.agents, base.resources, latency_scale=latency_scale, hops=hops, rng=rng)
    return GridParallelEnv(GridAgentsConfig(**{**base.__dict__, "topology": topo}), render_mode=render_mode)

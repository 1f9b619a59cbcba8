"""The grid's Parallel environment made from plain settings: topologies by name, for registries and the CLI.

``schedlab train GridParallel-v0 --set env.topology=tree`` hands the environment JSON
values only, while :class:`~schedlab.envs.grid.obs.GridAgentsConfig` takes a
:class:`~schedlab.model.contracts.grid.GridTopology` object. :func:`grid_parallel_env`
bridges them: every field of the config by name, and the topology by name
(``complete``, ``tree`` or ``small_world``), built by
:func:`~schedlab.topologies.named.named_topology` with the settings of ``docs/grid.md``
("Topologies", ``scenarios/osl_topologies.py``, which builds its grids with it too).

``latency_scale`` multiplies every latency (0 gives the complete grid's latencies on the
same graph) and ``hops`` limits each broker's reach. The graph (the small world's links
and latencies) is drawn once, from the ``topology`` stream of ``topology_seed``: one
environment is one network, and every episode runs on it (the capacities are drawn per
episode, as on the complete grid).
"""

from __future__ import annotations

from typing import Any

from schedlab.envs.grid.obs import GridAgentsConfig
from schedlab.envs.grid.parallel import GridParallelEnv
from schedlab.model.core.streams import Streams
from schedlab.topologies.named import named_topology

__all__ = ["grid_parallel_env"]


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
        ``complete``, ``tree`` or ``small_world`` (:mod:`schedlab.topologies.named`).
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

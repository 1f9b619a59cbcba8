"""``schedlab replay``'s settings checked against each other and against the platform and logs they name.

An option the replay would accept and then ignore (``--dvfs 7`` where no node has pstate
7, ``--placement`` without a platform) or a size it could not build (a log's ``nb_res`` of
10**12) is refused here, before any replication runs, in one line naming the option, the
file and the value. :class:`~schedlab.replay.log_replay.Config` calls these.
"""

from __future__ import annotations

from typing import Any

from schedlab.model.core.limits import MAX_CPUS
from schedlab.model.core.platform import Platform

__all__ = ["check_machine", "check_options", "check_platform"]


def check_options(cfg: Any) -> None:
    """Options that only a platform, or only node failures, give a meaning to."""
    if not cfg.platform:
        # a machine places a job's CPUs first-fit and has one queue: any other choice would be ignored
        if cfg.placement != "first-fit":
            raise ValueError(
                f"placement={cfg.placement!r} places jobs on a platform's nodes: give --platform FILE "
                "(a machine without one places CPUs first-fit)"
            )
        if cfg.queues != "none":
            raise ValueError(
                f"queues={cfg.queues!r} shares a platform's queues: give --platform FILE "
                "(a machine without one has a single queue)"
            )
    if cfg.cpus > MAX_CPUS:
        raise ValueError(f"cpus={cfg.cpus}: more CPUs than a replay builds (at most {MAX_CPUS})")
    if cfg.node_size != 1 and not cfg.platform and not (cfg.failures or cfg.mtbf):
        raise ValueError(
            f"node_size={cfg.node_size} is the unit a node failure takes down, and this replay has none: "
            "give --failures FILE or --mtbf S, or leave node_size at 1"
        )


def check_platform(cfg: Any, platform: Platform) -> None:
    """``dvfs`` and ``idle_shutdown`` need nodes that have the pstate, or that can be switched off."""
    name = platform.source or cfg.platform
    powered = [t for t in platform.node_types if t.power is not None]
    if cfg.dvfs is not None:
        if not powered:
            raise ValueError(f"dvfs={cfg.dvfs}: {name}'s nodes give no power (no node type has power.pstates)")
        if not any(len(t.power.levels) > cfg.dvfs for t in powered if t.power is not None):
            have = ", ".join(f"{t.name} pstates 0-{len(t.power.levels) - 1}" for t in powered if t.power is not None)
            raise ValueError(f"dvfs={cfg.dvfs}: no node type of {name} has pstate {cfg.dvfs} ({have})")
    if cfg.idle_shutdown is not None and not any(t.power is not None and t.power.can_switch for t in powered):
        raise ValueError(
            f"idle_shutdown={cfg.idle_shutdown:g}: no node type of {name} can be switched off "
            "(none gives power.off): nothing would be switched off"
        )


def check_machine(cfg: Any, name: str, cpus: int) -> None:
    """The machine a log is replayed on: within the cap, and cut into whole nodes of ``node_size``."""
    if cpus > MAX_CPUS:
        field = "cpus" if cfg.cpus else ("nb_res" if str(name).endswith(".json") else "MaxProcs")
        raise ValueError(f"log {name!r}: {field} is {cpus}, more CPUs than a replay builds (at most {MAX_CPUS})")
    if not cfg.platform and cpus % cfg.node_size:
        raise ValueError(
            f"node_size={cfg.node_size} does not divide the machine's {cpus} CPUs (log {name!r}): "
            "give a divisor, so that every node has node_size CPUs"
        )

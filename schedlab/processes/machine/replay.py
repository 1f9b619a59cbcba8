"""The log-replay model: a window of a log's jobs arriving at an empty machine, named ``machine`` in its records."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import simpy

from schedlab.model.contracts.cpu_map import AllocationRule
from schedlab.model.contracts.machine import Policy
from schedlab.model.core.job import Job
from schedlab.processes.machine.machine import Machine
from schedlab.processes.model import Model
from schedlab.processes.source import Source

__all__ = ["replay_model"]


def replay_model(
    env: simpy.Environment,
    jobs: Sequence[Job],
    cpus: int,
    policy: Policy,
    *,
    batch_decisions: bool = False,
    walltime: Literal["run-on", "kill"] = "run-on",
    allocation: str | AllocationRule | None = None,
    compat: str = "none",
    node_size: int = 1,
    on_node_fail: Literal["requeue", "drop"] = "requeue",
) -> Model:
    """A model that replays ``jobs`` (in submit order) on an empty machine of ``cpus`` CPUs.

    ``walltime="kill"`` kills a job that reaches its requested time (its ``estimate``).
    ``allocation="first-fit"`` gives each job CPU ids (``Machine``'s parameter);
    ``node_size`` and ``on_node_fail`` say what a node failure takes and does (``Machine``'s too).
    ``compat="rlscheduler"`` orders each instant as RLScheduler's loop does: the policy
    is asked at every event, and a job ends only after the arrivals of its instant are
    queued (``Machine(ends_last=True)``; ``batch_decisions`` is then ignored).
    """
    rls = compat == "rlscheduler"
    machine = Machine(
        env,
        cpus,
        policy,
        batch_decisions=batch_decisions and not rls,
        walltime=walltime,
        allocation=allocation,
        ends_last=rls,
        node_size=node_size,
        on_node_fail=on_node_fail,
    )
    Source(env, jobs, machine)
    return Model(env, [machine], parts={"machine": machine})

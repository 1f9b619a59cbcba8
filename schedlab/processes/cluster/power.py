"""A cluster whose nodes can be switched off and on: Batsim's power states, as an energy policy drives them.

:class:`PoweredCluster` is a :class:`~schedlab.processes.cluster.cluster.Cluster` that also applies
the power actions of :mod:`schedlab.model.contracts.power` (``SwitchOff``, ``SwitchOn``,
``WakeAt``) and shows its policy each node's power state (``view.power``). A node whose
type gives ``power.off`` (:class:`~schedlab.model.core.platform.NodePower`) can be
switched off when it runs no job; from then until it is on again (after its switch-off
time, its time off and its boot time) its cores are not free, so no rule places a job on
it. Each switch ends with a decision event, as a job's end does.

The machine itself never switches a node: its policy does
(:class:`schedlab.policies.idle_shutdown.IdleShutdown` is one). Every stretch a node
spends off or switching is kept (:meth:`PoweredCluster.power_rows`) for the energy
(:func:`schedlab.model.analysis.energy.energy`'s ``states``) and the machine-state chart.

Nodes can also fail (:mod:`schedlab.processes.machine.node_failures`, as on any cluster): a failed
node's jobs are killed (``node_fail``, requeued or dropped), and the node is ``"down"``
until its repair, whatever power state it was in (a switch under way is cut short: the
joules of the part done count, its end never comes). A node that is down **draws its
``off`` watts** (0 W if its type gives none): it is out of service and powered down for
the repair, as a switched-off node is, and at 0 W a failure would pass for an energy
saving beside idle shutdown's off nodes. A policy cannot switch a down node on or off
(``PolicyError``; ``IdleShutdown`` boots only nodes that are ``"off"``). A repaired node
comes back on and idle (a failure log's duration is the time the node is unavailable;
after it, the node serves again): a policy that wants it off switches it off again.

Nodes whose type lists pstates take :class:`~schedlab.model.contracts.power.SetPstate`
(DVFS: its ``pstates`` part, :mod:`schedlab.processes.cluster.pstates`); every stretch a node spends in a pstate
other than 0 is kept too (:meth:`PoweredCluster.pstate_rows`, the energy's ``pstates``).

This is a separate module, not a change to :class:`~schedlab.processes.machine.machine.Machine`:
a cluster without power states pays nothing for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter
from typing import Literal

import simpy

from schedlab.model.contracts.machine import Action, Policy
from schedlab.model.contracts.placement import Placement
from schedlab.model.contracts.power import (
    NodePowerState,
    PowerAction,
    PowerState,
    SetPstate,
    SwitchOff,
    SwitchOn,
    WakeAt,
)
from schedlab.model.core.failures import NodeFailure
from schedlab.model.core.job import Job
from schedlab.model.core.platform import Platform, Pstate
from schedlab.processes.cluster.cluster import Cluster
from schedlab.processes.cluster.pstates import PSTATE_COLUMNS, PstateControl
from schedlab.processes.cluster.view import ClusterPolicyView
from schedlab.processes.machine.machine import PolicyError
from schedlab.processes.machine.node_failures import OnNodeFail
from schedlab.processes.machine.running import Running
from schedlab.processes.model import Model
from schedlab.processes.source import Source

__all__ = ["POWER_COLUMNS", "PSTATE_COLUMNS", "PoweredCluster", "PoweredClusterView", "powered_cluster_model"]

#: the columns of :meth:`PoweredCluster.power_rows`
POWER_COLUMNS = ("node", "state", "start", "end")


class PoweredClusterView(ClusterPolicyView):
    """A cluster's view and each node's power state
    (:class:`~schedlab.model.contracts.power.PowerView`)."""

    __slots__ = ()

    power = property(attrgetter("_m.power"))


class PoweredCluster(Cluster):
    """A :class:`~schedlab.processes.cluster.cluster.Cluster` whose nodes its policy may switch off and on.

    Parameters are :class:`~schedlab.processes.cluster.cluster.Cluster`'s, node failures included
    (a down node's power: the module's docstring). Every node starts on and idle.
    ``SwitchOff`` a node whose type gives no ``off`` watts, or one that is not on and idle,
    and ``SwitchOn`` a node that is not off (one that is down included), raise
    :class:`~schedlab.processes.machine.machine.PolicyError`. Every node starts in its type's
    ``power.pstate``; ``SetPstate`` moves it (its ``pstates`` part:
    :class:`~schedlab.processes.cluster.pstates.PstateControl`).
    """

    def __init__(
        self,
        env: simpy.Environment,
        platform: Platform,
        policy: Policy,
        placement: Placement,
        *,
        name: str = "cluster",
        oversize: Literal["reject", "raise"] = "reject",
        batch_decisions: bool = False,
        walltime: Literal["run-on", "kill"] = "run-on",
        on_node_fail: OnNodeFail = "requeue",
    ) -> None:
        super().__init__(
            env,
            platform,
            policy,
            placement,
            name=name,
            oversize=oversize,
            batch_decisions=batch_decisions,
            walltime=walltime,
            on_node_fail=on_node_fail,
        )
        self.view = PoweredClusterView(self)
        now = float(env.now)
        self._index = {n.name: i for i, n in enumerate(self.nodes)}
        self._power = [t.power for t in platform.node_types for _ in range(t.count)]
        self._state: list[PowerState] = ["on"] * len(self.nodes)
        self._state_since = [now] * len(self.nodes)
        self._idle_since: list[float | None] = [now] * len(self.nodes)
        self._power_rows: list[tuple[str, PowerState, float, float]] = []
        self._alarms: set[float] = set()
        self._switches = [0] * len(self.nodes)  # per node, switches begun or cut short: a stale end is ignored
        self.pstates = PstateControl(
            env, name, self.nodes, self._power, self.running, self.allocations, self._on_node, self.ends.plan
        )

    # ------------------------------------------------------------------ what the policy sees
    @property
    def power(self) -> dict[str, NodePowerState]:
        """Each node's :class:`~schedlab.model.contracts.power.NodePowerState`, by name."""
        pstates = self.pstates
        return {
            n.name: NodePowerState(
                self._state[i],
                self._state_since[i],
                n.jobs,
                self._idle_since[i],
                n.cores,
                self._can_switch(i),
                pstates.pstate[i],
                pstates.levels[i],
            )
            for i, n in enumerate(self.nodes)
        }

    def _can_switch(self, i: int) -> bool:
        power = self._power[i]
        return power is not None and power.can_switch

    # ------------------------------------------------------------------ jobs keep the idle times
    def start(self, job: Job, cpus: int | None = None) -> None:
        """Start ``job`` as a cluster does; its nodes are no longer idle."""
        super().start(job, cpus)
        for i in self.allocations[job]:
            self._idle_since[i] = None
        self.pstates.started(job)  # its work left, in seconds at its nodes' speed

    def _release(self, run: Running) -> None:
        alloc = self.allocations[run.job]
        self.pstates.leaving(run)  # its work left, in ideal seconds again
        super()._release(run)
        now = float(self.env.now)
        for i in alloc:
            if self.nodes[i].jobs == 0:
                self._idle_since[i] = now

    # ------------------------------------------------------------------ power actions
    def apply(self, action: Action | PowerAction) -> None:
        """Carry out a job action, as a cluster does, or a power action."""
        if isinstance(action, SwitchOff):
            for name in action.nodes:
                self.switch_off(name)
        elif isinstance(action, SwitchOn):
            for name in action.nodes:
                self.switch_on(name)
        elif isinstance(action, WakeAt):
            self.wake_at(action.time)
        elif isinstance(action, SetPstate):
            for name in action.nodes:
                self.set_pstate(name, action.pstate)
        else:
            super().apply(action)

    def _node(self, name: str, verb: str) -> int:
        i = self._index.get(name)
        if i is None:
            raise PolicyError(f"cluster {self.name!r} at t={self.env.now}: cannot {verb} {name!r}: no such node")
        return i

    def _enter(self, i: int, state: PowerState) -> None:
        now = float(self.env.now)
        if self._state[i] != "on":
            self._power_rows.append((self.nodes[i].name, self._state[i], self._state_since[i], now))
        self._state[i], self._state_since[i] = state, now

    def switch_off(self, name: str) -> None:
        """Switch node ``name`` off: it must be on, idle, and of a type that gives its ``off`` watts."""
        i = self._node(name, "switch off")
        node, power = self.nodes[i], self._power[i]
        if power is None or power.off is None:
            raise PolicyError(
                f"cluster {self.name!r}: node {name!r} cannot be switched off: its type gives no power.off"
            )
        if self._state[i] != "on" or node.jobs:
            raise PolicyError(
                f"cluster {self.name!r} at t={self.env.now}: node {name!r} is {self._state[i]} with "
                f"{node.jobs} job(s); only an idle node that is on can be switched off"
            )
        self._enter(i, "switching_off")
        self._idle_since[i] = None
        node.free_cores = 0  # nothing is placed on it until it is on again
        node.free = dict.fromkeys(node.resources, 0.0)
        self.free -= node.cores
        self._version += 1
        self._switch_after(i, power.switch_off.seconds, "off")

    def switch_on(self, name: str) -> None:
        """Boot node ``name``: it must be off."""
        i = self._node(name, "switch on")
        if self._state[i] != "off":
            raise PolicyError(
                f"cluster {self.name!r} at t={self.env.now}: node {name!r} is {self._state[i]}; "
                "only a node that is off can be switched on"
            )
        power = self._power[i]
        assert power is not None  # only a node whose type gives power.off was switched off
        self._enter(i, "switching_on")
        self._switch_after(i, power.switch_on.seconds, "on")

    def _switch_after(self, i: int, seconds: float, state: PowerState) -> None:
        self._switches[i] += 1
        switch = self._switches[i]
        self.env.timeout(seconds).callbacks.append(lambda _e: self._switched(i, state, switch))

    def _switched(self, i: int, state: PowerState, switch: int) -> None:
        if self._switches[i] != switch:  # the node failed while switching: this end is stale
            return
        self._enter(i, state)
        if state == "on":
            node = self.nodes[i]
            node.free_cores = node.cores
            node.free = dict(node.resources)
            self.free += node.cores
            self._idle_since[i] = float(self.env.now)
            self._version += 1
        self.decisions.event()

    def wake_at(self, time: float) -> None:
        """Decide again at ``time`` (one decision event per distinct time asked for)."""
        now = float(self.env.now)
        if not time >= now:
            raise PolicyError(f"cluster {self.name!r} at t={now}: WakeAt({time}) is in the past")
        if time in self._alarms:
            return
        self._alarms.add(time)

        def ring(_event: simpy.Event) -> None:
            self._alarms.discard(time)
            self.decisions.event()

        self.env.timeout(time - now).callbacks.append(ring)

    # ------------------------------------------------------------------ node failures
    def _take_down(self, node: int, ids: range) -> None:
        """Node ``node`` fails (its jobs are killed): ``"down"``, whatever it was; a switch under way is cut short."""
        super()._take_down(node, ids)
        self._switches[node] += 1
        self._enter(node, "down")
        self._idle_since[node] = None

    def _bring_up(self, node: int, ids: range) -> None:
        """Node ``node`` is repaired: on and idle."""
        super()._bring_up(node, ids)
        self._enter(node, "on")
        self._idle_since[node] = float(self.env.now)

    # ------------------------------------------------------------------ DVFS (its pstates part)
    def set_pstate(self, name: str, pstate: int) -> None:
        """Put node ``name`` in ``pstate``; the jobs on it go on at their new speed."""
        self.pstates.set_pstate(self._node(name, "set the pstate of"), pstate)

    def pstate_of(self, i: int) -> Pstate | None:
        """Node ``i``'s current pstate (``None``: its type gives no power)."""
        return self.pstates.pstate_of(i)

    def pstate_rows(self, *, running: bool = True) -> list[tuple[str, int, float, float]]:
        """Every stretch a node spent in a pstate other than 0: ``(node, pstate, start, end)``
        (:data:`PSTATE_COLUMNS`); with ``running``, the current ones too, ending now."""
        return self.pstates.pstate_rows(running=running)

    def pstate_csv(self) -> str:
        """:meth:`pstate_rows` as CSV text, each with its pstate's speed (``series/...-pstates.csv``)."""
        return self.pstates.pstate_csv()

    # ------------------------------------------------------------------ results
    def power_rows(self, *, running: bool = True) -> list[tuple[str, PowerState, float, float]]:
        """Every stretch a node spent off, switching or down: ``(node, state, start, end)``
        (:data:`POWER_COLUMNS`); with ``running``, the current ones too, ending now."""
        rows = list(self._power_rows)
        if running:
            now = float(self.env.now)
            rows += [
                (n.name, self._state[i], self._state_since[i], now)
                for i, n in enumerate(self.nodes)
                if self._state[i] != "on"
            ]
        return rows

    def power_csv(self) -> str:
        """:meth:`power_rows` as CSV text, with a header line."""
        lines = [",".join(POWER_COLUMNS)] + [",".join(map(str, row)) for row in self.power_rows()]
        return "\n".join(lines) + "\n"


def powered_cluster_model(
    env: simpy.Environment,
    jobs: Sequence[Job],
    platform: Platform,
    policy: Policy,
    placement: Placement,
    *,
    walltime: Literal["run-on", "kill"] = "run-on",
    failures: Sequence[NodeFailure] = (),
    on_node_fail: OnNodeFail = "requeue",
) -> Model:
    """A model that replays ``jobs`` on a :class:`PoweredCluster` of ``platform``'s nodes, all on at the start.

    The cluster is ``model["cluster"]``, as :func:`~schedlab.processes.cluster.cluster.cluster_model` names it;
    ``failures`` and ``on_node_fail`` as there.
    """
    cluster = PoweredCluster(env, platform, policy, placement, walltime=walltime, on_node_fail=on_node_fail)
    Source(env, jobs, cluster)
    if failures:
        cluster.inject_failures(failures)
    return Model(env, [cluster], parts={"cluster": cluster, "machine": cluster})

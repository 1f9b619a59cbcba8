"""What an energy policy sees and may decide, as plain data: node power states and the actions that switch them.

This is the extension point for energy policies. A cluster whose nodes can be switched
off (:class:`schedlab.processes.cluster.power.PoweredCluster`) gives its policy a view that is a
:class:`~schedlab.model.contracts.machine.MachineView` plus :class:`PowerView`, and applies,
beside ``Start``/``Preempt``/``Resize``, the three actions here:

- :class:`SwitchOff` idle nodes that are on: it runs nothing from then on, switches for
  its type's ``switch_off`` seconds, then draws its ``off`` watts;
- :class:`SwitchOn` nodes that are off: it boots for its ``switch_on`` seconds, then is on
  and idle, and the machine decides again;
- :class:`WakeAt` a time: the machine asks its policy again then (a policy that acts
  after a delay, as an idle timeout does, needs a decision event when no job brings one);
- :class:`SetPstate` of nodes (DVFS): from now on each draws that pstate's watts and
  computes at its speed (:class:`~schedlab.model.core.platform.Pstate`). A job runs at
  the speed of its slowest node: its ideal runtime ``r`` takes ``r / speed`` seconds. A
  change on a node that runs a job rescales the job's remaining work at once, as Batsim
  does for compute profiles: the work left at the old speed is carried over, so a job
  half done at speed 1 that moves to speed 0.5 needs twice the wall time for its other
  half. Its record keeps the ideal runtime; its service (end - start) shows the stretch.
  A walltime kill counts wall-clock seconds, so a slowed job can reach its limit, as on
  a real machine.

A node's life is ``on -> switching_off -> off -> switching_on -> on``; a node that is off
or switching cannot run jobs, nor can one that failed and is ``down`` until its repair
(a policy cannot switch it). The actions are frozen dataclasses, not named tuples, so
that a policy may return one alone (a machine reads an iterable answer as a list of
actions) or several in a list. :class:`schedlab.policies.idle_shutdown.IdleShutdown` is one
policy written against this; any callable ``view -> action | None`` that returns these
actions is another.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal, NamedTuple, Protocol

from schedlab.model.core.platform import Pstate

__all__ = [
    "NodePowerState",
    "PowerAction",
    "PowerState",
    "PowerView",
    "SetPstate",
    "SwitchOff",
    "SwitchOn",
    "WakeAt",
]

#: a node's power state (Batsim's host states: computing and idle are both ``on``); ``down``:
#: failed, until its repair (:mod:`schedlab.processes.machine.node_failures`), and no action moves it
PowerState = Literal["on", "switching_off", "off", "switching_on", "down"]


def _names(nodes: str | Iterable[str]) -> tuple[str, ...]:
    return (nodes,) if isinstance(nodes, str) else tuple(nodes)


@dataclass(frozen=True, slots=True)
class SwitchOff:
    """Switch ``nodes`` (a node's name, or several) off: each must be on and run no job.

    Several nodes in one action, as Batsim's ``set_resource_state`` takes a set of
    resources: a policy that switches 100 nodes at once returns one action, not 100.
    """

    nodes: tuple[str, ...]

    def __init__(self, nodes: str | Iterable[str]) -> None:
        object.__setattr__(self, "nodes", _names(nodes))


@dataclass(frozen=True, slots=True)
class SwitchOn:
    """Boot ``nodes`` (a node's name, or several): each must be off."""

    nodes: tuple[str, ...]

    def __init__(self, nodes: str | Iterable[str]) -> None:
        object.__setattr__(self, "nodes", _names(nodes))


@dataclass(frozen=True, slots=True)
class WakeAt:
    """Ask the policy again at time ``time`` (at or after now)."""

    time: float


@dataclass(frozen=True, slots=True)
class SetPstate:
    """Put ``nodes`` (a node's name, or several) in DVFS pstate ``pstate`` (an index into their pstates).

    A node that is off, switching or down keeps the pstate for when it is on again.
    """

    nodes: tuple[str, ...]
    pstate: int

    def __init__(self, nodes: str | Iterable[str], pstate: int) -> None:
        object.__setattr__(self, "nodes", _names(nodes))
        object.__setattr__(self, "pstate", pstate)


#: what a powered cluster applies besides a machine's actions
PowerAction = SwitchOff | SwitchOn | WakeAt | SetPstate


class NodePowerState(NamedTuple):
    """One node as an energy policy sees it.

    ``state`` since ``since``; ``jobs``: how many jobs run on it; ``idle_since``: when it
    last became on with no job (``None`` while it runs a job or is not on); ``cores``;
    ``can_switch``: whether it can be switched off; ``pstate``: its DVFS pstate, an index
    into ``pstates``, its type's pstates (speed and watts, pstate 0 first).
    """

    state: PowerState
    since: float
    jobs: int
    idle_since: float | None
    cores: int
    can_switch: bool
    pstate: int = 0
    pstates: tuple[Pstate, ...] = ()


class PowerView(Protocol):
    """What a powered cluster's view adds to a machine's view."""

    @property
    def power(self) -> Mapping[str, NodePowerState]:
        """Each node's power state, by node name, in the platform's order (a fresh snapshot)."""
        ...

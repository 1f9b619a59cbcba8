"""Where each action's own features sit in a flat observation: what a per-action (kernel) scorer reads.

A kernel scorer (``schedlab train --set policy=kernel``,
:class:`~schedlab.training.kernel.KernelScorer`) applies one small network to every
action's own row of features and takes its output as that action's score, so that
permuting the actions (the grid's resources, a machine's window slots) permutes the
scores, and the network is the same size for any number of actions. The network reads
a flat observation; :class:`ActionRows` says which of its values make each action's
row, and which are global (the same for every action, appended to every row).

An environment kind declares its rows where its observation is built: the grid's
:meth:`~schedlab.envs.grid.obs.GridObserver.action_rows` (per resource: load, capacity,
the broker's unfinished jobs there, and the ``runtime`` and ``latency`` features) and
the machine's :meth:`~schedlab.envs.machine.obs.MachineObserver.action_rows` (per window
slot, then *wait*). :func:`action_rows` finds them for an environment, or says in one
line that its kind declares none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["ABSENT", "ActionRows", "action_rows"]

#: an index in :attr:`ActionRows.index` that reads the constant 0 (a column an action has not got)
ABSENT = -1


@dataclass(frozen=True, eq=False)
class ActionRows:
    """The per-action rows of a flat observation of ``size`` values.

    Parameters
    ----------
    size
        Length of the observation.
    index
        ``(actions, width)`` integers: column ``c`` of action ``a``'s row is the
        observation's value ``index[a, c]``, or 0 where it is :data:`ABSENT` (the
        machine's *wait* has no job's columns).
    shared
        Indices of the global values, appended to every row (a job's length, the clock,
        the broker's one-hot...).
    """

    size: int
    index: np.ndarray
    shared: np.ndarray

    def __post_init__(self) -> None:
        index = np.asarray(self.index, dtype=np.int64)
        shared = np.asarray(self.shared, dtype=np.int64).reshape(-1)
        if index.ndim != 2 or index.shape[0] < 1 or index.shape[1] + shared.size < 1:
            raise ValueError(f"ActionRows: index must be (actions, width) with some column, got shape {index.shape}")
        for name, values, low in (("index", index, ABSENT), ("shared", shared, 0)):
            if values.size and (values.min() < low or values.max() >= self.size):
                raise ValueError(f"ActionRows: {name} outside the observation's {self.size} values")
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "shared", shared)

    @property
    def actions(self) -> int:
        """How many actions (rows)."""
        return int(self.index.shape[0])

    @property
    def width(self) -> int:
        """Values a scorer reads per action: the row's own, then the shared ones."""
        return int(self.index.shape[1] + self.shared.size)


def action_rows(env: Any) -> ActionRows:
    """The rows ``env``'s kind declares (its observer's ``action_rows()``), or a one-line error naming the env."""
    inner = getattr(env, "unwrapped", env)
    declare = getattr(getattr(inner, "observer", None), "action_rows", None)
    if not callable(declare):
        name = str(getattr(inner, "registry_id", None) or getattr(getattr(inner, "spec", None), "id", None))
        if name == "None":
            name = type(inner).__name__
        raise ValueError(
            f"policy=kernel: {name} declares no per-action rows (GridParallel-v0 and Machine-v0 do); use policy=mlp"
        )
    rows: ActionRows = declare()
    return rows

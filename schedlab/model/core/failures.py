"""Node failures as data: :class:`NodeFailure` (when, how long, which nodes) and seeded random ones.

A failure takes one or more *nodes* of a machine down at ``time`` for ``duration``:
the jobs running on them are killed, and their CPUs cannot be allocated until
the repair. What a node is on a :class:`~schedlab.processes.machine.machine.Machine` (a block
of CPUs) is the machine's business (:mod:`schedlab.processes.machine.node_failures`);
here a node is an index. Failures come from a log (Alea's format:
:mod:`schedlab.model.formats.failures`) or from :func:`random_failures`, which draws
each node's times between failures (exponential or Weibull) and its repair times from
one named stream.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["NodeFailure", "random_failures"]


@dataclass(frozen=True, slots=True)
class NodeFailure:
    """``nodes`` go down at ``time`` and come back ``duration`` later.

    ``nodes`` is ``None`` for a failure of the whole cluster (Alea's three-field line).
    ``cluster`` is the name the log gave (empty for a drawn failure); ``line`` the log
    line it came from (0 for a drawn one), so that a failure can be traced to its source.
    """

    time: float
    duration: float
    nodes: tuple[int, ...] | None
    cluster: str = ""
    line: int = 0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.time) and math.isfinite(self.duration) and self.duration >= 0):
            raise ValueError(
                f"NodeFailure: time and duration must be finite, duration >= 0; "
                f"got time={self.time!r}, duration={self.duration!r}"
            )


def random_failures(
    rng: np.random.Generator,
    nodes: int,
    horizon: float,
    mtbf: float,
    repair: float,
    *,
    shape: float = 1.0,
    repair_random: bool = False,
    start: float = 0.0,
) -> list[NodeFailure]:
    """Failures of ``nodes`` nodes from ``start`` to ``start + horizon``, drawn from ``rng``, sorted by time.

    Each node alternates up and down independently: up for a time between failures,
    Weibull with ``shape`` and mean ``mtbf`` (``shape=1`` is the exponential), then down
    for ``repair`` (or, with ``repair_random``, an exponential time of mean ``repair``).
    Draws are taken node by node, in order, so a run with more nodes keeps the first
    nodes' failures. Pass a named stream (``streams["failures"]``) so that failures
    change no other draw.
    """
    if not (isinstance(nodes, int) and nodes >= 1):
        raise ValueError(f"random_failures: nodes must be a whole number >= 1, got {nodes!r}")
    for name, value in (("horizon", horizon), ("mtbf", mtbf), ("shape", shape)):
        if not (math.isfinite(value) and value > 0):
            raise ValueError(f"random_failures: {name} must be finite and > 0, got {value!r}")
    if not (math.isfinite(repair) and repair >= 0):
        raise ValueError(f"random_failures: repair must be finite and >= 0, got {repair!r}")
    # numpy's weibull has scale 1: mean = scale * Gamma(1 + 1/shape)
    scale = mtbf / math.gamma(1.0 + 1.0 / shape)
    out: list[NodeFailure] = []
    end = start + horizon
    for node in range(nodes):
        t = start
        while True:
            t += float(scale * rng.weibull(shape))
            if t >= end:
                break
            down = float(rng.exponential(repair)) if repair_random and repair > 0 else float(repair)
            out.append(NodeFailure(t, down, (node,)))
            t += down
    out.sort(key=lambda f: (f.time, f.nodes))
    return out

"""Packing: Tetris's alignment score, and a machine policy that starts jobs by it.

Tetris (Grandl et al. 2014) packs multi-resource jobs by the *alignment* of a job's
demand vector with the machine's free resources, their dot product: a job that needs
much of what is plentiful scores high, so resources are used evenly and fragmentation
stays low. DeepRM (Mao et al. 2016) uses it as its packing baseline; seed 002 calls
it the bin-packing (Tetris) scheduler.

References
----------
R. Grandl, G. Ananthanarayanan, S. Kandula, S. Rao, A. Akella, "Multi-resource
packing for cluster schedulers", SIGCOMM 2014.
H. Mao, M. Alizadeh, I. Menache, S. Kandula, "Resource management with deep
reinforcement learning", HotNets 2016.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from schedlab.model.contracts.machine import MachineView, Start
from schedlab.model.core.job import Job

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Tetris", "alignment"]


def alignment(
    demand: Sequence[float] | np.ndarray,
    free: Sequence[float] | np.ndarray,
    capacity: Sequence[float] | np.ndarray | None = None,
) -> float:
    """Tetris's alignment score: the dot product of a job's demand and the free resources.

    With ``capacity``, both vectors are first taken as fractions of it, so that no
    resource weighs more for being counted in smaller units.
    """
    if len(demand) != len(free):
        raise ValueError(f"demand has {len(demand)} resources, free has {len(free)}")
    if capacity is None:
        return float(sum(d * f for d, f in zip(demand, free, strict=True)))
    return float(sum(d * f / (c * c) for d, f, c in zip(demand, free, capacity, strict=True)))


@dataclass(frozen=True)
class Tetris:
    """Start the waiting job that fits with the highest alignment score; repeat until none fits.

    Parameters
    ----------
    resources
        Capacities of the machine's other resources (as given to ``Machine(resources=)``);
        CPUs are always counted. Their use is read from the running jobs' demands.

    Notes
    -----
    Scores are normalised by capacity. Ties go to the earlier arrival. Jobs that do not
    fit are passed over, so it never blocks while some job fits.
    """

    resources: Mapping[str, float] = field(default_factory=dict)

    def __call__(self, view: MachineView) -> Start | None:
        names = list(self.resources)
        capacity = [float(view.capacity), *(float(self.resources[r]) for r in names)]
        used = [0.0] * len(names)
        for run in view.running:
            for k, r in enumerate(names):
                used[k] += run.job.demands.get(r, 0.0)
        free = [float(view.free), *(c - u for c, u in zip(capacity[1:], used, strict=True))]
        best: Job | None = None
        best_score = -1.0
        for job in view.waiting:
            if not view.fits(job):
                continue
            score = alignment([job.cpus, *(job.demands.get(r, 0.0) for r in names)], free, capacity)
            if score > best_score:
                best, best_score = job, score
        return Start(best) if best is not None else None

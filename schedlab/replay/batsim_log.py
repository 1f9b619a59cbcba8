"""A Batsim workload (JSON) as a log the replay reads, beside the SWF logs of :mod:`schedlab.model.formats.logs`."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from schedlab.model.formats.batsim import read_batsim_workload
from schedlab.model.formats.logs import LoadedLog

__all__ = ["load_batsim"]


@lru_cache(maxsize=4)
def load_batsim(path: str, cpus: int | None = None, flops: float | None = None) -> LoadedLog:
    """A Batsim workload as a replayable log: its jobs on ``cpus`` CPUs, else its ``nb_res``.

    ``flops``: the platform's hosts' pstate 0 speed, which turns ``parallel_homogeneous``
    profiles' flops into seconds (none without a Batsim platform: such a profile is refused).
    Batsim records no waits, so there is no ``native`` row.
    """
    workload = read_batsim_workload(path, flops)
    size = cpus or workload.nb_res
    if size is None:
        raise ValueError(f"{path}: the workload gives no nb_res: pass the machine's CPUs (--cpus N)")
    return LoadedLog(
        path,
        workload.jobs,
        np.full(len(workload.jobs), np.nan),
        size,
        1,
        f"{path}: {len(workload.jobs)} jobs (Batsim workload"
        + (f", flops at {flops:g} flop/s" if flops else "")
        + (f"; its ids are names, numbered 1-{len(workload.names)} in file order" if workload.names else "")
        + ")",
    )

"""Each log's shape on scenarios/rlscheduler.py's evaluation windows: load, widths, runtimes, the model's features.

docs/rl.md, "One model for many logs", explains a mixture model's results on each log
with these numbers. For every log, on the scenario's windows for it (10 of 1,024 jobs,
seed 1, drawn as the scenario draws them): the offered load (the jobs' runtime x CPUs
over the window's submit span and the machine's CPUs), the jobs' width (CPUs over the
machine's), the share of one-CPU jobs, runtimes, requested time over runtime, and the
mean and median of the features a model reads for requested time (requested time over
the log's longest runtime) and CPUs. Run from the repository root::

    PYTHONPATH=$PWD python3 tools/rlscheduler_log_shape.py [LOG ...]
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scenarios"))
import rlscheduler  # the scenario script: its Config draws the windows

from schedlab.envs.rlscheduler.env import RLSchedulerConfig
from schedlab.envs.rlscheduler.obs import log_features

LOGS = (
    "HPC2N-2002-2.2-cln", "SDSC-SP2-1998-4.2-cln", "lublin_256", "lublin_256_new2",
    "LLNL-Atlas-2006-2.1-cln", "LPC-EGEE-2004-1.2-cln", "NASA-iPSC-1993-3.1-cln", "UniLu-Gaia-2014-1",
)  # fmt: skip


def shape(log: str) -> dict[str, float]:
    """The numbers above for ``log`` (a name in ../shared/traces)."""
    cfg = rlscheduler.Config(log=log, seeds=(0,), model="train")
    return window_shape(cfg.env_config(False), cfg.starts(), cfg.length)


def window_shape(env: RLSchedulerConfig, starts: Sequence[int], length: int) -> dict[str, float]:
    """The numbers above on the windows of ``length`` jobs starting at ``starts`` of ``env``'s log."""
    loaded = env.loaded
    cpus = loaded.cpus
    feats = log_features(str(env.path), cpus * loaded.procs_per_node)
    loads, widths, runs, over, f_req, f_cpus = [], [], [], [], [], []
    for s in starts:
        w = loaded.jobs[s : s + length]
        loads.append(sum(j.runtime * j.cpus for j in w) / ((w[-1].submit - w[0].submit) * cpus))
        widths += [j.cpus / cpus for j in w]
        runs += [j.runtime for j in w]
        over += [j.requested_time / max(j.runtime, 1) for j in w]
        f_req += [float(feats.rows[j.id][0]) for j in w]
        f_cpus += [float(feats.rows[j.id][1]) for j in w]
    return {
        "cpus": cpus,
        "load": float(np.mean(loads)),
        "load_min": float(np.min(loads)),
        "load_max": float(np.max(loads)),
        "width_mean": float(np.mean(widths)),
        "serial_share": float(np.mean(np.array(widths) * cpus <= 1)),
        "runtime_median": float(np.median(runs)),
        "runtime_mean": float(np.mean(runs)),
        "requested_over_runtime_median": float(np.median(over)),
        "requested_feature_mean": float(np.mean(f_req)),
        "requested_feature_median": float(np.median(f_req)),
        "cpus_feature_mean": float(np.mean(f_cpus)),
    }


if __name__ == "__main__":
    for log in sys.argv[1:] or LOGS:
        print(log, json.dumps({k: round(v, 4) for k, v in shape(log).items()}), flush=True)

"""Batch scheduling on real logs: six priority orders, with and without EASY backfilling.

Every policy x {none, easy} replays 10 windows of 1024 consecutive jobs of the
UniLu-Gaia-2014-1 log (2004 CPUs, real waits recorded) and of the Lublin model
log (256 CPUs, overloaded), each window alone on an empty machine; the `native`
row is the schedule that actually ran on Gaia. Rows are means over windows (bounded
slowdown with a 10 s threshold, wait, response, utilization); replications.csv holds
the per-window values.

    schedlab run scenarios/log_replay.py
    schedlab run scenarios/log_replay.py --quick
    schedlab replay UniLu-Gaia-2014-1 --policy fcfs --policy wfp3 --windows 10 --length 1024
"""

from __future__ import annotations

from dataclasses import dataclass

from schedlab.experiment import cli_main
from schedlab.replay.log_replay import Config as ReplayConfig
from schedlab.replay.log_replay import build, cells, measure, warnings

__all__ = ["QUICK", "REPS", "Config", "build", "cells", "measure", "warnings"]


@dataclass(frozen=True)
class Config(ReplayConfig):
    #: SWF logs, by path or by name in logs_dir
    logs: tuple[str, ...] = ("UniLu-Gaia-2014-1", "lublin_256")
    #: priority orders compared
    policies: tuple[str, ...] = ("fcfs", "sjf", "smallest", "f1", "wfp3", "unicep")


QUICK = dict(length=256, windows=3)


def REPS(cfg: Config) -> int:
    """One replication per window."""
    return cfg.n_windows


if __name__ == "__main__":
    cli_main()

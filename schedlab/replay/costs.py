"""What a replayed window's energy and node failures cost: the metrics ``log_replay.measure`` adds on a cluster.

Energy is measured where every node type of the platform gives its power; failures where
the window had any (they are checked first: no job lost, none run twice).
"""

from __future__ import annotations

from typing import Any

from schedlab.model.analysis.energy import energy
from schedlab.model.analysis.failures import availability, failure_conservation, jobs_hit, lost_cpu_hours

__all__ = ["energy_metrics", "failure_metrics"]


def energy_metrics(cluster: Any, records: Any) -> tuple[dict[str, float], str]:
    """Energy metrics (J, W, J s) and ``energy.csv`` (per job) where every node type gives its power.

    Over the span ``evaluate`` uses, from the first submission to the last end.
    """
    platform = cluster.platform
    ran = [r for r in records if r.end == r.end]  # not nan: it ended
    if not ran or any(t.power is None for t in platform.node_types):
        return {}, ""
    states = cluster.power_rows() if hasattr(cluster, "power_rows") else []  # a powered cluster's off and switching
    pstates = cluster.pstate_rows() if hasattr(cluster, "pstate_rows") else []  # and its DVFS stretches
    span = (min(r.submit for r in records), max(r.end for r in ran))
    report = energy(cluster.placement_rows(), platform, *span, states, pstates)
    per_job = "job,joules\n" + "".join(f"{job},{joules!r}\n" for job, joules in report.per_job.items())
    out = {"energy_j": report.total, "mean_power_w": report.mean_power, "edp_js": report.edp}
    if hasattr(cluster, "power_rows"):
        out["boots"] = float(sum(1 for row in states if row[1] == "switching_on"))
    return out, per_job


def failure_metrics(machine: Any, records: Any) -> dict[str, float]:
    """What the failures cost, after checking that they lost no job and ran none twice.

    ``availability`` is over the span ``evaluate`` uses (first submission to last end).
    """
    records = list(records)
    kills = machine.node_kills
    balance = failure_conservation([r.id for r in records], records, kills)
    ended = [r.end for r in records if r.end == r.end]
    first = min(r.submit for r in records)
    last = max(ended) if ended else first
    return {
        "kills": float(balance.kills),
        "restarts": float(balance.restarts),
        "dropped": float(balance.dropped),
        "jobs_hit": float(jobs_hit(kills)),
        "lost_cpu_hours": lost_cpu_hours(kills),
        "availability": availability(machine.node_outages, machine.max_capacity, first, last)
        if last > first
        else float("nan"),
    }

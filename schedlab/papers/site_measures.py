"""What one replication of seed 001's grid site is measured by, from its job records.

Per class (interactive, batch): the waits (mean, standard deviation, maximum), the
responsiveness ``W`` (mean, standard deviation, share above 0.9) and the share of jobs
waiting under two minutes; over every kept job the waits; the fair share ``F`` after
the last election; the objective the SARSA supervisor maximises
(:func:`~schedlab.papers.site_workloads.election_objective`); and Kleinrock's
conservation sum with each class's load. ``scenarios/responsive_grid.py`` measures
each replication with :func:`site_measures` and adds what only its model knows (the
utilization of its machine, the elastic pool's sizes); the tables of
:mod:`schedlab.papers.responsive_tables` read these columns.

Kept in the package, apart from the scenario, because the measures are the paper's
reading of a schedule (plain functions of records), not the scenario's wiring.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from schedlab.model.analysis import metrics
from schedlab.model.analysis.conservation import class_terms, conservation_sum
from schedlab.model.contracts.site import INTERACTIVE
from schedlab.model.records.job_record import JobRecord
from schedlab.papers.site_workloads import election_objective

__all__ = ["site_measures"]


def _stats(prefix: str, values: np.ndarray) -> dict[str, float]:
    if len(values) == 0:
        return {f"{prefix}_mean": math.nan, f"{prefix}_std": math.nan, f"{prefix}_max": math.nan}
    return {
        f"{prefix}_mean": float(values.mean()),
        f"{prefix}_std": float(values.std()),
        f"{prefix}_max": float(values.max()),
    }


def site_measures(
    records: Sequence[JobRecord], kept: Sequence[JobRecord], targets: Mapping[str, float], weight: float, cores: int
) -> dict[str, float]:
    """The measures of one replication (see the module's notes), column by column.

    Parameters
    ----------
    records
        The completed jobs' records, by job id: fair share and the objective's
        history run over all of them.
    kept
        The records the statistics are over (the run's first and last jobs left out).
    targets
        Each VO's fair-share target.
    weight
        ``lambda``, the weight of responsiveness in the objective.
    cores
        The site's own cores: the conservation sum's loads are against them, over
        the kept jobs' span.
    """
    out: dict[str, float] = {"completed": len(kept)}
    for label in (INTERACTIVE, "batch"):
        mine = [r for r in kept if r.job_class == label]
        out.update(_stats(f"wait_{label}", metrics.wait(mine)))
        w = metrics.responsiveness(mine)
        out[f"W_{label}_mean"] = float(w.mean()) if len(w) else math.nan
        out[f"W_{label}_std"] = float(w.std()) if len(w) else math.nan
        out[f"W_{label}_over_0.9"] = float((w > 0.9).mean()) if len(w) else math.nan
        waits = metrics.wait(mine)
        out[f"{label}_under_2min"] = float((waits < 120).mean()) if len(waits) else math.nan
    waits = metrics.wait(kept)
    out["wait_mean"], out["wait_std"], out["wait_max"] = float(waits.mean()), float(waits.std()), float(waits.max())
    fairness = metrics.fair_share(records, targets)  # F after each election, in election order
    out["fair_share_final"] = float(fairness[-1])
    out["objective"] = election_objective(records, {r.id for r in kept}, targets, weight)
    # Kleinrock's sum over the kept jobs, loads against the site's own cores over the kept jobs' span
    span = max(r.end for r in kept) - min(r.submit for r in kept)
    terms = class_terms(kept, cores * span)
    out["conservation_sum"] = conservation_sum(terms)
    for label, (rho, _) in terms.items():
        out[f"rho_{label}"] = rho
    return out

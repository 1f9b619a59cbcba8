"""The tables of seed 004's reproduction (Tumer and Lawson): gains, and Tables I-IV beside the paper's.

Plain functions over a run's summary rows and learning curves: ``scenarios/collectives.py``
writes ``tables.csv`` and the figures' ``curves.csv`` with them after a run (its
``tables`` and ``figures`` commands too), and ``scenarios/collectives_sensitivity.py``
scores its cells with :func:`gain`.

- :data:`PAPER`: the paper's Tables I-IV, efficiency and gain per (r, M) and algorithm;
- :func:`gain`: section 4's gain, the share of the gap between RAND and the optimal
  estimate (or the fluid LP bound) an algorithm closes;
- :func:`tables`: Tables I-IV from a run's summary, with the gains against both;
- :func:`curves`: the replications' learning curves, averaged.

Kept in the package, apart from the scenario, because they read results (the scenario's
summary and ``series/`` files), not the model; the scenario keeps its settings, model
and figures.
"""

from __future__ import annotations

import math
from pathlib import Path

__all__ = ["ALGORITHMS", "METRICS", "PAPER", "curves", "gain", "tables"]

#: the algorithms of the paper, in the tables' order: RAND, SU, TG, WLU, LB
ALGORITHMS = ("rand", "su", "tg", "wlu", "lb")

#: Tables I-IV of the paper: (r, M) -> algorithm -> (efficiency, gain %); "opt" is the optimal estimate
PAPER = {
    (0.2, 2): {"opt": (1.0, None), "rand": (0.9318, None), "su": (0.9317, -0.20), "tg": (0.9470, 22.33),
               "wlu": (0.9788, 68.83), "lb": (0.9971, 95.70)},
    (0.2, 8): {"opt": (1.0, None), "rand": (0.6435, None), "su": (0.6345, -2.53), "tg": (0.6703, 7.51),
               "wlu": (0.7932, 41.97), "lb": (0.2254, -117.28)},
    (0.8, 2): {"opt": (0.781, None), "rand": (0.6260, None), "su": (0.6140, -7.78), "tg": (0.6376, 7.48),
               "wlu": (0.6911, 41.98), "lb": (0.6446, 11.97)},
    (0.8, 8): {"opt": (0.395, None), "rand": (0.1944, None), "su": (0.2024, 4.01), "tg": (0.1984, 1.98),
               "wlu": (0.2490, 27.25), "lb": (0.0974, -48.32)},
}  # fmt: skip


def gain(efficiency: float, rand: float, optimal: float) -> float:
    """Section 4's gain, in percent: the share of the gap between RAND and the optimal estimate closed."""
    gap = optimal - rand
    return 100.0 * (efficiency - rand) / gap if gap != 0 else math.nan


#: the metrics of the scenario's ``measure``; every other column of a summary (but ``algorithm``) is a factor
METRICS = ("efficiency", "efficiency_last10", "optimal_estimate", "lp_bound", "mean_degree")


def tables(summary):
    """Tables I-IV from a run's summary rows (a DataFrame or results folders): gains and the paper's values.

    One block per (r, M) and any swept Config field: the optimal estimate (``opt``),
    the fluid LP bound (``lp``, a true upper bound, see :mod:`schedlab.papers.ring_bounds`),
    then each algorithm with its gain against both (``gain``, ``gain_lp``, in percent).
    """
    import pandas as pd

    if isinstance(summary, str | Path):
        summary = [summary]
    if isinstance(summary, list | tuple):  # results folders, e.g. one per (r, M) cell
        summary = pd.concat([pd.read_csv(Path(f) / "summary.csv") for f in summary], ignore_index=True)
    factors = [c for c in summary.columns if c != "algorithm" and not c.endswith("_ci95") and c not in METRICS]
    rows = []
    for key, part in summary.groupby(factors, sort=True, dropna=False):
        where = dict(zip(factors, key, strict=True))
        r, m = float(where["r"]), int(where["M"])
        by = part.set_index("algorithm")
        opt = float(by["optimal_estimate"].mean())
        lp = float(by["lp_bound"].mean()) if "lp_bound" in by else math.nan
        rand = float(by.loc["rand", "efficiency"]) if "rand" in by.index else math.nan
        rand10 = float(by.loc["rand"].get("efficiency_last10", math.nan)) if "rand" in by.index else math.nan
        paper = PAPER.get((r, m), {})
        rows.append(
            {**where, "algorithm": "opt", "efficiency": opt, "paper_efficiency": paper.get("opt", (math.nan,))[0]}
        )
        rows.append({**where, "algorithm": "lp", "efficiency": lp})
        for a in [x for x in ALGORITHMS if x in by.index]:
            eff, eff10 = float(by.loc[a, "efficiency"]), float(by.loc[a].get("efficiency_last10", math.nan))
            learned = a != "rand"
            rows.append({
                **where, "algorithm": a, "efficiency": eff,
                "efficiency_ci95": float(by.loc[a].get("efficiency_ci95", math.nan)),
                "efficiency_last10": eff10,
                "gain": gain(eff, rand, opt) if learned else math.nan,
                "gain_lp": gain(eff, rand, lp) if learned else math.nan,
                "gain_last10": gain(eff10, rand10, opt) if learned else math.nan,
                "gain_last10_lp": gain(eff10, rand10, lp) if learned else math.nan,
                "optimal_estimate": opt, "lp_bound": lp,
                "paper_efficiency": paper.get(a, (math.nan,))[0],
                "paper_gain": (paper.get(a, (math.nan, None))[1] or math.nan),
            })  # fmt: skip
    return pd.DataFrame(rows)


def curves(curves_dir: str | Path):
    """Every replication's learning curve in ``curves_dir``, averaged over replications (longest runs only)."""
    import pandas as pd

    files = sorted(Path(curves_dir).glob("*.csv"))
    if not files:
        raise ValueError(f"no learning curves in {str(curves_dir)!r}: run the scenario first")
    frame = pd.concat([pd.read_csv(f) for f in files], ignore_index=True)
    length = frame.groupby(["steps", "r", "M", "algorithm", "rep"])["run"].transform("max")
    frame = frame[length == length.max()]
    out = frame.groupby(["r", "M", "algorithm", "run"])["efficiency"].agg(["mean", "count"]).reset_index()
    return out.rename(columns={"mean": "efficiency", "count": "networks"})

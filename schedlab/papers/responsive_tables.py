"""The tables of seed 001's reproduction: readings, paired comparisons, Tables 3-4 beside the paper's.

Plain functions over a run's per-replication rows (``Results.replications``): the
scenario ``scenarios/responsive_grid.py`` prints them after a run, and
``docs/responsive.md`` quotes them.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from schedlab.model.analysis.paired import paired_difference

__all__ = ["PAPER_TABLE2", "PAPER_TABLES34", "READINGS", "log_table", "paired_table", "reading_of", "report_text"]

#: readings of seed 001 a learner can run under (``RL+waited+oldest``...); none is the paper's
READINGS = {
    "waited": "each waiting job's action row also holds the time it has waited",
    "oldest": "the state also holds the longest wait in the queue of each class",
    "site": "an election's reward is the mean reward of the jobs completed until the next election",
    "smdp": "gamma applies per smdp_time seconds between elections (semi-Markov), not per election",
    "queue": "an election's reward, at once, is how responsive the jobs left waiting would be if started now",
}

#: seed 001 Table 2 (feasible targets): interactive share -> (FIFO int mean, RL int mean, FIFO batch, RL batch, ...)
PAPER_TABLE2 = {
    0.2: {"FIFO": (923, 2361, 825), "RL": (108, 975, 103)},
    0.4: {"FIFO": (690, 1425, 642), "RL": (50, 597, 454)},
    0.5: {"FIFO": (740, 1577, 718), "RL": (38, 368, 343)},
}
#: seed 001 Tables 3-4: setting -> (W int mean, W int std, W batch mean, W batch std, delay mean, delay std)
PAPER_TABLES34 = {
    "NATIVE": (0.628, 0.418, 0.830, 0.265, 2756, 8844),
    "RIG-ORA-0.5": (0.866, 0.314, 0.892, 0.228, 1096, 5137),
    "RIG-ORA-1": (0.869, 0.308, 0.893, 0.226, 862, 3505),
    "RIG-EST-0.5": (0.864, 0.319, 0.894, 0.223, 1087, 4838),
    "RIG-EST-1": (0.867, 0.311, 0.899, 0.216, 1152, 5417),
    "ELA-ORA-0.5": (0.965, 0.177, 0.966, 0.116, 606, 4245),
    "ELA-ORA-1": (0.971, 0.160, 0.966, 0.121, 236, 2200),
    "ELA-EST-0.5": (0.958, 0.184, 0.960, 0.123, 458, 3771),
    "ELA-EST-1": (0.968, 0.167, 0.968, 0.113, 3584, 64),
}


def reading_of(setting: str) -> frozenset[str]:
    """The reading a setting names: ``"RL"`` is the paper's, ``"RL+waited+oldest"`` adds two options.

    Examples
    --------
    >>> sorted(reading_of("RL+site+smdp"))
    ['site', 'smdp']
    """
    head, *options = setting.split("+")
    if head != "RL":
        raise ValueError(f"a learner's setting starts with RL, got {setting!r}")
    bad = [o for o in options if o not in READINGS]
    if bad:
        raise ValueError(f"unknown readings {bad} in {setting!r}; choose from {', '.join(READINGS)}")
    return frozenset(options)


def _by(rows: Sequence[Mapping[str, Any]], *keys: str) -> dict[tuple, list[Mapping[str, Any]]]:
    out: dict[tuple, list[Mapping[str, Any]]] = defaultdict(list)
    for row in rows:
        out[tuple(row[k] for k in keys)].append(row)
    return out


def _pm(mean: float, half: float, digits: int = 0) -> str:
    if not math.isfinite(mean):
        return "-"
    return f"{mean:+.{digits}f}" + (f" ± {half:.{digits}f}" if math.isfinite(half) else "")


def paired_table(rows: Sequence[Mapping[str, Any]]) -> tuple[str, dict[str, bool]]:
    """Per workload and setting: means, paired differences against FIFO and EDF, the target's three tests.

    Replications are paired by their index ``rep`` (the same jobs), over the reps both
    sides have. Returns the markdown table and, per setting, whether it met the issue's
    target in every workload: interactive mean wait <= FIFO's / 3, batch mean wait <=
    1.2 x FIFO's, and interactive maximum (mean over replications) <= FIFO's.
    """
    keys = ("wait_interactive_mean", "wait_batch_mean", "wait_interactive_max", "objective", "conservation_sum")
    lines = [
        "| interactive | setting | reps | int wait | batch wait | int max | objective | Σρ·W / FIFO's "
        "| Δ int wait vs FIFO | Δ int wait vs EDF | Δ batch wait vs FIFO | Δ objective vs EDF | target |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    met: dict[str, bool] = {}
    for (share, fairness), group in sorted(_by(rows, "interactive", "fairness").items()):
        per = {s: {r["rep"]: r for r in g} for (s,), g in _by(group, "setting").items()}
        base, edf = per.get("FIFO", {}), per.get("EDF", {})
        for setting, reps in per.items():

            def cols(side: Mapping[int, Mapping[str, Any]], common: list[int]) -> dict[str, np.ndarray]:
                return {k: np.array([side[i][k] for i in common], dtype=float) for k in keys}

            col = cols(reps, sorted(reps))
            cells = [f"{share:g}" + ("" if fairness == "feasible" else f" ({fairness})"), setting, str(len(reps))]
            cells += [f"{col[k].mean():.0f}" for k in keys[:3]]
            cells.append(f"{col['objective'].mean():.3f}")
            on_fifo = sorted(set(reps) & set(base))
            on_edf = sorted(set(reps) & set(edf))
            ok = None
            if on_fifo:
                mine, fifo = cols(reps, on_fifo), cols(base, on_fifo)
                ratio = mine["conservation_sum"] / fifo["conservation_sum"]
                cells.append(f"{ratio.mean():.2f} [{ratio.min():.2f}, {ratio.max():.2f}]")
                cells.append(_pm(*paired_difference(mine[keys[0]], fifo[keys[0]])[:2]))
            else:
                cells += ["-", "-"]
            if on_edf:
                mine_e, e = cols(reps, on_edf), cols(edf, on_edf)
                cells.append(_pm(*paired_difference(mine_e[keys[0]], e[keys[0]])[:2]))
            else:
                cells.append("-")
            if on_fifo:
                cells.append(_pm(*paired_difference(mine[keys[1]], fifo[keys[1]])[:2]))
                ok = bool(
                    mine[keys[0]].mean() <= fifo[keys[0]].mean() / 3
                    and mine[keys[1]].mean() <= 1.2 * fifo[keys[1]].mean()
                    and mine[keys[2]].mean() <= fifo[keys[2]].mean()
                )
            else:
                cells.append("-")
            cells.append(_pm(*paired_difference(mine_e["objective"], e["objective"])[:2], digits=3) if on_edf else "-")
            cells.append("-" if ok is None else ("yes" if ok else "no"))
            if ok is not None:
                met[setting] = met.get(setting, True) and ok
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines), met


def log_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """Tables 3-4 on the log: per setting and class W mean/std, W > 0.9, waits under 2 min, waits, pool."""
    lines = [
        "| setting | W int mean (paper) | W int std | W int > 0.9 | int < 2 min | W batch mean (paper) | W batch std "
        "| W batch > 0.9 | int wait mean / max | batch wait mean / max | delay mean (paper) | delay std (paper) "
        "| utilization | pool mean / max |",
        "|" + "---|" * 14,
    ]
    for (setting,), reps in _by(rows, "setting").items():
        m = {k: float(np.mean([r[k] for r in reps])) for k in reps[0] if isinstance(reps[0][k], int | float)}
        p = PAPER_TABLES34.get(setting)

        def paper(i: int, digits: int = 3, p=p) -> str:
            return f" ({p[i]:.{digits}f})" if p else ""

        lines.append(
            f"| {setting} | {m['W_interactive_mean']:.3f}{paper(0)} | {m['W_interactive_std']:.3f} "
            f"| {m['W_interactive_over_0.9']:.2f} | {m['interactive_under_2min']:.2f} "
            f"| {m['W_batch_mean']:.3f}{paper(2)} | {m['W_batch_std']:.3f} | {m['W_batch_over_0.9']:.2f} "
            f"| {m['wait_interactive_mean']:.0f} / {m['wait_interactive_max']:.0f} "
            f"| {m['wait_batch_mean']:.0f} / {m['wait_batch_max']:.0f} "
            f"| {m['wait_mean']:.0f}{paper(4, 0)} | {m['wait_std']:.0f}{paper(5, 0)} | {m['utilization']:.2f} "
            f"| {m['pool_mean']:.0f} / {m.get('pool_max', m['pool_mean']):.0f} |"
        )
    return "\n".join(lines)


def report_text(results: Any) -> str:
    """The printed report of a run: header, paired synthetic table, target verdicts, log tables."""
    reps = results.reps
    parts = [f"## responsive_grid: {reps} replications per cell (common random numbers), seed {results.seed}"]
    if reps == 2:
        parts.append(
            "quick mode: 2 replications, so the 95% intervals are t with 1 degree of freedom (x12.7): very wide."
        )
    synthetic = [r for r in results.replications if r.get("experiment") == "synthetic"]
    if synthetic:
        table, met = paired_table(synthetic)
        parts += [
            "",
            "### Synthetic (M/M/50, rho 0.99): means over replications, paired differences (95% t)",
            "",
            table,
        ]
        if met:
            good = [s for s, ok in met.items() if ok]
            parts.append("")
            parts.append(
                "target (int mean <= FIFO/3, batch mean <= 1.2 FIFO, int max <= FIFO, every workload) met by: "
                + (", ".join(good) if good else "none")
            )
    log = [r for r in results.replications if r.get("experiment") in ("log", "trace")]  # trace: its old name
    if log:
        parts += ["", "### Log: Tables 3-4 (paper's values in parentheses)", "", log_table(log)]
    return "\n".join(parts)

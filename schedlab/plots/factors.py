"""A metric of a results table against a factor, with each cell's 95% interval as error bars.

Two things keep the figure from misleading. Its intervals: given the replications, each
is the bootstrap percentile interval of the cell's mean (:mod:`schedlab.plots.intervals`),
which stays within the replications' values, so a wait's never reaches below 0 nor a
bounded slowdown's below 1; without them, the summary's symmetric mean ± t half-width,
and the title says which. Its units: a metric may be measured in different units in
different cells (``scenarios/first_look.py``'s wait is in hours on the log and in mean
service times on the M/M/c queue), and one axis cannot carry two units, so each unit
gets its own panel, its y axis named with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from schedlab.plots._mpl import new_figure
from schedlab.plots.intervals import bootstrap_interval

__all__ = ["cell_values", "metric_vs_factor", "split_columns"]


def _frame(summary: Any) -> Any:
    import pandas as pd

    if isinstance(summary, str | Path):
        return pd.read_csv(summary)
    return summary if isinstance(summary, pd.DataFrame) else pd.DataFrame(summary)


def split_columns(summary: Any) -> tuple[list[str], list[str]]:
    """``(factors, metrics)`` of a summary table: a metric is a column with a ``<name>_ci95`` twin."""
    frame = _frame(summary)
    columns = list(frame.columns)
    metrics = [c for c in columns if f"{c}_ci95" in columns]
    factors = [c for c in columns if c not in metrics and not c.endswith("_ci95")]
    return factors, metrics


def cell_values(summary: Any, replications: Any, metric: str) -> list[list[float]]:
    """Per row of ``summary``, the ``metric`` of each of its replications (the rows of
    ``replications`` with the same factor values, compared as text)."""
    frame, reps = _frame(summary), _frame(replications)
    factors, _ = split_columns(frame)
    keys = [f for f in factors if f in reps.columns]
    text = reps[keys].astype(str) if keys else None
    out = []
    for _, row in frame.iterrows():
        mask = (text == row[keys].astype(str).to_numpy()).all(axis=1) if text is not None else slice(None)
        out.append([float(v) for v in reps.loc[mask, metric] if v == v])  # not NaN
    return out


def _names(frame: Any, cells: Any, factors: list[str]) -> tuple[list[str], str]:
    """Each cell's tick label (the factors varying among ``cells``), and what ``cells`` share
    of the factors that vary in the whole table (a panel's title)."""
    varying = [f for f in factors if frame[f].nunique() > 1]
    inside = [f for f in varying if cells[f].nunique() > 1] or varying  # one cell: name it by all
    labels = [", ".join(f"{f}={row[f]}" for f in inside) or f"cell {i}" for i, row in cells.iterrows()]
    shared = ", ".join(f"{f}={cells[f].iloc[0]}" for f in varying if cells[f].nunique() == 1)
    return labels, shared


def metric_vs_factor(
    summary: Any,
    metric: str,
    factor: str | None = None,
    *,
    ax: Any = None,
    replications: Any = None,
    units: Sequence[str | None] | None = None,
) -> Any:
    """Plot ``metric`` (each cell's mean and 95% interval) against ``factor``, one line per other factor level.

    Parameters
    ----------
    summary
        ``summary.csv``'s path, a DataFrame, or a list of row dicts (``Results.rows``).
    metric
        A metric column (one with a ``_ci95`` twin). Cells without it (NaN) are left out.
    factor
        The x axis: a factor column. Default: the first factor whose values are numbers
        and vary; without one, each cell is a point on a categorical axis.
    ax
        A matplotlib Axes to draw on (a single unit only); default a new Figure.
    replications
        ``replications.csv``'s path, a DataFrame or row dicts: each interval is then the
        bootstrap percentile interval of the cell's mean, within its replications' values.
        Without them: the summary's mean ± ``<metric>_ci95``.
    units
        Each summary row's unit of ``metric`` (``"hours"``; ``None`` or ``""``: unknown):
        one panel per unit, its y axis labelled ``metric (unit)``.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import numpy as np

    frame = _frame(summary).reset_index(drop=True)
    factors, metrics = split_columns(frame)
    if metric not in metrics:
        raise ValueError(f"no metric {metric!r} in the summary; metrics: {', '.join(metrics) or 'none'}")
    if factor is not None and factor not in factors:
        raise ValueError(f"no factor {factor!r} in the summary; factors: {', '.join(factors) or 'none'}")
    frame["_unit"] = [u or "" for u in units] if units is not None else ""
    if replications is not None and metric not in _frame(replications).columns:
        replications = None  # a table saved without it: the summary's interval
    if replications is not None:  # asymmetric, within the values: [mean - low, high - mean]
        values = cell_values(frame, replications, metric)
        bounds = [bootstrap_interval(v) for v in values]
        counts = sorted({len(v) for v in values if v})
        frame["_below"] = [max(m - lo, 0.0) for m, (lo, _) in zip(frame[metric], bounds, strict=True)]
        frame["_above"] = [max(hi - m, 0.0) for m, (_, hi) in zip(frame[metric], bounds, strict=True)]
        each = f"{counts[0]} replications" if len(counts) == 1 else "its replications"
        kind = f"mean and 95% bootstrap percentile interval of each cell's {each}"
    else:
        frame["_below"] = frame["_above"] = frame[f"{metric}_ci95"].fillna(0.0)
        kind = "mean ± 95% t half-width"
    table = frame  # every cell: what tells them apart, even where only one has this metric
    frame = frame[frame[metric].notna()]
    groups = list(dict.fromkeys(frame["_unit"])) or [""]
    if ax is not None and len(groups) > 1:
        raise ValueError(f"{metric} has {len(groups)} units ({', '.join(groups)}): one axis cannot show them")
    if ax is None:  # wider with more cells, so that their labels fit
        width = min(14.0, max(7.0, 1.5 + 0.55 * len(frame)))
        ax = new_figure(width, 4.5 if len(groups) == 1 else 3.4 * len(groups), rows=len(groups), sharex=False).axes[0]
    fig = ax.figure
    axes = [ax] if len(groups) == 1 else fig.axes
    for panel, unit in zip(axes, groups, strict=True):
        cells = frame[frame["_unit"] == unit]
        x = factor
        if x is None:
            numeric = [f for f in factors if cells[f].nunique() > 1 and cells[f].dtype.kind in "if"]
            x = numeric[0] if numeric else None
        if x is None:  # no numeric factor: one point per cell, labelled by its factors
            labels, shared = _names(table, cells, factors)
            errors = np.array([cells["_below"], cells["_above"]])
            panel.errorbar(range(len(cells)), cells[metric], yerr=errors, fmt="o", capsize=4)
            panel.set_xticks(range(len(cells)), labels, rotation=30, ha="right", fontsize=7)
        else:
            _, shared = _names(table, cells, factors)
            others = [f for f in factors if f != x and cells[f].nunique() > 1]
            lines = cells.groupby(others, sort=False) if others else [((), cells)]
            for key, group in lines:
                key = key if isinstance(key, tuple) else (key,)
                label = ", ".join(f"{f}={k}" for f, k in zip(others, key, strict=True)) or None
                group = group.sort_values(x)
                errors = np.array([group["_below"], group["_above"]])
                panel.errorbar(group[x], group[metric], yerr=errors, marker="o", capsize=4, label=label)
            panel.set_xlabel(x)
            if others:
                panel.legend(fontsize=7)
        panel.set_ylabel(f"{metric}\n({unit})" if unit else metric, fontsize=9)
        if len(groups) > 1:
            panel.set_title(shared or f"cells in {unit}", fontsize=9)
    title = f"{metric}\n{kind}"
    if len(groups) > 1:
        fig.suptitle(f"{title}\n(one panel per unit: one axis cannot carry two)", fontsize=10)
    else:  # what the cells drawn have in common, where others (without this metric) differ
        common = f" ({shared})" if shared and len(frame) > 1 else ""
        ax.set_title(f"{metric}{common}\n{kind}", fontsize=10)
    return fig

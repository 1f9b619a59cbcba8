"""A metric of a results table against a factor, with each cell's 95% interval as error bars."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from schedlab.plots._mpl import new_figure

__all__ = ["metric_vs_factor", "split_columns"]


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


def metric_vs_factor(summary: Any, metric: str, factor: str | None = None, *, ax: Any = None) -> Any:
    """Plot ``metric`` (mean ± 95% half-width) against ``factor``, one line per other factor level.

    Parameters
    ----------
    summary
        ``summary.csv``'s path, a DataFrame, or a list of row dicts (``Results.rows``).
    metric
        A metric column (one with a ``_ci95`` twin).
    factor
        The x axis: a factor column. Default: the first factor whose values are numbers
        and vary; without one, each cell is a point on a categorical axis.

    Returns
    -------
    matplotlib.figure.Figure
    """
    frame = _frame(summary)
    factors, metrics = split_columns(frame)
    if metric not in metrics:
        raise ValueError(f"no metric {metric!r} in the summary; metrics: {', '.join(metrics) or 'none'}")
    if factor is None:
        numeric = [f for f in factors if frame[f].nunique() > 1 and frame[f].dtype.kind in "if"]
        factor = numeric[0] if numeric else None
    elif factor not in factors:
        raise ValueError(f"no factor {factor!r} in the summary; factors: {', '.join(factors) or 'none'}")
    if ax is None:
        ax = new_figure(6.0, 4.0).axes[0]
    errors = frame[f"{metric}_ci95"].fillna(0.0)
    if factor is None:  # no numeric factor: one point per cell, labelled by its factors
        varying = [f for f in factors if frame[f].nunique() > 1]  # constant factors name no cell
        labels = [", ".join(f"{f}={row[f]}" for f in varying) or f"cell {i}" for i, row in frame.iterrows()]
        ax.errorbar(range(len(frame)), frame[metric], yerr=errors, fmt="o", capsize=4)
        ax.set_xticks(range(len(frame)), labels, rotation=30, ha="right", fontsize=7)
    else:
        others = [f for f in factors if f != factor and frame[f].nunique() > 1]
        groups = frame.groupby(others, sort=False) if others else [((), frame)]
        for key, group in groups:
            key = key if isinstance(key, tuple) else (key,)
            label = ", ".join(f"{f}={k}" for f, k in zip(others, key, strict=True)) or None
            group = group.sort_values(factor)
            ax.errorbar(group[factor], group[metric], yerr=errors[group.index], marker="o", capsize=4, label=label)
        ax.set_xlabel(factor)
        if others:
            ax.legend(fontsize=7)
    ax.set_ylabel(metric)
    ax.set_title(f"{metric} (mean, 95% interval)")
    return ax.figure

"""The elastic pools of seed 001 over time (``scenarios/responsive_grid.py``'s trace experiment)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from schedlab.plots._mpl import new_figure

__all__ = ["pool_sizes_figure"]


def pool_sizes_figure(pool_dir: Path, out: Path, site_cores: float) -> Path | None:
    """``out/pool_sizes.png``: each elastic setting's pool size over time (replication 0), one panel per lambda.

    Reads the ``ELA-*_rep0.csv`` series (``time,size``) a responsive_grid run saved in
    ``pool_dir``; returns None when there is none.
    """
    # "ELA-EST-0.5_rep0.csv", or with the runner's prefix "cell12-rep0-ELA-EST-0.5_rep0.csv" in --out/series
    files = sorted(pool_dir.glob("*ELA-*_rep0.csv")) if pool_dir.is_dir() else []
    if not files:
        return None

    def setting(f: Path) -> list[str]:  # ["ELA", "EST", "0.5"]
        return f.stem[f.stem.index("ELA-") :].removesuffix("_rep0").split("-")

    lambdas = sorted({setting(f)[2] for f in files}, key=float)
    fig = new_figure(9, 2.4 * len(lambdas), rows=len(lambdas))
    axes = np.array(fig.axes).reshape(-1, 1)
    for ax, lam in zip(axes[:, 0], lambdas, strict=True):
        for f in files:
            if setting(f)[2] != lam:
                continue
            data = np.loadtxt(f, delimiter=",", skiprows=1, ndmin=2)
            # decisions come every period: a 6-hour moving mean of 24 periods of 15 min shows the trend
            k = min(24, len(data))
            smooth = np.convolve(data[:, 1], np.ones(k) / k, mode="valid")
            ax.plot(data[k - 1 :, 0] / 86400, smooth, lw=0.9, label=setting(f)[1])
        if math.isfinite(site_cores):
            ax.axhline(site_cores, color="k", lw=0.6, ls="--", label=f"site ({site_cores:.0f} cores)")
        ax.set_ylabel(f"cores, lambda={lam}")
        ax.legend(fontsize=7, loc="upper right")
    axes[-1, 0].set_xlabel("days into the segment")
    axes[0, 0].set_title("Elastic pool size (6-hour moving mean of the 15-minute decisions, replication 0)")
    path = out / "pool_sizes.png"
    fig.savefig(path, dpi=120)
    return path

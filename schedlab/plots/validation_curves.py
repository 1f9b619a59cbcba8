"""Models' validation scores over their training, on one axis: search generations, then PPO's validations.

A training of :mod:`schedlab.training.rlscheduler` validates its weights every few
generations of the search and then every few thousand PPO steps, and saves each
validation as a point of its curve (``phase``: ``start``, ``search`` or ``ppo``;
``generation``; ``relative_to_sjf``, its score over SJF's on the same windows). Models
trained on pools of different sizes spend their CPU time in different processes, so the
x axis is progress, not time: the search generation, and after a dotted line PPO's
validations, ten units apart.

Random weights start far above SJF. The y scale keeps the learning in view and names,
in the plot, the values it leaves above it, so that no point is hidden.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

from schedlab.plots._mpl import new_figure

__all__ = ["progress", "validation_curves"]

#: the x distance between two of PPO's validations, in search generations
PPO_STEP = 10


def progress(curve: Sequence[Mapping[str, Any]]) -> list[float]:
    """Each validation's place on the common axis: its search generation; PPO's after the last, ten apart.

    >>> progress([{"phase": "start"}, {"phase": "search", "generation": 10}, {"phase": "ppo"}, {"phase": "ppo"}])
    [0.0, 10.0, 20.0, 30.0]
    """
    places: list[float] = []
    for point in curve:
        if point["phase"] == "ppo":
            places.append((places[-1] if places else 0.0) + PPO_STEP)
        else:
            places.append(float(point.get("generation", 0)))
    return places


def validation_curves(curves: Mapping[str, Sequence[Mapping[str, Any]]], score: str, title: str) -> Any:
    """A Figure of each model's validation score over SJF's, against its training's progress.

    Parameters
    ----------
    curves
        The points of each model's curve (as saved with it), by the model's name in the legend.
        Points without ``relative_to_sjf`` are left out.
    score
        What the validation measured (``bsld``, ``wait``, ...), for the y axis's label.
    title
        The figure's title (the models' log; what a validation averages).

    Raises
    ------
    ImportError
        When matplotlib is missing; the message names ``pip install schedlab[plot]``.
    """
    kept = {name: [p for p in curve if "relative_to_sjf" in p] for name, curve in curves.items()}
    places = {name: progress(curve) for name, curve in kept.items()}
    trained = [p["relative_to_sjf"] for curve in kept.values() for p in curve if p["phase"] != "start"]
    top, low = max([1.2, *(1.1 * v for v in trained)]), min([0.9, *(0.95 * v for v in trained)])
    fig = new_figure(9, 4.5)
    ax = fig.axes[0]
    for name, curve in kept.items():
        if curve:
            ax.plot(places[name], [p["relative_to_sjf"] for p in curve], marker=".", label=name)
    ax.axhline(1.0, color="grey", linestyle="--", linewidth=1, label="SJF")
    ax.set_ylim(low, top)
    off = [
        f"{name} at {x:g}: {p['relative_to_sjf']:.2f}"
        for name, curve in kept.items()
        for x, p in zip(places[name], curve, strict=True)
        if p["relative_to_sjf"] > top
    ]
    if off:
        text = textwrap.fill("above the scale: " + "; ".join(off), 110)
        ax.text(
            0.01,
            0.98,
            text,
            transform=ax.transAxes,
            va="top",
            fontsize=7,
            zorder=5,
            bbox={"facecolor": "white", "lw": 0},
        )
    points = [p for curve in kept.values() for p in curve]
    if any(p["phase"] == "ppo" for p in points):  # where the search ended and PPO began
        ax.axvline(max(p.get("generation", 0) for p in points), color="grey", linestyle=":", linewidth=1)
    ax.set_xlabel("search generation (0: after imitation); right of the dotted line, PPO's validations")
    ax.set_ylabel(f"validation {score} / SJF's")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    return fig

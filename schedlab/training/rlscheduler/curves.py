"""The learning curves saved with RLScheduler models, as one table and one picture.

Every model :func:`~schedlab.envs.rlscheduler.model_files.save_model` writes carries its
training's curve in ``seed<k>.json``: a point after imitation, every few generations of
the search and every few thousand steps of PPO, each the validation's score and its
ratio to SJF's on the same windows. :func:`write_learning_curves` gathers the curves of
the models a run evaluated into ``learning_curves.csv`` and draws them in
``learning_curves.png``, so that a table's figures can be read beside how each model got
there (which stage its kept weights come from, a seed whose search never left SJF's).
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from pathlib import Path

from schedlab.envs.rlscheduler.model_files import read_settings
from schedlab.plots import agg_pyplot, validation_curves

__all__ = ["write_learning_curves"]


def write_learning_curves(models: Mapping[str, Path], score_type: str, trained_on: str, out: Path) -> list[Path]:
    """Write the curves of ``models`` (by their name in the picture) into ``out``; the files written.

    Models without a settings file (none saved beside the ``.zip``) have no curve and are
    left out; with no curve at all nothing is written. Without matplotlib the table alone
    is written. ``score_type`` labels the y axis, ``trained_on`` names the models' log in
    the title.
    """
    points = []
    for name, path in models.items():
        if path.with_suffix(".json").is_file():
            points += [{"model": name, **point} for point in read_settings(path).get("curve", [])]
    if not points:
        return []
    table = out / "learning_curves.csv"
    with open(table, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(dict.fromkeys(k for p in points for k in p)))
        writer.writeheader()
        writer.writerows(points)
    if agg_pyplot(wrote=table.name) is None:
        return [table]
    both = {"validation_other_backfill" in p for p in points}
    averages = {
        frozenset({True}): "validation: the mean of both backfilling settings",
        frozenset({True, False}): "validation: the mean of both backfilling settings; a model trained in one: that one",
    }.get(frozenset(both), "")
    curves = {name: [p for p in points if p["model"] == name] for name in models}
    fig = validation_curves(curves, score_type, f"Learning curves: models of {trained_on}\n{averages}".strip())
    picture = out / "learning_curves.png"
    fig.savefig(picture, dpi=100)
    return [table, picture]

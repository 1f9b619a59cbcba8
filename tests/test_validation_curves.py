"""Models' validation curves on one axis: what the figure draws is what the curves say."""

from __future__ import annotations

import doctest
import importlib

import pytest

pytest.importorskip("matplotlib")

from schedlab.plots.validation_curves import validation_curves


def _curve(start: float, search: list[float], ppo: list[float]) -> list[dict]:
    points = [{"phase": "start", "generation": 0, "relative_to_sjf": start}]
    points += [{"phase": "search", "generation": 10 * (i + 1), "relative_to_sjf": v} for i, v in enumerate(search)]
    return points + [{"phase": "ppo", "step": 4096 * (i + 1), "relative_to_sjf": v} for i, v in enumerate(ppo)]


def test_the_docstring_example_runs():
    module = importlib.import_module("schedlab.plots.validation_curves")  # the package's name is the function
    failed, tried = doctest.testmod(module)
    assert tried > 0 and failed == 0


def test_each_model_is_drawn_on_search_generations_then_ppo_and_a_start_off_the_scale_is_named():
    curves = {"seed 0": _curve(9.18, [0.9, 0.8], [0.85]), "seed 1": _curve(0.95, [0.7], [])}
    fig = validation_curves(curves, "bsld", "Learning curves: models of lublin_256")
    ax = fig.axes[0]
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert list(lines["seed 0"].get_xdata()) == [0, 10, 20, 30] and list(lines["seed 0"].get_ydata()) == [
        9.18,
        0.9,
        0.8,
        0.85,
    ]
    assert list(lines["seed 1"].get_xdata()) == [0, 10]
    low, top = ax.get_ylim()
    assert low <= 0.7 * 0.95 + 1e-9 and 1.2 <= top < 9.18  # the learning in view, the random start off it
    [note] = [t.get_text() for t in ax.texts]
    assert "seed 0 at 0: 9.18" in note and "seed 1" not in note
    assert [x for line in ax.get_lines() if line.get_linestyle() == ":" for x in line.get_xdata()] == [20, 20]
    assert ax.get_ylabel() == "validation bsld / SJF's"


def test_points_without_a_score_over_sjf_are_left_out():
    curve = [*_curve(1.0, [0.9], []), {"phase": "search", "generation": 20}]
    fig = validation_curves({"seed 0": curve}, "wait", "t")
    [line] = [line for line in fig.axes[0].get_lines() if line.get_label() == "seed 0"]
    assert list(line.get_xdata()) == [0, 10]

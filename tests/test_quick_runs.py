"""Every scenario's ``--quick`` run gives the results it gave before, within stated tolerances.

Each scenario runs as ``schedlab run scenarios/<name>.py --quick --executor serial``
would, and its rows, replications and job records are compared with the values stored
in ``tests/data/quick_runs/<name>.json`` (``tests/quick_runs.py`` says what is kept,
``tests/quick_compare.py`` each tolerance and why). On a difference the test prints
scenario, table, row and cell, column, stored value, new value and tolerance.

A change that *means* to change results (a bug fix, a new default) regenerates the
stored values in the same commit, with one command from the repository root, and says
why in its message::

    python tests/quick_runs.py --regenerate            # every scenario
    python tests/quick_runs.py --regenerate deeprm     # one

A refactoring that claims "bit for bit the same" checks that in one environment with
``python tools/digests.py --save FILE`` before and ``--check FILE`` after.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from quick_compare import LEARNED, SUMMATION_ORDER, compare, report
from quick_runs import REGENERATE, SCENARIOS, check, load, reduce_run, run_quick


@pytest.mark.parametrize("name", SCENARIOS)
def test_quick_run_gives_the_stored_results(name, tmp_path, capsys):
    run_quick(name, tmp_path / name)
    capsys.readouterr()  # the run's own report: not what a failure should show
    diff = check(name, reduce_run(tmp_path / name))
    if diff is not None:
        pytest.fail(diff, pytrace=False)


def test_one_changed_number_is_reported_with_where_it_is_and_how_far_it_moved():
    stored = load("mmc")
    new = copy.deepcopy(stored)
    new["rows"][0]["wait_mean"] *= 1 + 1e-6  # far above summation order, far below any visible change
    new["replications"][3]["utilization"] += 1e-4
    new["records"]["groups"][2]["n"] += 1  # a count: exact
    diffs = compare("mmc", stored, new)
    assert [(d.table, d.column) for d in diffs] == [
        ("rows", "wait_mean"), ("replications", "utilization"), ("records group", "number of records"),
    ]  # fmt: skip
    text = report("mmc", diffs, "tests/data/quick_runs/mmc.json", REGENERATE)
    old, now = stored["rows"][0]["wait_mean"], new["rows"][0]["wait_mean"]
    assert f"mmc rows [0] wait_mean: stored {old!r}, new {now!r} (tolerance rel 1e-09 + abs 1e-12, |diff| " in text
    assert "mmc replications [3] (rep=3) utilization: stored" in text
    assert "mmc records group [2] (rep=2) number of records: stored 5000, new 5001 (exact)" in text
    assert f"{REGENERATE} mmc" in text


def test_a_mean_summed_in_another_order_is_the_same_result():
    stored = load("mmc")
    waits = [r["wait_mean"] for r in stored["replications"]]

    def mean(order):  # an explicit loop: the same bits on every Python (3.12's sum() is compensated)
        total = 0.0
        for i in order:
            total += waits[i]
        return total / len(waits)

    in_order = mean(range(len(waits)))
    rng = np.random.default_rng(0)
    reordered = next(m for m in (mean(rng.permutation(len(waits))) for _ in range(100)) if m != in_order)
    assert math.isclose(reordered, in_order, rel_tol=1e-15)  # only the last bits differ
    a, b = copy.deepcopy(stored), copy.deepcopy(stored)
    a["rows"][0]["wait_mean"], b["rows"][0]["wait_mean"] = in_order, reordered
    assert compare("mmc", a, b) == []


def test_a_half_width_may_move_with_scipys_t_quantile_and_a_mean_may_not():
    stored = load("utility_scheduling")
    scipy_1_11 = copy.deepcopy(stored)
    scipy_1_11["rows"][0]["productivity_ci95"] *= 1 + 1.3e-9  # what scipy 1.11.1's stdtrit gave against 1.17.1's
    assert compare("utility_scheduling", stored, scipy_1_11) == []
    moved = copy.deepcopy(stored)
    moved["rows"][0]["productivity"] *= 1 + 1.3e-9
    assert [d.column for d in compare("utility_scheduling", stored, moved)] == ["productivity"]


def test_a_learned_cell_is_held_to_its_stored_interval_and_its_jobs_exactly():
    stored = load("responsive_grid")
    learned = LEARNED["responsive_grid"]
    i, row = next((i, r) for i, r in enumerate(stored["rows"]) if learned.covers(r) and r["wait_mean_ci95"])
    half = row["wait_mean_ci95"]
    inside, outside = copy.deepcopy(stored), copy.deepcopy(stored)
    inside["rows"][i]["wait_mean"] += 0.9 * half  # another path of the learner: within the stored interval
    outside["rows"][i]["wait_mean"] += 1.1 * half
    assert compare("responsive_grid", stored, inside) == []
    assert [d.column for d in compare("responsive_grid", stored, outside)] == ["wait_mean"]
    g = next(i for i, group in enumerate(stored["records"]["groups"]) if learned.covers(group["key"]))
    jobs = copy.deepcopy(stored)
    jobs["records"]["groups"][g]["columns"]["runtime"]["sum"] *= 1 + 1e-6  # the jobs are not the learner's
    assert [d.column for d in compare("responsive_grid", stored, jobs)] == ["runtime (sum)"]


def test_the_default_tolerance_is_far_above_rounding_and_far_below_a_change():
    assert SUMMATION_ORDER.holds(0.1 + 0.2, 0.3)  # one rounding apart
    assert SUMMATION_ORDER.holds(1e-17, 0.0)  # near 0: the abs part
    assert not SUMMATION_ORDER.holds(1.0, 1.0 + 1e-8)
    assert SUMMATION_ORDER.holds(math.nan, math.nan) and not SUMMATION_ORDER.holds(math.nan, 0.0)
    assert SUMMATION_ORDER.holds(math.inf, math.inf) and not SUMMATION_ORDER.holds(math.inf, 1e308)

"""The table of RLScheduler's experiment, from replications: what ``scenarios/rlscheduler.py`` prints."""

from __future__ import annotations

import doctest

import pytest

from schedlab.papers import rlscheduler_tables
from schedlab.papers.rlscheduler_tables import row_line, run_caveat, table_rows


def reps(policy: str, seed: int, backfill: str, *values: float) -> list[dict]:
    """One replication per window: ``values`` are the windows' bounded slowdowns."""
    return [{"policy": policy, "seed": seed, "backfill": backfill, "bounded_slowdown": v} for v in values]


def test_the_docstring_example_runs() -> None:
    failed, tried = doctest.testmod(rlscheduler_tables)
    assert tried and not failed


def test_a_row_per_backfilling_setting_in_the_runs_order() -> None:
    run = reps("sjf", -1, "easy", 3.0, 5.0) + reps("rl", 0, "easy", 2.0, 2.0) + reps("rl", 0, "none", 9.0, 11.0)
    run += reps("sjf", -1, "none", 8.0, 8.0)
    rows = table_rows(run, "my_log", "my_log")
    assert [row["backfill"] for row in rows] == ["easy", "none"]
    easy, none = rows
    assert (easy["rl_mean"], easy["sjf"], easy["rl_minus_best"]) == pytest.approx((2.0, 4.0, -2.0))
    assert (none["rl_mean"], none["sjf"], none["rl_minus_best"]) == pytest.approx((10.0, 8.0, 2.0))


def test_a_seeds_value_is_its_mean_over_the_windows_and_the_spread_is_over_seeds() -> None:
    run = reps("rl", 0, "none", 10.0, 20.0) + reps("rl", 1, "none", 30.0, 50.0) + reps("rl", 2, "none", 20.0, 20.0)
    [row] = table_rows(run, "my_log", "my_log")
    assert row["rl_seeds"] == "15.00 40.00 20.00"
    assert row["rl_mean"] == pytest.approx(25.0)
    assert row["rl_half_range"] == pytest.approx(12.5)
    assert "best_heuristic" not in row  # no heuristic ran: no best to compare with


def test_a_mixtures_row_gives_the_logs_own_models_and_its_excess_over_them() -> None:
    run = reps("rl", 0, "none", 11.0) + reps("own", 3, "none", 9.0) + reps("own", 4, "none", 11.0)
    run += reps("f1", -1, "none", 12.0)
    [row] = table_rows(run, "my_log", "mix of a,b")
    assert (row["own_mean"], row["own_half_range"]) == pytest.approx((10.0, 1.0))
    assert row["own_seeds"] == "9.00 11.00"
    assert row["rl_vs_own"] == pytest.approx(0.1)
    assert row["best_heuristic"] == "f1"  # own models are not heuristics
    assert "own models 10.00 ± 1.00 (seeds 9.00 11.00), mix +10.0% of them" in row_line(row)


def test_a_paper_log_gets_the_published_values() -> None:
    [row] = table_rows(reps("rl", 0, "easy", 40.0) + reps("sjf", -1, "easy", 80.0), "lublin_256", "lublin_256")
    assert row["published_rl"] == 58.64
    assert row["published_best"] == "sjf 73.31"
    line = row_line(row)
    assert line.startswith("lublin_256 (models of lublin_256) easy: rl 40.00 ± 0.00 (seeds 40.00); best heuristic sjf")
    assert line.endswith("published rl 58.64, published best sjf 73.31")


def test_the_caveat_says_when_a_run_is_not_the_published_protocol() -> None:
    assert run_caveat(10, 1024, 1, 0, "") is None
    assert "not comparable" in run_caveat(2, 256, 1, 0, "")
    held_out = run_caveat(10, 1024, 1, 0, "75%")
    assert held_out.startswith("jobs never trained on: models trained within the first 75%")

"""The engine's first validation: M/M/c mean wait against Erlang C, utilization against rho.

Each case runs replications of scenarios/mmc.py and checks that the analytic mean
wait lies inside the 95% confidence interval of the measured one. The default suite
runs shorter replications; ``pytest -m slow`` runs long ones and more (c, rho).
"""

from __future__ import annotations

import pytest

from schedlab.experiment import run
from schedlab.experiment.cli import main

QUICK_CASES = [  # (c, rho, customers, reps)
    (1, 0.5, 10_000, 20),
    (1, 0.9, 20_000, 20),
    (4, 0.9, 10_000, 20),
]
SLOW_CASES = [
    (1, 0.95, 100_000, 40),
    (2, 0.8, 50_000, 30),
    (8, 0.9, 50_000, 30),
    (16, 0.95, 100_000, 30),
]


def _check(mmc_path, c, rho, customers, reps):
    row = run(
        mmc_path,
        overrides={"c": c, "arrival_rate": rho * c, "customers": customers},
        reps=reps,
        seed=2024,
        executor="process",
        workers=2,
        keep_records=False,
        progress=False,
    ).rows[0]
    assert abs(row["wait_mean"] - row["erlang_c_wait"]) <= row["wait_mean_ci95"], row
    assert row["rho"] == pytest.approx(rho)
    assert abs(row["utilization"] - rho) <= max(3 * row["utilization_ci95"], 0.01), row


@pytest.mark.parametrize("c, rho, customers, reps", QUICK_CASES)
def test_mmc_wait_matches_erlang_c(mmc_path, c, rho, customers, reps):
    _check(mmc_path, c, rho, customers, reps)


@pytest.mark.slow
@pytest.mark.parametrize("c, rho, customers, reps", SLOW_CASES)
def test_mmc_wait_matches_erlang_c_long(mmc_path, c, rho, customers, reps):
    _check(mmc_path, c, rho, customers, reps)


def test_unstable_queue_is_refused(mmc_path):
    with pytest.raises(ValueError, match=r"rho = arrival_rate / \(c \* service_rate\) = 1.2 >= 1"):
        run(mmc_path, overrides={"c": 1, "arrival_rate": 1.2}, reps=1, executor="serial")


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("arrival_rate=0", "arrival_rate=0.0 must be > 0"),
        ("arrival_rate=-1", "arrival_rate=-1.0 must be > 0"),
        ("service_rate=0", "service_rate=0.0 must be > 0"),
        ("c=0", "c=0 must be >= 1"),
        ("warmup_fraction=1", "warmup_fraction=1.0 must be < 1"),
    ],
)
def test_a_rate_of_zero_or_less_is_refused_in_one_line(mmc_path, capsys, setting, message):
    assert main(["run", str(mmc_path), "--executor", "serial", "--set", setting]) == 2
    assert capsys.readouterr().err.splitlines()[0] == f"error: scenario 'mmc': {message}"

"""scenarios/utility_scheduling.py: its configuration checks and a tiny run of each figure."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from schedlab.experiment import run
from schedlab.experiment.scenario import load_scenario

PATH = Path(__file__).resolve().parent.parent / "scenarios" / "utility_scheduling.py"
TINY = {"train_time": 600.0, "test_time": 400.0}


@pytest.mark.parametrize(
    "override, message",
    [
        ({"cpus_max": 30}, "cpus_max=30 is beyond the machine's cpus=24"),
        ({"cpus_min": 0}, "cpus_min"),
        ({"arrival_rate": -0.1}, r"arrival_rate=-0.1 must be >= 0"),
        ({"arrival_rate": 0.0}, "arrival_rate must be finite and > 0"),
        ({"arrival_rates": (0.1, 0.0)}, "arrival_rates"),
        ({"max_job_length": 0}, "max_job_length"),
        ({"max_job_length": -3}, "max_job_length"),
        ({"tuf_shape": "cubic"}, "tuf_shape"),
        ({"policy": "shortest-first"}, "unknown policy"),
        ({"experiment": "fig9"}, "experiment"),
        ({"length_min": 0}, "length_min"),
    ],
)
def test_bad_configuration_is_named(override, message):
    with pytest.raises(ValueError, match=message):
        load_scenario(PATH).config(override)


def test_policies_experiment_gives_the_seven_policies_with_learned_p():
    results = run(PATH, overrides=TINY, reps=2, seed=5, executor="serial", progress=False, keep_records=False)
    rows = {row["policy"]: row for row in results.rows}
    assert list(rows) == [
        "best-fit",
        "aggressive-oversubscribe",
        "aggressive-preempt",
        "aggressive-both",
        "utility-oversubscribe",
        "utility-preempt",
        "utility-both",
    ]
    for name, row in rows.items():
        assert row["arrival_rate"] == 0.1 and row["tuf_shape"] == "linear"
        assert 0 < row["productivity_fraction"] <= row["utilization"] <= 1
        assert row["productivity"] == pytest.approx(row["productivity_fraction"] * 24 * 400)
        assert row["completed"] > 0 and row["wait_mean"] >= 0
        learned = [row.get(f"p{i}", math.nan) for i in range(1, 9)]
        assert all(math.isfinite(v) for v in learned) == name.startswith("utility"), (name, learned)
    # common random numbers: every policy saw the same arrivals, and best-fit never preempts
    assert rows["best-fit"]["preemptions"] == 0 and rows["aggressive-oversubscribe"]["preemptions"] == 0


def test_sweeps_of_figures_4_and_5():
    rates = run(
        PATH,
        overrides={**TINY, "experiment": "arrival_rate", "arrival_rates": (0.05, 0.2)},
        reps=1,
        executor="serial",
        progress=False,
        keep_records=False,
    )
    assert [(r["arrival_rate"], r["policy"]) for r in rates.rows] == [
        (0.05, "best-fit"),
        (0.05, "aggressive-both"),
        (0.05, "utility-both"),
        (0.2, "best-fit"),
        (0.2, "aggressive-both"),
        (0.2, "utility-both"),
    ]
    shapes = run(
        PATH,
        overrides={**TINY, "experiment": "tuf_shape", "sweep_policies": ("utility-both",)},
        reps=1,
        executor="serial",
        progress=False,
        keep_records=False,
    )
    assert [r["tuf_shape"] for r in shapes.rows] == ["linear", "convex", "concave"]


def test_same_seed_same_results_in_a_process_pool():
    kw = dict(
        overrides={**TINY, "experiment": "tuf_shape", "sweep_policies": ("utility-both",)},
        reps=2,
        seed=11,
        progress=False,
        keep_records=False,
    )
    serial = run(PATH, executor="serial", **kw)
    pooled = run(PATH, executor="process", workers=2, **kw)
    assert serial.replications == pooled.replications

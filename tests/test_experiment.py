"""The experiment runner: seeds, replications, sweeps, executors, the summary contract, the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from schedlab.experiment import ConfigError, ScenarioError, load_scenario, replication_seeds, run
from schedlab.experiment.cli import main
from schedlab.experiment.results import ci95_halfwidth
from schedlab.model.core.streams import Streams

TINY = Path(__file__).parent / "scenarios" / "tiny_policies.py"


# ----------------------------------------------------------------------------- seeding
def test_named_streams_are_reproducible_and_independent_of_order():
    a, b = Streams(np.random.SeedSequence(5)), Streams(np.random.SeedSequence(5))
    first = a["arrivals"].random(3)
    b["exploration"].random(10)  # drawing another stream first changes nothing
    assert np.array_equal(first, b["arrivals"].random(3))
    assert not np.array_equal(first, Streams(np.random.SeedSequence(5))["sizes"].random(3))


def test_replication_seeds_differ_and_repeat():
    one, two = replication_seeds(3, 4), replication_seeds(3, 4)
    assert [s.spawn_key for s in one] == [(0,), (1,), (2,), (3,)]
    draws = [np.random.default_rng(s).random() for s in one]
    assert draws == [np.random.default_rng(s).random() for s in two]
    assert len(set(draws)) == 4


@pytest.mark.parametrize("seed, reps", [(-1, 2), (1, 0), (1.5, 2)])
def test_bad_seed_or_reps_is_refused(seed, reps):
    with pytest.raises(ValueError, match="must be a whole number"):
        replication_seeds(seed, reps)


def test_ci95_halfwidth_matches_student_t():
    # n = 4, s = 1.2910: t(0.975, 3) = 3.1824 -> 3.1824 * 1.2910 / 2
    assert ci95_halfwidth([1.0, 2.0, 3.0, 4.0]) == pytest.approx(2.0542, abs=1e-4)
    assert np.isnan(ci95_halfwidth([1.0]))


# ----------------------------------------------------------------------------- runs
def test_cells_rows_and_summary_contract(tmp_path):
    results = run(TINY, reps=3, seed=1, executor="serial", quick=True)
    assert [row["policy"] for row in results.rows] == ["fcfs", "sjf", "best_fit"]
    for row in results.rows:
        for metric in ("completed", "wait_mean", "response_mean", "bounded_slowdown_mean"):
            assert metric in row and f"{metric}_ci95" in row
        assert row["completed"] == 100
    out = results.save(tmp_path / "out")
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary) == {"scenario", "seed", "reps", "quick", "config", "rows"}
    assert summary["scenario"] == "tiny_policies" and summary["reps"] == 3 and summary["quick"] is True
    assert summary["config"]["jobs"] == 100
    assert pd.read_csv(out / "summary.csv")["policy"].tolist() == ["fcfs", "sjf", "best_fit"]
    records = pd.read_parquet(out / "records.parquet")
    assert len(records) == 3 * 3 * 100 and {"policy", "rep", "wait", "status"} <= set(records.columns)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["seed"] == 1 and "numpy" in manifest["versions"] and manifest["run"]["seed_entropy"] == 1


def test_common_random_numbers_across_cells():
    """Replication r of every cell sees the same arrivals (only the policy differs)."""
    records = run(TINY, reps=2, seed=4, executor="serial", quick=True).records
    by_cell = {p: g.sort_values(["rep", "id"])["submit"].to_numpy() for p, g in records.groupby("policy")}
    assert np.array_equal(by_cell["fcfs"], by_cell["sjf"]) and np.array_equal(by_cell["fcfs"], by_cell["best_fit"])


def test_sweep_adds_factor_columns():
    results = run(TINY, reps=2, executor="serial", quick=True, sweep={"cpus": [8, 16]}, overrides={"policies": "fcfs"})
    assert [(r["cpus"], r["policy"]) for r in results.rows] == [(8, "fcfs"), (16, "fcfs")]
    assert results.rows[1]["wait_mean"] < results.rows[0]["wait_mean"]


def _records(executor, **kw):
    return run(TINY, reps=2, seed=11, quick=True, executor=executor, **kw).records


def test_same_seed_same_records_serial_and_process_pool():
    serial = _records("serial")
    pooled = _records("process", workers=2)
    pd.testing.assert_frame_equal(serial, pooled, check_exact=True)
    other = run(TINY, reps=2, seed=12, quick=True, executor="serial").records
    assert not serial["submit"].equals(other["submit"])


def test_same_seed_same_records_on_dask():
    pytest.importorskip("dask.distributed")
    from dask.distributed import Client, LocalCluster

    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        on_dask = _records(client.get_executor())
    pd.testing.assert_frame_equal(_records("serial"), on_dask, check_exact=True)


# ----------------------------------------------------------------------------- bad input
def test_unknown_config_key_lists_the_valid_ones():
    with pytest.raises(ConfigError, match=r"unknown config key\(s\) 'cpu'; valid keys: cpus, arrival_rate, jobs"):
        load_scenario(TINY).config({"cpu": "4"})


@pytest.mark.parametrize(
    "key, value, message",
    [
        ("cpus", "four", "cpus is an int, got 'four'"),
        ("arrival_rate", "fast", "arrival_rate is a float, got 'fast'"),
    ],
)
def test_wrong_type_is_named(key, value, message):
    with pytest.raises(ConfigError, match=message):
        load_scenario(TINY).config({key: value})


def test_strings_are_parsed_by_field_type():
    cfg = load_scenario(TINY).config({"cpus": "16", "arrival_rate": "1e-1", "policies": "sjf, fcfs"})
    assert (cfg.cpus, cfg.arrival_rate, cfg.policies) == (16, 0.1, ("sjf", "fcfs"))


def test_missing_and_buildless_scenarios(tmp_path):
    with pytest.raises(ScenarioError, match="does not exist"):
        load_scenario(tmp_path / "nope.py")
    script = tmp_path / "empty.py"
    script.write_text("x = 1\n")
    with pytest.raises(ScenarioError, match="defines no build"):
        load_scenario(script)
    broken = tmp_path / "broken.py"
    broken.write_text("def build(:\n")
    with pytest.raises(ScenarioError, match=r"broken.py:1: syntax error"):
        load_scenario(broken)


READS_A_FILE = """
from dataclasses import dataclass
from pathlib import Path

@dataclass(frozen=True)
class Config:
    data: str = "../no-such-folder/jobs.txt"
    jobs: int = 10

    def __post_init__(self):
        if not Path(self.data).is_file():
            raise ValueError("no data file at " + self.data)

QUICK = dict({quick})

def build(env, cfg, cell, streams):
    return None
"""


def test_loading_checks_quick_field_by_field_without_reading_the_default_files(tmp_path):
    """A config that reads its default data file at construction loads from any folder; ``--set`` moves the file."""
    script = tmp_path / "reads.py"
    script.write_text(READS_A_FILE.format(quick="jobs=2"))
    scenario = load_scenario(script)  # the default file is not there: loading must not build the config
    data = tmp_path / "jobs.txt"
    data.write_text("1\n")
    assert scenario.config({"data": str(data)}, quick=True).jobs == 2
    with pytest.raises(ConfigError, match=r"no data file at \.\./no-such-folder"):
        scenario.config()
    misspelt = tmp_path / "misspelt.py"
    misspelt.write_text(READS_A_FILE.format(quick="jbos=2"))
    with pytest.raises(ScenarioError, match=r"misspelt.py: QUICK: unknown config key\(s\) 'jbos'"):
        load_scenario(misspelt)
    wrong = tmp_path / "wrong.py"
    wrong.write_text(READS_A_FILE.format(quick="jobs='two'"))
    with pytest.raises((ScenarioError, ConfigError), match="jobs"):
        load_scenario(wrong)


def test_a_failing_replication_names_its_cell(tmp_path):
    script = tmp_path / "fails.py"
    script.write_text(TINY.read_text().replace("Machine(env, cfg.cpus,", "Machine(env, cfg.cpus - 8,"))
    with pytest.raises(Exception, match=r"cell 0 \{'policy': 'fcfs'\} replication 0: ValueError: .*capacity"):
        run(script, reps=1, executor="serial", quick=True)


# ----------------------------------------------------------------------------- CLI
def test_cli_run_prints_table_and_saves(tmp_path, capsys):
    code = main(
        [
            "run",
            str(TINY),
            "--quick",
            "--reps",
            "2",
            "--executor",
            "serial",
            "--out",
            str(tmp_path / "o"),
            "--set",
            "policies=fcfs",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "policy" in out and "wait_mean" in out and "fcfs" in out
    assert (tmp_path / "o" / "summary.json").exists()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--set", "nope=1"], "unknown config key(s) 'nope'; valid keys: cpus"),
        (["--set", "cpus=1.5"], "cpus is an int, got '1.5'"),
        (["--set", "cpus"], "--set 'cpus': expected key=value"),
        (["--reps", "0"], "--reps must be >= 1"),
    ],
)
def test_cli_errors_are_one_clear_line(argv, message, capsys):
    code = main(["run", str(TINY), "--executor", "serial", *argv])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and "Traceback" not in err


def test_cli_missing_script(capsys):
    assert main(["run", "no/such/scenario.py"]) == 2
    assert "scenario file 'no/such/scenario.py' does not exist" in capsys.readouterr().err


def test_cli_trace_prints_events(capsys):
    assert main(["trace", str(TINY), "--until", "5"]) == 0
    out = capsys.readouterr().out
    assert "time" in out and "arrive" in out and "start" in out


def test_scenario_script_runs_as_a_program(tmp_path):
    proc = subprocess.run(
        [sys.executable, str(TINY), "--quick", "--reps", "2", "--executor", "serial", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "best_fit" in proc.stdout


def test_help_does_not_import_torch_or_simpy():
    code = "import sys; from schedlab.experiment.cli import main; print('torch' in sys.modules, 'simpy' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.split() == ["False", "False"]

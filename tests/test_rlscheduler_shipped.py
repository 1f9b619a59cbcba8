"""The models shipped with schedlab (envs/rlscheduler/trained/) run through a short version of the published protocol.

Each shipped model is evaluated (greedy) on the first two of RLScheduler's published
windows (1,024 jobs from positions 1981 and 2756, seed 1), without and with EASY
backfilling, beside SJF on the same windows; the values are those `scenarios/rlscheduler.py`
measured when the models were trained (its replications.csv), compared with a relative
tolerance, since a network's arithmetic may differ a little between PyTorch builds and
one different choice changes a window's schedule from there on.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import simpy

pytest.importorskip("sb3_contrib")

from schedlab.envs.rlscheduler.env import ModelChooser, RLSchedulerConfig
from schedlab.envs.rlscheduler.model_files import load_model, seeds_in
from schedlab.envs.rlscheduler.obs import log_features
from schedlab.model.formats.logs import evaluate
from schedlab.papers.rlscheduler_published import LOGS
from schedlab.processes.machine.replay import replay_model
from schedlab.training.rlscheduler.validation import heuristic_scores

ROOT = Path(__file__).resolve().parents[1]
TRACES = ROOT.parent / "shared" / "traces"
TRAINED = ROOT / "schedlab" / "envs" / "rlscheduler" / "trained"
WINDOWS = (1981, 2756)
#: (log, seed, backfill) -> bounded slowdown on WINDOWS, as scenarios/rlscheduler.py measured it (replications.csv);
#: a log's lowest shipped seed
MEASURED = {
    ("lublin_256", 0, "none"): (271.2557178188914, 147.3256504112182),
    ("lublin_256", 0, "easy"): (53.86702398236956, 33.72624927662242),
    ("SDSC-SP2-1998-4.2-cln", 3, "none"): (68.18496355691586, 225.7844049993699),
    ("SDSC-SP2-1998-4.2-cln", 3, "easy"): (17.172233250519945, 87.60838796644423),
    ("HPC2N-2002-2.2-cln", 0, "none"): (40.03121956103002, 99.70196829175539),
    ("HPC2N-2002-2.2-cln", 0, "easy"): (32.01173211064791, 37.03536173430803),
    ("lublin_256_new2", 2, "none"): (360.5934733351268, 934.180204141383),
    ("lublin_256_new2", 2, "easy"): (55.76476778655649, 78.31543615352511),
    # the EASY cells' own models (trained/<log>/easy/), their lowest seed
    ("lublin_256/easy", 9, "easy"): (34.21686603638396, 38.821319378839206),
}
#: relative tolerance: float differences between builds may flip a near-tie between two jobs
RTOL = 0.05


def _config(folder: str, backfill: str) -> RLSchedulerConfig:
    log = folder.split("/")[0]  # lublin_256/easy: Lublin-1's models for its EASY cells
    within = next(p.draw_within for p in LOGS if p.name == log)
    return RLSchedulerConfig(log=log, backfill=backfill == "easy", draw_within=within, logs_dir=str(TRACES))


def _rl(folder: str, seed: int, backfill: str) -> list[float]:
    cfg = _config(folder, backfill)
    model = load_model(TRAINED / folder / f"seed{seed}.zip", cfg)
    loaded = cfg.loaded
    features = log_features(str(cfg.path), loaded.cpus * loaded.procs_per_node)
    out = []
    for start in WINDOWS:
        policy = ModelChooser(model, features, cfg.queue, cfg.backfill)
        jobs = loaded.jobs[start : start + 1024]
        records = replay_model(simpy.Environment(), jobs, loaded.cpus, policy, compat="rlscheduler").run().records()
        out.append(evaluate(records, loaded.cpus)["bounded_slowdown"])
    return out


@pytest.mark.parametrize("key", sorted(MEASURED), ids=lambda k: f"{k[0]}-seed{k[1]}-{k[2]}")
def test_a_shipped_model_gives_its_measured_table(key):
    folder, seed, backfill = key
    if not (TRACES / f"{folder.split('/')[0]}.swf.gz").exists():
        pytest.skip("needs ../shared/traces")
    got = _rl(folder, seed, backfill)
    sjf = heuristic_scores(_config(folder, backfill), "sjf", WINDOWS, 1024)
    print(
        f"{folder} seed {seed} {backfill}: rl {[round(x, 2) for x in got]} (measured "
        f"{[round(x, 2) for x in MEASURED[key]]}), sjf {[round(x, 2) for x in sjf]}"
    )
    assert got == pytest.approx(MEASURED[key], rel=RTOL)


def test_every_shipped_model_has_its_settings_and_curve():
    import json

    zips = sorted(TRAINED.glob("*/seed*.zip")) + sorted(TRAINED.glob("*/easy/seed*.zip"))
    assert zips, "no model shipped"
    for path in zips:
        meta = json.loads(path.with_suffix(".json").read_text())
        log = path.parent.parent.name if path.parent.name == "easy" else path.parent.name
        assert meta["env"]["log"] == log and meta["env"]["queue"] == 128
        if path.parent.name == "easy":  # the EASY cells' models: trained with EASY, alone or beside no backfilling
            assert meta["env"]["backfill"] or meta["train"]["both_backfills"]
        assert meta["curve"] and all("validation" in point for point in meta["curve"])
        assert path.stat().st_size < 200_000


def test_a_model_is_refused_with_another_logs_settings():
    cfg = RLSchedulerConfig(log="lublin_256_new2", logs_dir=str(TRACES))
    with pytest.raises(ValueError, match="trained with log='lublin_256', this run has log='lublin_256_new2'"):
        load_model(TRAINED / "lublin_256" / "seed0.zip", cfg)


def test_the_scenario_evaluates_the_shipped_models_in_its_quick_run(tmp_path):
    """`schedlab run scenarios/rlscheduler.py --quick` finds the shipped model and trains nothing."""
    from schedlab.experiment import run

    if importlib.util.find_spec("sb3_contrib") is None or not (TRACES / "lublin_256.swf.gz").exists():
        pytest.skip("needs the rl extra and ../shared/traces")
    results = run(
        ROOT / "scenarios" / "rlscheduler.py",
        quick=True,
        executor="serial",
        overrides={"logs_dir": str(TRACES), "out_dir": str(tmp_path / "models")},
    )
    assert not (tmp_path / "models").exists()  # nothing trained: the shipped model was used
    policies = {(r["policy"], r["backfill"]) for r in results.rows}
    assert ("rl", "none") in policies and ("sjf", "easy") in policies


def test_the_scenario_refuses_another_logs_models_before_any_replication(tmp_path, capsys):
    """A folder of models trained on Lublin-1 given for Lublin-2: one line from the command, nothing run."""
    from schedlab.experiment.cli import main

    if not (TRACES / "lublin_256_new2.swf.gz").exists():
        pytest.skip("needs ../shared/traces")
    argv = ["run", str(ROOT / "scenarios" / "rlscheduler.py"), "--set", "log=lublin_256_new2", "--set", "seeds=0"]
    argv += ["--set", f"model={TRAINED / 'lublin_256'}", "--set", f"logs_dir={TRACES}", "--out", str(tmp_path / "r")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "trained with log='lublin_256', this run has log='lublin_256_new2'" in err
    assert "replication" not in err and not (tmp_path / "r" / "replications.csv").exists()


def test_the_scenario_evaluates_the_seeds_shipped_for_the_log_unless_told_otherwise():
    """Seeds left empty are those of the models evaluated (a selection need not be 0, 1, 2), else 0, 1, 2."""
    from schedlab.experiment.scenario import load_scenario

    if not (TRACES / "lublin_256.swf.gz").exists():
        pytest.skip("needs ../shared/traces")
    scenario = load_scenario(ROOT / "scenarios" / "rlscheduler.py")
    for log in sorted(path.name for path in TRAINED.iterdir() if path.is_dir()):
        shipped = seeds_in(TRAINED / log)
        cfg = scenario.config(overrides={"log": log, "logs_dir": str(TRACES)})
        assert cfg.seeds == shipped, log
    trained = scenario.config(overrides={"model": "train", "logs_dir": str(TRACES)})
    assert trained.seeds == (0, 1, 2)
    told = scenario.config(overrides={"seeds": "7,8", "logs_dir": str(TRACES)})
    assert told.seeds == (7, 8)
    folder = scenario.config(overrides={"model": str(TRAINED / "lublin_256"), "logs_dir": str(TRACES)})
    assert folder.seeds == scenario.config(overrides={"logs_dir": str(TRACES)}).seeds


def test_a_training_range_draws_the_windows_only_from_the_jobs_after_it():
    """``training_range``: episodes within the first part of the log, evaluation windows wholly after it."""
    from schedlab.experiment.scenario import ConfigError, load_scenario

    if not (TRACES / "HPC2N-2002-2.2-cln.swf.gz").exists():
        pytest.skip("needs ../shared/traces")
    scenario = load_scenario(ROOT / "scenarios" / "rlscheduler.py")
    base = {"log": "HPC2N-2002-2.2-cln", "logs_dir": str(TRACES)}
    for text, first in (("10000", 10_000), ("75%", round(0.75 * 202_871))):
        cfg = scenario.config(overrides={**base, "training_range": text})
        assert cfg.train_jobs == first and cfg.env_config(False).draw_within == first  # training stays inside
        assert all(first <= s and s + cfg.length <= 202_871 for s in cfg.starts())  # windows wholly outside
        assert cfg.starts() == scenario.config(overrides={**base, "training_range": text}).starts()  # seeded
    # HPC2N's shipped models were trained within the first 10,000 jobs: they qualify; Lublin's (whole log) do not
    lublin = scenario.config(overrides={"log": "lublin_256", "logs_dir": str(TRACES), "training_range": "75%"})
    cells = scenario.module.cells
    with pytest.raises(ValueError, match="trained on episodes drawn from the whole log"):
        cells(lublin)
    for bad in ("abc", "0", "150%", "10000000"):
        with pytest.raises(ConfigError, match="training_range must be"):
            scenario.config(overrides={**base, "training_range": bad})

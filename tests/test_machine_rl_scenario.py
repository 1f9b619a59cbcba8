"""scenarios/machine_rl.py with a tiny budget: trains once on the log's first part, evaluates on its last part."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from schedlab.experiment import run
from schedlab.experiment.cli import main as cli
from schedlab.experiment.scenario import load_scenario
from schedlab.policies.scoring import SCORES

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "machine_rl.py"
TRACES = ROOT.parent / "shared" / "traces"
COLUMNS = {"policy", "slowdown_mean", "bounded_slowdown_mean", "response_mean", "utilization"}
POLICIES = ("dqn", "fcfs", "sjf", "easy", "sjf_easy", "random", "recipe")  # the tiny run's


@pytest.fixture
def tiny(tmp_path):
    before = torch.get_num_threads()
    yield {
        "train_steps": 300,
        "learning_starts": 100,
        "buffer_size": 300,
        "eval_every": 150,
        "validation": 2,
        "hidden": "16",
        "length": 32,
        "window": 4,
        "windows": 3,
        "out_dir": str(tmp_path / "agent"),
        "logs_dir": str(TRACES),
        "recipe_generations": 1,
        "recipe_pairs": 1,
        "recipe_episodes": 1,
        "recipe_validation": 1,
        "recipe_imitation": 1,
        "policies": ",".join(POLICIES),
    }
    torch.set_num_threads(before)


def test_the_default_run_holds_every_order_strict_and_with_easy():
    """The best heuristic is the best of every registered order (not sjf-runtime: clairvoyant), strict and with EASY."""
    if not TRACES.is_dir():
        pytest.skip("traces not present")
    cfg = load_scenario(SCENARIO).config({"logs_dir": str(TRACES)})
    orders = [name for name in SCORES if name != "sjf-runtime"]
    expected = {*orders, "easy", *(f"{name}_easy" for name in orders if name != "fcfs")}
    assert set(cfg.policies) == {"dqn", "random", "recipe"} | expected and "sjf-runtime" not in cfg.policies


def test_the_scenario_trains_once_and_evaluates_every_policy_on_held_out_windows(tiny, tmp_path, capsys):
    results = run(SCENARIO, overrides=tiny, seed=1, executor="serial", progress=False)
    assert results.reps == 3  # one replication per test window
    assert [row["policy"] for row in results.rows] == list(POLICIES)
    for row in results.rows:
        assert set(row) >= COLUMNS
        assert row["slowdown_mean"] >= 1 and row["bounded_slowdown_mean"] >= 1 and 0 < row["utilization"] <= 1
    # replication r replays the same window under every policy, all of it in the test part of the log
    scenario = load_scenario(SCENARIO)
    cfg = scenario.config(tiny)
    _, test = scenario.module.parts(cfg)
    cut, end = test.part
    starts = {}
    for rep in results.replications:
        starts.setdefault(rep["rep"], set()).add(rep["window_start"])
    assert sorted(starts) == [0, 1, 2] and all(len(s) == 1 for s in starts.values())
    assert all(cut <= s <= end - cfg.length for (s,) in starts.values())
    # the checkpoint and the training curve, with a greedy validation row every eval_every steps
    (checkpoint,) = (tmp_path / "agent").glob("dqn_*.pt")
    (curve_path,) = (tmp_path / "agent").glob("curve_*.csv")
    with open(curve_path) as fh:
        curve = list(csv.DictReader(fh))
    assert [row["step"] for row in curve if row["slowdown"]] == ["150", "300"]
    # a second run with the same training settings reuses the checkpoint: same file, same DQN rows
    stamp = checkpoint.stat().st_mtime_ns
    again = run(SCENARIO, overrides={**tiny, "policies": "dqn"}, seed=1, executor="serial", progress=False)
    assert checkpoint.stat().st_mtime_ns == stamp
    assert list((tmp_path / "agent").glob("dqn_*.pt")) == [checkpoint]
    assert again.rows[0]["slowdown_mean"] == results.rows[0]["slowdown_mean"]
    # report: DQN minus every other policy, window by window
    capsys.readouterr()
    (paired,) = scenario.module.report(results, tmp_path)
    with open(paired) as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 3 and set(rows[0]) == {"rep", "window_start"} | {f"dqn_minus_{p}" for p in POLICIES[1:]}
    # each learner paired with the best heuristic, and with EASY's best order where that is another heuristic
    printed = capsys.readouterr().out
    for metric in ("slowdown", "bounded_slowdown"):
        means = {p: np.mean([r[f"{metric}_mean"] for r in results.replications if r["policy"] == p]) for p in POLICIES}
        best = min(("fcfs", "sjf", "easy", "sjf_easy"), key=means.__getitem__)
        best_easy = min(("easy", "sjf_easy"), key=means.__getitem__)
        label = metric.replace("_", " ")
        assert f"paired mean {label}, recipe - {best} (the best heuristic)" in printed
        assert (f"paired mean {label}, recipe - {best_easy} (EASY's best order)" in printed) == (best_easy != best)
    # the recipe's model, trained on the same first part of the log, cached beside the DQN's and reused likewise
    (model,) = (tmp_path / "agent").glob("recipe_*/model.pt")
    stamp = model.stat().st_mtime_ns
    again = run(SCENARIO, overrides={**tiny, "policies": "recipe"}, seed=1, executor="serial", progress=False)
    assert model.stat().st_mtime_ns == stamp and again.rows[0] == results.rows[-1]
    settings = scenario.module.recipe_config(cfg).env_settings
    assert settings["log_span"] == [0.0, cfg.train_fraction] and settings["backfill"] == "sjf"


def test_recipe_candidates_train_a_model_per_seed_and_evaluate_the_best_on_validation(tiny, tmp_path):
    """The recipe's choice among seeds: each seed's model is trained once, the best on validation is evaluated."""
    import json

    from schedlab.training.select import pick

    tiny = {**tiny, "policies": "recipe", "recipe_validation": 2}
    alone = run(SCENARIO, overrides=tiny, seed=1, executor="serial", progress=False)
    chosen = run(SCENARIO, overrides={**tiny, "recipe_candidates": "1,2"}, seed=1, executor="serial", progress=False)
    folders = sorted((tmp_path / "agent").glob("recipe_*/model.pt"))
    assert len(folders) == 3  # seed 0's, trained by the first run and reused, and seeds 1's and 2's
    (record,) = (tmp_path / "agent").glob("recipe_choice_*.json")
    choice = json.loads(record.read_text())
    assert [c["seed"] for c in choice["candidates"]] == [0, 1, 2]
    candidates = pick([record.parent / c["folder"] for c in choice["candidates"]])
    assert [c.score for c in candidates] == pytest.approx([c["validation"] for c in choice["candidates"]])
    assert choice["chosen"] == min(candidates, key=lambda c: c.score).folder.name
    seed0 = json.loads((record.parent / choice["candidates"][0]["folder"] / "settings.json").read_text())
    kept = json.loads((record.parent / choice["chosen"] / "settings.json").read_text())
    if kept["weights_sha256"] == seed0["weights_sha256"]:  # seed 0's model kept: the same scores as without candidates
        assert chosen.rows[0] == alone.rows[0]


def test_imitate_best_with_the_copied_bit_shows_the_order_the_recipe_copies(tiny, tmp_path):
    """recipe_imitate=best chooses a heuristic on validation; recipe_backfill=copied sets the bit to its order."""
    import json

    tiny = {**tiny, "policies": "recipe", "recipe_validation": 2, "recipe_imitate": "best", "recipe_backfill": "copied"}
    results = run(SCENARIO, overrides=tiny, seed=1, executor="serial", progress=False)
    (settings_path,) = (tmp_path / "agent").glob("recipe_*/settings.json")
    settings = json.loads(settings_path.read_text())
    copied = settings["imitated"]
    assert copied == min(settings["imitation_choice"], key=settings["imitation_choice"].__getitem__)
    strict = copied == "fcfs" or copied.startswith("strict-")
    expected = "strict-" + copied.removeprefix("strict-") if strict else copied.removeprefix("easy-")
    assert settings["env_settings"]["backfill"] == expected
    assert results.rows[0]["bounded_slowdown_mean"] >= 1
    with pytest.raises(Exception, match=r"recipe_backfill must be copied, an order .* or strict-ORDER"):
        run(SCENARIO, overrides={**tiny, "recipe_backfill": "sjf_easy"}, executor="serial", progress=False)
    with pytest.raises(Exception, match="recipe_backfill=copied with recipe_candidates"):
        run(SCENARIO, overrides={**tiny, "recipe_candidates": "1"}, executor="serial", progress=False)


def test_evaluation_settings_do_not_change_the_training_key(tiny):
    scenario = load_scenario(SCENARIO)
    key = scenario.config(tiny).training_key()
    assert scenario.config({**tiny, "windows": 9, "policies": "dqn,fcfs"}).training_key() == key
    assert scenario.config({**tiny, "train_steps": 301}).training_key() != key
    assert scenario.config({**tiny, "recipe_generations": 7}).training_key() == key  # the DQN's key predates them


@pytest.mark.parametrize(
    "key, value, message",
    [
        ("policies", "sjf,lottery", r"policies: unknown \['lottery'\]"),
        ("window", "0", "window=0 must be >= 1"),
        ("train_fraction", "1.5", "train_fraction=1.5 must be < 1"),
        ("reward_scale", "inf", "reward_scale=inf must be finite"),
        ("length", "0", "length=0 must be >= 1"),
        ("windows", "0", "windows=0 must be >= 1"),
        ("length", "9000", "length=9000 is more than a part of 'lublin_256' holds"),
        ("recipe_teacher", "lottery", "recipe_teacher: 'lottery' is not a heuristic of schedlab/Machine-v0"),
        ("recipe_imitate", "rollout-easy-lottery", "recipe_imitate: 'rollout-easy-lottery' is not a heuristic"),
        ("recipe_candidates", "3,0", "recipe_candidates=3,0 with recipe_seed=0 names seed 0 twice"),
    ],
)
def test_a_bad_setting_is_one_line_naming_the_key_and_value(key, value, message, capsys):
    with pytest.raises(ValueError, match=message) as info:
        run(SCENARIO, overrides={key: value, "logs_dir": str(TRACES)}, executor="serial", progress=False)
    assert "\n" not in str(info.value)
    assert cli(["run", str(SCENARIO), "--set", f"{key}={value}", "--set", f"logs_dir={TRACES}"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and err[0].startswith("error: ") and key in err[0] and value.split(",")[-1] in err[0]


def test_an_unknown_trace_is_named():
    with pytest.raises(FileNotFoundError, match="log 'no-such-log' not found"):
        run(SCENARIO, overrides={"log": "no-such-log"}, executor="serial", progress=False)


def test_a_malformed_log_line_is_counted_and_said(tiny, tmp_path, capsys):
    lines = [f"{i} {i * 10} -1 {50 + i % 7} 2 -1 -1 2 100 -1 1 1 1 1 1 -1 -1 -1" for i in range(1, 200)]
    lines.insert(60, "61 600 x 50 2 -1 -1 2 100 -1 1 1 1 1 1 -1 -1 -1")
    log = tmp_path / "small.swf"
    log.write_text("; MaxProcs: 8\n" + "\n".join(lines) + "\n")
    settings = {**tiny, "log": str(log), "policies": "fcfs,sjf"}
    run(SCENARIO, overrides=settings, seed=1, executor="serial", progress=False)
    assert "kept 199, dropped 1" in capsys.readouterr().err
    with pytest.raises(ValueError, match=r"Reading it: .*dropped 1"):
        run(SCENARIO, overrides={**settings, "length": 80}, seed=1, executor="serial", progress=False)


def test_the_train_command_makes_the_models_the_run_then_reads(tiny, tmp_path, capsys):
    """``schedlab train scenarios/machine_rl.py --out DIR``: the recipe's and the DQN's models, where runs find them."""
    models = tmp_path / "models"
    sets = [a for k, v in {**tiny, "policies": "dqn,recipe,sjf", "out_dir": ""}.items() for a in ("--set", f"{k}={v}")]
    assert cli(["train", str(SCENARIO), "--executor", "serial", *sets, "--out", str(models)]) == 0
    printed = capsys.readouterr().out.splitlines()
    recipe, dqn = printed[-4], printed[-2]
    assert Path(recipe).parent.parent == models and Path(recipe).name == "model.pt"
    assert Path(dqn).parent == models and Path(dqn).name.startswith("dqn_")
    assert all(line.startswith("weights sha256 ") for line in (printed[-3], printed[-1]))
    run = ["run", str(SCENARIO), "--executor", "serial", *sets, "--set", f"out_dir={models}"]
    assert cli([*run, "--out", str(tmp_path / "run")]) == 0
    assert "recipe model" not in capsys.readouterr().err  # found, not trained again
    # the DQN's checkpoint is there: refused before the recipe trains again, not after
    shutil.rmtree(Path(recipe).parent)
    assert cli(["train", str(SCENARIO), "--executor", "serial", *sets, "--out", str(models)]) == 2
    assert "--resume" in capsys.readouterr().err and not Path(recipe).parent.exists()
    assert cli(["train", str(SCENARIO), "--executor", "serial", *sets, "--out", str(models), "--resume"]) == 0
    assert capsys.readouterr().out.splitlines()[-4:] == printed[-4:]  # the same recipe again; the DQN kept

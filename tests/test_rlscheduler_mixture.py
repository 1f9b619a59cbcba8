"""One model for many logs (issue 36): a mixture of logs as RLScheduler's training setting.

Tiny settings throughout (sequences of 64 jobs, a few members and generations): what is
checked is where the sequences come from, that the model does not depend on the
executor, and that a bad mixture or a model for another observation is refused in one line.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from schedlab.envs.rlscheduler.env import RLSchedulerConfig
from schedlab.envs.rlscheduler.mixture import Mixture, MixtureEnv
from schedlab.envs.rlscheduler.model_files import check_model, env_settings, save_model, seeds_in, weights_sha256
from schedlab.experiment.scenario import ConfigError, load_scenario
from schedlab.training.rlscheduler import search
from schedlab.training.rlscheduler.search import evolve, scorer_vector
from schedlab.training.rlscheduler.settings import TrainSettings
from schedlab.training.rlscheduler.train import train
from schedlab.training.rlscheduler.validation import mixture_validation

ROOT = Path(__file__).resolve().parents[1]
TRACES = ROOT.parent / "shared" / "traces"
#: the models shipped with schedlab, one folder per log
SHIPPED = ROOT / "schedlab" / "envs" / "rlscheduler" / "trained"
#: RLScheduler's four logs and their protocol ranges (SDSC-SP2 and HPC2N: the first 10,000 jobs)
LOGS = {"HPC2N-2002-2.2-cln": 10_000, "SDSC-SP2-1998-4.2-cln": 10_000, "lublin_256": 0, "lublin_256_new2": 0}
pytestmark = pytest.mark.skipif(
    not all((TRACES / f"{log}.swf.gz").exists() for log in LOGS), reason="needs ../shared/traces"
)


def _mixture(sequence: int = 64) -> Mixture:
    return Mixture(
        tuple(
            RLSchedulerConfig(log=log, draw_within=n, sequence=sequence, logs_dir=str(TRACES))
            for log, n in LOGS.items()
        )
    )


def _settings(**kw) -> TrainSettings:
    tiny = dict(steps=0, seed=3, imitate="", search_generations=2, search_pairs=2, search_episodes=8,
                search_eval_every=1, validation=4, validation_length=64, both_backfills=True)  # fmt: skip
    return TrainSettings(**{**tiny, **kw})


def test_the_mixture_draws_sequences_from_every_log_by_its_stream(monkeypatch):
    """The search's sequences, the validation windows and the episodes come from every log, each within its range."""
    mix = _mixture()
    planned: list[tuple[str, int]] = []
    real = search.plan_scores

    def spy(layout, vector, plan):
        planned.extend((Path(c.log).name, s) for c, s in plan)
        return real(layout, vector, plan)

    monkeypatch.setattr(search, "plan_scores", spy)
    train(mix, _settings())
    assert {log for log, _ in planned} == set(LOGS)
    for log, start in planned:
        n = LOGS[log] or len(RLSchedulerConfig(log=log, logs_dir=str(TRACES)).loaded.jobs)
        assert 64 <= start < n - 64 - 1, (log, start)
    first = list(planned)
    planned.clear()
    train(mix, _settings())
    assert planned == first  # the same seed draws the same sequences

    windows, length = mixture_validation(mix, _settings(validation=8))
    assert sorted(w for w, _ in windows) == [0, 0, 1, 1, 2, 2, 3, 3] and length == 64  # spread over the logs
    assert windows == mixture_validation(mix, _settings(validation=8))[0]
    assert windows != mixture_validation(mix, _settings(validation=8, seed=4))[0]
    tail, _ = mixture_validation(mix, _settings(validation=8, validation_tail=0.1))
    assert [w for w, _ in tail] == [w for w, _ in windows]  # the same logs, each start in its log's last tenth
    assert all(mix.configs[w].n_jobs * 0.9 - 1 <= s < mix.configs[w].n_jobs - length for w, s in tail)

    env = MixtureEnv(mix)
    seen = set()
    env.reset(seed=1)
    for _ in range(40):
        _, info = env.reset()
        seen.add(info["log"])
        assert info["start"] < mix.configs[info["log"]].n_jobs
    assert seen == {0, 1, 2, 3}


def test_the_same_seed_gives_the_same_weights_on_one_worker_and_on_a_pool():
    """The search's members are tasks: a 2-process pool gives the serial search's weights and validations exactly."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    lublins = Mixture(tuple(c for c in _mixture().configs if c.log.startswith("lublin")))  # small logs: quick workers

    def search(executor: object) -> np.ndarray:
        model = MaskablePPO_model(lublins)
        evolve(model, lublins, generations=2, pairs=2, episodes=6, sigma=0.05, learning_rate=0.02,
               both_backfills=True, seed=5, executor=executor)  # fmt: skip
        return scorer_vector(model)

    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        pooled = search(pool)
        model, curve = train(lublins, _settings(search_generations=1), executor=pool)
    serial = search(None)
    assert np.array_equal(pooled, serial)
    assert not np.array_equal(serial, scorer_vector(MaskablePPO_model(lublins)))  # the search moved the weights
    here, here_curve = train(lublins, _settings(search_generations=1))
    assert weights_sha256(model) == weights_sha256(here)
    assert [p["validation"] for p in curve] == [p["validation"] for p in here_curve]


@pytest.fixture(scope="module")
def scenario():
    return load_scenario(ROOT / "scenarios" / "rlscheduler.py")


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("HPC2N-2002-2.2-cln,no_such_log", "no log 'no_such_log'"),
        ("lublin_256", "a mixture needs two logs or more"),
        ("lublin_256,HPC2N-2002-2.2-cln,lublin_256", "names log lublin_256 twice"),
    ],
)
def test_a_bad_mixture_is_refused_in_one_line_naming_the_setting_and_value(scenario, value, why):
    with pytest.raises(ConfigError) as refused:
        scenario.config({"train_logs": value, "logs_dir": str(TRACES)})
    message = str(refused.value)
    assert f"train_logs={value}" in message and why in message and "\n" not in message


def test_a_mixture_trains_each_log_within_its_protocol_range_into_its_own_folder(scenario, tmp_path):
    cfg = scenario.config({"train_logs": ",".join(LOGS), "logs_dir": str(TRACES), "out_dir": str(tmp_path)})
    mix = cfg.train_config(False)
    assert mix.names == tuple(LOGS) and [c.draw_within for c in mix.configs] == list(LOGS.values())
    assert cfg.folders.trained_dir == tmp_path / "mix"
    settings = env_settings(mix)
    assert settings["log"] == "mix" and settings["logs"] == list(LOGS)


def test_a_mixture_model_runs_on_any_log_and_one_for_another_observation_is_refused(tmp_path):
    """Saved with its logs, a mixture's model is checked by queue and score type, not by the log it runs on."""
    from sb3_contrib import MaskablePPO

    from schedlab.envs.kernel_policy import MaskableKernelPolicy

    mix = _mixture(sequence=256)
    model = MaskablePPO(MaskableKernelPolicy, MixtureEnv(mix), seed=0, n_steps=64, batch_size=32)
    path = save_model(model, tmp_path, mix, _settings(), [], name="seed0")
    for log in ("lublin_256", "NASA-iPSC-1993-3.1-cln"):
        check_model(path, RLSchedulerConfig(log=log, logs_dir=str(TRACES)))  # any log: no error
    meta = json.loads(path.with_suffix(".json").read_text())
    meta["env"]["queue"] = 64  # a model for 64 waiting jobs: another observation
    path.with_suffix(".json").write_text(json.dumps(meta))
    with pytest.raises(ValueError) as refused:
        check_model(path, RLSchedulerConfig(log="lublin_256", logs_dir=str(TRACES)))
    assert str(refused.value) == f"model {path}: trained with queue=64, this run has queue=128"


def test_the_scenario_evaluates_a_mixture_model_beside_the_logs_own_models(scenario, tmp_path):
    """``--set model=DIR`` of a mixture's model on a log with shipped models: both, and the heuristics, per window."""
    folder = tmp_path / "mix"
    mix = scenario.config({"train_logs": ",".join(LOGS), "logs_dir": str(TRACES), "seeds": "0"}, quick=True)
    model = MaskablePPO_model(mix.train_config(False))
    save_model(model, folder, mix.train_config(False), mix.train_settings(0), [], name="seed0")
    cfg = scenario.config(
        {"log": "lublin_256_new2", "model": str(folder), "logs_dir": str(TRACES), "heuristics": "sjf"}, quick=True
    )
    shipped = seeds_in(SHIPPED / "lublin_256_new2")
    assert len(shipped) == 3 and cfg.folders.evaluates_mixture() and cfg.folders.own_seeds() == tuple(shipped)
    cells = scenario.module.cells(cfg)
    assert {(c["policy"], c["seed"]) for c in cells} == {("rl", 0), ("sjf", -1), *(("own", s) for s in shipped)}
    lone = scenario.config({"log": "lublin_256_new2", "logs_dir": str(TRACES)}, quick=True)
    # a log's own models alone: no "own" cells
    assert not lone.folders.evaluates_mixture() and lone.folders.own_seeds() == ()
    assert dataclasses.replace(cfg, log="NASA-iPSC-1993-3.1-cln").folders.own_seeds() == ()  # no models shipped for it


def MaskablePPO_model(mix: Mixture):
    from sb3_contrib import MaskablePPO

    from schedlab.envs.kernel_policy import MaskableKernelPolicy

    return MaskablePPO(MaskableKernelPolicy, MixtureEnv(mix), seed=0, n_steps=64, batch_size=32)


def test_a_mixture_is_two_or_more_distinct_logs_sharing_a_protocol():
    one = RLSchedulerConfig(log="lublin_256", logs_dir=str(TRACES))
    with pytest.raises(ValueError, match="two logs or more"):
        Mixture((one,))
    with pytest.raises(ValueError, match="names log lublin_256 twice"):
        Mixture((one, one))
    with pytest.raises(ValueError, match="must share queue"):
        Mixture((one, dataclasses.replace(one, log="lublin_256_new2", queue=64)))
    assert np.array_equal(_mixture().with_backfill(True).names, _mixture().names)

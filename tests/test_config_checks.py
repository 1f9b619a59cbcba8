"""Configs you can trust: every numeric field checked by one declared mechanism; DQN stops when it
diverges and refuses a checkpoint of other settings; runs too large are refused (issue 17, items 1, 2, 13)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from config_probe import probe

from schedlab.envs.grid.obs import GridAgentsConfig
from schedlab.envs.machine.config import MachineEnvConfig
from schedlab.envs.network.obs import NetworkAgentsConfig
from schedlab.envs.slotted.deeprm import DeepRMConfig
from schedlab.experiment import ConfigError, ExperimentError, load_scenario, run
from schedlab.experiment.cli import main
from schedlab.learners.approximators import ApproximatorConfig
from schedlab.learners.sarsa import SarsaConfig
from schedlab.learners.td import LearningRate, TDConfig
from schedlab.model.core.deeprm_jobs import DeepRMJobs
from schedlab.model.core.fields import FieldValueError, is_int, is_whole, items, number, validate, whole, work_units

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"


@dataclass(frozen=True)
class Demo:
    #: arrivals per unit of time: declared beside the field
    rate: float = number(0.5, gt=0)
    #: jobs per replication: scales the work of a run
    jobs: int = number(100, low=1, work=True)
    #: probabilities, each in [0, 1]
    probs: tuple[float, ...] = items((0.2, 0.8), high=1)
    #: undeclared: a float is finite, >= 0 and at most 10**9 by its type
    scale: float = 1.0

    def __post_init__(self) -> None:
        validate(self)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("rate", math.inf, "rate=inf must be finite"),
        ("rate", math.nan, "rate=nan is not a number"),
        ("rate", 0.0, "rate=0.0 must be > 0"),
        ("jobs", 0, "jobs=0 must be >= 1"),
        ("probs", (), "probs must not be empty"),
        ("probs", (0.5, 1e300), r"probs\[1\]=1e\+300 must be <= 1"),
        ("scale", -1.0, "scale=-1.0 must be >= 0"),
        ("scale", 1e300, "scale=1e\\+300 must be <= 1e\\+09"),
    ],
)
def test_a_declared_field_refuses_what_it_does_not_declare(field, value, message):
    with pytest.raises(FieldValueError, match=message):
        Demo(**{field: value})


def test_work_fields_multiply_into_a_size():
    assert work_units(Demo(jobs=300)) == 300


def test_no_scenario_accepts_inf_nan_negative_or_empty_numbers():
    tried, _accepted, names = probe(bad=("inf", "nan", "-1", ""), numeric_only=True, direct=False)
    # the only ones left are meant: an infinite half-life (no decay), no explicit window starts,
    # no explicit training seeds (the shipped models' seeds), and no other seeds to choose among
    assert sorted(set(names)) == sorted(
        {
            "utility_scheduling.learning_rate_half_life='inf'",
            "log_replay.starts=''",
            "rlscheduler.seeds=''",
            "machine_rl.recipe_candidates=''",
        }
    ), names
    assert tried > 400


def test_huge_numbers_are_refused_unless_the_field_is_a_seed():
    _tried, _accepted, names = probe(bad=("1e300", str(10**12)), numeric_only=True, direct=False)
    assert {n.split("=")[0].split(".")[1] for n in names} <= {
        "train_seed",
        "window_seed",
        "recipe_seed",
        "learning_rate_half_life",
    }


def test_no_environment_or_learner_config_accepts_bad_numbers():
    # built directly, as their users build them (DeepRMEnv(**overrides), TDConfig(...)): the configs' own checks
    tried, _accepted, names = probe(scripts=[], bad=("inf", "nan", "-1", "", "1e300", str(10**12)))
    # the only ones left are declared: TD's starting values may be negative, a half-life infinite (no decay) or huge
    assert sorted(names) == sorted(
        [
            "TDConfig.initial_p='-1'",
            "TDConfig.initial_rho='-1'",
            "LearningRate.half_life='inf'",
            "LearningRate.half_life='1e300'",
            "LearningRate.half_life='1000000000000'",
        ]
    ), names
    assert tried > 300


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: TDConfig(initial_p=math.inf), "initial_p=inf must be finite"),
        (lambda: LearningRate(initial=1.5), "initial=1.5 must be <= 1"),
        (lambda: LearningRate(half_life=math.nan), "half_life=nan is not a number"),
        (lambda: DeepRMConfig(load=(0.5, -1.0)), r"load\[1\]=-1.0 must be > 0"),
        (lambda: DeepRMJobs({"cpus": 20}, short_share=1e300), r"short_share=1e\+300 must be <= 1"),
        (lambda: MachineEnvConfig(cpus=4, log_window=10**12), r"log_window=1000000000000 must be <= 1e\+09"),
        (lambda: GridAgentsConfig(cmax=math.inf), "cmax=inf must be finite"),
        (lambda: NetworkAgentsConfig(shortcut_prob=-1.0), "shortcut_prob=-1.0 must be >= 0"),
        (lambda: SarsaConfig(discount_time=math.inf), "discount_time=inf must be finite"),
        (lambda: ApproximatorConfig(units=10**12), r"units=1000000000000 must be <= 1e\+09"),
    ],
)
def test_environment_and_learner_configs_name_the_field_and_value(make, message):
    with pytest.raises(FieldValueError, match=message) as err:
        make()
    assert "\n" not in str(err.value)


def test_cli_names_the_field_and_value(capsys):
    assert main(["run", str(SCENARIOS / "mmc.py"), "--set", "arrival_rate=inf"]) == 2
    assert "arrival_rate=inf must be finite" in capsys.readouterr().err


def test_dqn_learning_rate_inf_is_refused():
    from schedlab.learners.dqn import DQNConfig

    with pytest.raises(ValueError, match="learning_rate=inf must be finite"):
        DQNConfig(learning_rate=math.inf)
    with pytest.raises(ConfigError, match="learning_rate=inf must be finite"):
        from schedlab.experiment.scenario import load_scenario

        load_scenario(SCENARIOS / "deeprm.py").config({"learning_rate": "inf"})


# --------------------------------------------------------------------------- DQN diverging, checkpoints
def _tiny_env(reward: float = 1.0):
    gym = pytest.importorskip("gymnasium")

    class Bandit(gym.Env):
        observation_space = gym.spaces.Box(0.0, 1.0, (2,), dtype=np.float32)
        action_space = gym.spaces.Discrete(2)

        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            return np.zeros(2, dtype=np.float32), {}

        def step(self, action):
            return np.ones(2, dtype=np.float32), reward * action, True, False, {}

    return Bandit()


def test_training_stops_on_a_non_finite_loss():
    from schedlab.learners.dqn import DQNConfig, TrainingDiverged, train

    cfg = DQNConfig(total_steps=200, learning_starts=10, batch_size=8, buffer_size=100, train_every=1, hidden=(4,))
    with pytest.raises(TrainingDiverged, match="DQN training diverged at step 11: the loss is nan"):
        train(_tiny_env(reward=math.inf), cfg, seed=0)  # a broken environment: the loss is not finite


def test_a_cached_checkpoint_of_other_settings_is_refused(tmp_path):
    pytest.importorskip("torch")
    from schedlab.learners.dqn import DQNConfig, train
    from schedlab.learners.dqn_checkpoint import CheckpointError, cache_dir, cached_checkpoint

    asked = DQNConfig(total_steps=20, learning_starts=5, batch_size=4, buffer_size=50, hidden=(4,))
    path = cached_checkpoint(tmp_path, "k", lambda: train(_tiny_env(), asked, seed=0), config=asked)
    assert "0.1.0" in path.name or "-" in path.stem  # the key carries schedlab's version
    assert cached_checkpoint(tmp_path, "k", lambda: pytest.fail("retrained"), config=asked) == path
    other = DQNConfig(**{**asked.__dict__, "learning_rate": 0.5})
    with pytest.raises(CheckpointError, match=r"learning_rate=0.00025 \(asked 0.5\)"):
        cached_checkpoint(tmp_path, "k", lambda: pytest.fail("retrained"), config=other)
    assert cache_dir("deeprm").name == "deeprm" and "schedlab" in str(cache_dir())


def test_a_checkpoint_with_nan_weights_is_refused(tmp_path):
    torch = pytest.importorskip("torch")
    from schedlab.learners.dqn import DQN, DQNConfig
    from schedlab.learners.dqn_checkpoint import CheckpointError, cached_checkpoint

    cfg = DQNConfig(hidden=(4,))
    agent = DQN(2, 2, cfg, obs_high=np.ones(2))
    with torch.no_grad():
        next(agent.policy.parameters()).fill_(float("nan"))
    path = cached_checkpoint(tmp_path, "nan", lambda: (agent, []))
    with pytest.raises(CheckpointError, match="is not finite"):
        cached_checkpoint(tmp_path, "nan", lambda: (agent, []), config=cfg)
    assert path.exists()


# --------------------------------------------------------------------------- item 13: estimated work
def test_a_run_too_large_is_refused_with_its_estimate_unless_forced(capsys):
    with pytest.raises(ExperimentError, match=r"estimated at 1e\+13 work units"):
        run(SCENARIOS / "mmc.py", overrides={"customers": 10**12}, executor="serial")
    assert main(["run", str(SCENARIOS / "mmc.py"), "--set", "customers=1000000000000"]) == 2
    assert "add --force" in capsys.readouterr().err


def test_whole_number_helpers_tell_a_count_by_type_and_a_whole_value_by_value():
    # a count (agents, steps, a window) must be an int, numpy's too, never a bool or a float
    assert is_int(3) and is_int(np.int64(3)) and is_int(0)
    assert not is_int(3.0) and not is_int(True) and not is_int("3")
    assert is_int(3, low=3) and not is_int(2, low=3)
    # a whole value (CPUs a policy computed, a capacity) may arrive as a float
    assert is_whole(4.0) and is_whole(np.float64(4.0)) and is_whole(4)
    assert not is_whole(4.5) and not is_whole(math.inf) and not is_whole(math.nan) and not is_whole(True)
    assert is_whole(1.0, low=1) and not is_whole(0.0, low=1)
    # whole() checks by type and says what is wrong in one line
    assert whole("steps", np.int64(5), 1) == 5 and type(whole("steps", np.int64(5), 1)) is int
    with pytest.raises(ValueError, match=r"^steps must be a whole number >= 1, got 0$"):
        whole("steps", 0, 1)
    with pytest.raises(ValueError, match=r"^runs must be a whole number >= 1, got 2\.0$"):
        whole("runs", 2.0, 1)


def test_every_bad_value_a_config_still_accepts_is_meant_and_says_why():
    from config_probe import meant

    tried, _accepted, names = probe()  # every scenario's, learner's and environment's fields, 8 bad values each
    assert tried > 2000
    assert [name for name in names if meant(name) is None] == []


@pytest.mark.parametrize(
    ("script", "key", "value", "message"),
    [
        ("deeprm.py", "buffer_size", "0", "buffer_size=0 must be >= 1"),
        ("deeprm.py", "hidden", "64,0", r"hidden\[1\]=0 must be >= 1"),
        ("collectives.py", "sigma", "0", "sigma=0.0 must be > 0"),
        ("collectives_sensitivity.py", "grid", "", "grid='' must not be empty"),
        ("responsive_grid.py", "monitoring_queue", "x", "monitoring_queue='x' must be \"auto\""),
        ("first_look.py", "log", "x", "log 'x' is neither a file nor a log in"),
        ("first_look.py", "logs_dir", "nowhere", "logs_dir='nowhere' is not a folder"),
        ("grid_training.py", "seeds", "0,1,0", r"seeds=\(0, 1, 0\) names 0 twice: give each once"),
        ("learned_supervisor.py", "rewards", "paper,paper", r"rewards=\('paper', 'paper'\) names 'paper' twice"),
        ("rlscheduler.py", "seeds", "3,3", r"seeds=\(3, 3\) names 3 twice"),
    ],
)
def test_a_value_that_cannot_be_meant_is_refused_in_one_line(script, key, value, message):
    if key == "log" and not (SCENARIOS.parent.parent / "shared" / "traces").is_dir():
        pytest.skip("the logs are not on this machine: a name is left to the loader")
    with pytest.raises(ConfigError, match=message):
        load_scenario(SCENARIOS / script).config({key: value})

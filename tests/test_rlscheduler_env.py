"""RLScheduler's protocol as an environment (schedlab/RLScheduler-v0) and the kernel policy that learns in it."""

from __future__ import annotations

import math
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import schedlab.envs  # noqa: F401  (registers the environments)
from schedlab.envs.rlscheduler.env import RLSchedulerConfig, RLSchedulerEnv
from schedlab.envs.rlscheduler.obs import FEATURES
from schedlab.training.rlscheduler.settings import TrainSettings
from schedlab.training.rlscheduler.validation import heuristic_scores

TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces"
pytestmark = pytest.mark.skipif(not (TRACES / "lublin_256.swf.gz").exists(), reason="needs ../shared/traces")


def _env(render_mode=None, **kw) -> RLSchedulerEnv:
    return RLSchedulerEnv(RLSchedulerConfig(logs_dir=str(TRACES), **kw), render_mode=render_mode)


def _sjf_episode(env: RLSchedulerEnv, start: int) -> float:
    """Drive the environment with SJF's choice among the shown jobs: (requested time, submit), first of equals."""
    env.reset(options={"start": start})
    done = False
    while not done:
        shown = env._shown  # the jobs behind the observation's rows, in order
        action = min(range(len(shown)), key=lambda i: (shown[i].requested_time, shown[i].submit, i))
        _obs, reward, done, _, _info = env.step(action)
    assert reward == -env.score
    return env.score


@pytest.mark.parametrize("backfill", [False, True])
def test_choosing_as_sjf_gives_rlschedulers_sjf_schedule(backfill):
    """The environment is RLScheduler's loop with the agent's choice: SJF's choices give SJF's score."""
    env = _env(backfill=backfill)
    for start in (1981, 4299):
        assert _sjf_episode(env, start) == pytest.approx(heuristic_scores(env.config, "sjf", [start], 256)[0])


def test_observation_rows_mask_and_padding():
    env = _env()
    obs, info = env.reset(seed=0)
    rows = obs.reshape(env.config.queue, FEATURES)
    mask = env.action_masks()
    n = int(mask.sum())
    assert n == min(info["waiting"], 128) >= 2  # the agent is asked only when there is a choice
    assert (rows[:n, 8] == 1).all() and (rows[n:, 8] == 0).all()
    assert np.array_equal(rows[n:, :8], np.tile([0, 1, 1, 1, 1, 1, 1, 0], (128 - n, 1)))
    assert ((rows >= 0) & (rows <= 1)).all()
    assert np.isin(rows[:n, 7], np.array([1e-5, 1 - 1e-5], dtype=np.float32)).all()  # can start now


def test_episodes_are_seeded_and_drawn_from_rlschedulers_range():
    env = _env()
    starts = [env.reset(seed=s)[1]["start"] for s in (3, 3, 4)]
    assert starts[0] == starts[1] != starts[2]
    assert all(256 <= s < 10000 - 256 - 1 for s in starts)
    env.reset(seed=5)
    again = [env.reset()[1]["start"] for _ in range(3)]
    env.reset(seed=5)
    assert again == [env.reset()[1]["start"] for _ in range(3)]


def test_gymnasium_make_and_the_score_types():
    env = gym.make("schedlab/RLScheduler-v0", config=RLSchedulerConfig(logs_dir=str(TRACES), score_type="wait"))
    env.reset(seed=1)
    done, reward = False, 0.0
    while not done:
        _obs, reward, done, _, info = env.step(0)
    assert reward == -info["score"] < 0
    util = _env(score_type="utilization")
    util.reset(seed=1)
    done = False
    while not done:
        _, reward, done, _, info = util.step(0)
    assert 0 < reward == info["score"] <= 1


def test_bad_settings_are_one_line_errors():
    with pytest.raises(ValueError, match="log: log 'nope' not found"):
        _env(log="nope")
    with pytest.raises(ValueError, match="sequence 6000: log 'lublin_256' gives 10000 jobs"):
        _env(sequence=6000)
    with pytest.raises(ValueError, match="score_type must be one of"):
        _env(score_type="slowdown")
    with pytest.raises(ValueError, match="learning_rate must be a finite number > 0, got nan"):
        TrainSettings(learning_rate=math.nan)
    env = _env()
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)
    with pytest.raises(ValueError, match=r"start 9999: a sequence of 256 jobs starts in 0\.\.9744"):
        env.reset(options={"start": 9999})


def test_an_invalid_slot_commits_to_the_oldest_job_and_is_counted():
    env = _env()
    env.reset(seed=2)
    oldest = env._machine.waiting[0]
    _, _, _, _, info = env.step(127 if not env.action_masks()[127] else 0)
    assert info["invalid_actions"] == 1
    assert oldest not in env._machine.waiting


def test_gymnasium_and_sb3_api_checks_pass_and_it_renders_as_text():
    from gymnasium.utils.env_checker import check_env

    config = RLSchedulerConfig(logs_dir=str(TRACES), queue=16)
    env = gym.make("schedlab/RLScheduler-v0", config=config, render_mode="ansi").unwrapped
    check_env(env, skip_render_check=False)
    env.reset(seed=0)
    text = env.render()
    assert text.startswith("t=") and "slot 0: job" in text
    sb3 = pytest.importorskip("stable_baselines3.common.env_checker")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sb3.check_env(_env(queue=16))


def test_a_sequence_without_any_choice_is_drawn_again_and_a_given_one_is_over_at_once():
    """On a lightly loaded stretch every job may start alone: nothing to decide, nothing to learn."""
    if not (TRACES / "SDSC-SP2-1998-4.2-cln.swf.gz").exists():
        pytest.skip("needs ../shared/traces")
    env = RLSchedulerEnv(RLSchedulerConfig(log="SDSC-SP2-1998-4.2-cln", sequence=16, logs_dir=str(TRACES)))
    _, info = env.reset(options={"start": 100})
    assert env.done and info["score"] == 1.0  # every job started at its submit time
    for seed in range(5):
        env.reset(seed=seed)
        assert not env.done and env.action_masks().sum() >= 2

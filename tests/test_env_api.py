"""The single-agent environments as RL libraries take them: registered, checked, rendered as text.

Both ``schedlab/Machine-v0`` and ``schedlab/DeepRM-v0`` pass Gymnasium's and
Stable-Baselines3's environment checkers without a warning (no float "image" in the
observation), come with a step limit from the registry, and render as text.
"""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env

import schedlab.envs  # registers the environments
from schedlab.envs import DeepRMEnv, MachineEnv
from schedlab.model.core.job import Job

sb3_env_checker = pytest.importorskip("stable_baselines3.common.env_checker")

SMALL = {
    "schedlab/DeepRM-v0": {"load": 1.3, "arrival_steps": 8},
    "schedlab/Machine-v0": {"workload": schedlab.envs.SyntheticJobs(count=12)},
}


@pytest.mark.parametrize("env_id", sorted(SMALL))
@pytest.mark.parametrize("flatten", [False, True])
def test_stable_baselines3_check_env_passes_without_a_warning(env_id, flatten):
    kwargs = dict(SMALL[env_id], flatten=True) if flatten and env_id.endswith("DeepRM-v0") else SMALL[env_id]
    env = gym.make(env_id, **kwargs).unwrapped
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning (a float "image", an odd shape) fails the test
        sb3_env_checker.check_env(env)


@pytest.mark.parametrize("env_id", sorted(SMALL))
def test_gymnasium_check_env_passes_with_the_text_render(env_id):
    env = gym.make(env_id, render_mode="ansi", **SMALL[env_id]).unwrapped
    gym_check_env(env, skip_render_check=False)


@pytest.mark.parametrize("env_id", sorted(SMALL))
def test_make_gives_a_step_limit_from_the_registry(env_id):
    env = gym.make(env_id, **SMALL[env_id])
    assert env.spec.max_episode_steps == schedlab.envs.MAX_EPISODE_STEPS[env_id]
    short = gym.make(env_id, max_episode_steps=3, **SMALL[env_id])
    _, info = short.reset(seed=0)
    for _ in range(3):
        *_, terminated, truncated, info = short.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert truncated and not terminated  # the TimeLimit cut the episode after 3 steps


def test_every_render_mode_is_declared():
    for cls in (DeepRMEnv, MachineEnv):
        assert "ansi" in cls.metadata["render_modes"]
        with pytest.raises(ValueError, match="render_mode"):
            cls(render_mode="human")


def test_deeprm_renders_the_plan_and_the_slots_as_text():
    env = DeepRMEnv(render_mode="ansi", resources={"cpus": 10, "memory": 10}, horizon=15, slots=2)
    jobs = [Job(id=0, submit=0.0, runtime=3.0, cpus=10, demands={"memory": 5.0})]
    env.reset(options={"jobs": jobs})
    env.step(0)
    text = env.render()
    assert text.splitlines()[1] == "      cpus |###............|"  # the job holds every CPU for 3 steps
    assert text.splitlines()[2] == "    memory |555............|"  # and half the memory
    assert "slot 0: -" in text


def test_machine_renders_its_window_and_running_jobs_as_text():
    env = MachineEnv(render_mode="ansi", workload=schedlab.envs.SyntheticJobs(count=5))
    env.reset(seed=3)
    text = env.render()
    assert text.startswith("t=") and "slot 0: fits" in text
    assert MachineEnv().render() is None  # no render_mode: nothing to render


def test_deeprm_dict_observation_is_vectors_and_images_keep_the_pictures():
    vectors, pictures = DeepRMEnv(load=1.3), DeepRMEnv(load=1.3, images=True)
    obs, _ = vectors.reset(seed=4)
    img, _ = pictures.reset(seed=4)
    assert obs["machine"].shape == (20 * 2 * 20,) and img["machine"].shape == (20, 2, 20)
    assert np.array_equal(obs["slots"], img["slots"].ravel())
    with pytest.raises(ValueError, match="flatten and images"):
        DeepRMEnv(flatten=True, images=True)

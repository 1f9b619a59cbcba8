"""The DeepRM environment: Gymnasium's checks, seeds, actions, rewards, and the model underneath."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.envs.slotted.deeprm import DeepRMEnv
from schedlab.model.analysis import metrics
from schedlab.model.core.deeprm_jobs import DeepRMJobs
from schedlab.model.core.job import Job

SMALL = dict(resources={"cpus": 10, "memory": 10}, horizon=15, slots=3)


def job(i, submit, length, cpus, memory):
    return Job(id=i, submit=float(submit), runtime=float(length), cpus=cpus, demands={"memory": float(memory)})


@pytest.mark.parametrize("flatten", [False, True])
def test_gymnasium_check_env_passes(flatten):
    check_env(DeepRMEnv(flatten=flatten, arrival_steps=10), skip_render_check=True)


def test_flat_observation_is_gymnasium_flatten_of_the_dict():
    env, flat = DeepRMEnv(load=1.3), DeepRMEnv(load=1.3, flatten=True)
    obs, _ = env.reset(seed=7)
    vec, _ = flat.reset(seed=7)
    assert np.array_equal(spaces.flatten(env.observation_space, obs), vec)
    assert flat.observation_space.contains(vec)


def test_episodes_reproduce_from_a_seed():
    def episode(seed):
        env = DeepRMEnv(load=1.6, arrival_steps=20)
        rng = np.random.default_rng(0)  # the same actions each time
        obs, _ = env.reset(seed=seed)
        trace = [obs["machine"].sum()]
        done = False
        while not done:
            obs, reward, terminated, truncated, info = env.step(int(rng.integers(env.action_space.n)))
            trace += [reward, info["time"], obs["slots"].sum()]
            done = terminated or truncated
        return trace, [tuple(r) for r in env.model.records()]

    assert episode(3) == episode(3)
    assert episode(3) != episode(4)


def test_the_return_is_minus_the_total_slowdown_and_mean_mode_divides_by_the_jobs():
    for reward in ("slowdown_sum", "slowdown_mean"):
        env = DeepRMEnv(load=1.0, arrival_steps=30, reward=reward)
        env.reset(seed=11)
        total, done, rng = 0.0, False, np.random.default_rng(1)
        while not done:
            _, r, terminated, truncated, _ = env.step(int(rng.integers(env.action_space.n)))
            total += r
            done = terminated or truncated
        assert terminated
        slowdowns = metrics.slowdown(env.model.records())
        assert len(slowdowns) == env.model.n_jobs
        expected = slowdowns.sum() if reward == "slowdown_sum" else slowdowns.mean()
        assert total == pytest.approx(-expected)


def test_placing_a_job_takes_no_time_and_a_job_that_does_not_fit_now_is_reserved_ahead():
    env = DeepRMEnv(**SMALL, images=True)  # the observation as pictures: (horizon, resource, unit)
    env.reset(options={"jobs": [job(0, 0, 3, 10, 1), job(1, 0, 2, 5, 1)]})
    obs, reward, *_, info = env.step(0)  # job 0 fills the CPUs for 3 steps
    assert (reward, info["time"], info["scheduled"]) == (0.0, 0, True)
    assert obs["machine"][:3, 0].all() and not obs["machine"][3:, 0].any()
    obs, reward, *_, info = env.step(0)  # job 1 fits from step 3 on: placed there
    assert (reward, info["time"], info["scheduled"]) == (0.0, 0, True)
    assert obs["machine"][3:5, 0, :5].all() and not obs["machine"][5:, 0].any()
    done = False
    while not done:
        *_, terminated, truncated, _ = env.step(env.config.slots)
        done = terminated or truncated
    starts = {r.id: (r.start, r.end) for r in env.model.records()}
    assert starts == {0: (0.0, 3.0), 1: (3.0, 5.0)}


@pytest.mark.parametrize("why", ["void", "empty slot", "fits nowhere"])
def test_invalid_actions_advance_time_as_the_void_action_does(why):
    env = DeepRMEnv(**SMALL)
    env.reset(options={"jobs": [job(0, 0, 15, 10, 1), job(1, 0, 1, 10, 1)]})
    env.step(0)  # job 0 holds every CPU for the whole horizon: job 1 fits nowhere
    action = {"void": 3, "empty slot": 2, "fits nowhere": 0}[why]
    _, reward, terminated, truncated, info = env.step(action)
    assert (info["time"], info["scheduled"], terminated, truncated) == (1, False, False, False)
    assert reward == pytest.approx(-(1 / 15 + 1 / 1))  # both jobs spent the step in the system


def test_the_action_mask_marks_what_differs_from_waiting():
    env = DeepRMEnv(**SMALL, work_conserving=False)
    _, info = env.reset(options={"jobs": [job(0, 0, 15, 10, 1), job(1, 0, 1, 10, 1)]})
    assert info["action_mask"].tolist() == [True, True, False, True]  # two jobs, an empty slot, void
    _, _, _, _, info = env.step(0)  # job 0 holds every CPU for the whole horizon: job 1 fits nowhere
    assert info["action_mask"].tolist() == [False, False, False, True]
    assert np.array_equal(env.action_masks(), info["action_mask"])


def test_a_work_conserving_mask_hides_waiting_only_while_a_job_fits_now():
    env = DeepRMEnv(**SMALL)  # work_conserving=True is the default
    _, info = env.reset(options={"jobs": [job(0, 0, 15, 10, 1), job(1, 0, 1, 10, 1)]})
    assert info["action_mask"].tolist() == [True, True, False, False]
    _, _, _, _, info = env.step(0)  # nothing else fits now, nor anywhere in the horizon: waiting is the one choice
    assert info["action_mask"].tolist() == [False, False, False, True]
    env.reset(options={"jobs": [job(0, 0, 3, 10, 1), job(1, 0, 2, 5, 1)]})
    _, _, _, _, info = env.step(0)  # job 1 fits only from step 3: it may be reserved, or the agent may wait
    assert info["action_mask"].tolist() == [True, False, False, True]


def test_an_action_outside_the_space_is_an_error_naming_it():
    env = DeepRMEnv(**SMALL)
    env.reset(seed=0)
    for bad in (4, -1, 1.5):
        with pytest.raises(ValueError, match=r"action must be a whole number in 0..3"):
            env.step(bad)


def test_an_agent_that_never_schedules_is_truncated():
    env = DeepRMEnv(load=0.5, arrival_steps=5, max_time=30)
    env.reset(seed=1)
    steps = 0
    while True:
        *_, terminated, truncated, info = env.step(env.config.slots)
        steps += 1
        if terminated or truncated:
            break
    assert (truncated, terminated, info["time"], steps) == (True, False, 30, 30)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**16), load=st.sampled_from([0.4, 1.0, 1.9]), actions=st.integers(0, 2**16))
def test_the_image_is_the_machines_state_and_jobs_are_conserved(seed, load, actions):
    env = DeepRMEnv(load=load, arrival_steps=15)
    rng = np.random.default_rng(actions)
    env.reset(seed=seed)
    model, last_time, done = env.model, 0, False
    while not done:
        _, _, terminated, truncated, info = env.step(int(rng.integers(env.action_space.n)))
        done = terminated or truncated
        machine = model.machine
        # row 0 of the plan is what the Machine holds now, resource by resource
        assert machine.capacity - machine.free == model.occ[0, 0]
        assert machine.used["memory"] == pytest.approx(model.occ[0, 1])
        assert np.all(model.occ <= model.cap)
        assert info["time"] >= last_time
        last_time = info["time"]
        arrived = model.source.count
        assert model.n_completed + len(machine.running) + len(machine.waiting) == arrived
        assert len(model.queue) <= len(machine.waiting)
    assert terminated and model.n_completed == model.n_jobs


def test_cpu_utilization_agrees_with_the_records_metric():
    env = DeepRMEnv(load=1.3, arrival_steps=30)
    env.reset(seed=5)
    done, rng = False, np.random.default_rng(2)
    while not done:
        *_, terminated, truncated, _ = env.step(int(rng.integers(env.action_space.n)))
        done = terminated or truncated
    model = env.model
    cpu = metrics.utilization(model.records(), model.machine.capacity, 0.0, float(model.now))
    assert model.utilization()[0] == pytest.approx(cpu)


def test_the_job_distribution_matches_deeprm():
    jobs = DeepRMJobs({"cpus": 20, "memory": 20})
    sample = jobs.sample(1.9, 2000, np.random.default_rng(0))
    lengths = np.array([j.runtime for j in sample])
    short = lengths <= 3
    assert 0.78 < short.mean() < 0.82
    assert set(lengths[short]) == {1, 2, 3} and set(lengths[~short]) == set(range(10, 16))
    demand = np.array([[j.cpus, j.demands["memory"]] for j in sample])
    assert np.all(demand.max(axis=1) >= 5) and np.all(demand.max(axis=1) <= 10)  # dominant: 0.25-0.5 of 20
    assert np.all(demand.min(axis=1) >= 1) and np.all(demand.min(axis=1) <= 2)  # the other: 0.05-0.1 of 20
    # the realised load: work per step and capacity, averaged over the two resources
    work = (demand * lengths[:, None]).sum(axis=0) / 20 / 2000
    assert work.mean() == pytest.approx(1.9, rel=0.05)


@pytest.mark.parametrize(
    "overrides, message",
    [
        (dict(resources={"cpus": 0, "memory": 20}), r"capacity of 'cpus' must be a whole number > 0, got 0"),
        (dict(resources={"cpus": 20, "memory": -3}), r"capacity of 'memory' must be a whole number > 0, got -3"),
        (dict(horizon=12), r"horizon 12 is shorter than the longest job \(15 steps\)"),
        (dict(slots=0), r"slots=0 must be >= 1"),
        (dict(load=2.9), r"load 2.9 needs p = .* > 1 with trials=3"),
        (dict(reward="makespan"), r"reward must be 'slowdown_sum' or 'slowdown_mean', got 'makespan'"),
    ],
)
def test_bad_config_is_a_clear_error(overrides, message):
    with pytest.raises(ValueError, match=message):
        DeepRMEnv(**overrides)


@pytest.mark.parametrize(
    "jobs, message",
    [
        ([job(0, 0, 2, 11, 1)], r"job 0 demands 11 of 'cpus', above its capacity 10"),
        ([job(0, 0, 2, 1, 12)], r"job 0 demands 12 of 'memory', above its capacity 10"),
        ([job(0, 0, 16, 1, 1)], r"horizon 15 is shorter than job 0's length 16"),
        ([job(0, 0.5, 2, 1, 1)], r"job 0: a time-stepped machine needs whole-number submit and length"),
    ],
)
def test_a_job_sequence_the_machine_cannot_hold_is_a_clear_error(jobs, message):
    env = DeepRMEnv(**SMALL)
    with pytest.raises(ValueError, match=message):
        env.reset(options={"jobs": jobs})

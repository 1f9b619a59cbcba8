"""The generic machine environment: Gymnasium's checks, seeds, a hand-worked schedule, rewards, masks, policies."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import simpy
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st

import schedlab.envs  # noqa: F401  (registers schedlab/Machine-v0)
from schedlab.envs.machine.agent_policy import AgentPolicy
from schedlab.envs.machine.config import MachineEnvConfig, agent_machine
from schedlab.envs.machine.env import MachineEnv
from schedlab.envs.machine.jobs import LogWindows, SyntheticJobs
from schedlab.model.analysis import metrics
from schedlab.model.core.job import Job
from schedlab.model.records.job_record import Status
from schedlab.policies import FCFS
from schedlab.processes import Machine, Source

LUBLIN = Path(__file__).resolve().parents[1].parent / "shared" / "traces" / "lublin_256.swf.gz"
SMALL = dict(workload=SyntheticJobs(count=24, load=1.2, cpus=8, max_width=4), window=4)


def job(i, submit, runtime, cpus, estimate=None, **demands):
    return Job(id=i, submit=float(submit), runtime=float(runtime), cpus=cpus, estimate=estimate, demands=demands)


#: four jobs on 4 CPUs, worked out by hand below
TINY = [job(0, 0, 4, 3), job(1, 1, 2, 2), job(2, 2, 1, 1), job(3, 3, 3, 4)]


def head_first(obs, mask):
    """Start the oldest waiting job when it fits, else wait: strict FCFS through the actions."""
    return 0 if mask[0] else len(mask) - 1


def run_episode(env, agent, **reset):
    obs, info = env.reset(**reset)
    steps = [(obs, info)]
    rewards, done = [], False
    while not done:
        obs, reward, terminated, truncated, info = env.step(agent(obs, info["action_mask"]))
        rewards.append(reward)
        steps.append((obs, info))
        done = terminated or truncated
    assert terminated and not truncated
    return steps, rewards


def test_gymnasium_check_env_passes():
    check_env(MachineEnv(**SMALL), skip_render_check=True)
    single = MachineEnv(cpus=2, resources={"memory": 4.0}, workload=lambda rng: [job(0, 0, 2, 1, memory=3.0)])
    check_env(single, skip_render_check=True)


def test_a_config_object_and_keyword_overrides():
    env = MachineEnv(MachineEnvConfig(cpus=4, window=3), window=2)
    assert (env.cpus, env.observer.window, env.action_space.n) == (4, 2, 3)
    assert env.observation_space.shape == (1 + 2 * 5 + 1 + 1 + 1,)  # free, 2 slots, queue, running, next end


def test_registered_and_made_by_gymnasium():
    env = gym.make("schedlab/Machine-v0", **SMALL)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs) and info["time"] >= 0
    assert env.unwrapped.action_masks().shape == (5,)


def test_energy_in_the_reward_computed_by_hand():
    """The tiny schedule below (0-9 s on 4 CPUs) with CPUs of 10 W idle and 30 W busy: its jobs
    hold 4 x 3 + 2 x 2 + 1 x 1 + 3 x 4 = 29 CPU-seconds, so the machine draws
    4 x 10 W x 9 s + 20 W x 29 = 940 J; at 0.01 per joule the return falls from -8.5 to -17.9."""
    env = MachineEnv(cpus=4, window=3, cpu_power=(10.0, 30.0), energy_weight=0.01)
    _steps, rewards = run_episode(env, head_first, options={"jobs": TINY})
    assert env.energy() == pytest.approx(940.0)
    assert sum(rewards) == pytest.approx(-8.5 - 9.4)
    # the first step's interval [0, 2]: slowdown -1.0, and 4 x 10 x 2 + 20 x 3 x 2 = 200 J
    assert rewards[0] == pytest.approx(-1.0 - 2.0)
    with pytest.raises(ValueError, match=r"energy_weight=0\.5 needs cpu_power"):
        MachineEnv(cpus=4, energy_weight=0.5)
    with pytest.raises(ValueError, match="cpu_power must be"):
        MachineEnv(cpus=4, cpu_power=(30.0, 10.0))


def test_the_tiny_sequence_gives_the_hand_worked_fcfs_schedule():
    # t=0 J0 starts (3 of 4 cpus). t=1 J1 (2 cpus) does not fit and blocks the head. t=2 J2
    # fits but is not the head: the agent waits, as at t=3 when J3 (4 cpus) arrives. t=4 J0
    # ends: J1 then J2 start. t=5 J2 ends; t=6 J1 ends and J3 starts, ending at 9.
    env = MachineEnv(cpus=4, window=3)
    steps, rewards = run_episode(env, head_first, options={"jobs": TINY})
    times = [info["time"] for _, info in steps]
    assert times == [0, 2, 3, 4, 4, 6, 9]
    got = {r.id: (r.start, r.end) for r in env.records()}
    assert got == {0: (0, 4), 1: (4, 6), 2: (4, 5), 3: (6, 9)}
    # slowdowns 4/4 + 5/2 + 3/1 + 6/3; the first step's interval [0, 2] costs 2/4 + 1/2
    assert sum(rewards) == pytest.approx(-8.5)
    assert rewards[0] == pytest.approx(-1.0)
    # schedlab's own FCFS policy on a plain Machine gives the same records
    sim = simpy.Environment()
    machine = Machine(sim, 4, FCFS())
    Source(sim, TINY, machine)
    sim.run()
    assert sorted(machine.records) == sorted(env.records())


def test_fcfs_through_the_actions_equals_schedlabs_fcfs_on_a_random_workload():
    env = MachineEnv(**SMALL)
    jobs = env.workload(np.random.default_rng(5))
    run_episode(env, head_first, options={"jobs": jobs})
    sim = simpy.Environment()
    machine = Machine(sim, 8, FCFS())
    Source(sim, jobs, machine)
    sim.run()
    assert sorted(machine.records) == sorted(env.records())


def test_episodes_reproduce_from_a_seed():
    def episode(seed):
        rng = np.random.default_rng(0)  # the same agent each time

        def agent(obs, mask):
            return int(rng.choice(np.flatnonzero(mask)))

        steps, rewards = run_episode(MachineEnv(**SMALL), agent, seed=seed)
        return [o.tobytes() for o, _ in steps], rewards

    assert episode(3) == episode(3)
    assert episode(3) != episode(4)


@pytest.mark.parametrize("reward", ["slowdown", "bounded_slowdown", "response", "utilization"])
def test_the_return_is_the_rewards_integral_over_the_episode(reward):
    env = MachineEnv(**SMALL, reward=reward, reward_scale=0.5)
    rng = np.random.default_rng(2)
    _, rewards = run_episode(env, lambda obs, mask: int(rng.choice(np.flatnonzero(mask))), seed=9)
    records = env.records()
    assert all(r.status is Status.COMPLETED for r in records) and len(records) == env.n_jobs == 24
    if reward == "slowdown":
        expected = -metrics.slowdown(records).sum()
    elif reward == "bounded_slowdown":  # exactly, the floor of 1 included (short jobs that hardly waited)
        expected = -metrics.bounded_slowdown(records, 10.0).sum()
        assert expected != pytest.approx(-metrics.slowdown(records).sum())
    elif reward == "response":
        expected = -metrics.response(records).sum()
    else:
        end = max(r.end for r in records)
        expected = metrics.utilization(records, 8, 0.0, end) * end
    assert sum(rewards) == pytest.approx(0.5 * expected)


def test_masks_are_the_window_jobs_that_fit_now_and_wait_while_a_job_runs():
    env = MachineEnv(**SMALL)
    obs, info = env.reset(seed=1)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        machine = env.machine
        window = machine.waiting[:4]
        expected = [machine.fits(j) for j in window] + [False] * (4 - len(window)) + [bool(machine.running)]
        assert info["action_mask"].tolist() == expected == env.action_masks().tolist()
        assert info["action_mask"].dtype == bool and info["action_mask"][:4].any()  # a decision: some job fits
        assert env.observation_space.contains(obs)
        obs, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
    assert info["action_mask"].tolist() == [False] * 4 + [True]  # after the end only "wait" is offered


def test_invalid_actions_are_waits_counted_in_info_and_never_crash():
    env = MachineEnv(cpus=4, window=3)
    _, info = env.reset(options={"jobs": TINY})
    # t=0, idle machine: waiting is invalid too, so an invalid action starts the oldest fitting job
    _, _, _, _, info = env.step(99)
    assert info["invalid"] and info["invalid_actions"] == 1 and info["time"] == 2
    assert [r.job.id for r in env.machine.running] == [0]
    # t=2: J1 (slot 0) does not fit: choosing it waits, and so does a float
    for bad, time in ((0, 3), (1.0, 4)):
        _, _, _, _, info = env.step(bad)
        assert info["invalid"] and info["time"] == time
    assert info["invalid_actions"] == 3
    _, _, _, _, info = env.step(np.int64(0))
    assert not info["invalid"] and info["invalid_actions"] == 3


def test_observation_fields():
    jobs = [job(0, 0, 4, 2, estimate=8.0, memory=1.0), job(1, 1, 2, 1, estimate=2.0, memory=1.0)]
    for runtime, seen in (("estimate", 8.0), ("runtime", 4.0)):
        env = MachineEnv(cpus=4, resources={"memory": 4.0}, window=2, time_scale=4.0, runtime=runtime)
        obs, _ = env.reset(options={"jobs": jobs})
        # free cpus, free memory; slot 0: present, fits, cpus, memory, runtime, waited; slot 1 empty
        assert obs[:8].tolist() == pytest.approx([1, 1, 1, 1, 0.5, 0.25, seen / (seen + 4), 0])
        assert obs[8:14].tolist() == [0] * 6
        assert env.observer.slots(obs).tolist() == [obs[2:8].tolist(), obs[8:14].tolist()]
        assert obs[14] == pytest.approx(1 / 3)  # one waiting job, window 2
        obs, *_ = env.step(0)  # t=1: job 1 arrives and fits beside job 0
        assert obs[:8].tolist() == pytest.approx([0.5, 0.75, 1, 1, 0.25, 0.25, 2 / 6, 0])
        left = 7.0 if runtime == "estimate" else 3.0
        assert obs[15:17].tolist() == pytest.approx([0.5 * left / (left + 4), 0.25 * left / (left + 4)])
        assert obs[17] == pytest.approx(left / (left + 4))


def _shortest_unless_busy(obs, mask):
    """A deterministic agent that reads the observation: the shortest fitting job, or wait while the queue is short."""
    k = len(mask) - 1
    per_slot = (len(obs) - 4) // k  # 2 + R cells of resources before the slots, 4 + R per slot (R = 1 here)
    runtimes = obs[1 + np.arange(k) * per_slot + 3]
    if mask[k] and obs[1 + k * per_slot] < 0.4:
        return k
    return int(np.flatnonzero(mask[:k])[np.argmin(runtimes[mask[:k]])])


def test_backfill_adds_easys_may_start_bit_to_each_slot_and_the_default_keeps_the_old_observation():
    plain, shown = MachineEnv(**SMALL), MachineEnv(**SMALL, backfill="sjf")
    assert plain.observation_space.shape == (1 + 4 * 5 + 1 + 1 + 1,)  # models trained without it still load
    assert shown.observation_space.shape == (plain.observation_space.shape[0] + 4,)  # one more value per slot
    # t=0..: 4 CPUs; a wide job (4) blocked behind a running one ending at 10; a long and a short narrow job
    jobs = [job(0, 0, 10, 2), job(1, 1, 5, 4), job(2, 1, 20, 1), job(3, 1, 8, 1)]
    env = MachineEnv(cpus=4, window=4, backfill="sjf")
    obs, _ = env.reset(options={"jobs": jobs})
    obs, *_ = env.step(0)  # start job 0; at t=1 jobs 1-3 wait, 2 and 3 fit
    slots = env.observer.slots(obs)
    assert slots[:3, 1].tolist() == [0, 1, 1]  # fits: not the wide job
    # SJF ranks job 1 (5 s) first and it is blocked until t=10: job 3 ends by then (1 + 8), job 2 would not
    assert slots[:3, -1].tolist() == [0, 0, 1]
    strict = MachineEnv(cpus=4, window=4, backfill="strict-sjf")  # SJF kept strictly: nothing passes job 1
    obs, _ = strict.reset(options={"jobs": jobs})
    obs, *_ = strict.step(0)
    assert strict.observer.slots(obs)[:3, -1].tolist() == [0, 0, 0]


@pytest.mark.parametrize(
    ("teacher", "bit", "policy"),
    [("easy-sjf", "sjf", "EASY under SJF"), ("strict-saf", "strict-saf", "SAF"), ("strict-sjf", "strict-sjf", "SJF")],
)
def test_a_teacher_on_a_window_holding_the_whole_queue_is_schedlabs_policy_and_starts_what_the_bit_shows(
    teacher, bit, policy
):
    """``easy-ORDER`` is schedlab's EASY backfilling, ``strict-ORDER`` its strict priority order, on the same jobs."""
    from schedlab.policies import EASY, Priority
    from schedlab.training.heuristics import heuristic

    act = heuristic("schedlab/Machine-v0", teacher)
    order = Priority(bit.removeprefix("strict-"))
    env = MachineEnv(workload=SyntheticJobs(count=24, load=1.2, cpus=8, max_width=4), window=24, backfill=bit)
    waited_with_a_job_fitting = 0
    for seed in range(3):
        jobs = env.workload(np.random.default_rng(seed))
        obs, _ = env.reset(options={"jobs": jobs})
        done = False
        while not done:
            action = act(env)
            shown = env.observer.slots(obs)[:, -1]
            if action < env.observer.window:
                assert shown[action] == 1  # the teacher starts a job the bit shows as one its rule may start now
            else:
                assert not shown.any()
                waited_with_a_job_fitting += bool(env.action_masks()[: env.observer.window].any())
            obs, _, done, _, _ = env.step(action)
        sim = simpy.Environment()
        machine = agent_machine(sim, 8, EASY(order) if teacher.startswith("easy-") else order)
        Source(sim, jobs, machine)
        sim.run()
        assert sorted(machine.records) == sorted(env.records()), policy
    assert waited_with_a_job_fitting > 0  # a fitting job waited: behind a blocked first one, or its reservation


def test_an_agent_schedules_the_same_in_the_env_and_as_a_machine_policy():
    env = MachineEnv(**SMALL)
    jobs = env.workload(np.random.default_rng(11))
    seen_env, seen_policy = [], []

    def in_env(obs, mask):
        seen_env.append((obs.tobytes(), mask.tobytes()))
        return _shortest_unless_busy(obs, mask)

    def in_policy(obs, mask):
        seen_policy.append((obs.tobytes(), mask.tobytes()))
        return _shortest_unless_busy(obs, mask)

    steps, _ = run_episode(env, in_env, options={"jobs": jobs})
    waits = sum(1 for (_, info) in steps[:-1] if info["action_mask"][-1])
    assert waits > 0  # the agent had chances to wait, not only to start
    sim = simpy.Environment()
    policy = env.as_policy(in_policy)
    machine = agent_machine(sim, env.cpus, policy)
    Source(sim, jobs, machine)
    sim.run()
    assert machine.records == env.machine.records
    assert seen_policy == seen_env and policy.decisions == len(seen_env)


def test_agent_policy_takes_an_object_with_act_and_refuses_anything_else():
    class Agent:
        def act(self, obs, mask):
            return 0

    env = MachineEnv(cpus=4, window=3)
    policy = AgentPolicy(Agent(), env.observer)
    sim = simpy.Environment()
    machine = agent_machine(sim, 4, policy)
    Source(sim, TINY, machine)
    sim.run()
    assert [r.end for r in machine.records] == [4, 5, 6, 9]
    assert policy.invalid_actions == 2  # slot 0 (J1) did not fit at t=2 and t=3: waits
    with pytest.raises(TypeError, match="act"):
        AgentPolicy(42, env.observer)
    with_memory = MachineEnv(cpus=4, window=3, resources={"memory": 8.0})
    sim = simpy.Environment()
    machine = agent_machine(sim, 4, with_memory.as_policy(Agent()))
    Source(sim, TINY, machine)
    with pytest.raises(ValueError, match="machine 'machine' has no resource 'memory'"):
        sim.run()


@pytest.mark.parametrize(
    "settings_, message",
    [
        (dict(cpus=0), "cpus=0 must be >= 1"),
        (dict(cpus=-3), "cpus=-3 must be >= 1"),
        (dict(cpus=2.5), "cpus=2.5 must be a whole number"),
        (dict(window=0), "window=0 must be >= 1"),
        (dict(reward="makespan"), "reward must be one of .* got 'makespan'"),
        (dict(runtime="guess"), "runtime must be one of .* got 'guess'"),
        (dict(backfill="shortest"), "backfill must be None, an order of .* or strict-ORDER, got 'shortest'"),
        (dict(slowdown_bound=0), "slowdown_bound=0 must be > 0"),
        (dict(log_span=(0.5, 0.2)), r"log_span must be \(lo, hi\) fractions .* got \(0.5, 0.2\)"),
        (dict(time_scale=-1.0), "time_scale=-1.0 must be > 0"),
        (dict(reward_scale=0), "reward_scale=0 must be > 0"),
        (dict(resources={"memory": 0}), r"resources\['memory'\] must be a finite capacity > 0, got 0"),
        (dict(workload=lambda rng: []), "cpus: the workload .* does not say its machine's size"),
        (dict(workload=5, cpus=4), "workload must be a callable jobs"),
    ],
)
def test_bad_settings_are_refused_by_name(settings_, message):
    with pytest.raises(ValueError, match=message):
        MachineEnv(**settings_)


@pytest.mark.parametrize(
    "jobs, message",
    [
        ([job(0, 0, 1, 9)], "job 0 asks for 9 cpus, more than the machine's cpus=4"),
        ([job(0, 0, 1, 1, memory=2.0)], r"job 0 demands 2 of 'memory'; the machine's resources\['memory'\]=0.0"),
        ([job(0, 5, 1, 1), job(1, 2, 1, 1)], "job 1 submits at 2.0, before the job ahead of it"),
        ([], "drew no jobs"),
    ],
)
def test_jobs_the_machine_cannot_run_are_refused_at_reset(jobs, message):
    with pytest.raises(ValueError, match=message):
        MachineEnv(cpus=4).reset(options={"jobs": jobs})


def test_step_before_reset_and_after_the_end_is_an_error():
    env = MachineEnv(cpus=4)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    run_episode(env, head_first, options={"jobs": TINY[:1]})
    with pytest.raises(RuntimeError, match="terminated"):
        env.step(0)


@pytest.mark.skipif(not LUBLIN.exists(), reason="traces not present")
def test_an_episode_on_a_window_of_a_real_trace():
    env = MachineEnv(workload=LUBLIN, log_window=24, window=4, reward_scale=1.0)
    assert env.cpus == 256 and isinstance(env.workload, LogWindows)
    steps, rewards = run_episode(env, head_first, seed=2)
    records = env.records()
    assert len(records) == 24 and all(r.status is Status.COMPLETED for r in records)
    assert min(r.submit for r in records) == 0  # the window's clock starts at its first job
    assert sum(rewards) == pytest.approx(-metrics.slowdown(records).sum())
    times = [info["time"] for _, info in steps]
    assert times == sorted(times)
    first = {r.id for r in records}
    run_episode(env, head_first, seed=3)
    assert {r.id for r in env.records()} != first  # another seed, another window


@pytest.mark.skipif(not LUBLIN.exists(), reason="traces not present")
def test_log_span_keeps_every_window_in_its_part_of_the_log():
    """A training part and a test part of one log: windows of the first 3/4 never hold a job of the last 1/4."""
    train = MachineEnv(workload=str(LUBLIN), log_window=32, log_span=[0, 0.75])  # a list, as JSON settings give it
    test = LogWindows(LUBLIN, 32, (0.75, 1.0))
    assert train.config.log_span == (0.0, 0.75) and train.workload.part == (0, 7500) and test.part == (7500, 10000)
    jobs = LogWindows(LUBLIN).jobs
    position = {job.id: i for i, job in enumerate(jobs)}
    for seed in range(20):
        rng = np.random.default_rng(seed)
        assert max(position[j.id] for j in train.workload(rng)) < 7500
        assert min(position[j.id] for j in test(rng)) >= 7500
    # the whole log (the default span) draws the same windows as before spans were added
    first = jobs[int(np.random.default_rng(4).integers(len(jobs) - 32 + 1))]
    assert LogWindows(LUBLIN, 32)(np.random.default_rng(4))[0].id == first.id
    with pytest.raises(ValueError, match="span must be"):
        LogWindows(LUBLIN, 32, (0.5, 0.5))
    with pytest.raises(ValueError, match=r"length=3000 is more than .* in span"):
        LogWindows(LUBLIN, 3000, (0.0, 0.25))


def test_a_log_with_memory_requests_and_jobs_out_of_order_is_read_as_a_replay_reads_it(tmp_path):
    """HPC2N's jobs request memory (field 10); the machine models CPUs, so the requests are left out, not refused."""
    lines = [f"{i} {10 * i} -1 {30 + i} 2 -1 -1 2 60 4096 1 1 1 -1 -1 -1 -1 -1" for i in range(1, 41)]
    lines[5], lines[6] = lines[6], lines[5]  # job 7 logged before job 6: read in submit order
    log = tmp_path / "memory.swf"
    log.write_text("; MaxProcs: 8\n" + "\n".join(lines) + "\n")
    windows = LogWindows(log, 8, (0.0, 0.5))
    assert [job.id for job in windows.jobs[4:8]] == [5, 6, 7, 8] and not any(job.demands for job in windows.jobs)
    assert windows.at(5)[0].submit == 0 and [job.id for job in windows.at(5)] == list(range(6, 14))
    with pytest.raises(ValueError, match="no window of 8 jobs starts at position 35"):
        windows.at(35)
    env = MachineEnv(workload=windows, window=4)
    run_episode(env, head_first, seed=0)
    assert len(env.records()) == 8


def test_a_log_too_short_after_its_dropped_lines_says_which_line_in_one_line(tmp_path):
    log = tmp_path / "bad.swf"
    log.write_text(
        "; MaxProcs: 8\n1 0 -1 50 2 -1 -1 2 100 -1 1 1 1 1 1 -1 -1 -1\n2 x -1 50 2 -1 -1 2 100 -1 1 1 1 1 1 -1 -1 -1\n"
    )
    with pytest.raises(
        ValueError, match=r"length=128 is more than the 1 jobs .*dropped 1; non-numeric field: 1 \(line 3\)"
    ):
        LogWindows(log)
    with pytest.raises(ValueError) as info:
        LogWindows(log)
    assert "\n" not in str(info.value)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 5), st.integers(1, 6), st.integers(1, 4)), min_size=1, max_size=12),
    st.integers(0, 2**16),
)
def test_any_agent_completes_every_job_without_overallocating(shape, seed):
    submits = np.cumsum([s for s, _, _ in shape]).tolist()
    jobs = [job(i, t, r, c) for i, (t, (_, r, c)) in enumerate(zip(submits, shape, strict=True))]
    env = MachineEnv(cpus=4, window=2)
    rng = np.random.default_rng(seed)
    env.reset(options={"jobs": jobs})
    total, done = 0.0, False
    while not done:
        assert 0 <= env.machine.free <= 4
        _, reward, done, _, _ = env.step(int(rng.integers(-1, 4)))  # invalid actions too
        total += reward
    records = env.records()
    assert len(records) == len(jobs) and all(r.status is Status.COMPLETED for r in records)
    assert total == pytest.approx(-metrics.slowdown(records).sum())


def _obs_driven(obs, mask):
    """A deterministic agent whose choice depends on every cell of the observation."""
    valid = np.flatnonzero(mask)
    return int(valid[int(obs.sum() * 1000) % len(valid)])


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(1, 4), st.integers(1, 4)), min_size=1, max_size=14))
def test_env_and_policy_agree_with_same_instant_arrivals_and_completions(shape):
    # whole-number times with gaps of 0: arrivals and completions share instants
    submits = np.cumsum([s for s, _, _ in shape]).tolist()
    jobs = [job(i, t, r, c) for i, (t, (_, r, c)) in enumerate(zip(submits, shape, strict=True))]
    env = MachineEnv(cpus=4, window=3)
    run_episode(env, _obs_driven, options={"jobs": jobs})
    sim = simpy.Environment()
    machine = agent_machine(sim, 4, env.as_policy(_obs_driven))
    Source(sim, jobs, machine)
    sim.run()
    assert machine.records == env.machine.records

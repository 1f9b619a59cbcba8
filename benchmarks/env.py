"""RL interface speed: DeepRM environment steps per second, and DQN updates per second.

- **environment**: :class:`schedlab.envs.slotted.deeprm.DeepRMEnv` (the DeepRM defaults: 2
  resources of 20 units, horizon 20, 5 slots) at each load, driven by a uniformly
  random policy through ``reset``/``step`` until ``--steps`` steps are done; Dict
  and flat observations. Each step builds the observation images; a time step also
  runs the SimPy model (arrivals, completions, reserved starts) to the next decision
  event. Printed beside it, for scale: the same episodes' steps with the SJF agent
  and the share of steps that advance time.
- **generic machine environment**: :class:`schedlab.envs.machine.env.MachineEnv` (any
  schedlab Machine, continuous time, window of 8) on its synthetic workload (16 CPUs,
  64 jobs per episode at load 0.9) and on 128-job windows of the Lublin log (256
  CPUs), driven by a uniformly random choice among the valid actions. A step is one
  decision; a wait runs the SimPy model event by event to the next decision.
- **DQN**: :meth:`schedlab.learners.dqn.DQN.update` on batches of 64 from a replay
  buffer of DeepRM observations (4,801 inputs), with the scenario's network (64, 64)
  and one torch thread; and the whole training loop (acting, stepping, storing,
  updating every 4 steps) in environment steps per second.

Run from the repository root: ``python benchmarks/env.py`` (about half a minute).
It prints rates and ratios; it asserts nothing about time. Target: at least 5,000
environment steps per second. Each rate is also given per CPU second of this process,
which a machine shared with other work depresses far less than the wall-clock rate.
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

import numpy as np
import torch

from schedlab.envs.machine.env import MachineEnv
from schedlab.envs.slotted.deeprm import DeepRMEnv
from schedlab.learners.dqn import DQN, DQNConfig, train
from schedlab.learners.replay_buffer import ReplayBuffer
from schedlab.policies.slotted import sjf


def env_rate(load: float, steps: int, *, flatten: bool, agent: str = "random") -> tuple[float, float, float]:
    """Environment steps per wall-clock second and per CPU second, and the share of steps that advanced time."""
    env = DeepRMEnv(load=load, flatten=flatten)
    rng = np.random.default_rng(0)
    n = advanced = episode = 0
    began, cpu = time.perf_counter(), time.process_time()
    env.reset(seed=episode)
    while n < steps:
        action = int(rng.integers(env.action_space.n)) if agent == "random" else sjf(env.model)
        _, _, terminated, truncated, info = env.step(action)
        n += 1
        advanced += not info["scheduled"]
        if terminated or truncated:
            episode += 1
            env.reset(seed=episode)
    return n / (time.perf_counter() - began), n / (time.process_time() - cpu), advanced / n


def machine_env_rate(workload: str | None, steps: int) -> tuple[float, float, float]:
    """MachineEnv steps per wall-clock and per CPU second under a random masked policy, and the share of waits."""
    env = MachineEnv(workload=workload, log_window=128)
    rng = np.random.default_rng(0)
    n = waits = episode = 0
    _, info = env.reset(seed=episode)  # reading the log (once per process) is not timed
    began, cpu = time.perf_counter(), time.process_time()
    while n < steps:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, _, terminated, truncated, info = env.step(action)
        n += 1
        waits += action == env.observer.wait_action
        if terminated or truncated:
            episode += 1
            _, info = env.reset(seed=episode)
    return n / (time.perf_counter() - began), n / (time.process_time() - cpu), waits / n


def update_rate(updates: int, hidden: tuple[int, ...]) -> float:
    env = DeepRMEnv(load=1.3, flatten=True)
    obs, _ = env.reset(seed=0)
    dim = obs.size
    buffer = ReplayBuffer(2_000, dim, compact=True)
    rng = np.random.default_rng(0)
    while len(buffer) < 2_000 and not buffer.full:
        a = int(rng.integers(env.action_space.n))
        nxt, r, term, trunc, _ = env.step(a)
        buffer.add(obs, a, r, nxt, 0.0 if term else 0.99)
        obs = nxt if not (term or trunc) else env.reset(seed=len(buffer))[0]
    agent = DQN(dim, env.action_space.n, DQNConfig(hidden=hidden), obs_high=env.observation_space.high)
    for _ in range(10):  # warm up the allocator
        agent.update(buffer.sample(64, rng))
    began, cpu = time.perf_counter(), time.process_time()
    for _ in range(updates):
        agent.update(buffer.sample(64, rng))
    return updates / (time.perf_counter() - began), updates / (time.process_time() - cpu)


def training_rate(steps: int, hidden: tuple[int, ...]) -> float:
    cfg = DQNConfig(total_steps=steps, learning_starts=steps // 5, buffer_size=steps, hidden=hidden)
    began, cpu = time.perf_counter(), time.process_time()
    train(DeepRMEnv(load=1.3, flatten=True), cfg, seed=0)
    return steps / (time.perf_counter() - began), steps / (time.process_time() - cpu)


def machine_env_report(steps: int) -> None:
    """Print the generic machine environment's rates: synthetic jobs, and windows of the Lublin log."""
    traces = Path(__file__).resolve().parents[2] / "shared" / "traces"
    for name, workload in (("synthetic", None), ("lublin_256", traces / "lublin_256.swf.gz")):
        if workload is not None and not workload.exists():
            print(f"machine env {name}: skipped, {workload} not found")
            continue
        rate, per_cpu, waiting = machine_env_rate(None if workload is None else str(workload), steps)
        print(
            f"machine env {name:>10}: {rate:9,.0f} steps/s ({per_cpu:,.0f} per CPU second) random masked policy "
            f"({waiting:.0%} of steps wait); target 5,000: x{rate / 5000:.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40_000, help="environment steps per measurement")
    parser.add_argument("--updates", type=int, default=300, help="DQN updates measured")
    parser.add_argument("--machine-only", action="store_true", help="only the generic machine environment")
    args = parser.parse_args()
    torch.set_num_threads(1)
    cpu = platform.processor() or platform.machine()
    print(f"python {platform.python_version()}, torch {torch.__version__}, {cpu}")
    if args.machine_only:
        machine_env_report(args.steps)
        return
    for load in (0.3, 1.0, 1.9):
        for flatten in (False, True):
            rate, per_cpu, advancing = env_rate(load, args.steps, flatten=flatten)
            kind = "flat" if flatten else "dict"
            print(
                f"env  load {load:.1f} {kind}: {rate:9,.0f} steps/s ({per_cpu:,.0f} per CPU second) random policy "
                f"({advancing:.0%} of steps advance time); target 5,000: x{rate / 5000:.2f}"
            )
        rate, per_cpu, advancing = env_rate(load, args.steps, flatten=True, agent="sjf")
        print(f"env  load {load:.1f} flat: {rate:9,.0f} steps/s ({per_cpu:,.0f} per CPU second) SJF agent")
    machine_env_report(args.steps)
    for hidden in ((64, 64), (128, 64)):
        rate, per_cpu = update_rate(args.updates, hidden)
        print(f"dqn  hidden {hidden}: {rate:7,.0f} updates/s ({per_cpu:,.0f} per CPU second; batch 64, 1 thread)")
    rate, per_cpu = training_rate(8_000, (64, 64))
    print(f"dqn  training loop (64, 64), update every 4 steps: {rate:7,.0f} env steps/s ({per_cpu:,.0f} per CPU s)")


if __name__ == "__main__":
    main()

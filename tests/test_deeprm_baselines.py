"""The baselines give the schedules worked out by hand, through the environment's own actions.

Three jobs reach a machine of 10 CPUs and 10 memory units at time 0:

====  ======  ====  ======
job   length  cpus  memory
====  ======  ====  ======
A     4       6     2
B     1       6     1
C     2       4     8
====  ======  ====  ======

- FCFS starts A; B (6 CPUs) does not fit beside it and, strictly first come first
  served, blocks C. At 4 A ends: B starts, then C beside it. A 0-4, B 4-5, C 4-6.
- SJF starts B (the shortest), then C (the shortest that still fits); A waits for
  B's CPUs. At 1: A. B 0-1, C 0-2, A 1-5.
- Tetris scores demand . free / capacity^2 on the empty machine: A 0.8, B 0.7,
  C 1.2, so C first; with (6, 2) free A scores 0.40 and B 0.38, so A; B waits
  until A ends. C 0-2, A 0-4, B 4-5.
"""

from __future__ import annotations

import numpy as np
import pytest
import simpy

from schedlab.envs.slotted.deeprm import DeepRMEnv
from schedlab.model.contracts.slotted import episode_metrics
from schedlab.model.core.job import Job
from schedlab.policies.packing import Tetris, alignment
from schedlab.policies.slotted import BASELINES, fcfs, random_agent, sjf, tetris
from schedlab.processes import Machine, Source
from schedlab.processes.slotted.slotted import SlottedMachine, drive

A, B, C = 0, 1, 2
CAPACITIES = {"cpus": 10, "memory": 10}


def three_jobs():
    return [
        Job(id=i, submit=0.0, runtime=float(n), cpus=c, demands={"memory": float(m)})
        for i, (n, c, m) in enumerate([(4, 6, 2), (1, 6, 1), (2, 4, 8)])
    ]


def schedule(agent):
    sim = simpy.Environment()
    model = SlottedMachine(sim, CAPACITIES, three_jobs(), horizon=10, slots=3)
    sim.run(until=sim.process(drive(model, agent, max_time=100)))
    return {r.id: (r.start, r.end) for r in model.records()}, model


@pytest.mark.parametrize(
    "agent, expected, mean_slowdown",
    [
        (fcfs, {A: (0, 4), B: (4, 5), C: (4, 6)}, (1 + 5 + 3) / 3),
        (sjf, {B: (0, 1), C: (0, 2), A: (1, 5)}, (1 + 1 + 5 / 4) / 3),
        (tetris, {C: (0, 2), A: (0, 4), B: (4, 5)}, (1 + 1 + 5) / 3),
    ],
)
def test_baseline_schedules_match_the_hand_worked_ones(agent, expected, mean_slowdown):
    got, model = schedule(agent)
    assert got == expected
    assert episode_metrics(model)["slowdown_mean"] == pytest.approx(mean_slowdown)


def test_baselines_act_the_same_through_the_gymnasium_environment():
    for name, agent in BASELINES.items():
        env = DeepRMEnv(resources=CAPACITIES, horizon=15, slots=3)
        env.reset(options={"jobs": three_jobs()})
        done = False
        while not done:
            *_, terminated, truncated, _ = env.step(agent(env.model))
            done = terminated or truncated
        assert {r.id: (r.start, r.end) for r in env.model.records()} == schedule(agent)[0], name


def test_random_agent_draws_from_its_generator_only():
    first, _ = schedule(random_agent(np.random.default_rng(5)))
    again, _ = schedule(random_agent(np.random.default_rng(5)))
    assert first == again and set(first) == {A, B, C}


def test_alignment_is_the_dot_product_of_demand_and_free_resources():
    assert alignment([6, 2], [10, 10]) == 80
    assert alignment([6, 2], [10, 10], capacity=[10, 10]) == pytest.approx(0.8)
    assert alignment([1, 1], [10, 2], capacity=[10, 2]) == pytest.approx(0.1 + 0.5)  # fractions of capacity
    with pytest.raises(ValueError, match="demand has 2 resources, free has 3"):
        alignment([1, 1], [1, 1, 1])


def test_tetris_machine_policy_packs_any_schedlab_machine_the_same_way():
    sim = simpy.Environment()
    machine = Machine(sim, 10, Tetris(resources={"memory": 10}), resources={"memory": 10})
    Source(sim, three_jobs(), machine)
    sim.run()
    assert {r.id: (r.start, r.end) for r in machine.records} == {C: (0, 2), A: (0, 4), B: (4, 5)}

"""OSL (seed 003, Table 1): the utility update and ring sharing, checked by hand on a tiny grid.

Two agents, two resources (capacities 1 and 2), three steps, alpha = beta = 0.5, ties to
the lowest index. Every number below is worked out in the comments from eqs. 3-6.
"""

from __future__ import annotations

import numpy as np
import pytest
import simpy

from schedlab.learners import OrdinalSharing, SimpleLearning
from schedlab.model.contracts.grid import GridTopology
from schedlab.model.records.job_record import Status
from schedlab.processes.grid.grid import GridModel


class FixedJobs:
    """Given job lengths: ``plan[step][agent]`` (missing entries: no jobs)."""

    def __init__(self, plan):
        self.plan = plan

    def lengths(self, step, agents):
        row = self.plan.get(step, {})
        return [np.array(row.get(i, []), dtype=float) for i in range(agents)]


# step 0: both agents get a job of length 2; step 1: agent 0 one of length 1; step 2: agent 1 one of length 2
PLAN = {0: {0: [2.0], 1: [2.0]}, 1: {0: [1.0]}, 2: {1: [2.0]}}


def run_hand_example(steps):
    env = simpy.Environment()
    osl = OrdinalSharing(0.5, 0.5, ties="first")
    model = GridModel(env, GridTopology.complete(2, [1.0, 2.0]), osl, FixedJobs(PLAN), steps=steps)
    env.run(until=model.done)
    return model, osl


def test_one_step_all_tables_stay_at_minus_one_then_unfinished_jobs_cost_minus_one():
    """Step 0: sharing -1 with -1 and the -1 update of -1 change nothing; both jobs go to r0 (a tie,
    lowest index). At t = 1 neither is done: r = (-1, 0) for both agents, so U = 0.5 U + 0.5 r = (-1, -0.5)."""
    _, osl = run_hand_example(1)
    np.testing.assert_array_equal(osl.utility, [[-1.0, -0.5], [-1.0, -0.5]])
    np.testing.assert_array_equal(osl.outstanding, [[1, 0], [1, 0]])


def test_two_steps_first_agent_shares_the_last_agents_table_of_the_previous_step():
    """Step 1. Agent 0 receives agent 1's table as *sent* in step 0, (-1, -1), not as updated since:
    U0 = 0.5 (-1, -0.5) + 0.5 (-1, -1) = (-1, -0.75). Its job goes to r1; U0(1) = 0.5(-0.75) - 0.5 = -0.875.
    Agent 1 shares agent 0's fresh table: U1 = 0.5 (-1, -0.5) + 0.5 (-1, -0.875) = (-1, -0.6875); no job.
    At t = 2 agent 0's job on r0 (run 0..2, ending exactly at the step's end) and on r1 (1..1.5) are done:
    r = (+1, +1), U0 = 0.5 (-1, -0.875) + 0.5 (1, 1) = (0, 0.0625). Agent 1's job waits on r0: r = (-1, 0),
    U1 = 0.5 (-1, -0.6875) + 0.5 (-1, 0) = (-1, -0.34375)."""
    _, osl = run_hand_example(2)
    np.testing.assert_array_equal(osl.utility, [[0.0, 0.0625], [-1.0, -0.34375]])
    np.testing.assert_array_equal(osl.outstanding, [[0, 0], [1, 0]])


def test_three_steps_hand_computed():
    """Step 2. Agent 0 shares agent 1's step-1 message (-1, -0.6875): U0 = (-0.5, -0.3125); no job.
    Agent 1: U1 = 0.5 (-1, -0.34375) + 0.5 (-0.5, -0.3125) = (-0.75, -0.328125); its job goes to r1
    (idle since 1.5: runs 2..3), U1(1) = 0.5 (-0.328125) - 0.5 = -0.6640625.
    At t = 3: agent 0 has nothing out, r = 0: U0 = (-0.25, -0.15625). Agent 1's job on r1 is done (+1) and its
    job on r0 (run 2..4) is not (-1): U1 = 0.5 (-0.75, -0.6640625) + 0.5 (-1, 1) = (-0.875, 0.16796875)."""
    model, osl = run_hand_example(3)
    np.testing.assert_array_equal(osl.utility, [[-0.25, -0.15625], [-0.875, 0.16796875]])
    records = {r.id: r for r in model.all_records()}
    # ids in arrival order: 0 (agent 0, step 0), 1 (agent 1, step 0), 2 (agent 0, step 1), 3 (agent 1, step 2)
    assert {i: (r.machine, r.start, r.end) for i, r in records.items() if r.status is Status.COMPLETED} == {
        0: ("r0", 0.0, 2.0),
        2: ("r1", 1.0, 1.5),
        3: ("r1", 2.0, 3.0),
    }
    assert records[1].status is Status.RUNNING and (records[1].machine, records[1].start) == ("r0", 2.0)


def test_sharing_factor_zero_keeps_agents_independent_and_one_copies_the_predecessor():
    env = simpy.Environment()
    osl = OrdinalSharing(0.5, 1.0, ties="first")
    GridModel(env, GridTopology.complete(3, [1.0, 2.0]), osl, FixedJobs({}), steps=1)
    osl.utility[:] = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    osl.receive(1, [osl.message(0)])
    np.testing.assert_array_equal(osl.utility[1], [1.0, 2.0])
    lone = OrdinalSharing(0.5, 0.0, ties="first")
    GridModel(simpy.Environment(), GridTopology.complete(2, [1.0, 2.0]), lone, FixedJobs({}), steps=1)
    lone.utility[:] = [[1.0, 2.0], [3.0, 4.0]]
    lone.receive(1, [lone.message(0)])
    np.testing.assert_array_equal(lone.utility[1], [3.0, 4.0])


def test_message_is_a_copy_taken_when_sent():
    osl = OrdinalSharing(0.5, 0.5, ties="first")
    GridModel(simpy.Environment(), GridTopology.complete(2, [1.0]), osl, FixedJobs({}), steps=1)
    sent = osl.message(1)
    osl.utility[1] = 7.0
    assert sent.tolist() == [-1.0]


def test_random_ties_spread_first_choices_and_are_reproducible():
    """With all utilities equal, ties go to a uniformly drawn resource; the same seed gives the same draws."""

    def first_choices(seed):
        osl = OrdinalSharing(rng=np.random.default_rng(seed))
        GridModel(simpy.Environment(), GridTopology.complete(1, [1.0] * 50), osl, FixedJobs({}), steps=1)
        return [next(iter(osl.assign(0, np.array([1.0]))))[1] for _ in range(40)]

    picks = first_choices(5)
    assert picks == first_choices(5)
    assert len(set(picks)) > 10


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(alpha=1.5), r"alpha \(learning rate\) must be in \[0, 1\], got 1.5"),
        (dict(beta=-0.1), r"beta \(sharing factor\) must be in \[0, 1\], got -0.1"),
        (dict(ties="best"), "ties must be 'random' or 'first'"),
        (dict(), "ties='random' needs rng="),
    ],
)
def test_bad_osl_parameters_are_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        OrdinalSharing(**kwargs)


def test_sls_learns_only_at_completion_from_the_effective_rate():
    """SLS: nothing changes while a job waits; at completion Q <- Q + alpha (J / TPT - Q)."""
    env = simpy.Environment()
    sls = SimpleLearning(0.5, 0.0, rng=np.random.default_rng(0))
    model = GridModel(env, GridTopology.complete(1, [2.0]), sls, FixedJobs({0: {0: [6.0]}}), steps=3)
    env.run(until=2.5)
    assert sls.efficiency.tolist() == [[0.0]]  # the job of length 6 at capacity 2 ends at 3
    env.run(until=model.done)
    assert sls.efficiency.tolist() == [[0.5 * 6.0 / 3.0]]
    with pytest.raises(ValueError, match=r"epsilon \(exploration\) must be in \[0, 1\], got 2"):
        SimpleLearning(0.5, 2, rng=np.random.default_rng(0))

"""The fuzzy rulebase of seed 000 section 3.3 and TD(0) with average reward (eqs. 4-6), by hand."""

from __future__ import annotations

import math

import pytest

from schedlab.learners.fuzzy_rulebase import FuzzyRulebase
from schedlab.learners.td import AverageRewardTD, LearningRate, TDConfig
from schedlab.model.records.job_record import JobRecord


def test_rules_are_listed_as_in_the_paper():
    rb = FuzzyRulebase(3)
    assert rb.labels == ("SSS", "SSL", "SLS", "SLL", "LSS", "LSL", "LLS", "LLL")
    assert rb.size == 8


def test_rule_weights_are_products_of_memberships():
    rb = FuzzyRulebase(3)
    x = (0.2, 0.5, 0.9)
    w = rb.weights(x)
    # rule 4 (S, L, L): (1 - 0.2) * 0.5 * 0.9
    assert w[3] == pytest.approx(0.8 * 0.5 * 0.9)
    # rule 5 (L, S, S): 0.2 * 0.5 * 0.1
    assert w[4] == pytest.approx(0.2 * 0.5 * 0.1)
    assert sum(rb.basis(x)) == pytest.approx(1.0)


def test_value_is_p_dot_basis_and_corners_give_one_rule():
    rb = FuzzyRulebase(3)
    p = [-0.97, -0.25, -0.86, -0.39, 0.48, -0.85, 4.03, 0.19]  # the p of seed 000 section 5
    for x in [(0.1, 0.7, 0.3), (0.9, 0.2, 0.5), (0.0, 1.0, 0.0)]:
        assert rb.value(p, x) == pytest.approx(sum(a * b for a, b in zip(p, rb.basis(x), strict=True)))
    assert rb.value(p, (1.0, 1.0, 0.0)) == pytest.approx(4.03)  # all weight on rule 7 (L, L, S)
    assert FuzzyRulebase(2).value([1, 2, 3, 4], (0.5, 0.5)) == pytest.approx(2.5)  # the general path


def test_inputs_are_clipped_but_nan_is_refused():
    rb = FuzzyRulebase(3)
    p = list(range(8))
    assert rb.value(p, (1.5, -2.0, 0.0)) == rb.value(p, (1.0, 0.0, 0.0))
    with pytest.raises(ValueError, match="finite"):
        rb.value(p, (math.nan, 0.0, 0.0))
    with pytest.raises(ValueError, match="expected 3 inputs"):
        rb.basis((0.5, 0.5))


def test_one_td_update_by_hand():
    td = AverageRewardTD(FuzzyRulebase(3), TDConfig(learning_rate=LearningRate(0.1)))
    rb = td.basis_functions
    # from the middle of the cube (every rule weighs 1/8), reward 10, to the corner (L, S, S)
    delta = td.update(rb.basis((0.5, 0.5, 0.5)), 10.0, rb.basis((1.0, 0.0, 0.0)))
    # delta = r - rho + V(s') - V(s) = 10 - 0 + 0 - 0; p_i += 0.1 * 10 * 1/8; rho = 0.1 * 10
    assert delta == 10.0
    assert td.p == pytest.approx([0.125] * 8)
    assert td.rho == pytest.approx(1.0)
    # from (L, S, S), reward 0, to (S, S, S): delta = 0 - 1 + p1 - p5 = -1, only p5 moves
    delta = td.update(rb.basis((1.0, 0.0, 0.0)), 0.0, rb.basis((0.0, 0.0, 0.0)))
    assert delta == pytest.approx(-1.0)
    assert td.p[4] == pytest.approx(0.125 - 0.1)
    assert td.p[:4] == pytest.approx([0.125] * 4)
    assert td.rho == pytest.approx(0.9)
    assert td.updates == 2


def test_learning_rate_schedules():
    assert LearningRate(0.2)(10_000) == 0.2
    one_over_t = LearningRate(0.2, half_life=100)
    assert one_over_t(0) == 0.2 and one_over_t(100) == pytest.approx(0.1) and one_over_t(300) == pytest.approx(0.05)
    for bad in [dict(initial=0), dict(initial=1.5), dict(initial=0.1, half_life=0), dict(initial=math.nan)]:
        with pytest.raises(ValueError):
            LearningRate(**bad)


def _done(utility: float) -> JobRecord:
    from schedlab.model.core.job import Job
    from schedlab.model.records.job_record import Status
    from schedlab.model.records.table import job_record

    job = Job(id=0, submit=0.0, runtime=1.0, cpus=1)
    return job_record(job, "m", Status.COMPLETED, start=0.0, end=1.0, cpu_time=1.0)._replace(utility=utility)


def test_updates_happen_at_the_points_of_section_3_4():
    td = AverageRewardTD(FuzzyRulebase(3), TDConfig(learning_rate=LearningRate(0.5)))
    a, b, c, d = (0.1, 0.1, 0.1), (0.9, 0.5, 0.2), (0.4, 0.4, 0.4), (0.2, 0.8, 0.6)
    assert not td.decision_point(a, acted=False, considered=False, started=True)  # opens the first transition
    td(_done(7.0))  # a completion, no consideration before it: no update
    assert not td.decision_point(b, acted=False, considered=False, started=False)
    # preempting or squeezing was considered but not done: armed, no update yet
    assert not td.decision_point(c, acted=False, considered=True, started=False)
    # an arrival that changes nothing: still no update
    assert not td.decision_point(c, acted=False, considered=True, started=False)
    td(_done(3.0))  # the change that follows: update, with the reward of both completions
    assert td.decision_point(d, acted=False, considered=False, started=False)
    assert td.updates == 1 and td.rho == pytest.approx(0.5 * 10.0)
    # an action always updates; its reward is what completed since the last update (none)
    assert td.decision_point(a, acted=True, considered=True, started=False)
    assert td.updates == 2 and td.rho == pytest.approx(0.5 * 5.0)


def test_a_frozen_learner_keeps_its_parameters():
    td = AverageRewardTD(FuzzyRulebase(3), TDConfig(learning_rate=LearningRate(0.5)))
    td.frozen = True
    td(_done(5.0))
    for _ in range(3):
        assert not td.decision_point((0.5, 0.5, 0.5), acted=True, considered=True, started=True)
    assert td.p == [0.0] * 8 and td.updates == 0

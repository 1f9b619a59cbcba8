"""One way to write a queue order: anything with ``rank(waiting, now)``, or a score; every backfilling rule takes both.

The jobs below are chosen so that each order gives its own schedule: a 4-CPU job holds
the machine until t = 10, then three 4-CPU jobs, which arrived together at t = 1, run one
after the other in the order's ranking (none can backfill, so the ranking alone decides).
The machines decide once per instant (``batch_decisions``), so every rule sees the three
arrivals at one decision: conservative backfilling ranks only the jobs that arrive at
one decision (it keeps each reservation made at arrival).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest
import simpy

from schedlab.model.contracts.machine import Order
from schedlab.model.core.job import Job
from schedlab.model.formats.platform_file import parse_platform
from schedlab.policies.backfilling import EASY, Committed
from schedlab.policies.batch import make_policy
from schedlab.policies.conservative import Conservative
from schedlab.policies.conservative_rebuild import RebuildConservative, plan
from schedlab.policies.node_backfilling import NodeEASY
from schedlab.policies.ordering import FCFS, SJF
from schedlab.policies.partition_conservative import PartitionConservative
from schedlab.policies.placement import FirstFitPlacement
from schedlab.policies.queues import StrictPriority, WeightedRoundRobin
from schedlab.policies.scoring import Priority, as_order
from schedlab.processes.cluster.cluster import Cluster
from schedlab.processes.machine.replay import replay_model
from schedlab.processes.source import Source

#: one node of 4 cores: the machine of the cluster rules
ONE_NODE = parse_platform({"nodes": {"n": {"count": 1, "cores": 4, "memory": 16}}})


def jobs() -> list[Job]:
    """Job 1 holds all 4 CPUs until 10; jobs 2-4 ask for all 4, with estimates that disagree with runtimes."""
    return [
        Job(id=1, submit=0.0, runtime=10.0, cpus=4),
        Job(id=2, submit=1.0, runtime=8.0, cpus=4, estimate=8.0),
        Job(id=3, submit=1.0, runtime=2.0, cpus=4, estimate=12.0),
        Job(id=4, submit=1.0, runtime=5.0, cpus=4, estimate=6.0),
    ]


#: each order's start times: arrival, estimate (requested time), true runtime, highest id first
FCFS_STARTS = {1: 0.0, 2: 10.0, 3: 18.0, 4: 20.0}
BY_ESTIMATE = {1: 0.0, 4: 10.0, 2: 15.0, 3: 23.0}  # 4 (est. 6), 2 (8), 3 (12)
BY_RUNTIME = {1: 0.0, 3: 10.0, 4: 12.0, 2: 17.0}  # 3 (runs 2), 4 (5), 2 (8)
NEWEST_FIRST = {1: 0.0, 4: 10.0, 3: 15.0, 2: 17.0}


def starts(policy) -> dict[int, float]:
    model = replay_model(simpy.Environment(), jobs(), 4, policy, batch_decisions=True).run()
    return {r.id: r.start for r in model.records()}


def cluster_starts(policy) -> dict[int, float]:
    env = simpy.Environment()
    cluster = Cluster(env, ONE_NODE, policy, FirstFitPlacement(), batch_decisions=True)
    Source(env, jobs(), cluster)
    env.run()
    return {r.id: r.start for r in cluster.records}


class NewestFirst:
    """A user's own order: the highest id (the latest submitted) first. Any object with ``rank`` is an order."""

    def rank(self, waiting: Sequence[Job], now: float) -> Sequence[Job]:
        return sorted(waiting, key=lambda job: -job.id)


def requested(job: Job, now: float) -> float:
    """A score written by hand: the requested time (what the score ``"sjf"`` is)."""
    return job.requested_time


def test_an_order_is_anything_with_rank():
    for order in (NewestFirst(), Priority("wfp3"), FCFS(), SJF(), StrictPriority(ONE_NODE)):
        assert isinstance(order, Order)
        assert as_order(order) is order  # used as it is
    assert not isinstance(requested, Order)
    assert as_order(requested) == Priority(requested)  # a score is wrapped, once, in one place
    assert as_order("sjf") == Priority("sjf")


def test_easy_runs_over_a_users_own_order_a_score_or_a_score_name():
    assert starts(EASY(NewestFirst())) == NEWEST_FIRST
    assert starts(EASY(requested)) == starts(EASY("sjf")) == starts(EASY(SJF())) == BY_ESTIMATE
    assert starts(EASY(lambda job, now: job.runtime)) == starts(EASY(SJF(by="runtime"))) == BY_RUNTIME
    assert starts(EASY()) == starts(EASY(FCFS())) == FCFS_STARTS
    assert str(EASY(requested)) == "requested+easy" and str(EASY(SJF())) == str(EASY("sjf")) == "sjf+easy"


#: every rule that takes an order, on the machine (replay) or on a one-node cluster
MACHINE_RULES = {
    "easy": EASY,
    "conservative": Conservative,
    "conservative-rebuild": RebuildConservative,
    "committed": Committed,
}
CLUSTER_RULES = {
    "node-easy": NodeEASY,
    "partition-conservative": PartitionConservative,
    "strict-priority": lambda order: StrictPriority(ONE_NODE, order),
    "weighted-round-robin": lambda order: WeightedRoundRobin(ONE_NODE, order),
}


@pytest.mark.parametrize("form", ["name", "callable", "Priority", "SJF", "own"])
@pytest.mark.parametrize("rule", [*MACHINE_RULES, *CLUSTER_RULES])
def test_every_rule_takes_an_order_in_every_form(rule, form):
    order = {"name": "sjf", "callable": requested, "Priority": Priority(requested), "SJF": SJF(), "own": NewestFirst()}[
        form
    ]
    expected = NEWEST_FIRST if form == "own" else BY_ESTIMATE
    if rule in MACHINE_RULES:
        assert starts(MACHINE_RULES[rule](order)) == expected
    else:
        assert cluster_starts(CLUSTER_RULES[rule](order)) == expected


def test_sjf_means_the_estimate_everywhere_unless_it_says_runtime():
    assert SJF() == SJF(by="estimate")
    assert starts(SJF()) == starts(Priority("sjf")) == starts(make_policy("sjf")) == BY_ESTIMATE
    assert starts(make_policy("sjf", "easy")) == starts(EASY(SJF())) == BY_ESTIMATE
    assert starts(SJF(by="runtime")) == BY_RUNTIME
    assert (str(SJF()), str(SJF(by="runtime"))) == ("sjf", "sjf-runtime")


def test_the_conservative_plan_takes_the_same_orders():
    env = simpy.Environment()
    machine = replay_model(env, jobs(), 4, RebuildConservative()).parts["machine"]
    env.run(until=5.0)  # job 1 runs, jobs 2-4 wait
    reserved = {job.id: t for job, t in plan(machine.view, requested).items()}
    assert reserved == {4: 10.0, 2: 16.0, 3: 24.0}  # by requested times: 6, then 8, then 12
    assert plan(machine.view, "sjf") == plan(machine.view, SJF()) == plan(machine.view, requested)


def test_a_priority_takes_a_score_name_or_a_callable_and_says_what_is_wrong():
    assert starts(Priority(lambda job, now: -job.id)) == NEWEST_FIRST
    with pytest.raises(ValueError, match="unknown score 'shortest'; choose from fcfs, sjf"):
        Priority("shortest")
    with pytest.raises(TypeError, match="a score is a name in SCORES or a callable"):
        Priority(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"an order has rank\(waiting, now\), or is a score"):
        EASY(3)  # type: ignore[arg-type]


def test_f2_f3_f4_and_saf_are_carastan_santos_and_de_camargos_formulas():
    # r = 100 s requested, n = 4 CPUs, s = 1000 s submitted: log10(s) = 3
    from schedlab.policies.scoring import SCORES

    job = Job(1, submit=1000.0, runtime=50.0, cpus=4, estimate=100.0)
    assert SCORES["f2"](job, 0.0) == pytest.approx(10.0 * 4 + 25600.0 * 3)
    assert SCORES["f3"](job, 0.0) == pytest.approx(100.0 * 4 + 6_860_000.0 * 3)
    assert SCORES["f4"](job, 0.0) == pytest.approx(100.0 * 2 + 530_000.0 * 3)
    assert SCORES["saf"](job, 0.0) == pytest.approx(400.0)
    # a job submitted at 0 keeps a finite score (s read as 0.1, as F1 does)
    first = Job(2, submit=0.0, runtime=50.0, cpus=4, estimate=100.0)
    assert all(math.isfinite(SCORES[name](first, 0.0)) for name in ("f2", "f3", "f4"))

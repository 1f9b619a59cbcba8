"""Invariants of :class:`~schedlab.processes.cluster.cluster.Cluster` under random platforms, workloads and preemptions.

Hypothesis builds a platform (one to three node types: cores, memory, sometimes GPUs; a
partition per type, a queue per partition, one asking for GPUs), a workload of jobs in
those queues, a placement rule, an order (FCFS, EASY, node-aware EASY, strict priority,
conservative per partition, weighted round robin), a walltime (kill or run-on) and a driver that preempts a random
running job at random times. Checked from the cluster's placement table after the run,
and on the live node states at each of the driver's wake-ups:

* no node is ever over any of its resources: cores, memory, GPUs;
* every job runs only on nodes of its partition;
* under exclusive placement a job is alone on its nodes; under the other rules a job
  holds exactly the cores it asked for, every time it (re)starts;
* jobs are conserved: one record each, completed, killed at its time limit (under
  ``walltime="kill"``) or rejected once the run drains;
* with requested times exact and nothing preempted, NodeEASY keeps its promise: a head
  job starts no later than the first shadow time it was given (a mutant that backfills
  whatever fits fails this within the first examples).
"""

from __future__ import annotations

from collections import defaultdict

import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.model.core.job import Job
from schedlab.model.formats.platform_file import parse_platform
from schedlab.model.records.job_record import Status
from schedlab.policies.backfilling import EASY
from schedlab.policies.node_backfilling import NodeEASY
from schedlab.policies.partition_conservative import PartitionConservative
from schedlab.policies.partition_conservative_rebuild import RebuildPartitionConservative
from schedlab.policies.placement import PLACEMENTS, make_placement
from schedlab.policies.queues import StrictPriority, WeightedRoundRobin
from schedlab.policies.scoring import Priority
from schedlab.processes.cluster.cluster import Cluster
from schedlab.processes.source import Source

SETTINGS = settings(max_examples=150, deadline=None)
EPS = 1e-9


@st.composite
def platforms(draw):
    kinds = draw(st.integers(1, 3))
    nodes, partitions, queues = {}, {}, {}
    for k in range(kinds):
        table = {
            "count": draw(st.integers(1, 3)),
            "cores": draw(st.integers(1, 6)),
            "memory": draw(st.sampled_from([4, 8, 16])),
        }
        if k == 0 and draw(st.booleans()):
            table["gpus"] = draw(st.integers(1, 2))
        nodes[f"t{k}"] = table
        partitions[f"p{k}"] = {"nodes": [f"t{k}"], "swf_id": k}
        queues[f"q{k}"] = {
            "swf_id": k,
            "partition": f"p{k}",
            "priority": draw(st.integers(0, 2)),
            "weight": draw(st.sampled_from([1, 2])),
        }
        if "gpus" in table:
            queues[f"q{k}"]["demands"] = {"gpus": 1}
    return parse_platform({"nodes": nodes, "partitions": partitions, "queues": queues}, source="drawn")


@st.composite
def cases(draw):
    platform = draw(platforms())
    n = draw(st.integers(1, 25))
    jobs, t = [], 0.0
    for i in range(n):
        t += draw(st.sampled_from([0.0, 0.5, 1.0, 3.0]))
        queue = draw(st.integers(0, len(platform.node_types) - 1))
        memory = draw(st.sampled_from([0.0, 1.0, 3.0, 7.0]))
        job = Job(
            i,
            t,
            draw(st.sampled_from([1.0, 2.0, 5.0])),
            cpus=draw(st.integers(1, 8)),
            demands={"memory": memory} if memory else {},
            estimate=draw(st.sampled_from([None, 3.0, 9.0])),
            job_class=str(queue),
        )
        jobs.append(platform.admit(job))
    placement = draw(st.sampled_from(sorted(PLACEMENTS)))
    order = draw(
        st.sampled_from(
            [
                "fcfs",
                "easy",
                "node-easy",
                "strict",
                "strict+node-easy",
                "partition-conservative",
                "strict+partition-conservative",
                "partition-conservative-rebuild",
                "wrr",
            ]
        )
    )
    preemptions = draw(st.lists(st.tuples(st.sampled_from([0.25, 1.0, 2.5, 4.0]), st.integers(0, 50)), max_size=4))
    walltime = draw(st.sampled_from(["run-on", "kill"]))
    return platform, jobs, placement, order, preemptions, walltime


def _policy(order, platform):
    return {
        "fcfs": lambda: Priority(),
        "easy": lambda: EASY(),
        "node-easy": lambda: NodeEASY(),
        "strict": lambda: StrictPriority(platform),
        "strict+node-easy": lambda: NodeEASY(StrictPriority(platform)),
        "partition-conservative": lambda: PartitionConservative(),
        "strict+partition-conservative": lambda: PartitionConservative(StrictPriority(platform)),
        "partition-conservative-rebuild": lambda: RebuildPartitionConservative(),
        "wrr": lambda: WeightedRoundRobin(platform),
    }[order]()


def _check_live(cluster):
    for node in cluster.nodes:
        assert 0 <= node.free_cores <= node.cores
        for r, capacity in node.resources.items():
            assert -EPS * max(1.0, capacity) <= node.free[r] <= capacity * (1 + EPS)
    assert cluster.free == sum(n.free_cores for n in cluster.nodes)


@SETTINGS
@given(cases())
def test_nodes_stay_within_their_resources_and_jobs_within_their_partitions(case):
    platform, jobs, placement, order, preemptions, walltime = case
    env = simpy.Environment()
    cluster = Cluster(env, platform, _policy(order, platform), make_placement(placement), walltime=walltime)
    Source(env, jobs, cluster)

    def driver():
        for delay, pick in preemptions:
            yield env.timeout(delay)
            _check_live(cluster)
            running = list(cluster.running)
            if running:
                cluster.preempt(running[pick % len(running)].job)
                _check_live(cluster)
                cluster.decide()
                _check_live(cluster)

    env.process(driver())
    env.run()
    _check_live(cluster)

    # jobs are conserved: every job ran to its end (or its time limit) or was rejected, once
    records = cluster.all_records()
    assert sorted(r.id for r in records) == sorted(j.id for j in jobs)
    assert {r.status for r in records} <= {Status.COMPLETED, Status.REJECTED, Status.TIMEOUT}

    by_id = {j.id: j for j in jobs}
    node_of = {n.name: n for n in platform.nodes}
    index = {n.name: i for i, n in enumerate(platform.nodes)}
    rows = [r for r in cluster.placement_rows() if r[5] < r[6]]  # stretches of no length hold nothing
    exclusive = placement == "exclusive"
    stretches = defaultdict(int)
    for job_id, _queue, node, _kind, cores, start, _end in rows:
        assert index[node] in platform.nodes_of(by_id[job_id])  # within its partition
        stretches[job_id, start] += cores
    for (job_id, _start), cores in stretches.items():
        assert cores >= by_id[job_id].cpus if exclusive else cores == by_id[job_id].cpus

    for name, node in node_of.items():
        mine = [r for r in rows if r[2] == name]
        for t in {r[5] for r in mine}:
            now = [r for r in mine if r[5] <= t < r[6]]
            assert sum(r[4] for r in now) <= node.cores
            for resource, capacity in node.resources.items():
                held = sum(by_id[r[0]].demands.get(resource, 0.0) * r[4] / by_id[r[0]].cpus for r in now)
                assert held <= capacity * (1 + EPS) or exclusive
            if exclusive:
                assert len({r[0] for r in now}) <= 1  # alone on its nodes

    # core ids: each stretch holds as many ids as cores, on the nodes of its placement rows, and
    # no core id is held by two jobs at once
    from schedlab.model.core.procset import parse_procset

    held: dict[int, object] = {}
    for _t, begins, core, job_id in sorted(
        (t, begins, core, job_id)
        for job_id, procs, start, end in cluster.allocation_rows()
        if start < end
        for core in parse_procset(procs)
        for t, begins in ((start, 1), (end, 0))
    ):
        if begins:
            assert core not in held, f"core {core} given to job {job_id} while job {held[core]} holds it"
            assert index[cluster.core_of(core)[0]] in platform.nodes_of(by_id[job_id])
            held[core] = job_id
        else:
            del held[core]


@settings(max_examples=100, deadline=None)
@given(cases())
def test_node_easy_keeps_the_heads_reservation_when_estimates_are_exact(case):
    """FCFS with NodeEASY, requested times exact, nothing preempted: a head starts by the first shadow time it got."""
    import schedlab.policies.node_backfilling as nb

    platform, jobs, placement, _order, _preemptions, _walltime = case
    exact = [
        Job(j.id, j.submit, j.runtime, cpus=j.cpus, demands=dict(j.demands), estimate=j.runtime, job_class=j.job_class)
        for j in jobs
    ]
    promised: dict[int, float] = {}
    reserve = nb.node_reservation

    def recording(view, head):
        shadow, nodes, alloc = reserve(view, head)
        promised.setdefault(head.id, shadow)  # the first promise is the one to keep
        return shadow, nodes, alloc

    nb.node_reservation = recording
    try:
        env = simpy.Environment()
        cluster = Cluster(env, platform, NodeEASY(), make_placement(placement))
        Source(env, exact, cluster)
        env.run()
    finally:
        nb.node_reservation = reserve
    start = {r.id: r.start for r in cluster.all_records() if r.status is Status.COMPLETED}
    for job_id, shadow in promised.items():
        assert start[job_id] <= shadow + 1e-9

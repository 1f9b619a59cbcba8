"""A cluster of nodes: where jobs are placed, by which rule, within which partition, in which queue's turn."""

from __future__ import annotations

from pathlib import Path

import pytest
import simpy

from schedlab.model.core.job import Job
from schedlab.model.formats.platform_file import load_platform, parse_platform
from schedlab.policies.backfilling import EASY
from schedlab.policies.placement import BestFitPlacement, ExclusivePlacement, FirstFitPlacement, PackPlacement
from schedlab.policies.queues import StrictPriority, WeightedRoundRobin
from schedlab.policies.scoring import Priority
from schedlab.processes.cluster.cluster import Cluster
from schedlab.processes.machine.machine import PolicyError
from schedlab.processes.source import Source

ROOT = Path(__file__).resolve().parent.parent
TWO_TYPES = load_platform(ROOT / "docs" / "platforms" / "two_types.toml")
#: three nodes of 4 cores and 16 GiB
SMALL = parse_platform({"nodes": {"n": {"count": 3, "cores": 4, "memory": 16}}})


def run(platform, jobs, placement, policy=None, **kw):
    env = simpy.Environment()
    cluster = Cluster(env, platform, policy or Priority(), placement, **kw)
    Source(env, jobs, cluster)
    env.run()
    return cluster


def where(cluster):
    """{job id: {node: cores}} from the placement table."""
    out = {}
    for job, _queue, node, _kind, cores, _start, _end in cluster.placement_rows():
        out.setdefault(job, {})[node] = cores
    return out


def test_first_fit_takes_the_first_node_that_holds_the_whole_job():
    jobs = [Job(1, 0.0, 10.0, cpus=3), Job(2, 0.0, 10.0, cpus=2), Job(3, 0.0, 10.0, cpus=1)]
    assert where(run(SMALL, jobs, FirstFitPlacement())) == {1: {"n-0": 3}, 2: {"n-1": 2}, 3: {"n-0": 1}}


def test_best_fit_takes_the_node_it_leaves_fullest():
    jobs = [Job(1, 0.0, 10.0, cpus=3), Job(2, 0.0, 10.0, cpus=2), Job(3, 0.0, 10.0, cpus=2)]
    # job 3 fits n-0 (1 free: no), n-1 (2 free, leaves 0) and n-2 (4 free): best-fit picks n-1
    assert where(run(SMALL, jobs, BestFitPlacement())) == {1: {"n-0": 3}, 2: {"n-1": 2}, 3: {"n-1": 2}}


def test_a_job_one_node_could_hold_waits_for_one_under_first_fit_but_pack_splits_it():
    jobs = [Job(1, 0.0, 10.0, cpus=3), Job(2, 0.0, 10.0, cpus=3), Job(3, 0.0, 10.0, cpus=3), Job(4, 1.0, 10.0, cpus=3)]
    first = run(SMALL, jobs, FirstFitPlacement())
    assert where(first)[4] == {"n-0": 3}  # after job 1 ends, at t=10
    assert next(r for r in first.records if r.id == 4).start == 10.0
    packed = run(SMALL, jobs, PackPlacement())  # partly used nodes first: job 2 takes n-0's last core
    assert where(packed) == {1: {"n-0": 3}, 2: {"n-0": 1, "n-1": 2}, 3: {"n-1": 2, "n-2": 1}, 4: {"n-2": 3}}
    assert next(r for r in packed.records if r.id == 4).start == 1.0  # at once


def test_a_job_wider_than_a_node_spans_nodes():
    assert where(run(SMALL, [Job(1, 0.0, 10.0, cpus=10)], FirstFitPlacement())) == {1: {"n-0": 4, "n-1": 4, "n-2": 2}}


def test_exclusive_holds_whole_nodes_alone():
    jobs = [Job(1, 0.0, 10.0, cpus=1), Job(2, 0.0, 10.0, cpus=5), Job(3, 0.0, 10.0, cpus=1)]
    cluster = run(SMALL, jobs, ExclusivePlacement())
    assert where(cluster) == {1: {"n-0": 4}, 2: {"n-1": 4, "n-2": 4}, 3: {"n-0": 4}}
    assert next(r for r in cluster.records if r.id == 3).start == 10.0  # n-0 was job 1's alone


def test_memory_is_a_node_resource_shared_in_proportion_to_cores():
    # 12 GiB on 2 cores: two such jobs cannot share a 16 GiB node, though its cores could
    jobs = [Job(1, 0.0, 10.0, cpus=2, demands={"memory": 12}), Job(2, 0.0, 10.0, cpus=2, demands={"memory": 12})]
    assert where(run(SMALL, jobs, FirstFitPlacement())) == {1: {"n-0": 2}, 2: {"n-1": 2}}
    wide = run(SMALL, [Job(1, 0.0, 10.0, cpus=8, demands={"memory": 40})], FirstFitPlacement())
    assert where(wide) == {1: {"n-0": 3, "n-1": 3, "n-2": 2}}  # 5 GiB a core: 3 cores in 16 GiB


def test_a_job_no_node_of_its_partition_can_hold_is_rejected():
    cluster = run(TWO_TYPES, [TWO_TYPES.admit(Job(1, 0.0, 10.0, cpus=20, job_class="gpu"))], FirstFitPlacement())
    assert cluster.rejected == 1  # 16 cores of gpu nodes, 2 GPUs... but 20 cores asked


def test_gpu_jobs_run_on_gpu_nodes_and_take_their_gpus():
    jobs = [TWO_TYPES.admit(Job(i, 0.0, 10.0, cpus=1, job_class="gpu")) for i in range(5)]
    cluster = run(TWO_TYPES, jobs, FirstFitPlacement())
    nodes = where(cluster)
    assert {n for placed in nodes.values() for n in placed} == {"gpu-0", "gpu-1"}
    starts = sorted(r.start for r in cluster.records)
    assert starts == [0.0, 0.0, 0.0, 0.0, 10.0]  # four GPUs: the fifth job waits for one


def test_a_cluster_does_not_squeeze_jobs():
    env = simpy.Environment()
    cluster = Cluster(env, SMALL, lambda view: None, FirstFitPlacement())
    job = Job(1, 0.0, 10.0, cpus=2)
    cluster.submit(job)
    with pytest.raises(PolicyError, match="does not squeeze"):
        cluster.start(job, 1)
    cluster.start(job)
    with pytest.raises(PolicyError, match="does not resize"):
        cluster.resize(job, 1)


def test_strict_priority_starts_the_higher_queue_first():
    jobs = [
        TWO_TYPES.admit(Job(1, 0.0, 10.0, cpus=64, job_class="long")),
        TWO_TYPES.admit(Job(2, 0.0, 10.0, cpus=64, job_class="short")),
    ]
    cluster = run(TWO_TYPES, jobs, FirstFitPlacement(), StrictPriority(TWO_TYPES), batch_decisions=True)
    start = {r.id: r.start for r in cluster.records}
    assert start == {2: 0.0, 1: 10.0}  # short has priority 10, long 0


def test_a_blocked_job_blocks_only_its_own_partition():
    jobs = [
        TWO_TYPES.admit(Job(1, 0.0, 10.0, cpus=8, job_class="gpu")),
        TWO_TYPES.admit(Job(2, 0.0, 10.0, cpus=8, job_class="gpu")),
        TWO_TYPES.admit(Job(3, 0.0, 10.0, cpus=8, job_class="gpu")),  # no gpu node left
        TWO_TYPES.admit(Job(4, 0.0, 10.0, cpus=4, job_class="long")),
    ]
    cluster = run(TWO_TYPES, jobs, FirstFitPlacement(), StrictPriority(TWO_TYPES), batch_decisions=True)
    start = {r.id: r.start for r in cluster.records}
    assert start == {1: 0.0, 2: 0.0, 3: 10.0, 4: 0.0}


def test_weighted_round_robin_gives_each_queue_its_share():
    platform = parse_platform({"nodes": {"n": {"cores": 1}}, "queues": {"a": {"weight": 2}, "b": {"weight": 1}}})
    jobs = [Job(i, 0.0, 1.0, job_class="a") for i in range(6)] + [
        Job(10 + i, 0.0, 1.0, job_class="b") for i in range(3)
    ]
    cluster = run(platform, jobs, FirstFitPlacement(), WeightedRoundRobin(platform), batch_decisions=True)
    queues = "".join("a" if r.id < 10 else "b" for r in sorted(cluster.records, key=lambda r: r.start))
    assert queues == "aabaabaab"  # two of a's jobs for each of b's (a first, by name, when level)


def test_easy_backfills_over_the_queues_order():
    policy = EASY(StrictPriority(TWO_TYPES))
    jobs = [
        TWO_TYPES.admit(Job(1, 0.0, 100.0, cpus=48, estimate=100.0, job_class="long")),
        TWO_TYPES.admit(Job(2, 1.0, 100.0, cpus=64, estimate=100.0, job_class="long")),
        TWO_TYPES.admit(Job(3, 2.0, 50.0, cpus=16, estimate=50.0, job_class="long")),
    ]
    cluster = run(TWO_TYPES, jobs, FirstFitPlacement(), policy)
    start = {r.id: r.start for r in cluster.records}
    assert start == {1: 0.0, 2: 100.0, 3: 2.0}  # 3 ends before 2's reservation


def test_replay_on_a_platform_saves_where_jobs_ran_and_plot_draws_a_gantt_per_node(tmp_path, monkeypatch):
    from schedlab.experiment.cli import main

    monkeypatch.chdir(ROOT)
    out = tmp_path / "replay"
    args = [
        "replay",
        "docs/platforms/two_types_jobs.swf",
        "--platform",
        "docs/platforms/two_types.toml",
        "--start",
        "0",
        "--length",
        "80",
        "--no-native",
        "--backfill",
        "easy",
        "--queues",
        "strict",
        "--executor",
        "serial",
        "--out",
        str(out),
    ]
    assert main(args) == 0
    table = (out / "series" / "cell0-rep0-placements.csv").read_text().splitlines()
    assert table[0] == "job,queue,node,kind,cores,start,end"
    gpu_rows = [row.split(",") for row in table[1:] if row.split(",")[1] == "2"]
    assert gpu_rows and all(row[3] == "gpu" for row in gpu_rows)  # queue 2's jobs ran on gpu nodes only
    assert main(["plot", str(out)]) == 0
    assert (out / "plots" / "gantt_nodes.png").stat().st_size > 0


def test_a_bad_platform_file_stops_replay_with_its_one_line_error(tmp_path, monkeypatch, capsys):
    from schedlab.experiment.cli import main

    monkeypatch.chdir(ROOT)
    bad = tmp_path / "bad.toml"
    bad.write_text("[nodes.gpu]\ncount = -2\ncores = 8\n")
    assert (
        main(
            [
                "replay",
                "docs/platforms/two_types_jobs.swf",
                "--platform",
                str(bad),
                "--start",
                "0",
                "--length",
                "10",
                "--executor",
                "serial",
                "--out",
                str(tmp_path / "o"),
            ]
        )
        == 2
    )
    assert "error: bad.toml: nodes.gpu.count: must be a whole number >= 1, got -2" in capsys.readouterr().err


def test_a_queues_runtime_limit_kills_its_jobs_under_walltime_kill():
    from schedlab.model.records.job_record import Status

    admitted = TWO_TYPES.admit(Job(1, 0.0, 5000.0, cpus=4, job_class="short"))  # asks for nothing: gets 3600
    by_hand = Job(2, 0.0, 5000.0, cpus=4, job_class="short")  # not admitted: the limit holds
    free = Job(3, 0.0, 5000.0, cpus=4, job_class="long")  # long has no limit
    cluster = run(TWO_TYPES, [admitted, by_hand, free], FirstFitPlacement(), walltime="kill")
    ends = {r.id: (r.status, r.end) for r in cluster.records}
    assert ends == {1: (Status.TIMEOUT, 3600.0), 2: (Status.TIMEOUT, 3600.0), 3: (Status.COMPLETED, 5000.0)}
    assert all(node.free_cores == node.cores for node in cluster.nodes)  # a killed job's nodes are free again
    run_on = run(TWO_TYPES, [admitted], FirstFitPlacement())  # the default: run-on
    assert run_on.records[0].status is Status.COMPLETED and run_on.records[0].end == 5000.0


def test_a_queue_may_kill_or_run_on_whatever_the_cluster_does():
    """Per queue: ``walltime`` in a queue's table overrides the cluster's for its jobs."""
    from schedlab.model.records.job_record import Status

    platform = parse_platform(
        {
            "nodes": {"n": {"count": 2, "cores": 4}},
            "queues": {
                "strict": {"max_runtime": 100, "walltime": "kill"},
                "lenient": {"max_runtime": 100, "walltime": "run-on"},
            },
        }
    )
    jobs = [Job(1, 0.0, 500.0, cpus=4, job_class="strict"), Job(2, 0.0, 500.0, cpus=4, job_class="lenient")]
    for cluster_walltime in ("run-on", "kill"):
        cluster = run(platform, jobs, FirstFitPlacement(), walltime=cluster_walltime)
        ends = {r.id: (r.status, r.end) for r in cluster.records}
        assert ends == {1: (Status.TIMEOUT, 100.0), 2: (Status.COMPLETED, 500.0)}


def test_a_queues_walltime_must_be_kill_or_run_on():
    from schedlab.model.formats.platform_file import PlatformError

    with pytest.raises(PlatformError, match=r"queues.q.walltime: must be .kill. or .run-on., got 'stop'"):
        parse_platform({"nodes": {"n": {"count": 1, "cores": 4}}, "queues": {"q": {"walltime": "stop"}}})


def test_single_core_nodes_replay_a_log_as_the_machine_does_job_for_job():
    """128 one-core nodes, first-fit, no partitions: the same schedule as a 128-CPU Machine, start for start."""
    from schedlab.model.formats.logs import load_log
    from schedlab.policies.batch import make_policy
    from schedlab.processes.cluster.cluster import cluster_model
    from schedlab.processes.machine.replay import replay_model

    trace = load_log(str(ROOT.parent / "shared" / "traces" / "SDSC-SP2-1998-4.2-cln.swf.gz"))
    window = trace.jobs[20000:20512]
    platform = parse_platform({"nodes": {"node": {"count": trace.cpus, "cores": 1}}})
    machine = replay_model(simpy.Environment(), window, trace.cpus, make_policy("fcfs", "easy"), walltime="kill").run()
    cluster = cluster_model(
        simpy.Environment(), window, platform, make_policy("fcfs", "easy"), FirstFitPlacement(), walltime="kill"
    ).run()
    starts = [(r.id, r.start, r.end, r.status) for r in machine.records()]
    assert starts == [(r.id, r.start, r.end, r.status) for r in cluster.records()]


def test_the_replays_queue_policies_by_name():
    from schedlab.policies.node_backfilling import NodeEASY
    from schedlab.policies.partition_conservative import PartitionConservative
    from schedlab.policies.partition_conservative_rebuild import RebuildPartitionConservative
    from schedlab.policies.queues import make_queue_policy

    assert isinstance(make_queue_policy(TWO_TYPES, "strict", "fcfs", "easy"), NodeEASY)  # reserves nodes
    assert isinstance(make_queue_policy(TWO_TYPES, "none", "fcfs", "easy"), NodeEASY)
    # conservative: reservations at arrival, as on a machine; conservative-rebuild: rebuilt at each decision
    assert isinstance(make_queue_policy(TWO_TYPES, "strict", "sjf", "conservative"), PartitionConservative)
    assert isinstance(make_queue_policy(TWO_TYPES, "none", "fcfs", "conservative"), PartitionConservative)
    rebuilt = make_queue_policy(TWO_TYPES, "strict", "fcfs", "conservative-rebuild")
    assert isinstance(rebuilt, RebuildPartitionConservative)
    assert str(rebuilt) == "strict-priority(fcfs)+partition-conservative-rebuild"
    assert isinstance(
        make_queue_policy(TWO_TYPES, "none", "fcfs", "conservative-rebuild"), RebuildPartitionConservative
    )
    assert isinstance(make_queue_policy(TWO_TYPES, "wrr"), WeightedRoundRobin)
    with pytest.raises(ValueError, match="weighted round robin has no backfilling"):
        make_queue_policy(TWO_TYPES, "wrr", "fcfs", "easy")
    with pytest.raises(ValueError, match="unknown queue policy 'fair'"):
        make_queue_policy(TWO_TYPES, "fair")


def test_conservative_backfilling_runs_over_strict_priority_on_a_cluster():
    from schedlab.policies.conservative import Conservative

    jobs = [
        TWO_TYPES.admit(Job(i, float(i), 100.0 + 10 * i, cpus=c, estimate=200.0, job_class=q))
        for i, (c, q) in enumerate([(48, "long"), (32, "long"), (8, "short"), (4, "gpu"), (16, "short")])
    ]
    cluster = run(TWO_TYPES, jobs, BestFitPlacement(), Conservative(StrictPriority(TWO_TYPES)))
    assert sorted(r.id for r in cluster.records) == [0, 1, 2, 3, 4]
    assert all(r.status.value == "completed" for r in cluster.records)


#: two cpu nodes in the default partition, one gpu node in its own
SPLIT = parse_platform(
    {
        "nodes": {"cpu": {"count": 2, "cores": 8}, "gpu": {"cores": 8}},
        "partitions": {"cpu": {"nodes": ["cpu"], "default": True}, "gpu": {"nodes": ["gpu"]}},
    }
)


def _head_and_backfill(policy):
    jobs = [
        Job(1, 0.0, 100.0, cpus=6, estimate=100.0),  # cpu-0 until 100 (2 cores left)
        Job(2, 0.0, 1000.0, cpus=8, estimate=1000.0),  # cpu-1 until 1000
        Job(3, 1.0, 50.0, cpus=8, estimate=50.0),  # the head: needs a whole cpu node
        Job(4, 2.0, 500.0, cpus=2, estimate=500.0),
    ]  # fits cpu-0's 2 cores now, runs past 100
    return {r.id: r.start for r in run(SPLIT, jobs, FirstFitPlacement(), policy).records}


def test_node_easy_reserves_the_heads_node_where_core_counting_easy_delays_it():
    from schedlab.policies.node_backfilling import NodeEASY

    # EASY counts 2 + 8 free cores (the gpu node's too): the head seems to fit at once, with
    # 2 extra, so job 4 backfills onto cpu-0 and the head waits until it ends
    assert _head_and_backfill(EASY()) == {1: 0.0, 2: 0.0, 4: 2.0, 3: 502.0}
    # NodeEASY: the head's reservation is cpu-0 at t=100; job 4 would hold 2 of its cores then
    assert _head_and_backfill(NodeEASY()) == {1: 0.0, 2: 0.0, 3: 100.0, 4: 150.0}


def test_partition_conservative_plans_each_partition_apart():
    from schedlab.policies.conservative import Conservative
    from schedlab.policies.conservative_rebuild import RebuildConservative
    from schedlab.policies.partition_conservative import PartitionConservative
    from schedlab.policies.partition_conservative_rebuild import RebuildPartitionConservative

    # one count: the gpu node's 8 idle cores reserve the head "now" (it cannot start: no
    # cpu node is free), and job 4 starts on cpu-0 in its own slot, so the head waits
    assert _head_and_backfill(RebuildConservative()) == {1: 0.0, 2: 0.0, 4: 2.0, 3: 502.0}
    assert _head_and_backfill(Conservative()) == {1: 0.0, 2: 0.0, 4: 2.0, 3: 502.0}
    # a profile per partition: the head is reserved on the cpu nodes at 100, job 4 after it
    policy = PartitionConservative()
    assert _head_and_backfill(policy) == {1: 0.0, 2: 0.0, 3: 100.0, 4: 150.0}
    assert {job.id: t for job, t in policy.promised.items()} == {1: 0.0, 2: 0.0, 3: 100.0, 4: 150.0}
    # kept here, but not guaranteed: first-fit must put job 1's 6 cores on one 8-core node
    assert not policy.exact
    assert _head_and_backfill(RebuildPartitionConservative()) == {1: 0.0, 2: 0.0, 3: 100.0, 4: 150.0}


def test_partitions_that_share_nodes_are_planned_as_one_pool():
    from schedlab.policies.partition_conservative import node_pools

    assert node_pools([(0, 1), (2, 3)]) == {0: 0, 1: 0, 2: 1, 3: 1}
    assert node_pools([(0, 1), (2, 3), (1, 2), (4,)]) == {0: 0, 1: 0, 2: 0, 3: 0, 4: 1}
    assert node_pools([]) == {}


@pytest.mark.parametrize("rules", ["easy", "conservative", "conservative-rebuild"])
def test_on_one_core_nodes_the_cluster_rule_starts_the_jobs_the_machine_rule_starts(rules):
    """Where counting CPUs is exact (one-core nodes, no partitions), NodeEASY is EASY,
    PartitionConservative is Conservative and RebuildPartitionConservative is
    RebuildConservative: the same starts on 512 SDSC-SP2 jobs."""
    from schedlab.model.formats.logs import load_log
    from schedlab.policies.conservative import Conservative
    from schedlab.policies.conservative_rebuild import RebuildConservative
    from schedlab.policies.node_backfilling import NodeEASY
    from schedlab.policies.partition_conservative import PartitionConservative
    from schedlab.policies.partition_conservative_rebuild import RebuildPartitionConservative
    from schedlab.processes.cluster.cluster import cluster_model
    from schedlab.processes.machine.replay import replay_model

    on_machine, on_cluster = {
        "easy": (EASY, NodeEASY),
        "conservative": (Conservative, PartitionConservative),
        "conservative-rebuild": (RebuildConservative, RebuildPartitionConservative),
    }[rules]
    trace = load_log(str(ROOT.parent / "shared" / "traces" / "SDSC-SP2-1998-4.2-cln.swf.gz"))
    window = trace.jobs[20000:20512]
    platform = parse_platform({"nodes": {"node": {"count": trace.cpus, "cores": 1}}})
    machine = replay_model(simpy.Environment(), window, trace.cpus, on_machine(), walltime="kill").run()
    cluster = cluster_model(
        simpy.Environment(), window, platform, on_cluster(), FirstFitPlacement(), walltime="kill"
    ).run()
    assert [(r.id, r.start, r.status) for r in machine.records()] == [
        (r.id, r.start, r.status) for r in cluster.records()
    ]


def test_node_gantt_draws_every_node_of_the_platform():
    pytest.importorskip("matplotlib")
    from schedlab.plots import node_gantt

    cluster = run(TWO_TYPES, [TWO_TYPES.admit(Job(1, 0.0, 10.0, cpus=20, job_class="long"))], FirstFitPlacement())
    fig = node_gantt(cluster.placement_rows(), platform=TWO_TYPES)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == [
        "cpu-0\n16 cores",
        "cpu-1\n16 cores",
        "cpu-2\n16 cores",
        "cpu-3\n16 cores",
        "gpu-0\n8 cores, 2 GPUs",
        "gpu-1\n8 cores, 2 GPUs",
    ]  # idle nodes too
    assert fig.axes[0].get_ylim() == (80, 0)  # a row per core, the first node on top

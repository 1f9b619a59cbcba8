"""Platform files: what a TOML platform reads into, and the one-line error each mistake gets."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.model.core.job import Job
from schedlab.model.core.platform import SWF_MEMORY_TO_GIB
from schedlab.model.formats.platform_file import PlatformError, load_platform, parse_platform

ROOT = Path(__file__).resolve().parent.parent
TWO_TYPES = ROOT / "docs" / "platforms" / "two_types.toml"
LPC = ROOT / "docs" / "platforms" / "lpc_egee.toml"

SMALL = """
[nodes.cpu]
count = 2
cores = 4
memory = 16
"""


def test_the_two_type_example_reads_into_nodes_partitions_and_queues():
    platform = load_platform(TWO_TYPES)
    assert platform.name == "two-types"
    assert [n.name for n in platform.nodes] == ["cpu-0", "cpu-1", "cpu-2", "cpu-3", "gpu-0", "gpu-1"]
    assert platform.cores == 4 * 16 + 2 * 8
    assert platform.resources == {"memory": 4 * 64 + 2 * 128, "gpus": 4}
    assert platform.partitions["gpu"].nodes == (4, 5)
    assert platform.queues["short"].max_runtime == 3600


def test_a_job_finds_its_queue_partition_and_time_limit():
    platform = load_platform(TWO_TYPES)
    gpu_job = Job(1, 0.0, 100.0, cpus=4, job_class="2")  # the log's queue number
    assert platform.queue_of(gpu_job).name == "gpu"
    assert platform.nodes_of(gpu_job) == (4, 5)
    admitted = platform.admit(gpu_job)
    assert admitted.demands == {"gpus": 1}  # asked for by its queue
    short = platform.admit(Job(2, 0.0, 100.0, estimate=7200.0, job_class="short"))
    assert short.estimate == 3600  # the queue's limit caps what the job asked for
    unknown = Job(3, 0.0, 100.0, job_class="99")
    assert platform.queue_of(unknown) is None and platform.nodes_of(unknown) == (0, 1, 2, 3)  # the default partition
    assert platform.time_limit(unknown) == math.inf


def test_swf_memory_becomes_the_jobs_total_in_gib():
    platform = load_platform(TWO_TYPES)
    job = Job(1, 0.0, 10.0, cpus=4, demands={"memory": 2 * 2**20})  # 2 GiB per CPU, in kB
    assert platform.swf_job(job).demands == {"memory": 8.0}
    assert SWF_MEMORY_TO_GIB == 1 / 2**20
    no_memory = parse_platform({"nodes": {"n": {"cores": 4}}})
    assert no_memory.swf_job(job).demands == {}  # nodes without memory: the request is dropped


def test_the_lpc_egee_example_has_the_logs_queues_and_limits():
    platform = load_platform(LPC)
    assert platform.cores == 140 and len(platform.nodes) == 70
    limits = {q.name: q.max_runtime for q in platform.queues.values()}
    assert limits == {"test": 900, "short": 7200, "long": 86400, "day": 129600, "infinite": 259200, "batch": 3600}
    assert [q.swf_id for q in platform.queues.values()] == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize(
    "text, message",
    [
        (SMALL.replace("count = 2", "count = -2"), "p.toml: nodes.cpu.count: must be a whole number >= 1, got -2"),
        (SMALL.replace("cores = 4", "cores = 2.5"), "p.toml: nodes.cpu.cores: must be a whole number >= 1, got 2.5"),
        (SMALL.replace("memory = 16", "memory = -1"), "p.toml: nodes.cpu.memory: must be a finite number >= 0, got -1"),
        (
            SMALL.replace("memory = 16", "memory = nan"),
            "p.toml: nodes.cpu.memory: must be a finite number >= 0, got nan",
        ),
        (
            SMALL.replace("memory = 16", "memroy = 16"),
            "p.toml: nodes.cpu.memroy: unknown key; expected one of count, cores, memory, gpus, resources, power",
        ),
        (SMALL.replace("cores = 4\n", ""), "p.toml: nodes.cpu.cores: is missing: every node type needs its cores"),
        ("name = 'x'\n", "p.toml: nodes: is missing: a platform needs at least one node type"),
        (
            SMALL + "[partitions.p]\nnodes = ['gpu']\n",
            "p.toml: partitions.p.nodes[0]: is neither a node type nor a node name, got 'gpu'",
        ),
        (
            SMALL + "[partitions.p]\nnodes = [{ a = 1 }]\n",
            "p.toml: partitions.p.nodes[0]: must be a node type or a node name (a string), got {'a': 1}",
        ),
        (
            SMALL + "[queues.q]\npartition = [1]\n",
            "p.toml: queues.q.partition: names no partition (there are: none), got [1]",
        ),
        (
            SMALL + "[queues.q]\npartition = 'nowhere'\n",
            "p.toml: queues.q.partition: names no partition (there are: none), got 'nowhere'",
        ),
        (SMALL + "[queues.q]\nmax_runtime = 0\n", "p.toml: queues.q.max_runtime: must be a finite number > 0, got 0"),
        (
            SMALL + "[queues.q]\ndemands = { gpus = 1 }\n",
            "p.toml: queues.q.demands.gpus: no node has this resource (they have: memory), got 1",
        ),
        (
            SMALL + "[queues.a]\nswf_id = 1\n[queues.b]\nswf_id = 1\n",
            "p.toml: queues.b.swf_id: is already the swf_id of queues.a, got 1",
        ),
        (
            SMALL + "[partitions.a]\ndefault = true\n[partitions.b]\ndefault = true\n",
            "p.toml: partitions.b.default: only one partition may be the default (a already is), got True",
        ),
        (
            "[nodes.cpu\ncores = 4\n",
            "p.toml: not valid TOML: Expected ']' at the end of a table declaration (at line 1, column 11)",
        ),
    ],
)
def test_a_bad_platform_file_gets_one_line_naming_file_key_and_value(tmp_path, text, message):
    path = tmp_path / "p.toml"
    path.write_text(text)
    with pytest.raises(PlatformError) as caught:
        load_platform(path)
    assert str(caught.value) == message
    assert "\n" not in str(caught.value)


# any TOML value: what a mistyped file can hold where a number, a string or a table belongs
_VALUES = st.recursive(
    st.booleans() | st.integers(-3, 5) | st.floats(allow_nan=True) | st.sampled_from(["", "cpu", "p", "gpus"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["cpu", "gpus", "x"]), inner, max_size=3)
    ),
    max_leaves=6,
)


def _tables(keys):
    """A table of named entries (node types, partitions, queues), each with some of ``keys`` and a stray one."""
    entry = st.dictionaries(st.sampled_from([*keys, "bogus"]), _VALUES, max_size=4)
    return st.dictionaries(st.sampled_from(["cpu", "gpu", "p", "q"]), entry | _VALUES, max_size=3)


#: nodes that read, so that the partitions and queues after them are read too
_GOOD_NODES = st.fixed_dictionaries(
    {
        "cpu": st.fixed_dictionaries(
            {"cores": st.integers(1, 4)}, optional={"memory": st.integers(0, 8), "gpus": st.integers(0, 2)}
        )
    }
)

# mostly good names and nodes, so that most documents get as far as their partitions and queues
_DOCUMENTS = st.fixed_dictionaries(
    {
        "nodes": st.one_of(
            _GOOD_NODES, _GOOD_NODES, _GOOD_NODES, _tables(["count", "cores", "memory", "gpus", "resources"])
        ),
    },
    optional={
        "name": st.one_of(st.just("c"), st.just("c"), _VALUES),
        "partitions": _tables(["nodes", "swf_id", "max_runtime", "default"]),
        "queues": _tables(["swf_id", "priority", "weight", "max_runtime", "partition", "demands"]),
    },
)


@settings(max_examples=500, deadline=None)
@given(_DOCUMENTS)
def test_any_document_reads_into_a_platform_or_one_line_platform_error(document):
    try:
        platform = parse_platform(document, source="fuzz.toml")
    except PlatformError as exc:
        message = str(exc)
        assert message.startswith("fuzz.toml: ") and "\n" not in message
    else:
        assert platform.nodes and platform.cores >= 1


def test_a_platform_file_that_is_not_text_gets_one_line(tmp_path):
    path = tmp_path / "p.toml"
    path.write_bytes(b"[nodes.cpu]\ncores = \xff\n")
    with pytest.raises(PlatformError, match=r"^p\.toml: not UTF-8 text \(invalid start byte at byte 20\)$"):
        load_platform(path)

"""The front door: ``from schedlab import ...`` gives what a scenario needs, and new orders are one function."""

from __future__ import annotations

import subprocess
import sys

import pytest

import schedlab
from schedlab.policies.scoring import RLSCHEDULER_SCORES, SCORES, describe_orders, order


def test_an_mmc_queue_from_the_front_door_alone() -> None:
    import simpy

    from schedlab import FCFS, Machine, Source
    from schedlab.model.core.distributions import Exponential
    from schedlab.model.core.workloads import poisson_workload

    env = simpy.Environment()
    machine = Machine(env, 2, FCFS())
    Source(env, poisson_workload(1.5, Exponential(1.0), count=200, seed=1), machine)
    env.run()
    assert len(machine.records) == 200


def test_every_front_door_name_resolves_to_its_defining_module() -> None:
    for name in schedlab.__all__:
        value = getattr(schedlab, name)
        assert value is not None, name
    with pytest.raises(AttributeError, match="no attribute 'Machin'"):
        schedlab.Machin  # noqa: B018


def test_importing_schedlab_loads_no_layer() -> None:
    # the front door is lazy: `import schedlab` costs nothing until a name is used
    code = "import sys, schedlab; print(sorted(m for m in sys.modules if m.startswith('schedlab.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_make_env_takes_names_with_or_without_the_namespace() -> None:
    env = schedlab.make_env("Machine-v0")
    assert env.spec is not None and env.spec.id == "schedlab/Machine-v0"
    with pytest.raises(ValueError, match=r"unknown environment 'Machine-v9'; schedlab's are .*schedlab/Machine-v0"):
        schedlab.make_env("Machine-v9")


def largest(job, now):  # type: ignore[no-untyped-def]
    """Largest job first: the most CPUs."""
    return -float(job.cpus)


@pytest.fixture
def largest_registered():  # type: ignore[no-untyped-def]
    order("largest")(largest)
    yield
    del SCORES["largest"], RLSCHEDULER_SCORES["largest"]


def test_a_new_order_is_one_function_and_everything_reads_it(largest_registered) -> None:  # type: ignore[no-untyped-def]
    from schedlab import EASY, Conservative, Priority, make_policy
    from schedlab.model.core.job import Job

    jobs = [Job(id=i, submit=0.0, runtime=10.0, cpus=c) for i, c in enumerate([1, 4, 2])]
    assert [j.cpus for j in Priority("largest").rank(jobs, 0.0)] == [4, 2, 1]
    assert [j.cpus for j in EASY("largest").order.rank(jobs, 0.0)] == [4, 2, 1]
    conservative = make_policy("largest", backfill="conservative")
    assert isinstance(conservative, Conservative)
    assert [j.cpus for j in conservative.order.rank(jobs, 0.0)] == [4, 2, 1]
    assert "largest (Largest job first)" in describe_orders()


def test_a_name_is_registered_once() -> None:
    with pytest.raises(ValueError, match=r"order 'sjf' is already registered, by schedlab\.policies\.scoring\.sjf"):
        order("sjf")(largest)


def test_the_replay_help_lists_the_registered_orders() -> None:
    from schedlab.experiment.arguments import build_parser

    help_text = build_parser()._subparsers._group_actions[0].choices["replay"].format_help()  # type: ignore[union-attr]
    for name in SCORES:
        assert name in help_text


def test_load_log_finds_a_log_by_name() -> None:
    from conftest import TRACES

    log = schedlab.load_log("SDSC-SP2-1998-4.2-cln", root=TRACES)
    assert log.cpus == 128 and len(log.jobs) > 50_000


def test_the_command_line_starts_without_loading_the_policies() -> None:
    # the registry is read only when `schedlab replay --help` is printed
    loaded = "sorted(m for m in ('numpy', 'schedlab.policies') if m in sys.modules)"
    code = f"import sys, schedlab.experiment.cli; print({loaded})"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"

"""The vocabulary's renames (issue 34), the old name kept: what a tutorial wrote still works, and says so.

docs/architecture.md's "Vocabulary" chose one word per concept: the input workload is a
**log**, CPUs are **cpus**. A name a tutorial used before keeps working with a
DeprecationWarning; a config setting given by its old name (``--set traces=...``) too.
``tools/house_moves.py`` rewrites the old names in code merged later; it runs again and
changes nothing.
"""

from __future__ import annotations

import importlib.util
import sys
import warnings
from pathlib import Path

import pytest

from schedlab.experiment.scenario import ConfigError, load_scenario
from schedlab.model.formats import logs

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "tests" / "data" / "easy_example.swf"
TRACES = ROOT.parent / "shared" / "traces"


def test_the_old_module_and_names_of_tutorial_3_still_work_with_a_warning():
    with pytest.warns(DeprecationWarning, match="load_trace is load_log"):
        from schedlab.model.formats.traces import load_trace
    with pytest.warns(DeprecationWarning, match="trace_path is now log_path"):
        trace_path = logs.trace_path
    assert load_trace is logs.load_log and trace_path is logs.log_path
    log = load_trace(str(EXAMPLE))
    with pytest.warns(DeprecationWarning, match="LoadedLog.procs is now LoadedLog.cpus"):
        assert log.procs == log.cpus == 10


def test_a_name_the_module_never_had_is_still_an_attribute_error():
    import schedlab.model.formats.traces as old

    with pytest.raises(AttributeError, match="no attribute 'load_nothing'"):
        old.load_nothing  # noqa: B018
    with pytest.raises(AttributeError):
        logs.load_nothing  # noqa: B018


def test_the_new_names_warn_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        log = logs.load_log(str(EXAMPLE))
        assert log.cpus == 10 and len(log.jobs) == 5


def test_a_setting_given_by_its_old_name_is_read_as_the_new_one_with_a_warning():
    replay = load_scenario(ROOT / "schedlab" / "replay" / "log_replay.py")
    with pytest.warns(DeprecationWarning, match="the setting 'traces' is now 'logs'"):
        cfg = replay.config({"traces": str(EXAMPLE), "procs": "20", "starts": "0", "length": "5"})
    assert cfg.logs == (str(EXAMPLE),) and cfg.cpus == 20
    with pytest.raises(ConfigError, match="'traces' is the old name of 'logs': give 'logs' only"):
        replay.config({"traces": str(EXAMPLE), "logs": str(EXAMPLE)})


@pytest.mark.skipif(not (TRACES / "lublin_256.swf.gz").is_file(), reason="needs ../shared/traces")
def test_an_environment_takes_its_old_setting_names_too():
    from schedlab.envs.machine.env import MachineEnv
    from schedlab.envs.rlscheduler.env import RLSchedulerEnv

    with pytest.warns(DeprecationWarning, match="'trace_window' is now 'log_window'"):
        env = MachineEnv(cpus=4, trace_window=16)
    assert env.config.log_window == 16
    with pytest.warns(DeprecationWarning, match="'traces_dir' is now 'logs_dir'"):  # tutorial 8's keyword
        rls = RLSchedulerEnv(log="lublin_256", traces_dir=str(TRACES))
    assert rls.config.logs_dir == str(TRACES)


def _house_moves():
    spec = importlib.util.spec_from_file_location("house_moves", ROOT / "tools" / "house_moves.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["house_moves"] = module
    spec.loader.exec_module(module)
    return module


def test_the_rewrite_renames_whole_words_once_and_leaves_marked_lines():
    tool = _house_moves()
    old = (
        "from schedlab.model.formats.traces import LoadedTrace, load_trace, trace_path\n"
        "from schedlab.replay import trace_replay\n"
        "log = load_trace(str(trace_path(name, Path(cfg.traces_dir))))  # load_traces is another word\n"
        "n = log.procs\n"
        'RENAMED = {"load_trace": "load_log"}  # old name kept\n'
    )
    new = tool.rewrite(old)
    assert new == (
        "from schedlab.model.formats.logs import LoadedLog, load_log, log_path\n"
        "from schedlab.replay import log_replay\n"
        "log = load_log(str(log_path(name, Path(cfg.logs_dir))))  # load_traces is another word\n"
        "n = log.cpus\n"
        'RENAMED = {"load_trace": "load_log"}  # old name kept\n'
    )
    assert tool.rewrite(new) == new
    assert (
        tool.rewrite('"""A stub, the old name kept."""\nload_trace\n')
        == '"""A stub, the old name kept."""\nload_trace\n'
    )


def test_the_rewrite_moves_old_module_paths_and_leaves_a_rooms_own_modules():
    """``processes.fitting`` went into the machine itself; modules added to a room after the move stay."""
    tool = _house_moves()
    old = (
        "from schedlab.processes.fitting import x\n"
        "from schedlab.processes.machine.fitting import x\n"
        "from schedlab.processes.machine import Machine\n"
        "from schedlab.processes.machine.with_ids import MachineWithIds\n"
        "from schedlab.processes.machine.parts_view import PartsView\n"
        "from schedlab.processes.cluster.core_ids import CoreIds\n"
    )
    new = tool.rewrite(old)
    assert new == (
        "from schedlab.processes.machine.machine import x\n"
        "from schedlab.processes.machine.machine import x\n"
        "from schedlab.processes.machine.machine import Machine\n"
        "from schedlab.processes.machine.with_ids import MachineWithIds\n"
        "from schedlab.processes.machine.parts_view import PartsView\n"
        "from schedlab.processes.cluster.core_ids import CoreIds\n"
    )
    assert tool.rewrite(new) == new


def test_the_rewrite_leaves_the_tree_as_it_is():
    """Run on the tree, the rewrite changes nothing: every path and name in it is the new one already."""
    tool = _house_moves()
    changed = [str(path) for path in tool.tree_files() if tool.rewrite(text := path.read_text("utf-8")) != text]
    assert not changed, changed


def test_each_old_name_maps_to_a_different_new_one():
    """A rewrite that reached the alias tables would map a name to itself: the old name would be lost."""
    from schedlab.envs.grid import policy
    from schedlab.model.core.fields import RENAMED_FIELDS

    for table in (RENAMED_FIELDS, logs.RENAMED, policy.RENAMED):
        assert table and all(old != new for old, new in table.items())


def test_responsive_grids_trace_experiment_and_settings_are_read_as_log_with_a_warning():
    """The paper's trace-driven experiment is the log experiment; ``--set experiment=trace`` still works."""
    grid = load_scenario(ROOT / "scenarios" / "responsive_grid.py")
    with pytest.warns(DeprecationWarning) as caught:
        cfg = grid.config({"experiment": "trace", "trace_weeks": "2", "reps_trace": "3"})  # old name kept
    assert cfg.experiment == "log" and cfg.log_weeks == 2 and cfg.reps_log == 3
    said = " ".join(str(w.message) for w in caught)
    assert "experiment 'trace' is now 'log'" in said and "'trace_weeks' is now 'log_weeks'" in said  # old name kept
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert grid.config({"experiment": "log", "log_weeks": "2"}).experiment == "log"
    # QUICK sets log_weeks itself: the old name a user gives wins over it, with no clash
    with pytest.warns(DeprecationWarning, match="'trace_weeks' is now 'log_weeks'"):  # old name kept
        assert grid.config({"trace_weeks": "3"}, quick=True).log_weeks == 3  # old name kept


def test_tutorial_10s_policy_decider_is_the_grid_agent_policy_with_a_warning():
    """What decides is a policy: ``PolicyDecider`` (tutorial 10) and ``as_decider`` (docs/rl.md) still work."""
    import schedlab.envs
    from schedlab.envs.grid import policy
    from schedlab.envs.grid.agents import GridAgentsEnv
    from schedlab.envs.grid.obs import GridAgentsConfig

    with pytest.warns(DeprecationWarning, match="PolicyDecider is now GridAgentPolicy"):  # old name kept
        from schedlab.envs.grid.policy import PolicyDecider  # old name kept
    assert PolicyDecider is policy.GridAgentPolicy  # old name kept
    with pytest.warns(DeprecationWarning, match="PolicyDecider is now GridAgentPolicy"):  # old name kept
        assert schedlab.envs.PolicyDecider is policy.GridAgentPolicy  # old name kept
    env = GridAgentsEnv(GridAgentsConfig(agents=2, resources=3, steps=2))
    with pytest.warns(DeprecationWarning, match="as_decider is now as_grid_policy"):  # old name kept
        adapted = env.as_decider(lambda obs: 0)  # old name kept
    assert isinstance(adapted, policy.GridAgentPolicy)
    with pytest.raises(AttributeError):
        policy.NoSuchPolicy  # noqa: B018


def test_the_rewrite_renames_cpu_failure_and_policy_names():
    tool = _house_moves()
    old = (
        "from schedlab.model.contracts.processor_map import ProcessorMap\n"  # old name kept
        "from schedlab.processes.machine.node_faults import NodeFaults\n"  # old name kept
        "free = machine.processors.free + m.ids.processors.free\n"  # old name kept
        "m.faults.fail_nodes([0])  # the faults part\n"  # old name kept
        "def alor(decider: GridDecider) -> PolicyDecider: ...\n"  # old name kept
    )
    new = tool.rewrite(old)
    assert new == (
        "from schedlab.model.contracts.cpu_map import CpuMap\n"
        "from schedlab.processes.machine.node_failures import NodeFailures\n"
        "free = machine.cpu_map.free + m.ids.cpu_map.free\n"
        "m.failures.fail_nodes([0])  # the failures part\n"
        "def alor(decider: GridPolicy) -> GridAgentPolicy: ...\n"
    )
    assert tool.rewrite(new) == new

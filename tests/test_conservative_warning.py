"""Conservative backfilling warns where its guarantee does not hold, and counts late starts (issue 35, part 4).

The guarantee: no job starts later than the reservation it was given on arrival. It
rests on the plan's free cores being usable by any job; on nodes of several cores
under first-fit they may be spread over nodes none of which holds the job.
"""

from __future__ import annotations

import json
from pathlib import Path

from schedlab.experiment.cli import main
from schedlab.model.core.job import Job
from schedlab.model.formats.platform_file import parse_platform
from schedlab.replay.conservative_guarantee import guarantee_gaps, placement_gaps
from schedlab.replay.log_replay import Config

SPREAD = Path(__file__).parent / "data" / "swf" / "spread_cores.swf"  # 4 jobs, worked out in the file
EXAMPLE = Path(__file__).parent / "data" / "easy_example.swf"


def platform(tmp_path: Path, count: int, cores: int) -> Path:
    path = tmp_path / f"nodes_{count}x{cores}.toml"
    path.write_text(f"[nodes.node]\ncount = {count}\ncores = {cores}\n")
    return path


def replay(tmp_path: Path, capsys, *args: str) -> tuple[str, dict, dict]:
    """``schedlab replay`` of the spread-cores log under FCFS + conservative: what it printed, its row, its manifest."""
    out = tmp_path / f"out{len(list(tmp_path.glob('out*')))}"
    common = ["--start", "0", "--length", "4", "--no-native", "--executor", "serial", "--backfill", "conservative"]
    assert main(["replay", str(SPREAD), *common, *args, "--out", str(out)]) == 0
    got = capsys.readouterr()
    row = json.loads((out / "summary.json").read_text())["rows"][0]
    return got.out + got.err, row, json.loads((out / "manifest.json").read_text())


def test_first_fit_on_two_core_nodes_warns_keeps_the_warning_and_counts_the_late_start(tmp_path, capsys):
    printed, row, manifest = replay(tmp_path, capsys, "--platform", str(platform(tmp_path, 2, 2)))
    warning = next(line for line in printed.splitlines() if line.startswith("warning: conservative"))
    assert "placement first-fit keeps a job of 2 cores on one node, and 1 job(s) of the log(s) ask for that" in warning
    assert manifest["run"]["warnings"] == [warning]
    assert row["late_starts"] == 1  # job 4: reserved at 11, started at 100
    assert "late starts, " in printed and "1 of 4 jobs" in printed


def test_one_core_nodes_and_pack_keep_the_guarantee_and_say_nothing(tmp_path, capsys):
    for args in (
        ("--platform", str(platform(tmp_path, 4, 1))),
        ("--platform", str(platform(tmp_path, 2, 2)), "--placement", "pack"),
    ):
        printed, row, manifest = replay(tmp_path, capsys, *args)
        assert "warning" not in printed and manifest["run"]["warnings"] == []
        assert row["late_starts"] == 0


def test_the_reasons_are_read_from_the_settings_before_the_run():
    base = dict(logs=(str(EXAMPLE),), backfills=("conservative",), starts=(0,), length=5, native=False)
    assert guarantee_gaps(Config(**base), [], None) == []  # a machine of CPUs, kill: it holds
    (gap,) = guarantee_gaps(Config(**base, walltime="run-on"), [], None)
    assert "walltime run-on" in gap
    assert guarantee_gaps(Config(**{**base, "backfills": ("easy",)}, walltime="run-on"), [], None) == []


def test_each_node_shape_and_placement_reason_is_named():
    """Reasons read from a platform and the jobs: exclusive nodes, memory a core, partitions that overlap."""
    cfg = Config(logs=(str(EXAMPLE),), backfills=("conservative",), starts=(0,), length=5, native=False)
    serial = [Job(1, 0.0, 10.0, cpus=1)]
    nodes = parse_platform({"nodes": {"n": {"count": 2, "cores": 4, "memory": 4}}})
    assert guarantee_gaps(cfg, serial, nodes) == []  # first-fit, one-core jobs: they spread
    (gap,) = placement_gaps("exclusive", nodes, serial)
    assert "placement exclusive gives jobs whole nodes of up to 4 cores" in gap
    hungry = [Job(1, 0.0, 10.0, cpus=1, demands={"memory": 2 * 2**20})]  # 2 GiB a core (SWF: kB a CPU)
    (gap,) = placement_gaps("pack", nodes, hungry)  # a node has 1 GiB a core
    assert gap.startswith("1 job(s) of the log(s) ask more memory")
    overlap = parse_platform(
        {
            "nodes": {"n": {"count": 3, "cores": 1}},
            "partitions": {"a": {"nodes": ["n-0", "n-1"]}, "b": {"nodes": ["n-1", "n-2"]}},
        }
    )
    (gap,) = placement_gaps("first-fit", overlap, serial)
    assert gap.startswith("partitions a, b share nodes")


def test_schedlab_run_of_the_replay_scenario_warns_and_keeps_it_too(tmp_path, capsys):
    # the warning is the scenario's (its warnings(cfg) hook), so `schedlab run` says it as `schedlab replay` does
    scenario = Path(__file__).resolve().parent.parent / "scenarios" / "log_replay.py"
    out = tmp_path / "run"
    sets = [
        f"logs={SPREAD}",
        "policies=fcfs",
        "backfills=conservative",
        "starts=0",
        "length=4",
        "native=false",
        f"platform={platform(tmp_path, 2, 2)}",
    ]
    args = ["run", str(scenario), "--executor", "serial", "--reps", "1", "--out", str(out)]
    assert main([*args, *[x for s in sets for x in ("--set", s)]]) == 0
    err = capsys.readouterr().err
    (warning,) = [line for line in err.splitlines() if line.startswith("warning: conservative")]
    assert json.loads((out / "manifest.json").read_text())["run"]["warnings"] == [warning]

"""``schedlab replay``'s inputs: every bad or ignored one is refused in one line (issue 35, part 5).

Each test reproduces one hole as a user meets it (a command, or the reader it ends
in) and reads as what the replay now says instead.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from schedlab.experiment.cli import main
from schedlab.model.core.limits import MAX_CPUS, MAX_NODES
from schedlab.model.formats.failures import FailureLogError, read_failure_log
from schedlab.model.formats.platform_file import PlatformError, parse_platform

EXAMPLE = Path(__file__).parent / "data" / "easy_example.swf"  # 5 jobs on 10 CPUs
COMMON = ["--start", "0", "--length", "5", "--no-native", "--executor", "serial", "--backfill", "none"]


def replay(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str, log: Path = EXAMPLE) -> tuple[int, str]:
    """``schedlab replay LOG ...`` into a fresh folder: its exit code and what it printed (stdout, then stderr)."""
    out = tmp_path / f"out{len(list(tmp_path.glob('out*')))}"
    code = main(["replay", str(log), *COMMON, *args, "--out", str(out)])
    got = capsys.readouterr()
    return code, got.out + got.err


def refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str, log: Path = EXAMPLE) -> str:
    """The one line a refused replay prints (and no traceback)."""
    code, printed = replay(tmp_path, capsys, *args, log=log)
    assert code == 2, printed
    assert "Traceback" not in printed
    errors = [line for line in printed.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, printed
    return errors[0]


def toml(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# --------------------------------------------------------------------------- failure logs
def test_a_truncated_gzip_failure_log_is_one_line_naming_the_file(tmp_path, capsys):
    whole = gzip.compress(b"".join(b"%d\tc\t60\t1\n" % (100 * i) for i in range(1, 2000)))
    log = tmp_path / "cut.failures.gz"
    log.write_bytes(whole[: len(whole) // 2])  # a download cut short
    with pytest.raises(FailureLogError, match=r"cut\.failures\.gz.*after line \d+.*truncated or not gzip"):
        read_failure_log(log)
    assert "cut.failures.gz" in refused(tmp_path, capsys, "--failures", str(log))


def test_a_failure_log_named_gz_that_is_not_gzip_is_one_line(tmp_path):
    log = tmp_path / "plain.gz"
    log.write_text("100\tc\t60\t1\n")
    with pytest.raises(FailureLogError, match=r"plain\.gz, line 1: .*truncated or not gzip"):
        read_failure_log(log)


def test_failure_log_lines_end_at_newline_and_fields_part_at_tabs_or_spaces_only(tmp_path):
    """U+2028 (which ``str.splitlines`` would take for a line break) neither ends a line nor parts fields.

    Alea reads the file line by line on ``\\n``; a stray Unicode separator is a bad
    value on the line it sits in, named with its line number as ``grep -n`` counts.
    """
    log = tmp_path / "odd.failures"
    log.write_text("100\tc\t60\t1\n200 c 60 2\u20283\n300\tc\t60\t4\n", encoding="utf-8")
    with pytest.raises(FailureLogError) as caught:
        read_failure_log(log)
    message = str(caught.value)
    assert "odd.failures, line 2: field 'machine ids' is '2\\u20283'" in message
    assert "\n" not in message
    crlf = tmp_path / "crlf.failures"
    crlf.write_bytes(b"100\tc\t60\t1 2\r\n200 c 60\r\n")  # Windows line ends are line ends
    read = read_failure_log(crlf)
    assert [(f.time, f.nodes, f.line) for f in read.failures] == [(100.0, (1, 2), 1), (200.0, None, 2)]


def test_a_trailing_unicode_space_is_not_read_as_part_of_a_number(tmp_path):
    log = tmp_path / "tail.failures"
    log.write_text("100\tc\t60\u00a0\n", encoding="utf-8")  # float() would strip the no-break space
    with pytest.raises(FailureLogError, match=r"line 1: field 'duration' is '60\\xa0'"):
        read_failure_log(log)


# --------------------------------------------------------------------------- sizes
def test_a_platform_of_too_many_nodes_is_refused_before_any_is_made():
    with pytest.raises(PlatformError, match=r"^big: nodes\.host\.count: .* at most 262144 nodes .*got 10{12}$"):
        parse_platform({"nodes": {"host": {"count": 10**12, "cores": 1}}}, source="big")
    with pytest.raises(PlatformError, match=r"nodes\.b\.count: .*at most 262144 nodes in all"):
        parse_platform({"nodes": {"a": {"count": MAX_NODES, "cores": 1}, "b": {"count": 1, "cores": 1}}})
    assert len(parse_platform({"nodes": {"host": {"count": 4, "cores": 2}}}).nodes) == 4


def test_a_platform_of_too_many_cores_is_refused_in_one_line():
    with pytest.raises(PlatformError, match=r"^big: nodes\.host\.cores: .*at most 16777216 cores .*got 10{12}$"):
        parse_platform({"nodes": {"host": {"count": 2, "cores": 10**12}}}, source="big")
    with pytest.raises(PlatformError, match=r"nodes\.host\.count: .*16777216 cores in all"):
        parse_platform({"nodes": {"host": {"count": 3, "cores": MAX_CPUS // 2}}})


def test_a_batsim_workload_of_too_many_resources_is_one_line_naming_nb_res(tmp_path, capsys):
    workload = tmp_path / "huge.json"
    job = {"id": "1", "subtime": 0, "walltime": 10, "res": 1, "profile": "p"}
    workload.write_text(json.dumps({"nb_res": 10**12, "jobs": [job], "profiles": {"p": {"type": "delay", "delay": 5}}}))
    line = refused(tmp_path, capsys, "--length", "1", log=workload)
    assert "huge.json" in line and "nb_res" in line and "1000000000000" in line
    assert f"at most {MAX_CPUS}" in line


def test_cpus_beyond_the_cap_is_one_line(tmp_path, capsys):
    line = refused(tmp_path, capsys, "--cpus", str(MAX_CPUS + 1))
    assert "cpus" in line and str(MAX_CPUS + 1) in line


# --------------------------------------------------------------------------- options that did nothing
DVFS2 = """\
[nodes.host]
count = 10
cores = 1
[nodes.host.power]
pstates = [{ speed = 1.0, idle = 95.0, full = 190.0 }, { speed = 0.5, idle = 90.0, full = 120.0 }]
"""
BARE = "[nodes.host]\ncount = 10\ncores = 1\n"


def test_dvfs_to_a_pstate_no_node_has_is_refused(tmp_path, capsys):
    platform = toml(tmp_path, "two_pstates.toml", DVFS2)
    line = refused(tmp_path, capsys, "--platform", str(platform), "--dvfs", "7")
    assert "two_pstates.toml" in line and "dvfs=7" in line and "pstates 0-1" in line
    assert replay(tmp_path, capsys, "--platform", str(platform), "--dvfs", "1")[0] == 0


def test_dvfs_and_idle_shutdown_on_a_platform_without_power_are_refused(tmp_path, capsys):
    platform = toml(tmp_path, "bare.toml", BARE)
    assert (
        "bare.toml" in (line := refused(tmp_path, capsys, "--platform", str(platform), "--dvfs", "1"))
        and "power" in line
    )
    line = refused(tmp_path, capsys, "--platform", str(platform), "--idle-shutdown", "10")
    assert "bare.toml" in line and "power.off" in line
    no_off = toml(tmp_path, "no_off.toml", DVFS2)  # power, but no node can be switched off
    assert "power.off" in refused(tmp_path, capsys, "--platform", str(no_off), "--idle-shutdown", "10")


def test_placement_and_queues_without_a_platform_are_refused(tmp_path, capsys):
    assert "placement" in (line := refused(tmp_path, capsys, "--placement", "pack")) and "--platform" in line
    assert "queues" in (line := refused(tmp_path, capsys, "--queues", "strict")) and "--platform" in line
    assert replay(tmp_path, capsys, "--placement", "first-fit")[0] == 0  # what a machine does anyway


def test_node_size_must_divide_the_cpus_and_be_used(tmp_path, capsys):
    line = refused(tmp_path, capsys, "--node-size", "7", "--mtbf", "1000")
    assert "node_size=7" in line and "10 CPUs" in line
    line = refused(tmp_path, capsys, "--node-size", "5")  # no failures: nothing takes a node down
    assert "node_size=5" in line and "--mtbf" in line
    assert replay(tmp_path, capsys, "--node-size", "5", "--mtbf", "1000")[0] == 0

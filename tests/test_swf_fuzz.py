"""SWF inputs a fuzzer makes of real lines and headers: every one gives records, or an SWFError that names
the file, the line and the field; none crashes the reader or the replay (issue 17, item 11)."""

from __future__ import annotations

import gzip
import tempfile
from pathlib import Path

import pytest
import simpy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedlab.model.formats.logs import _read_log  # uncached: each example rewrites the same file
from schedlab.model.formats.swf.errors import DropReason, SWFError
from schedlab.model.formats.swf.reader import read_swf
from schedlab.policies.batch import make_policy
from schedlab.processes.machine.replay import replay_model

TRACES = Path(__file__).resolve().parent.parent.parent / "shared" / "traces"
SMALL = Path(__file__).parent / "data" / "easy_example.swf"


def _real_lines() -> tuple[list[str], list[str]]:
    """Header and the first data lines of a real log (the repository's example where the logs are absent)."""
    source = TRACES / "SDSC-SP2-1998-4.2-cln.swf.gz"
    if source.exists():
        with gzip.open(source, "rt") as fh:
            lines = [next(fh) for _ in range(120)]
    else:
        lines = SMALL.read_text().splitlines(keepends=True)
    header = [ln for ln in lines if ln.startswith(";")]
    data = [ln for ln in lines if not ln.startswith(";") and ln.strip()][:12]
    return header, data


HEADER, DATA = _real_lines()
HUGE = "9" * 309  # float() of it raises OverflowError
ODD_SPACES = ("\u00a0", "\u3000", "\u2028", "\x1c", "\x0b")
TOKENS = st.sampled_from(["-1", "0", HUGE, "-" + HUGE, "1e400", "nan", "1_000", "٣", "2.5", "x", "", "1" * 19])


@st.composite
def mutated_logs(draw) -> str:
    header, data = list(HEADER), list(DATA)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["token", "separator", "header", "drop", "bytes"]))
        if kind == "header" and header:
            i = draw(st.integers(0, len(header) - 1))
            key = header[i].split(":")[0] if ":" in header[i] else "; MaxProcs"
            header[i] = f"{key}: {draw(TOKENS)}\n"
            continue
        row = draw(st.integers(0, len(data) - 1))
        tokens = data[row].split()
        if kind == "token":
            tokens[draw(st.integers(0, len(tokens) - 1))] = draw(TOKENS)
            data[row] = " ".join(tokens) + "\n"
        elif kind == "separator":
            data[row] = draw(st.sampled_from(ODD_SPACES)).join(tokens) + "\n"
        elif kind == "drop":
            del tokens[draw(st.integers(0, len(tokens) - 1))]
            data[row] = " ".join(tokens) + "\n"
        else:
            text = data[row]
            at = draw(st.integers(0, len(text)))
            data[row] = text[:at] + draw(st.text(max_size=3)) + text[at:]
    return "".join(header + data)


def _read_all(path: str, strict: bool, compat: str | None) -> None:
    trace = read_swf(path, strict=strict, compat=compat, nodes_as_procs=True)
    jobs = list(trace.jobs())
    assert trace.report.read == trace.report.kept + trace.report.total_dropped
    if jobs and not strict:  # a replay of what was read: no overflow anywhere down the line
        loaded = _read_log.__wrapped__(path, compat or "none", strict, False, None)
        env = simpy.Environment()
        replay_model(
            env, loaded.jobs[:6], loaded.cpus, make_policy("fcfs", "easy", compat or "none"), compat=compat or "none"
        ).run()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=mutated_logs(), strict=st.booleans(), compat=st.sampled_from([None, "rlscheduler"]))
def test_every_mutated_log_reads_or_raises_an_swf_error_naming_where(text, strict, compat):
    with tempfile.NamedTemporaryFile("w", suffix=".swf", delete=False, encoding="utf-8") as fh:
        fh.write(text)
    try:
        _read_all(fh.name, strict, compat)
    except SWFError as exc:
        assert fh.name in str(exc)
        assert exc.line is not None or exc.field is not None or "MaxProcs" in str(exc) or "no jobs" in str(exc)
        if exc.line is not None and exc.field is None:
            assert "fields" in str(exc) or "U+" in str(exc) or "read further" in str(exc)
    finally:
        Path(fh.name).unlink()


LINE = "2 1 -1 5 8 -1 -1 8 5 -1 1 1 1 -1 -1 -1 -1 -1"


def _log(tmp_path: Path, line: str, header: str = "; MaxProcs: 10\n") -> str:
    path = tmp_path / "log.swf"
    path.write_text(header + "1 0 -1 10 6 -1 -1 6 10 -1 1 1 1 -1 -1 -1 -1 -1\n" + line + "\n")
    return str(path)


def test_a_309_digit_number_is_out_of_range_not_an_overflow(tmp_path):
    path = _log(tmp_path, f"2 1 -1 {HUGE} 8 -1 -1 8 5 -1 1 1 1 -1 -1 -1 -1 -1")
    trace = read_swf(path)
    assert len(list(trace.jobs())) == 1 and trace.report.counts[DropReason.OUT_OF_RANGE] == 1
    with pytest.raises(SWFError, match=r"log.swf:3: field 'run_time' \(4\): '9{309}' is out of range"):
        list(read_swf(path, strict=True).jobs())


def test_a_huge_header_count_is_a_bad_header(tmp_path):
    path = _log(tmp_path, "", header=f"; MaxProcs: {HUGE}\n; MaxNodes: 10\n")
    with pytest.raises(SWFError, match=r"header 'MaxProcs'.* is not a whole number"):
        read_swf(path, strict=True)


@pytest.mark.parametrize("space", [*ODD_SPACES, "\x1d", "\x1e", "\x1f", "\x0c", "\u2029", "\u2003"])
def test_separators_other_than_space_and_tab_are_refused_strict_and_dropped_and_named_lenient(tmp_path, space):
    path = _log(tmp_path, space.join(LINE.split(" ")))
    with pytest.raises(SWFError, match=rf"log.swf:3: separates fields with U\+{ord(space):04X}"):
        list(read_swf(path, strict=True).jobs())
    trace = read_swf(path)
    assert [job.id for job in trace.jobs()] == [1]  # str.split() would have read line 3 as a job
    assert trace.report.counts == {DropReason.SEPARATOR: 1} and trace.report.examples[DropReason.SEPARATOR] == [3]
    assert "separator other than space or tab: 1 (line 3)" in str(trace.report)


def _strict_and_lenient(path: str, compat: str | None) -> str | None:
    """Why the lenient reader disagrees with the strict one on ``path`` (None: they agree).

    They agree when the strict reader's jobs are the lenient reader's, with nothing
    dropped but what cleaning drops; or when the strict reader stops at line L and
    the lenient one counts line L under a named reason (L is the file's first bad
    line, so it is the first example of its reason).
    """
    lenient = read_swf(path, compat=compat, nodes_as_procs=True)
    kept = [(j.id, j.submit, j.runtime, j.cpus, j.estimate) for j in lenient.jobs()]
    report = lenient.report
    try:
        strict = read_swf(path, strict=True, compat=compat, nodes_as_procs=True)
        jobs = [(j.id, j.submit, j.runtime, j.cpus, j.estimate) for j in strict.jobs()]
    except SWFError as exc:
        if exc.line is None:
            return None if report.counts.get(DropReason.EMPTY) else f"strict refused the file, lenient did not: {exc}"
        named = [reason for reason, lines in report.examples.items() if exc.line in lines]
        return None if named else f"strict refused line {exc.line} ({exc}), lenient counted it under no reason"
    if jobs != kept:
        return f"strict kept {len(jobs)} jobs, lenient {len(kept)}"
    unlike = {r for r in report.counts if r not in CLEANING} - set(strict.report.counts)
    return f"lenient dropped lines strict read: {sorted(unlike)}" if unlike else None


#: drops both readers make alike (cleaning is not strictness)
CLEANING = {
    DropReason.RUN_TIME,
    DropReason.PROCS,
    DropReason.FRACTIONAL_PROCS,
    DropReason.SUBMIT,
    DropReason.TOO_WIDE,
    DropReason.EMPTY,
}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=mutated_logs(), compat=st.sampled_from([None, "rlscheduler"]))
def test_the_lenient_reader_reads_what_the_strict_one_reads_and_names_what_it_refuses(text, compat):
    with tempfile.NamedTemporaryFile("w", suffix=".swf", delete=False, encoding="utf-8") as fh:
        fh.write(text)
    try:
        assert _strict_and_lenient(fh.name, compat) is None
    finally:
        Path(fh.name).unlink()


def test_a_huge_machine_under_rlscheduler_compat_replays(tmp_path):
    path = _log(tmp_path, LINE, header="; MaxProcs: 1000000000000000000\n")
    loaded = _read_log.__wrapped__(path, "rlscheduler", False, False, None)
    env = simpy.Environment()
    model = replay_model(
        env, loaded.jobs, loaded.cpus, make_policy("fcfs", "none", "rlscheduler"), compat="rlscheduler"
    ).run()
    assert len(model.records()) == 2

"""The SWF reader and writer (:mod:`schedlab.model.formats.swf`).

Hand-made files under ``tests/data/swf`` pin every rule with values worked out by hand;
the real traces in ``../shared/traces`` (skipped where absent) pin the counts given in
their PROVENANCE.md; a Hypothesis fuzz test feeds the reader mangled real lines.
"""

from __future__ import annotations

import dataclasses
import gzip
import pickle
import re
import tracemalloc
from itertools import islice
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedlab.model.core.distributions import Exponential, UniformInt
from schedlab.model.core.job import Job
from schedlab.model.core.workloads import JobClass, poisson_workload
from schedlab.model.formats.swf.errors import DropReport, SWFError
from schedlab.model.formats.swf.header import SWFHeader
from schedlab.model.formats.swf.reader import read_swf
from schedlab.model.formats.swf.records import SWFRecord, to_job
from schedlab.model.formats.swf.writer import write_swf

DATA = Path(__file__).resolve().parent / "data" / "swf"
TRACES = Path(__file__).resolve().parents[1].parent / "shared" / "traces"
GAIA = TRACES / "UniLu-Gaia-2014-1.swf.gz"
NASA = TRACES / "NASA-iPSC-1993-3.1-cln.swf.gz"
ATLAS = TRACES / "LLNL-Atlas-2006-2.1-cln.swf.gz"
LUBLIN = TRACES / "lublin_256.swf.gz"


def needs(path: Path) -> pytest.MarkDecorator:
    return pytest.mark.skipif(not path.exists(), reason=f"{path.name} not present in ../shared/traces")


def same_jobs(a: list[Job], b: list[Job]) -> None:
    """Every SWF-representable field equal, floats bit for bit (== on floats, and the same type)."""
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert (x.id, x.submit, x.runtime, x.cpus, x.estimate) == (y.id, y.submit, y.runtime, y.cpus, y.estimate)
        assert float(x.submit).hex() == float(y.submit).hex() and float(x.runtime).hex() == float(y.runtime).hex()
        assert (x.job_class, x.group, dict(x.demands)) == (y.job_class, y.group, dict(y.demands))


# --------------------------------------------------------------------------- header


def test_header_of_a_hand_made_file():
    """Typed values, notes with their continuation lines, repeated Queue lines kept in order."""
    header = read_swf(DATA / "small.swf").header
    assert (header.max_procs, header.max_nodes, header.procs_per_node) == (64, 8, 8)
    assert (header.version, header.computer, header.unix_start_time) == ("2.2", "test machine", 1000000000)
    assert header.max_jobs is None
    assert header.notes == ("a hand-made trace for the SWF tests\nwhose note goes on over two lines",)
    assert header.fields["Queue"] == "0 interactive"
    assert [v for k, v in header.entries if k == "Queue"] == ["0 interactive", "1 batch"]


@needs(GAIA)
def test_gaia_header_with_indented_keys_and_a_column_chart():
    """Gaia indents its keys and draws a column chart in comments; three Queue lines are not a contradiction."""
    trace = read_swf(GAIA, strict=True)
    header = trace.header
    assert (header.max_procs, header.max_nodes, header.procs_per_node) == (2004, 151, 13)
    assert (header.version, header.max_jobs, header.unix_start_time) == ("2.2", 51987, 1400749079)
    assert header.notes == ("Scheduler is OAR (http://oar.imag.fr/)",)
    assert len([k for k, _ in header.entries if k == "Queue"]) == 3
    assert trace.machine_procs == 2004


@needs(NASA)
def test_nasa_header():
    """NASA: 128 CPUs on 128 nodes; a note continues over two lines; a URL line is no key."""
    header = read_swf(NASA, strict=True).header
    assert (header.max_procs, header.max_nodes, header.computer) == (128, 128, "Intel iPSC/860")
    assert header.notes[0] == "There is no information on wait times - the given submit\ntimes are actually start times"
    assert "http" not in header.fields
    assert header.fields["Information"].endswith("\nhttp://www.cs.huji.ac.il/labs/parallel/workload/")


# counts from ../shared/traces/PROVENANCE.md (and measured with awk)
REAL = [
    (LUBLIN, 10000, {}),
    (NASA, 18239, {"run time <= 0": 173}),
    (ATLAS, 43778, {"run time <= 0": 7178}),  # its 4,571 jobs without CPUs all have run time 0
    (GAIA, 51987, {"run time <= 0": 128}),
]


@pytest.mark.parametrize(("path", "read", "dropped"), REAL, ids=lambda v: v.name if isinstance(v, Path) else "")
def test_real_trace_counts(path: Path, read: int, dropped: dict[str, int]):
    """Every record of a real trace is read, and only the runtime <= 0 ones are dropped."""
    if not path.exists():
        pytest.skip(f"{path.name} not present")
    trace = read_swf(path)
    jobs = trace.load()
    report = trace.report
    assert report.finished
    assert (report.read, report.counts, report.kept) == (read, dropped, read - sum(dropped.values()))
    assert len(jobs) == report.kept
    assert all(job.runtime > 0 and job.cpus >= 1 for job in jobs)


# --------------------------------------------------------------------------- conversion and cleaning


def test_jobs_of_a_hand_made_file():
    """Run time 0 and jobs without CPUs are dropped; requested CPUs fill a missing allocation."""
    trace = read_swf(DATA / "small.swf")
    jobs = {job.id: job for job in trace.jobs()}
    assert sorted(jobs) == [1, 2, 5, 6, 7, 8]
    assert trace.report.counts == {"run time <= 0": 1, "processors <= 0": 1}
    assert trace.report.examples == {"run time <= 0": [14], "processors <= 0": [15]}
    one, two, six = jobs[1], jobs[2], jobs[6]
    assert (one.submit, one.runtime, one.cpus, one.estimate, one.group, one.job_class) == (0, 100, 4, 200, "1", "1")
    assert (two.cpus, two.estimate, dict(two.demands), two.requested_time) == (8, None, {"memory": 1024}, 50)
    assert (six.runtime, six.job_class, six.group) == (2.5, "0", "2")
    assert isinstance(one.submit, float) and isinstance(one.cpus, int)


def test_records_are_the_file_and_line_is_not_compared():
    """Records hold the file's values (ints where integral, floats otherwise) and their line numbers."""
    records = list(read_swf(DATA / "small.swf", clean=False).records())
    assert len(records) == 8
    two = records[1]
    assert (two.job_number, two.allocated_procs, two.requested_procs, two.requested_memory, two.line) == (
        2,
        -1,
        8,
        1024,
        13,
    )
    assert records[5].run_time == 2.5 and isinstance(records[0].run_time, int)
    assert dataclasses.replace(two, line=99) == two


def test_clean_false_keeps_records_but_jobs_still_drop_and_count():
    """Without cleaning, records() keeps the impossible jobs; jobs() drops them, counted, never silently."""
    trace = read_swf(DATA / "small.swf", clean=False)
    assert len(list(trace.records())) == 8 and trace.report.total_dropped == 0
    assert len(trace.load()) == 6
    assert trace.report.counts == {"run time <= 0": 1, "processors <= 0": 1}


def test_to_job_raises_for_a_record_that_cannot_be_a_job():
    """The public conversion refuses run time 0 with Job's own error."""
    record = next(read_swf(DATA / "small.swf", clean=False).records())
    assert to_job(record).id == 1
    with pytest.raises(ValueError, match="runtime must be finite and > 0"):
        to_job(dataclasses.replace(record, run_time=0))


def test_pairs_give_each_job_with_its_record():
    """pairs() keeps what jobs() keeps, with the record (for its wait time)."""
    pairs = list(read_swf(DATA / "small.swf").pairs())
    assert [(r.job_number, j.id, r.wait_time) for r, j in pairs][:2] == [(1, 1, 5), (2, 2, 0)]
    assert len(pairs) == 6


# --------------------------------------------------------------------------- filters


def test_status_filter():
    """statuses keeps only those codes; cleaning is counted first."""
    trace = read_swf(DATA / "small.swf", statuses={1})
    assert [job.id for job in trace.jobs()] == [1, 2, 5, 7]
    assert trace.report.counts["status filtered"] == 2
    assert trace.report.examples["status filtered"] == [17, 19]


def test_time_window_is_half_open():
    """start_time <= submit < end_time: the job submitted at end_time is out."""
    trace = read_swf(DATA / "small.swf", start_time=10, end_time=60)
    assert [job.id for job in trace.jobs()] == [2, 5, 6]
    assert trace.report.counts["outside time window"] == 3


def test_index_range_counts_kept_jobs_and_stops_reading():
    """index=(1, 3) takes positions 1 and 2 of the cleaned list; reading stops after the last."""
    trace = read_swf(DATA / "small.swf", index=(1, 3))
    assert [job.id for job in trace.jobs()] == [2, 5]
    report = trace.report
    assert report.counts == {"run time <= 0": 1, "processors <= 0": 1, "outside index range": 1}
    assert (report.read, report.kept, report.finished) == (5, 2, False)
    assert [job.id for job in read_swf(DATA / "small.swf", statuses={1}, index=(1, None)).jobs()] == [2, 5, 7]


def test_bad_arguments_are_value_errors():
    """An unknown compat lists the valid ones; impossible filters are refused."""
    with pytest.raises(ValueError, match="'rlscheduler'"):
        read_swf(DATA / "small.swf", compat="pbs")
    with pytest.raises(ValueError, match="index"):
        read_swf(DATA / "small.swf", index=(3, 1))
    with pytest.raises(ValueError, match="before start_time"):
        read_swf(DATA / "small.swf", start_time=5, end_time=1)
    with pytest.raises(ValueError, match="machine_procs"):
        read_swf(DATA / "small.swf", machine_procs=0)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("name", "message", "line", "field", "value"),
    [
        ("bad_lines.swf", "bad_lines.swf:4: expected 18 fields, found 17", 4, None, None),
        ("non_numeric.swf", "non_numeric.swf:5: field 'run_time' (4): 'abc' is not a number", 5, "run_time", "abc"),
        (
            "too_wide.swf",
            "too_wide.swf:5: field 'requested_procs' (8): 32 CPUs: job 2 is wider than the machine (MaxProcs 16)",
            5,
            "requested_procs",
            32,
        ),
        (
            "contradictory_header.swf",
            "contradictory_header.swf:6: header 'MaxProcs': '16' contradicts '64' given on line 3",
            6,
            "MaxProcs",
            "16",
        ),
    ],
)
def test_strict_raises_at_the_first_bad_line(name: str, message: str, line: int, field: str | None, value: object):
    """strict=True raises SWFError naming file, line, field and value."""
    path = DATA / name
    with pytest.raises(SWFError) as caught:
        read_swf(path, strict=True).load()
    error = caught.value
    assert str(error) == f"{path}:{message.split(':', 1)[1]}"
    assert (error.path, error.line, error.field) == (str(path), line, field)
    if value is not None:
        assert error.value == value
    copy = pickle.loads(pickle.dumps(error))  # process pools send errors back pickled
    assert (str(copy), copy.line, copy.field) == (str(error), line, field)


def test_default_skips_and_counts_bad_lines():
    """Non-strict: every bad line is skipped and counted, with its line number; comments and blanks are not data."""
    trace = read_swf(DATA / "bad_lines.swf")
    assert [job.id for job in trace.jobs()] == [1, 7]
    report = trace.report
    assert report.counts == {"wrong number of fields": 2, "non-numeric field": 2, "wider than the machine": 1}
    assert report.examples == {
        "wrong number of fields": [4, 9],
        "non-numeric field": [5, 10],
        "wider than the machine": [8],
    }
    assert (report.read, report.kept, report.total_dropped, report.finished) == (7, 2, 5, True)
    text = str(report)
    assert "read 7 data lines, kept 2, dropped 5" in text and "non-numeric field: 2 (lines 5, 10)" in text


def test_wider_than_a_chosen_machine_is_a_filter_even_when_strict():
    """machine_procs= narrower than the file's machine drops wide jobs without an error."""
    trace = read_swf(DATA / "too_wide.swf", strict=True, machine_procs=4)
    assert [job.id for job in trace.jobs()] == [1]
    assert trace.report.counts == {"wider than the machine": 2}
    assert trace.machine_procs == 4


def test_contradictory_header_is_recorded_by_default():
    """The repeated MaxProcs keeps its first value and is counted as a file problem, not a dropped line."""
    trace = read_swf(DATA / "contradictory_header.swf")
    assert trace.header.max_procs == 64
    jobs = trace.load()
    report = trace.report
    assert [job.id for job in jobs] == [1, 2]
    assert report.counts == {"contradictory header": 1}
    assert report.examples == {"contradictory header": [6]}
    assert (report.read, report.total_dropped) == (2, 0)
    assert "'16' contradicts '64'" in str(report)


def test_maxprocs_below_maxnodes_is_contradictory(tmp_path: Path):
    """A machine with fewer CPUs than nodes cannot be."""
    path = tmp_path / "nodes.swf"
    path.write_text("; MaxProcs: 4\n; MaxNodes: 8\n1 0 -1 10 2 -1 -1 2 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
    with pytest.raises(SWFError, match=r"nodes.swf:2: header 'MaxProcs': 4 is less than MaxNodes 8"):
        read_swf(path, strict=True)
    trace = read_swf(path)
    assert trace.report.counts == {"contradictory header": 1}
    assert trace.header.procs_per_node is None


def test_empty_file():
    """No data lines: an error under strict, else an empty trace whose report says so."""
    path = DATA / "empty.swf"
    with pytest.raises(SWFError, match=rf"^{re.escape(str(path))}: no jobs: the file has no data lines$"):
        read_swf(path, strict=True)
    trace = read_swf(path)
    assert trace.load() == []
    assert trace.report.counts == {"empty": 1}
    assert (trace.report.read, trace.report.total_dropped) == (0, 0)
    assert "no jobs" in str(trace.report)


def test_missing_maxprocs_is_an_error_only_when_the_machine_size_is_needed():
    """Without MaxProcs jobs still load (widths unchecked, said in the report); machine_procs raises."""
    path = DATA / "no_maxprocs.swf"
    trace = read_swf(path, strict=True)
    assert [job.cpus for job in trace.jobs()] == [2, 99]
    assert "job widths were not checked" in str(trace.report)
    hint = r"give the machine's CPU count \(machine_procs= to read_swf; schedlab replay --cpus N\)"
    with pytest.raises(SWFError, match=rf"^{re.escape(str(path))}: the header gives no MaxProcs: {hint}"):
        _ = trace.machine_procs
    assert read_swf(path, machine_procs=50).machine_procs == 50


@needs(LUBLIN)
def test_missing_maxprocs_hint_names_maxnodes():
    """Lublin gives only MaxNodes: the error suggests it."""
    with pytest.raises(SWFError, match=r"MaxNodes: 256.*machine_procs=256"):
        _ = read_swf(LUBLIN).machine_procs


def test_nodes_as_procs_reads_a_maxnodes_only_header_as_one_processor_per_node(tmp_path: Path):
    path = tmp_path / "nodes.swf"
    path.write_text(
        "; MaxNodes: 8\n"
        "1 0 -1 10 2 -1 -1 2 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
        "2 1 -1 10 9 -1 -1 9 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
    )
    trace = read_swf(path, nodes_as_procs=True)
    assert trace.machine_procs == 8
    assert [job.cpus for job in trace.jobs()] == [2]  # the 9-wide job is dropped as wider than the machine
    assert read_swf(path, nodes_as_procs=True, machine_procs=16).machine_procs == 16  # an explicit size wins
    with_procs = tmp_path / "procs.swf"
    with_procs.write_text("; MaxProcs: 32\n; MaxNodes: 8\n1 0 -1 10 2 -1 -1 2 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
    assert read_swf(with_procs, nodes_as_procs=True).machine_procs == 32  # MaxProcs, where given, is the size


def test_gzip_is_detected_by_content_not_name(tmp_path: Path):
    """A gzip file named .swf and a plain file named .gz both read."""
    text = (DATA / "small.swf").read_bytes()
    packed, plain = tmp_path / "packed.swf", tmp_path / "plain.swf.gz"
    packed.write_bytes(gzip.compress(text))
    plain.write_bytes(text)
    expected = list(read_swf(DATA / "small.swf").records())
    assert list(read_swf(packed).records()) == expected == list(read_swf(plain).records())


def test_truncated_gzip_is_an_swf_error(tmp_path: Path):
    """A gzip stream cut short raises SWFError, not a zlib or EOF error."""
    path = tmp_path / "cut.swf.gz"
    path.write_bytes(gzip.compress((DATA / "small.swf").read_bytes() * 50)[:300])
    with pytest.raises(SWFError, match=r"cut\.swf\.gz"):
        read_swf(path).load()


# --------------------------------------------------------------------------- compat


def test_rlscheduler_compat():
    """procs = max(alloc, req), negative run time -> 10, run time 0 dropped, requested time filled, MaxNodes as size."""
    trace = read_swf(DATA / "rlscheduler.swf", compat="rlscheduler")
    jobs = {job.id: job for job in trace.jobs()}
    assert sorted(jobs) == [1, 3, 4]
    assert (jobs[1].runtime, jobs[1].cpus, jobs[1].estimate) == (10, 8, 10)
    assert (jobs[3].runtime, jobs[3].cpus, jobs[3].estimate) == (30, 6, 30)
    assert (jobs[4].cpus, jobs[4].estimate) == (3, 100)
    assert trace.report.counts == {"run time <= 0": 1, "wider than the machine": 1}
    assert trace.report.examples["run time <= 0"] == [6]
    assert trace.machine_procs == 16


def test_rlscheduler_file_read_plainly():
    """The same file without compat: negative run time dropped, allocated CPUs win, no machine size."""
    trace = read_swf(DATA / "rlscheduler.swf")
    jobs = {job.id: job for job in trace.jobs()}
    assert sorted(jobs) == [3, 4, 5]
    assert (jobs[3].cpus, jobs[3].estimate) == (6, None)
    assert trace.report.counts == {"run time <= 0": 2}


# --------------------------------------------------------------------------- streaming


@needs(GAIA)
def test_streaming_reads_only_what_is_consumed():
    """Ten jobs from Gaia read ten data lines and hold well under a megabyte, not the whole 52k-job file."""
    trace = read_swf(GAIA)
    jobs = trace.jobs()
    assert trace.report.read == 0  # nothing read before the first job is asked for
    tracemalloc.start()
    try:
        first = list(islice(jobs, 10))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    jobs.close()
    assert [job.id for job in first] == list(range(1, 11))
    assert (trace.report.read, trace.report.kept, trace.report.finished) == (10, 10, False)
    assert peak < 1_000_000


# --------------------------------------------------------------------------- writing


def mixed_workload() -> list[Job]:
    """Poisson arrivals with named classes and groups, float times, some estimates and memory demands."""
    classes = [
        JobClass("batch", 0.7, Exponential(300.0), UniformInt(1, 16)),
        JobClass("interactive", 0.3, Exponential(20.0), 1),
    ]
    jobs = list(
        poisson_workload(0.05, classes=classes, groups={"atlas": 0.5, "biomed": 0.3, "cms": 0.2}, count=400, seed=7)
    )
    return [
        dataclasses.replace(
            job,
            estimate=job.runtime * 1.5 if job.id % 3 == 0 else None,
            demands={"memory": 512.25 * (job.id % 4)} if job.id % 4 else {},
        )
        for job in jobs
    ]


@pytest.mark.parametrize("suffix", [".swf", ".swf.gz"])
def test_workload_round_trip(tmp_path: Path, suffix: str):
    """A generated workload written and read back is the same, field by field, labels restored."""
    jobs = mixed_workload()
    path = tmp_path / f"workload{suffix}"
    assert write_swf(path, jobs) == 400
    trace = read_swf(path, strict=True)
    same_jobs(trace.load(), jobs)
    assert trace.header.max_procs == max(job.cpus for job in jobs)
    assert dict(trace.header.group_labels) == {0: "atlas", 1: "biomed", 2: "cms"}
    assert dict(trace.header.class_labels) == {0: "batch", 1: "interactive"}
    if suffix == ".swf":
        text = path.read_text()
        assert text.startswith("; Version: 2.2\n; Computer: schedlab\n")
        assert "; SchedlabGroups: 0=atlas 1=biomed 2=cms\n" in text


def test_gzip_output_is_reproducible(tmp_path: Path):
    """The same jobs give the same .gz bytes (no timestamp inside)."""
    jobs = mixed_workload()[:20]
    write_swf(tmp_path / "a.swf.gz", jobs)
    write_swf(tmp_path / "b.swf.gz", jobs)
    assert (tmp_path / "a.swf.gz").read_bytes() == (tmp_path / "b.swf.gz").read_bytes()


def test_write_with_a_mapping_header(tmp_path: Path):
    """A mapping header adds its keys (a list repeats one); MaxProcs is checked against the jobs."""
    jobs = [Job(1, 0.0, 5.0, cpus=4), Job(2, 1.0, 5.0, cpus=2)]
    path = tmp_path / "m.swf"
    write_swf(path, jobs, header={"Computer": "toy", "MaxProcs": 8, "Note": ["one", "two\nlines"]})
    header = read_swf(path, strict=True).header
    assert (header.computer, header.max_procs, header.max_jobs, header.notes) == ("toy", 8, 2, ("one", "two\nlines"))
    with pytest.raises(ValueError, match="job 1 needs 4 CPUs, more than the header's MaxProcs 2"):
        write_swf(path, jobs, header={"MaxProcs": 2})
    with pytest.raises(ValueError, match="either jobs or records"):
        write_swf(path)


label = st.text(max_size=6)
job_fields = st.tuples(
    st.floats(0, 1e12, allow_nan=False),
    st.floats(0, 1e12, exclude_min=True, allow_nan=False),
    st.integers(1, 10**6),
    st.none() | st.floats(0, 1e12, exclude_min=True, allow_nan=False),
    st.none() | st.floats(0, 1e9, exclude_min=True, allow_nan=False),
    label,
    label,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(job_fields, min_size=1, max_size=12), st.integers(-(10**12), 10**12))
def test_any_jobs_round_trip(tmp_path: Path, rows: list[tuple], first_id: int):
    """Any floats, widths and labels (spaces, '=', digits like '03' or '-1', unicode) come back unchanged."""
    jobs = [
        Job(
            first_id + i,
            submit,
            runtime,
            cpus=cpus,
            estimate=estimate,
            demands={"memory": memory} if memory else {},
            job_class=cls,
            group=grp,
        )
        for i, (submit, runtime, cpus, estimate, memory, cls, grp) in enumerate(rows)
    ]
    path = tmp_path / "any.swf"
    write_swf(path, jobs)
    same_jobs(read_swf(path, strict=True).load(), jobs)


@needs(GAIA)
def test_real_records_round_trip(tmp_path: Path):
    """Gaia's records (all, and a filtered subset) re-saved with its header read back equal."""
    trace = read_swf(GAIA, clean=False)
    records = list(trace.records())
    path = tmp_path / "gaia.swf.gz"
    assert write_swf(path, header=trace.header, records=records) == 51987
    again = read_swf(path, clean=False, strict=True)
    assert again.header == trace.header
    assert list(again.records()) == records
    subset = list(read_swf(GAIA, statuses={0}, start_time=86400, end_time=7 * 86400).records())
    write_swf(path, header=trace.header, records=subset)
    assert list(read_swf(path, clean=False).records()) == subset
    assert 0 < len(subset) < 5000


def test_records_round_trip_keeps_floats(tmp_path: Path):
    """Hand-made records with a float field and a user header write back exactly."""
    trace = read_swf(DATA / "small.swf", clean=False)
    records = list(trace.records())
    path = tmp_path / "small.swf"
    write_swf(path, header=trace.header, records=records)
    again = read_swf(path, clean=False, strict=True)
    assert list(again.records()) == records
    old, new = trace.header, again.header
    assert (new.notes, new.max_procs, new.max_jobs) == (old.notes, 64, 8)  # the missing counts are added
    assert {key: new.fields[key] for key in old.fields} == old.fields
    assert [v for k, v in new.entries if k == "Queue"] == ["0 interactive", "1 batch"]
    header = SWFHeader(max_procs=64, computer="copy")
    write_swf(path, records=records[:3], header=header)
    copy = read_swf(path, strict=True)
    assert (copy.header.max_procs, copy.header.computer, copy.header.max_jobs) == (64, "copy", 3)


# --------------------------------------------------------------------------- fuzz

SEED_FILE = LUBLIN if LUBLIN.exists() else DATA / "small.swf"


def seed_lines() -> list[bytes]:
    opener = gzip.open if SEED_FILE.suffix == ".gz" else open
    with opener(SEED_FILE, "rb") as stream:
        return list(islice(stream, 200))


SEED = seed_lines()
TOKENS = st.sampled_from(
    [
        "x",
        "",
        "-1",
        "0",
        "-7",
        "1.5",
        "1e400",
        "nan",
        "inf",
        "1_0",
        "0x1f",
        "+3",
        "٣",
        "99999999999999999999999",
        ";",
        "-0.0",
        "1e-300",
    ]
) | st.text(max_size=4)

edit = st.one_of(
    st.tuples(st.just("delete"), st.integers(0, 10**6)),
    st.tuples(st.just("duplicate"), st.integers(0, 10**6)),
    st.tuples(st.just("field"), st.integers(0, 10**6), st.integers(0, 20), TOKENS),
)
flip = st.tuples(st.integers(2, 10**7), st.integers(0, 255))


def mangle(edits: list[tuple], flips: list[tuple[int, int]]) -> bytes:
    lines = list(SEED)
    for op in edits:
        if not lines:
            break
        i = op[1] % len(lines)
        if op[0] == "delete":
            del lines[i]
        elif op[0] == "duplicate":
            lines.insert(i, lines[i])
        else:
            parts = lines[i].split()
            if parts:
                parts[op[2] % len(parts)] = op[3].encode()
            lines[i] = b" ".join(parts) + b"\n"
    data = bytearray(b"".join(lines))
    for at, byte in flips:  # never the first two bytes: the gzip magic would make it a (corrupt) gzip file
        if len(data) > 2:
            data[2 + at % (len(data) - 2)] = byte
    return bytes(data)


def data_lines(data: bytes) -> int:
    """Non-blank, non-comment lines, counted the way a text file is split into lines."""
    text = data.decode("utf-8-sig", errors="replace")
    return sum(1 for line in re.split(r"\r\n|\r|\n", text) if line.strip() and not line.strip().startswith(";"))


@pytest.fixture(scope="module")
def fuzz_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("swf-fuzz")


@settings(max_examples=100, deadline=None)
@given(st.lists(edit, max_size=12), st.lists(flip, max_size=12))
def test_fuzzed_real_lines(fuzz_dir: Path, edits: list[tuple], flips: list[tuple[int, int]]):
    """Mangled real lines: strict parses or raises SWFError; default never raises and accounts for every line."""
    path = fuzz_dir / "fuzz.swf"
    data = mangle(edits, flips)
    path.write_bytes(data)
    try:
        strict = read_swf(path, strict=True)
        list(strict.records())
        strict.load()
    except SWFError as error:
        assert error.path == str(path)
    trace = read_swf(path)
    jobs = trace.load()
    report = trace.report
    assert report.finished
    assert report.read == report.kept + report.total_dropped == data_lines(data)
    assert len(jobs) == report.kept
    assert isinstance(report, DropReport) and str(report)
    records = list(read_swf(path, clean=False).records())
    assert all(isinstance(r, SWFRecord) for r in records)

"""A run's records and tables are saved without pandas, as pandas would write them.

``RunRecords`` writes ``records.parquet`` from the machines' ``RecordLog`` arrays with
pyarrow alone: the same bytes as from the records' DataFrame, which is made only when
someone reads ``Results.records``. ``summary.csv`` and ``replications.csv`` of plain
tables are the text ``DataFrame.to_csv`` writes.
"""

from __future__ import annotations

import io
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.experiment import run
from schedlab.experiment.results import _plain_csv
from schedlab.experiment.run_records import RunRecords
from schedlab.model.core.job import Job
from schedlab.model.records.arrow_arrays import texts_at
from schedlab.model.records.job_record import JobRecord, Status
from schedlab.model.records.log import RecordLog
from schedlab.model.records.table import job_record, read_records, records_of_frame

_time = st.one_of(st.floats(0, 1e6), st.just(math.nan), st.just(0.0))
_text = st.sampled_from(["", "a", "batch, b", 'say "hi"'])


@st.composite
def _record(draw: st.DrawFn) -> JobRecord:
    """A record as a run makes one: float times, int counts, wait and service derived."""
    submit, start, end, runtime = draw(_time), draw(_time), draw(_time), draw(st.floats(0.1, 10))
    return JobRecord(
        draw(st.integers(0, 2**40)),
        draw(_text),
        draw(_text),
        draw(st.one_of(st.none(), st.integers(0, 9))),
        draw(_text),
        submit,
        start,
        end,
        start - submit,
        end - start,
        runtime,
        draw(st.sampled_from([runtime, 2.0])),
        draw(st.sampled_from([1, 4])),
        draw(st.one_of(st.just(0.0), _time)),
        draw(st.sampled_from([1.0, 0.5])),
        draw(st.sampled_from([0, 2])),
        draw(st.sampled_from([0, 1])),
        draw(st.sampled_from([0.0, 3.5])),
        draw(st.sampled_from(list(Status))),
        draw(st.sampled_from([0, 0, 2])),
        draw(st.sampled_from(["", "", "5", "0-3 7"])),
    )


_tag = st.one_of(
    st.integers(-5, 5), st.floats(allow_infinity=False), st.sampled_from(["fcfs", "easy"]), st.booleans(), st.none()
)


def _saved(records: RunRecords, folder: Path) -> bytes:
    folder.mkdir()
    assert records.save(folder) == "records.parquet"
    return (folder / "records.parquet").read_bytes()


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.lists(_record(), min_size=1, max_size=20), min_size=1, max_size=3),
    st.dictionaries(st.sampled_from(["policy", "load", "cpus"]), _tag, max_size=2),
)
def test_the_parquet_from_the_logs_is_the_parquet_from_the_frame(tmp_path_factory, tasks, cell):
    parts = [(RecordLog(records), cell, rep) for rep, records in enumerate(tasks)]
    from_logs = _saved(RunRecords(parts), tmp_path_factory.mktemp("logs") / "out")
    through_pandas = RunRecords(parts)
    frame = through_pandas.frame()  # a frame made first is the one saved
    assert from_logs == _saved(through_pandas, tmp_path_factory.mktemp("frame") / "out")
    # what DataFrame.to_parquet wrote (a dictionary for every column) reads back the same
    written = io.BytesIO()
    frame.to_parquet(written, index=False)
    assert pd.read_parquet(io.BytesIO(from_logs)).equals(pd.read_parquet(written))


def test_results_records_is_the_dataframe_made_when_read(tmp_path):
    results = run(
        Path(__file__).parent.parent / "scenarios" / "mmc.py",
        overrides={"customers": 300},
        reps=2,
        executor="serial",
        out=tmp_path / "mmc",
    )
    assert isinstance(results.job_records, RunRecords) and len(results.job_records.parts) == 2
    frame = results.records
    assert list(frame["rep"].unique()) == [0, 1] and len(frame) == 600
    assert results.records is frame  # made once
    assert pd.read_parquet(tmp_path / "mmc" / "records.parquet").equals(frame)


@pytest.mark.skipif(
    int(pd.__version__.split(".")[0]) < 3,
    reason="the table is made without pandas only under pandas 3, whose conversions it repeats (_arrow_table)",
)
def test_a_machine_run_saves_its_results_without_importing_pandas(tmp_path):
    code = (
        "import sys; from schedlab.experiment import run; "
        f"run({str(Path(__file__).parent.parent / 'scenarios' / 'mmc.py')!r}, overrides={{'customers': 200}}, "
        f"reps=2, executor='serial', out={str(tmp_path / 'mmc')!r}); print('pandas' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
    assert sorted(p.name for p in (tmp_path / "mmc").iterdir()) == [  # series/: each run's CPUs, for `schedlab plot`
        ".schedlab-lock",
        "manifest.json",
        "records.parquet",
        "replications.csv",
        "series",
        "summary.csv",
        "summary.json",
    ]  # .schedlab-lock: the lock file the run held the folder by


_value = st.one_of(st.floats(), st.integers(-(2**64), 2**64), st.text(max_size=5), st.booleans(), st.none())


@settings(max_examples=200)
@given(st.lists(st.dictionaries(st.sampled_from(["a", "b", "c,d"]), _value, min_size=1), min_size=1, max_size=4))
def test_a_plain_table_is_written_as_pandas_writes_it(rows):
    text = _plain_csv(rows)
    if text is not None:
        assert text == pd.DataFrame(rows).to_csv(index=False)


def test_a_table_of_one_type_per_column_is_plain():
    rows = [
        {"policy": "fcfs", "rep": 0, "wait": 0.1 + 0.2, "ok": True},
        {"policy": "a,b", "rep": 1, "wait": math.nan, "ok": False},
    ]
    assert _plain_csv(rows) == 'policy,rep,wait,ok\nfcfs,0,0.30000000000000004,True\n"a,b",1,,False\n'
    assert _plain_csv([{"x": 1}, {"x": 1.5}]) is None  # pandas makes the column floats: "1.0"
    assert _plain_csv([{"x": 1}, {"y": 1}]) is None  # and fills the gaps


@given(st.lists(st.text(st.characters(exclude_categories=("Cs",)), max_size=4), min_size=1, max_size=4), st.data())
def test_a_text_column_from_its_distinct_texts_and_codes(values, data):
    codes = data.draw(st.lists(st.integers(0, len(values) - 1), max_size=30))
    column = texts_at(values, np.array(codes, dtype=np.int64))
    column.validate(full=True)
    assert column.type == pa.large_string() and column.to_pylist() == [values[c] for c in codes]


def test_without_pyarrow_the_records_are_saved_as_csv(tmp_path, monkeypatch):
    log = RecordLog(
        JobRecord(
            i,
            "",
            "",
            None,
            "cpus",
            float(i),
            i + 0.5,
            i + 2.0,
            0.5,
            1.5,
            1.5,
            1.5,
            1,
            1.5,
            1.0,
            0,
            0,
            0.0,
            Status.COMPLETED,
            0,
            "" if i else "5",
        )
        for i in range(5)
    )
    records = RunRecords([(log, {"policy": "fcfs"}, 0)])
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)  # import pyarrow.parquet raises ImportError
    assert records.save(tmp_path) == "records.csv"
    assert (tmp_path / "records.csv").read_text() == records.frame().to_csv(index=False)
    # read back: the interval sets stay texts ("5" is not the number 5, an empty one is "")
    back = records_of_frame(read_records(tmp_path))
    assert [(r.id, r.restarts, r.allocation) for r in back] == [(i, 0, "" if i else "5") for i in range(5)]


@settings(max_examples=25)
@given(st.lists(_record(), min_size=1, max_size=20))
def test_saved_records_read_back_with_their_restarts_and_allocations(tmp_path_factory, records):
    """Parquet round trip: the new columns come back, as int and text (nan-tolerant compare)."""
    folder = tmp_path_factory.mktemp("saved")
    RunRecords([(RecordLog(records), {}, 0)]).save(folder)
    back = records_of_frame(read_records(folder))
    assert [(r.id, r.restarts, r.allocation) for r in back] == [(r.id, r.restarts, r.allocation) for r in records]
    assert all(type(r.restarts) is int and type(r.allocation) is str for r in back)


def test_records_saved_before_they_carried_allocations_read_back_with_none(tmp_path):
    log = RecordLog([job_record(Job(1, 0.0, 1.0), "m", Status.COMPLETED, start=0.0, end=1.0, cpu_time=1.0)])
    log.frame().drop(columns=["restarts", "allocation"]).to_parquet(tmp_path / "records.parquet", index=False)
    (back,) = records_of_frame(read_records(tmp_path))
    assert back == log[0] and (back.restarts, back.allocation) == (0, "")

"""RecordLog reads back exactly the records job_record makes; RunningSet is a list in start order; new_job is Job.

A RecordLog is a sequence of JobRecords stored by columns. Whatever goes in comes back
equal field for field and type for type (nan times, ``None`` origins, int times kept
whole, -0.0 apart from 0.0), and its DataFrame, built from the arrays, is the one pandas
builds from the records themselves: same columns, dtypes and values, same Parquet bytes.
"""

from __future__ import annotations

import io
import math
import pickle
import random

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from schedlab.model.core.job import Job, JobError, new_job
from schedlab.model.core.utility import LinearDecay
from schedlab.model.records.job_record import COLUMNS, JobRecord, Status
from schedlab.model.records.log import RecordLog
from schedlab.model.records.table import job_record, records_frame
from schedlab.processes.machine.running import Running, RunningSet


def _cases(seed: int = 1, n: int = 2000):
    rng = random.Random(seed)
    for i in range(n):
        kind = rng.random()
        job = Job(
            i if kind > 0.05 else np.int64(i),  # a numpy id: kept whole
            rng.random() * 10 if kind > 0.15 else 3,  # an int submit time: kept whole
            rng.random() + 0.1,
            cpus=rng.randint(1, 4),
            estimate=None if kind < 0.5 else 2.0,
            job_class=rng.choice(["", "a"]),
            group=rng.choice(["", "g"]),
            origin=None if kind < 0.3 else rng.randint(0, 5),
            weight=1.0 if kind < 0.8 else 2.5,
            utility=LinearDecay(2.0, 0.1) if kind > 0.9 else None,
        )
        status = rng.choice(list(Status))
        start = math.nan if rng.random() < 0.3 else job.submit + rng.random()
        end = start + rng.random() if status is Status.COMPLETED else math.nan
        kw = dict(
            start=start,
            end=end,
            cpu_time=rng.random(),
            preemptions=rng.randint(0, 2),
            resizes=rng.randint(0, 1),
            restarts=rng.choice([0, 0, 0, 1, 3]),
            allocation=rng.choice(["", "", "0-3", "1 5-7", "12"]),
        )
        yield job, f"m{i % 3}", status, kw


def _same(a, b) -> bool:
    return [repr(x) for x in a] == [repr(x) for x in b] and [[type(v) for v in r] for r in a] == [
        [type(v) for v in r] for r in b
    ]


def test_log_reads_back_the_records_field_for_field_and_type_for_type():
    made, added, appended = [], RecordLog(), RecordLog()
    for job, machine, status, kw in _cases():
        record = job_record(job, machine, status, **kw)
        made.append(record)
        added.add(job, machine, status, *kw.values())  # start, end, cpu_time, ..., restarts, allocation
        appended.append(record)
    for log in (added, appended):
        assert len(log) == len(made)
        assert _same(list(log), made)
        assert _same([log[i] for i in range(-len(log), len(log))], made + made)
        assert _same(log[5:900:7], made[5:900:7])
        with pytest.raises(IndexError):
            log[len(log)]
    assert _same(added + made[:3], made + made[:3])


def _same_frames(log: RecordLog) -> pd.DataFrame:
    """The frame the log builds from its arrays is the one pandas builds from its records, to the byte."""
    ours = records_frame(log, policy="fcfs", rep=2)
    rows = records_frame(list(log), policy="fcfs", rep=2)
    pd.testing.assert_frame_equal(ours, rows, check_exact=True)
    assert ours.dtypes.equals(rows.dtypes)
    assert ours.to_csv(index=False) == rows.to_csv(index=False)
    a, b = io.BytesIO(), io.BytesIO()
    ours.to_parquet(a, index=False)
    rows.to_parquet(b, index=False)
    assert a.getvalue() == b.getvalue()
    # the Arrow table made from the arrays, without pandas, is the one pyarrow makes of the frame under
    # pandas 3; pandas 2 keeps texts as objects, which pyarrow makes `string`: the same but for that type
    table = log.arrow_table()
    if table is not None:
        pyarrows = pa.Table.from_pandas(log.frame(), preserve_index=False)
        if int(pd.__version__.split(".")[0]) < 3:
            texts = [f.with_type(pa.large_string()) if f.type == pa.string() else f for f in pyarrows.schema]
            pyarrows = pyarrows.cast(pa.schema(texts, metadata=pyarrows.schema.metadata))
        assert table.equals(pyarrows)
    return ours


def test_the_usual_job_takes_five_numbers_and_its_frame_comes_from_the_arrays():
    log = RecordLog()
    for i in range(1000):
        log.add(Job(i, float(i), 1.5), "cpus", Status.COMPLETED, i + 0.25, i + 1.75, 1.5)
    assert log._extra == {} and len(log._times) == 4 * 1000  # submit, start, end, runtime; and the id
    frame = _same_frames(log)
    assert list(frame.columns) == ["policy", "rep", *COLUMNS] and frame["wait"].iloc[3] == 0.25
    # a rejected job (nan times, no CPU-time) is usual too; a job of 2 CPUs keeps a cpus column from then on
    log.add(Job(1000, 1000.0, 1.0), "cpus", Status.REJECTED, math.nan, math.nan, 0.0)
    log.add(Job(1001, 1001.0, 1.0, cpus=2), "cpus", Status.COMPLETED, 1001.0, 1002.0, 2.0)
    assert sorted(log._extra) == ["code", "cpus"]
    assert log[-2].status is Status.REJECTED and log[-1].cpus == 2 and log[3].cpus == 1
    _same_frames(log)


def test_the_deterministic_cases_give_the_same_frame_and_pickle_back():
    log = RecordLog(job_record(job, machine, status, **kw) for job, machine, status, kw in _cases(n=500))
    _same_frames(log)
    plain = RecordLog(r for r in log if type(r.submit) is float and type(r.id) is int)
    assert not plain._whole
    _same_frames(plain)
    assert _same(list(pickle.loads(pickle.dumps(log))), list(log))


# Any record at all: times that are nan, inf, -0.0 or ints; ids past 64 bits; numpy numbers;
# wait and service derived or not; origins None or ints (some past a float's 53 bits).
_float = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.0, -0.0, 1.0, math.nan]))
_time = st.one_of(_float, _float, _float, st.integers(-5, 5))
_int = st.one_of(st.integers(-3, 3), st.integers(-(2**64), 2**64), st.just(np.int64(2)))
_text = st.sampled_from(["", "a", "batch"])


@st.composite
def _records(draw) -> JobRecord:
    submit, start, end = draw(_time), draw(_time), draw(_time)
    derived = draw(st.booleans())
    runtime = draw(_time)
    return JobRecord(
        draw(_int),
        draw(_text),
        draw(_text),
        draw(st.one_of(st.none(), _int, st.just(2**60 + 1))),
        draw(_text),
        submit,
        start,
        end,
        start - submit if derived else draw(_time),
        end - start if derived else draw(_time),
        runtime,
        runtime if draw(st.booleans()) else draw(_time),
        draw(st.one_of(st.just(1), _int)),
        draw(_time),
        draw(st.one_of(st.just(1.0), _time)),
        draw(st.one_of(st.just(0), _int)),
        draw(st.one_of(st.just(0), _int)),
        draw(st.one_of(st.just(0.0), _time)),
        draw(st.sampled_from(list(Status))),
        draw(st.one_of(st.just(0), _int)),
        draw(st.sampled_from(["", "", "0-3", "7", "0-3 7"])),
    )


# CI found this one: int start and end, a float service 0.0 that equals end - start
_INT_TIMES = JobRecord(
    0, "", "", None, "", 0.0, 0, 0, 0.0, 0.0, 0.0, 0.0, 1, 0.0, 1.0, 0, 0, 0.0, Status.COMPLETED, 0, ""
)


@settings(max_examples=200)
@given(st.lists(_records(), max_size=30), st.integers(0, 30))
@example([_INT_TIMES], 0)
def test_any_records_read_back_field_for_field_and_type_for_type(records, cut):
    log = RecordLog(records)
    assert len(log) == len(records)
    assert _same(list(log), records)
    assert _same([log[i] for i in range(-len(log), len(log))], records + records)
    assert _same(log[cut:], records[cut:])
    # one log extended by another (arrays copied, labels and usual values merged) is the two in order
    joined = RecordLog(records[:cut])
    joined.extend(RecordLog(records[cut:]))
    assert _same(list(joined), records)
    assert _same(list(pickle.loads(pickle.dumps(log))), records)


def _frame_records() -> st.SearchStrategy[JobRecord]:
    """Records as a run makes them: float times, int counts, wait and service derived."""
    time = st.one_of(st.floats(0, 1e6), st.just(math.nan), st.just(0.0))

    @st.composite
    def one(draw) -> JobRecord:
        submit, start, end, runtime = draw(time), draw(time), draw(time), draw(st.floats(0.1, 10))
        return JobRecord(
            draw(st.integers(0, 2**40)),
            draw(_text),
            draw(_text),
            draw(st.one_of(st.none(), st.none(), st.integers(0, 9))),
            draw(_text),
            submit,
            start,
            end,
            start - submit,
            end - start,
            runtime,
            draw(st.sampled_from([runtime, 2.0])),
            draw(st.sampled_from([1, 1, 4])),
            draw(st.one_of(st.just(0.0), time)),
            draw(st.sampled_from([1.0, 1.0, 0.5])),
            draw(st.sampled_from([0, 0, 2])),
            draw(st.sampled_from([0, 1])),
            draw(st.sampled_from([0.0, 0.0, 3.5])),
            draw(st.sampled_from(list(Status))),
            draw(st.sampled_from([0, 0, 1])),
            draw(st.sampled_from(["", "", "0-15", "16-31 40"])),
        )

    return one()


@settings(max_examples=50)
@given(st.lists(_frame_records(), min_size=1, max_size=40))
def test_the_frame_from_the_arrays_is_the_frame_from_the_records(records):
    log = RecordLog(records)
    assert not log._whole
    _same_frames(log)


@st.composite
def _trace_jobs(draw: st.DrawFn) -> tuple[Job, str, Status, float, float, float, int]:
    """A job as a log replay logs it: its own estimate, one of many labels, its own width, now and then odd."""
    submit, runtime = draw(st.floats(0, 1e4)), draw(st.floats(0.5, 1e3))
    start = submit + draw(st.sampled_from([0.0, 1.5, math.nan]))
    end = start + runtime
    cpus = draw(st.sampled_from([1, 16, 160]))
    derived = (end - start) * cpus
    job = Job(
        draw(st.integers(0, 2**40)),
        submit,
        runtime,
        cpus=cpus,
        estimate=draw(st.sampled_from([None, runtime, 2 * runtime + 1.0])),
        job_class=draw(st.sampled_from(["0", "1", "7"])),
        group=draw(st.sampled_from(["13", "14"])),
        origin=draw(st.sampled_from([None, None, 3])),
        weight=draw(st.sampled_from([1.0, 1.0, 0.5])),
    )
    status = draw(st.sampled_from([Status.COMPLETED, Status.COMPLETED, Status.TIMEOUT]))
    cpu_time = draw(st.sampled_from([0.0 if derived != derived else derived, 2.0, -0.0]))
    machine, preemptions = draw(st.sampled_from(["machine", "other"])), draw(st.sampled_from([0, 0, 2]))
    return job, machine, status, start, end, cpu_time, preemptions


@given(st.lists(_trace_jobs(), max_size=40))
def test_jobs_logged_by_add_read_back_as_job_record_makes_them(jobs):
    # add() stores a field's array from the first job whose value is not the usual one, then
    # appends to it without testing: any order of odd fields must read back exactly.
    log = RecordLog()
    made = []
    for job, machine, status, start, end, cpu_time, preemptions in jobs:
        log.add(job, machine, status, start, end, cpu_time, preemptions)
        made.append(job_record(job, machine, status, start=start, end=end, cpu_time=cpu_time, preemptions=preemptions))
    assert _same(list(log), made)
    assert _same([log[i] for i in range(len(log))], made)
    if made:
        pd.testing.assert_frame_equal(log.frame(), records_frame(made))
        for name in ("estimate", "cpu_time", "cpus", "weight", "job_class", "machine", "preemptions"):
            assert log.column(name).tolist() == [getattr(r, name) for r in made]


def test_the_usual_job_and_its_near_misses_read_back_as_job_record_makes_them():
    # add() logs the usual job (the first one's texts, cpus and weight; float times) in place;
    # a near miss of any kind takes the long way and still reads back exactly.
    a = "".join(["a", "b"])  # equal to "ab", not the same object: the shortcut compares by identity
    near = [
        dict(job_class=a),
        dict(cpus=2),
        dict(weight=0.5),
        dict(estimate=3.0),
        dict(submit=7),
        dict(preemptions=1),
        dict(cpu_time=9.0),
        dict(machine="other"),
        dict(id=2**40),
        dict(id=2**63),
    ]
    log, made = RecordLog(), []
    for i in range(3 * len(near)):
        odd = near[i // 3] if i % 3 == 1 else {}
        job = Job(
            odd.get("id", i),
            odd.get("submit", float(i)),
            1.5,
            cpus=odd.get("cpus", 1),
            estimate=odd.get("estimate"),
            job_class=odd.get("job_class", "ab"),
            weight=odd.get("weight", 1.0),
        )
        machine, start = odd.get("machine", "cpus"), float(i) + 0.25
        cpu_time, preemptions = odd.get("cpu_time", 1.5 * job.cpus), odd.get("preemptions", 0)
        log.add(job, machine, Status.COMPLETED, start, start + 1.5, cpu_time, preemptions)
        made.append(
            job_record(
                job, machine, Status.COMPLETED, start=start, end=start + 1.5, cpu_time=cpu_time, preemptions=preemptions
            )
        )
    assert _same(list(log), made)


def test_log_equals_lists_of_the_same_records():
    done = [
        job_record(Job(i, float(i), 1.0), "m", Status.COMPLETED, start=i + 0.5, end=i + 1.5, cpu_time=1.0)
        for i in range(10)
    ]
    log = RecordLog(done)
    assert log == done and log == RecordLog(done) and log != done[:-1]


def test_running_set_keeps_start_order_and_reads_as_a_list():
    runs = [Running(Job(i, 0.0, 1.0), i) for i in range(5)]
    running = RunningSet()
    assert running == [] and not running
    for run in runs:
        running.append(run)
    running.remove(runs[2])
    expected = [runs[0], runs[1], runs[3], runs[4]]
    assert running == expected and list(running) == expected and len(running) == 4
    assert running[0] is runs[0] and running[-1] is runs[4] and running[1:3] == expected[1:3]
    assert runs[3] in running and runs[2] not in running
    (only,) = [r for r in running if r.job.id == 3]
    assert only is runs[3]


def test_new_job_is_job_with_the_same_fields_and_checks():
    a = new_job(7, 1.5, 2.0, 3, {"memory": 4.0}, 2.5, "c", "g", 2.0, None, 1)
    b = Job(7, 1.5, 2.0, 3, {"memory": 4.0}, 2.5, "c", "g", 2.0, None, 1)
    assert type(a) is Job
    assert [getattr(a, f) for f in Job.__slots__ if f != "demands"] == [
        getattr(b, f) for f in Job.__slots__ if f != "demands"
    ]
    assert dict(a.demands) == dict(b.demands) == dict(pickle.loads(pickle.dumps(a)).demands)
    with pytest.raises(TypeError):
        a.demands["memory"] = 1.0  # read-only
    for bad in (
        dict(submit=-1.0),
        dict(runtime=0.0),
        dict(cpus=0),
        dict(demands={"cpus": 1}),
        dict(demands={"m": -1.0}),
        dict(weight=-1.0),
    ):
        kw = dict(id=1, submit=0.0, runtime=1.0) | bad
        with pytest.raises(JobError):
            new_job(**kw)
        with pytest.raises(JobError):
            Job(**kw)


def test_model_records_is_a_log_of_every_stations_records_and_snapshot():
    """Model.records() of Machine stations: their logs' arrays copied, running and waiting jobs appended."""
    import simpy

    from schedlab.model.core.distributions import Exponential
    from schedlab.model.core.workloads import poisson_workload
    from schedlab.policies import FCFS
    from schedlab.processes import Machine, Model, Source

    env = simpy.Environment()
    machines = [Machine(env, 2, FCFS(), name="a"), Machine(env, 3, FCFS(), name="b")]
    for i, machine in enumerate(machines):
        Source(env, poisson_workload(4.0, Exponential(1.0), count=300, seed=i), machine)
    machines[0].submit(Job(10_000, 0.0, 1.0, cpus=9))  # too wide: rejected, logged with nan times
    model = Model(env, machines, until=40.0).run()
    records = model.records()
    assert isinstance(records, RecordLog)
    expected = machines[0].all_records() + machines[1].all_records()
    assert {r.status for r in expected} == {Status.COMPLETED, Status.REJECTED, Status.RUNNING, Status.WAITING}
    assert _same(list(records), expected)
    _same_frames(records)


def _column_is_the_field(column: np.ndarray, values: list) -> bool:
    """Float columns: the same bits as ``float(field)`` (nan is nan, -0.0 is not 0.0); others: equal values."""
    if column.dtype.kind == "f":
        expected = np.array([math.nan if v is None else float(v) for v in values])  # origin: None -> nan
        both_nan = np.isnan(column) & np.isnan(expected)
        same = (column == expected) & (np.signbit(column) == np.signbit(expected))
        return bool((both_nan | same).all())
    return column.tolist() == list(values)


@settings(max_examples=200)
@given(st.lists(_records(), max_size=30))
def test_a_column_is_every_records_field_without_making_records(records):
    log = RecordLog(records)
    for name in COLUMNS:
        column = log.column(name)
        assert len(column) == len(records)
        assert _column_is_the_field(column, [getattr(r, name) for r in records]), name
    for status in Status:
        assert log.has_status(status).tolist() == [r.status is status for r in records]
    assert log.columnar is (not log._whole)


def test_columns_of_a_machines_log():
    """What a scenario's ``measure`` reads: a log's columns, masks from them, no JobRecord made."""
    log = RecordLog(job_record(job, machine, status, **kw) for job, machine, status, kw in _cases(n=300))
    done = log.has_status(Status.COMPLETED)
    waits = log.column("wait")[done]
    assert waits.dtype == np.float64 and len(waits) == sum(r.status is Status.COMPLETED for r in log)
    assert log.column("status")[done].tolist() == [Status.COMPLETED] * len(waits)
    assert log.column("id").dtype == np.int64
    with pytest.raises(KeyError, match="no field 'waiting'"):
        log.column("waiting")

"""RecordLog reads back exactly the records job_record makes; RunningSet is a list in start order; new_job is Job."""

from __future__ import annotations

import math
import pickle
import random

import numpy as np
import pytest

from schedlab.model.job import Job, JobError, new_job
from schedlab.model.records import RecordLog, Status, job_record
from schedlab.model.utility import LinearDecay
from schedlab.processes.running import Running, RunningSet


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
        kw = dict(start=start, end=end, cpu_time=rng.random(), preemptions=rng.randint(0, 2), resizes=rng.randint(0, 1))
        yield job, f"m{i % 3}", status, kw


def _same(a, b) -> bool:
    return [repr(x) for x in a] == [repr(x) for x in b] and [
        [type(v) for v in r] for r in a] == [[type(v) for v in r] for r in b]


def test_log_reads_back_the_records_field_for_field_and_type_for_type():
    made, added, appended = [], RecordLog(), RecordLog()
    for job, where, status, kw in _cases():
        record = job_record(job, where, status, **kw)
        made.append(record)
        added.add(job, where, status, kw["start"], kw["end"], kw["cpu_time"], kw["preemptions"], kw["resizes"])
        appended.append(record)
    for log in (added, appended):
        assert len(log) == len(made)
        assert _same(list(log), made)
        assert _same([log[i] for i in range(-len(log), len(log))], made + made)
        assert _same(log[5:900:7], made[5:900:7])
        with pytest.raises(IndexError):
            log[len(log)]
    assert _same(added + made[:3], made + made[:3])


def test_log_equals_lists_of_the_same_records():
    done = [job_record(Job(i, float(i), 1.0), "m", Status.COMPLETED, start=i + 0.5, end=i + 1.5, cpu_time=1.0)
            for i in range(10)]
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
        getattr(b, f) for f in Job.__slots__ if f != "demands"]
    assert dict(a.demands) == dict(b.demands) == dict(pickle.loads(pickle.dumps(a)).demands)
    with pytest.raises(TypeError):
        a.demands["memory"] = 1.0  # read-only
    for bad in (dict(submit=-1.0), dict(runtime=0.0), dict(cpus=0), dict(demands={"cpus": 1}),
                dict(demands={"m": -1.0}), dict(weight=-1.0)):
        kw = dict(id=1, submit=0.0, runtime=1.0) | bad
        with pytest.raises(JobError):
            new_job(**kw)
        with pytest.raises(JobError):
            Job(**kw)

"""RecordLog as a class: no mix-in, its pickled state the same twelve arrays, a copy that shares nothing.

The record-for-record checks are tests/test_record_log.py's; these pin what the
mix-ins' removal kept: the class is one (its bases are ``Sequence``'s ABCs), and the
state a run's journal pickles keeps its names, so a journal written before still resumes.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence

from schedlab.model.core.job import Job
from schedlab.model.records.job_record import Status
from schedlab.model.records.log import RecordLog
from schedlab.model.records.table import job_record

#: what a RecordLog pickles: a journal of finished tasks holds these (schedlab/experiment/store.py)
STATE = {
    "_alloc_of",
    "_allocs",
    "_code",
    "_cpus",
    "_extra",
    "_ids",
    "_label_of",
    "_labels",
    "_n",
    "_times",
    "_weight",
    "_whole",
}


def _log() -> RecordLog:
    log = RecordLog()
    for i in range(20):
        log.add(Job(i, float(i), 1.5, cpus=1 + i % 2), f"m{i % 3}", Status.COMPLETED, i + 0.5, i + 2.0, 1.5)
    log.append(job_record(Job(99, 1, 1.0), "m", Status.COMPLETED, start=1, end=2, cpu_time=1.0))  # kept whole
    return log


def test_record_log_is_one_class_with_no_mix_in():
    assert RecordLog.__mro__[0] is RecordLog
    assert all(c.__module__ in ("collections.abc", "builtins") for c in RecordLog.__mro__[1:])
    assert Sequence in RecordLog.__mro__
    assert not hasattr(RecordLog(), "__dict__")  # all its state is in its slots


def test_pickled_state_keeps_its_names_and_loads_as_a_journal_would():
    log = _log()
    _, _, state, *_ = log.__reduce_ex__(5)
    assert state[0] is None and set(state[1]) == STATE
    rebuilt = RecordLog.__new__(RecordLog)  # what unpickling an older journal's log does
    for name, value in state[1].items():
        setattr(rebuilt, name, value)
    assert list(rebuilt) == list(log) == list(pickle.loads(pickle.dumps(log)))


def test_copy_shares_nothing_with_its_log():
    log = _log()
    copy = log.copy()
    assert copy == log and copy._extra.keys() == log._extra.keys()
    records = list(log)
    copy.add(Job(100, 1.0, 2.0, estimate=3.0), "new", Status.TIMEOUT, 1.0, 2.0, 1.0, 1, 0, 0, "0-3")
    copy.extend(copy)
    assert list(log) == records and len(copy) == 2 * (len(log) + 1)

"""Metrics of :mod:`schedlab.model.analysis.metrics` on small hand-made records, checked against hand sums.

The records are built with :func:`schedlab.model.records.table.job_record`, as a machine builds
them. Each expected value is worked out in the test's comments.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.model.analysis import metrics as M
from schedlab.model.core.job import Job
from schedlab.model.core.utility import Constant, LinearDecay
from schedlab.model.records.job_record import Status
from schedlab.model.records.log import RecordLog
from schedlab.model.records.table import job_record


def done(job: Job, start: float, end: float, where: str = "m") -> object:
    """Completed record of ``job``, which held all its CPUs from ``start`` to ``end``."""
    return job_record(job, where, Status.COMPLETED, start=start, end=end, cpu_time=job.cpus * (end - start))


@pytest.fixture
def records():
    """Three completed jobs, one still waiting, one running, one rejected.

    ====  ======  =======  ====  =====  ===  ====  ========  ========
    id    submit  runtime  cpus  start  end  wait  response  slowdown
    ====  ======  =======  ====  =====  ===  ====  ========  ========
    0     0       10       2     0      10   0     10        1
    1     2       4        1     4      8    2     6         1.5
    2     1       1        1     11     12   10    11        11
    ====  ======  =======  ====  =====  ===  ====  ========  ========
    """
    a = Job(0, 0.0, 10.0, cpus=2, utility=LinearDecay(10.0))  # response 10 = L: unit 1, utility 20
    b = Job(1, 2.0, 4.0, cpus=1, utility=LinearDecay(4.0))  # response 6 = 1.5 L: unit 0.5, utility 2
    c = Job(2, 1.0, 1.0, cpus=1, utility=Constant(0.5))  # utility 0.5
    waiting = Job(3, 5.0, 3.0, cpus=3, utility=Constant(1.0))
    running = Job(4, 6.0, 5.0, cpus=1, utility=Constant(1.0))
    rejected = Job(5, 7.0, 1.0, cpus=99)
    return [
        done(a, 0.0, 10.0),
        done(b, 4.0, 8.0),
        done(c, 11.0, 12.0),
        job_record(waiting, "m", Status.WAITING),
        job_record(running, "m", Status.RUNNING, start=9.0, cpu_time=3.0),
        job_record(rejected, "m", Status.REJECTED),
    ]


def test_records_carry_the_hand_computed_utilities(records):
    """Sanity check of the fixture: final utilities 20, 2 and 0.5; only completed jobs earn any."""
    assert [r.utility for r in records] == pytest.approx([20.0, 2.0, 0.5, 0.0, 0.0, 0.0])


def test_wait_response_slowdown(records):
    """Per-job metrics cover completed jobs only, in the order given."""
    assert M.wait(records).tolist() == [0.0, 2.0, 10.0]
    assert M.response(records).tolist() == [10.0, 6.0, 11.0]
    assert M.slowdown(records).tolist() == [1.0, 1.5, 11.0]


def test_bounded_slowdown_threshold(records):
    """max(1, response / max(runtime, threshold)): the threshold caps the short jobs' slowdown."""
    # threshold 10: 10/10 = 1, 6/10 -> 1, 11/10 = 1.1
    assert M.bounded_slowdown(records).tolist() == pytest.approx([1.0, 1.0, 1.1])
    # threshold 5: 10/10 = 1, 6/5 = 1.2, 11/5 = 2.2
    assert M.bounded_slowdown(records, threshold=5.0).tolist() == pytest.approx([1.0, 1.2, 2.2])
    # a threshold below every runtime gives the plain slowdown
    assert M.bounded_slowdown(records, threshold=0.5).tolist() == pytest.approx([1.0, 1.5, 11.0])
    with pytest.raises(ValueError, match="threshold must be > 0, got 0"):
        M.bounded_slowdown(records, threshold=0)


def test_average_time_per_token(records):
    """ATPT (seed 003 eq. 1) is the mean response over completed jobs: (10 + 6 + 11) / 3."""
    assert M.average_time_per_token(records) == pytest.approx(9.0)
    assert math.isnan(M.average_time_per_token([]))


def test_utilization_over_a_window_covering_whole_jobs(records):
    """Seed 000 eq. 7: sum n_i t_i / (N T); over [0, 12] with N = 4 the running job counts 3/3 of its CPU time.

    job 0: 2 * 10 = 20, job 1: 4, job 2: 1, job 4 (running since 9): its 3 so far -> 28 / 48.
    """
    assert M.utilization(records, capacity=4, start=0.0, end=12.0) == pytest.approx(28 / 48)


def test_utilization_over_a_window_that_cuts_jobs(records):
    """A job cut by the window counts in proportion to the part of its life inside it.

    Window [5, 11], N = 4, T = 6. job 0 ran [0, 10]: half inside -> 10. job 1 [4, 8]: 3/4 inside -> 3.
    job 2 [11, 12]: outside. job 4 running [9, end=11]: wholly inside -> 3. Total 16 / 24.
    """
    assert M.utilization(records, capacity=4, start=5.0, end=11.0) == pytest.approx(16 / 24)
    with pytest.raises(ValueError, match="end > start"):
        M.utilization(records, capacity=4, start=5.0, end=5.0)
    with pytest.raises(ValueError, match="capacity must be > 0"):
        M.utilization(records, capacity=0, start=0.0, end=1.0)


def test_utility_accrued_and_productivity(records):
    """Seed 000 eq. 8: P = sum u_i / (N T) over jobs completed in [start, end) (end excluded)."""
    assert M.utility_accrued(records) == pytest.approx(22.5)
    assert M.utility_accrued(records, 0.0, 12.0) == pytest.approx(22.0)  # job 2 ends at 12: excluded
    assert M.utility_accrued(records, 8.0, 12.5) == pytest.approx(22.5)
    assert M.productivity(records, capacity=4, start=0.0, end=12.0) == pytest.approx(22.0 / 48)
    assert M.productivity(records, capacity=4, start=0.0, end=12.5) == pytest.approx(22.5 / 50)


def test_productivity_of_an_ideally_packed_machine_is_one():
    """Jobs that never wait and fill all N CPUs give P = 1 (seed 000: P_max = N T)."""
    jobs = [Job(i, 0.0, 5.0, cpus=2, utility=LinearDecay(5.0)) for i in range(2)]
    recs = [done(j, 0.0, 5.0) for j in jobs]
    assert M.productivity(recs, capacity=4, start=0.0, end=5.0 + 1e-9) == pytest.approx(1.0)


def test_responsiveness(records):
    """Seed 001 eq. 1: W = exec / (exec + wait): 10/10, 4/(4 + 2), 1/(1 + 10)."""
    assert M.responsiveness(records).tolist() == pytest.approx([1.0, 2 / 3, 1 / 11])


def fair_share_records():
    """Three elections: atlas 1 CPU x 3 at t=0, cms 1 x 1 at t=1, cms 2 x 1 at t=2 (given out of order)."""
    r1 = done(Job(1, 0.0, 3.0, cpus=1, group="atlas"), 0.0, 3.0)
    r2 = done(Job(2, 0.0, 1.0, cpus=1, group="cms"), 1.0, 2.0)
    r3 = job_record(Job(3, 0.0, 1.0, cpus=2, group="cms"), "m", Status.RUNNING, start=2.0, cpu_time=1.0)
    never = job_record(Job(4, 0.0, 1.0, group="atlas"), "m", Status.WAITING)
    return [r3, never, r1, r2]


def test_fair_share_two_vos():
    """Seed 001 eq. 2, targets atlas 0.75, cms 0.25 (M = 0.75).

    After job 1: S = (1, 0), D = 0.25, F = 1 - 0.25/0.75 = 2/3.
    After job 2: S = (3/4, 1/4), D = 0, F = 1.
    After job 3: S = (3/6, 3/6), D = 0.25, F = 2/3.
    Waiting jobs are not elected; targets need not sum to 1.
    """
    expected = [2 / 3, 1.0, 2 / 3]
    assert M.fair_share(fair_share_records(), {"atlas": 0.75, "cms": 0.25}).tolist() == pytest.approx(expected)
    assert M.fair_share(fair_share_records(), {"atlas": 3, "cms": 1}).tolist() == pytest.approx(expected)


def test_fair_share_unfeasible_schedule_of_seed_001():
    """Seed 001 section 5.2: targets (.4, .2, .2, .2) against actual (.7, .2, .05, .05) give 1 - .15/.4 = .625."""
    shares = {"vo1": 70, "vo2": 20, "vo3": 5, "vo4": 5}
    recs = [
        done(Job(i, 0.0, float(amount), group=vo), float(i), float(i) + amount)
        for i, (vo, amount) in enumerate(shares.items())
    ]
    f = M.fair_share(recs, {"vo1": 0.4, "vo2": 0.2, "vo3": 0.2, "vo4": 0.2})
    assert f[-1] == pytest.approx(0.625)


def test_fair_share_untargeted_groups_dilute_the_shares():
    """Service to a group without a target counts in the total: one atlas and one other job -> F = 1 - 0.5/1."""
    recs = [done(Job(1, 0.0, 1.0, group="atlas"), 0.0, 1.0), done(Job(2, 0.0, 1.0, group="other"), 1.0, 2.0)]
    assert M.fair_share(recs, {"atlas": 1.0}).tolist() == pytest.approx([1.0, 0.5])
    with pytest.raises(ValueError, match="targets must be >= 0 and not all zero"):
        M.fair_share(recs, {"atlas": 0.0})


def test_load_of_resources_and_summary():
    """Seed 003 eq. 2: LoR_i = l_total_i / C_i; ALoR is their mean, with the max and (population) std."""
    lor = M.load_of_resources([6.0, 3.0, 0.0], [2.0, 1.0, 4.0])
    assert lor.tolist() == [3.0, 3.0, 0.0]
    summary = M.load_summary(lor)
    assert summary == pytest.approx({"alor": 2.0, "max_lor": 3.0, "std_lor": math.sqrt(2.0)})
    with pytest.raises(ValueError, match="differ in shape"):
        M.load_of_resources([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="every capacity must be > 0"):
        M.load_of_resources([1.0], [0.0])


def test_processing_efficiency():
    """Seed 004 eq. 6: G = weight completed in [0, 10) / weight that entered in [0, 10).

    Entered: job 0 (w 1), job 1 (w 2), job 2 (w 1, still waiting); job 3 entered at 12.
    Completed in the window: jobs 0 and 1 -> G = 3 / 4. Job 3 completes at 13, outside.
    """
    recs = [
        done(Job(0, 0.0, 4.0, weight=1.0), 0.0, 4.0),
        done(Job(1, 2.0, 6.0, weight=2.0), 2.0, 8.0),
        job_record(Job(2, 5.0, 1.0, weight=1.0), "m", Status.WAITING),
        done(Job(3, 12.0, 1.0, weight=5.0), 12.0, 13.0),
    ]
    assert M.processing_efficiency(recs, 0.0, 10.0) == pytest.approx(0.75)
    assert M.processing_efficiency(recs, 10.0, 20.0) == pytest.approx(1.0)
    assert math.isnan(M.processing_efficiency(recs, 20.0, 30.0))  # nothing entered


def test_metrics_of_no_records_are_empty():
    """No completed jobs: per-job metrics are empty arrays, never errors."""
    for metric in (M.wait, M.response, M.slowdown, M.bounded_slowdown, M.responsiveness):
        out = metric([])
        assert isinstance(out, np.ndarray) and out.size == 0
    assert M.utility_accrued([]) == 0.0
    assert M.fair_share([], {"a": 1.0}).size == 0


def test_metrics_of_a_record_log_read_its_columns(records):
    """Handed a RecordLog (what Model.records() gives), the metrics read its columns: same values."""
    log = RecordLog(records)
    assert log.columnar
    assert M.wait(log).tolist() == [0.0, 2.0, 10.0]
    assert M.utilization(log, capacity=4, start=5.0, end=11.0) == M.utilization(records, 4, 5.0, 11.0)


_time = st.one_of(st.floats(0, 1e6), st.floats(0, 1e-3), st.just(0.0))


@st.composite
def _run_records(draw) -> list:
    """Records as a machine makes them, in any state, some with an int time (kept whole by the log)."""
    out = []
    for i in range(draw(st.integers(0, 40))):
        submit = draw(st.one_of(_time, st.integers(0, 9))) if draw(st.integers(0, 9)) == 0 else draw(_time)
        job = Job(i, submit, draw(st.floats(1e-3, 1e3)), cpus=draw(st.integers(1, 8)))
        status = draw(st.sampled_from(list(Status)))
        if status in (Status.WAITING, Status.REJECTED):
            out.append(job_record(job, "m", status))
            continue
        start = submit + draw(_time)
        end = start + draw(_time) if status is not Status.RUNNING else math.nan
        cpu_time = draw(st.one_of(st.just(job.cpus * (end - start)), _time))
        out.append(job_record(job, "m", status, start=start, end=end, cpu_time=cpu_time))
    return out


def _bits(x) -> list:
    return np.asarray(x, dtype=float).view(np.int64).tolist()


@settings(max_examples=300)
@given(_run_records(), _time, _time)
def test_metrics_of_a_log_are_the_metrics_of_its_records_bit_for_bit(records, start, length):
    """The column path does the same float operations as the loop over records, in the same order."""
    log = RecordLog(records)
    with np.errstate(all="ignore"):  # a zero-length job's 0 / 0 in responsiveness, both ways
        for metric in (M.wait, M.response, M.slowdown, M.bounded_slowdown, M.responsiveness):
            assert _bits(metric(log)) == _bits(metric(records)), metric.__name__
    end = start + length
    if end > start:
        assert _bits(M.utilization(log, 3, start, end)) == _bits(M.utilization(records, 3, start, end))


def test_utilization_adds_job_after_job_as_the_loop_does():
    """Terms whose pairwise sum (np.sum) differs from their running sum: the log's path keeps the running sum."""
    jobs = [Job(i, 0.0, 1.0) for i in range(1000)]
    rng = np.random.default_rng(7)  # the test's one stream
    lengths = rng.exponential(1.0, len(jobs)) * 10.0 ** rng.integers(-8, 8, len(jobs))
    records = [
        job_record(j, "m", Status.COMPLETED, start=0.0, end=float(x), cpu_time=float(x))
        for j, x in zip(jobs, lengths, strict=True)
    ]
    terms = [r.cpu_time for r in records]
    running = 0.0
    for t in terms:
        running += t
    assert running != float(np.sum(terms))  # the case this test is about
    window = float(lengths.max())
    assert M.utilization(RecordLog(records), 1, 0.0, window) == running / window

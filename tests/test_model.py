"""Plain-data model: jobs, time-utility functions, workloads, distributions, queueing formulas.

Each test shows one piece of :mod:`schedlab.model` doing what a user expects, with values
worked out by hand (or from a textbook), so that every test can fail.
"""

from __future__ import annotations

import math
import pickle
from itertools import islice, pairwise

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.model.analysis.queueing import erlang_b, erlang_c, erlang_c_wait, mm1_wait
from schedlab.model.core.distributions import Exponential, Fixed, Uniform, UniformInt, as_distribution
from schedlab.model.core.job import Job, JobError, frozen_demands, new_job, trusted_job
from schedlab.model.core.utility import Constant, LinearDecay, final_utility
from schedlab.model.core.workloads import JobClass, WorkloadError, poisson_workload
from schedlab.model.records.job_record import COLUMNS, Status
from schedlab.model.records.table import job_record, records_frame

# --------------------------------------------------------------------------- Job


def test_job_defaults_and_derived_values():
    """A job asks for 1 CPU by default; its work is cpus * runtime; no estimate means runtime."""
    job = Job(id=3, submit=1.5, runtime=4.0)
    assert job.cpus == 1
    assert job.requested_time == 4.0
    assert job.work == 4.0
    wide = Job(id=4, submit=0, runtime=2.5, cpus=4, estimate=10.0, demands={"memory": 3})
    assert wide.work == 10.0
    assert wide.requested_time == 10.0
    assert wide.demand("cpus") == 4.0
    assert wide.demand("memory") == 3.0
    assert wide.demand("disk") == 0.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"runtime": -1.0}, "job 7: runtime must be finite and > 0, got -1.0"),
        ({"runtime": 0.0}, "job 7: runtime must be finite and > 0, got 0.0"),
        ({"runtime": math.inf}, "job 7: runtime must be finite and > 0, got inf"),
        ({"runtime": math.nan}, "job 7: runtime must be finite and > 0, got nan"),
        ({"submit": -0.5}, "job 7: submit time must be finite and >= 0, got -0.5"),
        ({"submit": math.nan}, "job 7: submit time must be finite and >= 0, got nan"),
        ({"cpus": 0}, "job 7: cpus must be a whole number >= 1, got 0"),
        ({"cpus": -2}, "job 7: cpus must be a whole number >= 1, got -2"),
        ({"cpus": 1.5}, "job 7: cpus must be a whole number >= 1, got 1.5"),
        ({"estimate": 0.0}, "job 7: estimate must be > 0, got 0.0"),
        ({"estimate": math.nan}, "job 7: estimate must be > 0, got nan"),
        ({"weight": -1.0}, "job 7: weight must be >= 0, got -1.0"),
        ({"demands": {"memory": -1}}, "job 7: demand 'memory' must be >= 0, got -1"),
        ({"demands": {"cpus": 2}}, "job 7: give CPUs as cpus=, not in demands"),
    ],
)
def test_job_validation_names_the_job_and_the_value(kwargs, message):
    """An impossible job is refused with a JobError (a ValueError) naming the job and the bad value."""
    fields = {"id": 7, "submit": 0.0, "runtime": 1.0, **kwargs}
    with pytest.raises(JobError) as err:
        Job(**fields)
    assert str(err.value) == message
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize("cpus", [math.nan, math.inf])
def test_job_non_finite_cpus_raise_job_error(cpus):
    """cpus=nan or inf should be a JobError naming the job, like every other bad field."""
    with pytest.raises(JobError, match="job 7: cpus"):
        Job(id=7, submit=0.0, runtime=1.0, cpus=cpus)


def test_jobs_compare_by_identity_and_are_immutable():
    """Two jobs with equal fields are two jobs; a job cannot be changed after it is made."""
    a, b = Job(1, 0.0, 1.0), Job(1, 0.0, 1.0)
    assert a != b
    assert a == a
    with pytest.raises(AttributeError):
        a.runtime = 2.0  # type: ignore[misc]
    with pytest.raises(TypeError):
        a.demands["memory"] = 1  # type: ignore[index]


def test_job_pickles_with_its_demands():
    """Jobs cross process pools: pickling keeps every field and the read-only demands."""
    job = Job(
        5, 2.0, 3.0, cpus=2, demands={"memory": 4}, job_class="batch", group="atlas", utility=LinearDecay(3.0), origin=1
    )
    copy = pickle.loads(pickle.dumps(job))
    assert (copy.id, copy.submit, copy.runtime, copy.cpus, copy.job_class, copy.group, copy.origin) == (
        5,
        2.0,
        3.0,
        2,
        "batch",
        "atlas",
        1,
    )
    assert dict(copy.demands) == {"memory": 4}
    assert copy.utility == LinearDecay(3.0)
    with pytest.raises(TypeError):
        copy.demands["memory"] = 1  # type: ignore[index]


_FIELDS = [name for name in Job.__slots__ if name != "demands"]


@given(
    id=st.integers(0, 2**40),
    submit=st.floats(0, 1e12),
    runtime=st.floats(1e-9, 1e12),
    cpus=st.integers(1, 10_000),
    memory=st.none() | st.floats(0, 1e6),
    estimate=st.none() | st.floats(1e-9, 1e12),
    weight=st.floats(0, 1e6),
    origin=st.none() | st.integers(0, 1000),
)
def test_new_job_and_trusted_job_make_the_job_that_job_makes(
    id, submit, runtime, cpus, memory, estimate, weight, origin
):
    """new_job and trusted_job (no checks, demands shared) make the Job that Job(...) makes from valid fields."""
    demands = {} if memory is None else {"memory": memory}
    made = [
        Job(id, submit, runtime, cpus, demands, estimate, "batch", "vo", weight, None, origin, "p"),
        new_job(id, submit, runtime, cpus, dict(demands), estimate, "batch", "vo", weight, None, origin, "p"),
        trusted_job(
            id, submit, runtime, cpus, frozen_demands(demands), estimate, "batch", "vo", weight, None, origin, "p"
        ),
    ]
    for job in made:
        assert type(job) is Job
        assert [getattr(job, name) for name in _FIELDS] == [getattr(made[0], name) for name in _FIELDS]
        assert dict(job.demands) == demands
        with pytest.raises(AttributeError):
            job.runtime = 1.0  # type: ignore[misc]
        with pytest.raises(TypeError):
            job.demands["memory"] = 1.0  # type: ignore[index]
        assert dict(pickle.loads(pickle.dumps(job)).demands) == demands


def test_trusted_job_shares_its_demands_and_skips_the_checks():
    """Jobs made by trusted_job share one read-only demands mapping; it checks nothing (new_job does)."""
    shared = frozen_demands({"r2": 3})
    a, b = trusted_job(0, 0.0, 5.0, demands=shared, origin=1), trusted_job(1, 0.0, 2.0, demands=shared, origin=4)
    assert a.demands is b.demands is shared and a.demand("r2") == 3.0
    assert frozen_demands({}) is frozen_demands(None) is Job(2, 0.0, 1.0).demands  # one shared empty mapping
    assert trusted_job(3, 0.0, -1.0).runtime == -1.0  # not valid, and nothing says so: only for checked values
    with pytest.raises(JobError, match="job 3: runtime"):
        new_job(3, 0.0, -1.0)


# --------------------------------------------------------------------------- time-utility functions


@pytest.mark.parametrize(
    ("exponent", "expected"),
    [
        # response time:   0,   L,   1.5L,        2L,  3L
        (1.0, [1.0, 1.0, 0.5, 0.0, 0.0]),
        (2.0, [1.0, 1.0, 0.25, 0.0, 0.0]),
        (0.5, [1.0, 1.0, math.sqrt(0.5), 0.0, 0.0]),
    ],
)
def test_linear_decay_values(exponent, expected):
    """Seed 000 fig. 1/5: unit utility 1 up to L, then (2 - t/L)**exponent down to 0 at 2L."""
    ideal = 8.0
    tuf = LinearDecay(ideal, exponent)
    times = [0.0, ideal, 1.5 * ideal, 2 * ideal, 3 * ideal]
    assert [tuf.unit(t) for t in times] == pytest.approx(expected, abs=1e-15)


def test_linear_decay_shapes_and_validation():
    """convex() is f**2 and concave() is f**0.5; a non-positive ideal or exponent is refused."""
    assert LinearDecay.convex(4.0) == LinearDecay(4.0, 2.0)
    assert LinearDecay.concave(4.0) == LinearDecay(4.0, 0.5)
    assert LinearDecay(4.0).unit(5.0) == pytest.approx(0.75)
    with pytest.raises(ValueError, match="ideal must be finite and > 0, got 0"):
        LinearDecay(0)
    with pytest.raises(ValueError, match="exponent must be finite and > 0, got -1"):
        LinearDecay(1.0, -1)


def test_constant_utility_and_final_utility():
    """A constant TUF is worth its value at any time; final utility is unit * cpus * runtime."""
    assert Constant().unit(1e9) == 1.0
    assert Constant(0.25).unit(0.0) == 0.25
    assert final_utility(Constant(0.5), 100.0, cpus=4, runtime=3.0) == 6.0
    assert final_utility(LinearDecay(10.0), 15.0, cpus=2, runtime=10.0) == pytest.approx(10.0)
    assert final_utility(None, 1.0, cpus=4, runtime=3.0) == 0.0


@pytest.mark.parametrize("value", [-0.5, 1.5, math.nan])
def test_constant_utility_must_lie_in_unit_interval(value):
    """A unit utility is in [0, 1] (TimeUtility's contract); nan would poison utility sums."""
    with pytest.raises(ValueError, match="Constant"):
        Constant(value)


# --------------------------------------------------------------------------- records


def test_job_record_derives_wait_service_and_utility():
    """job_record fills wait = start - submit, service = end - start and the final utility."""
    job = Job(1, submit=2.0, runtime=4.0, cpus=2, utility=LinearDecay(4.0), estimate=5.0)
    rec = job_record(job, "m0", Status.COMPLETED, start=3.0, end=8.0, cpu_time=8.0, preemptions=1)
    assert (rec.wait, rec.service, rec.response) == (1.0, 5.0, 6.0)
    assert rec.utility == pytest.approx(0.5 * 2 * 4.0)  # response 6 = 1.5 L -> unit 0.5
    assert (rec.estimate, rec.machine, rec.preemptions, rec.resizes) == (5.0, "m0", 1, 0)
    assert rec.completed
    waiting = job_record(job, "m0", Status.WAITING)
    assert math.isnan(waiting.start) and math.isnan(waiting.wait) and waiting.utility == 0.0
    assert not waiting.completed


def test_records_frame_has_one_row_per_record_and_tag_columns_first():
    """records_frame gives a tidy DataFrame: tag columns, then the record's fields in order."""
    recs = [job_record(Job(i, 0.0, 1.0), "m", Status.COMPLETED, start=i, end=i + 1.0) for i in range(3)]
    frame = records_frame(recs, policy="fcfs", rep=2)
    assert list(frame.columns) == ["policy", "rep", *COLUMNS]
    assert frame["id"].tolist() == [0, 1, 2]
    assert frame["status"].tolist() == ["completed"] * 3
    assert frame["policy"].unique().tolist() == ["fcfs"]


# --------------------------------------------------------------------------- workloads


def test_poisson_workload_same_seed_same_jobs():
    """Same seed, same jobs, field by field."""

    def fields(jobs):
        return [(j.id, j.submit, j.runtime, j.cpus, j.group) for j in jobs]

    kw = {"runtime": Exponential(3.0), "cpus": UniformInt(1, 4), "count": 200, "groups": {"a": 1, "b": 2}}
    assert fields(poisson_workload(0.5, seed=42, **kw)) == fields(poisson_workload(0.5, seed=42, **kw))
    assert fields(poisson_workload(0.5, seed=42, **kw)) != fields(poisson_workload(0.5, seed=43, **kw))


def test_poisson_workload_accepts_seed_sequences_and_generators():
    """An int, a SeedSequence and a Generator built from the same seed give the same jobs."""

    def submits(seed):
        return [j.submit for j in poisson_workload(1.0, count=50, seed=seed)]

    from_ss = submits(np.random.SeedSequence(9))
    assert from_ss == submits(np.random.Generator(np.random.PCG64(np.random.SeedSequence(9))))
    assert submits(9) == submits(np.random.default_rng(9))
    with pytest.raises(TypeError, match="seed must be"):
        poisson_workload(1.0, count=1, seed="nine")  # type: ignore[arg-type]


def test_poisson_workload_count_ids_and_order():
    """count jobs, ids consecutive from first_id, submit times increasing after start."""
    jobs = list(poisson_workload(2.0, count=1500, first_id=100, start=50.0, seed=1))
    assert len(jobs) == 1500  # more than one block of draws
    assert [j.id for j in jobs] == list(range(100, 1600))
    submits = [j.submit for j in jobs]
    assert submits[0] > 50.0
    assert all(a <= b for a, b in pairwise(submits))
    assert list(poisson_workload(2.0, count=0, seed=1)) == []


def test_poisson_workload_until_is_a_prefix_of_the_unbounded_stream():
    """until stops before the first arrival after it; the jobs do not depend on how many are read."""
    unbounded = list(islice(poisson_workload(1.0, seed=7), 3000))
    bounded = list(poisson_workload(1.0, until=1200.0, seed=7))
    expected = [j for j in unbounded if j.submit <= 1200.0]
    assert len(expected) < 3000  # the unbounded prefix went past the horizon
    assert [(j.id, j.submit, j.runtime) for j in bounded] == [(j.id, j.submit, j.runtime) for j in expected]
    both = list(poisson_workload(1.0, until=1200.0, count=10, seed=7))
    assert [j.submit for j in both] == [j.submit for j in expected[:10]]


def test_poisson_workload_mean_gap_is_one_over_rate():
    """Over many jobs the mean inter-arrival time is close to 1 / rate."""
    rate = 4.0
    submits = np.array([j.submit for j in poisson_workload(rate, count=40_000, seed=3)])
    gaps = np.diff(np.concatenate([[0.0], submits]))
    assert gaps.mean() == pytest.approx(1 / rate, rel=0.03)
    assert gaps.std() == pytest.approx(1 / rate, rel=0.05)  # exponential: std == mean


def test_poisson_workload_class_mix_shares_and_sizes():
    """Each class shows up at its share of arrivals and draws sizes from its own distributions."""
    classes = [
        JobClass("interactive", share=3, runtime=Fixed(0.5), cpus=1),
        JobClass("batch", share=1, runtime=Uniform(10, 20), cpus=UniformInt(2, 4)),
    ]
    jobs = list(poisson_workload(1.0, count=20_000, classes=classes, seed=11))
    inter = [j for j in jobs if j.job_class == "interactive"]
    batch = [j for j in jobs if j.job_class == "batch"]
    assert len(inter) + len(batch) == len(jobs)
    assert len(inter) / len(jobs) == pytest.approx(0.75, abs=0.02)
    assert {j.runtime for j in inter} == {0.5} and {j.cpus for j in inter} == {1}
    assert all(10 <= j.runtime <= 20 for j in batch)
    assert {j.cpus for j in batch} == {2, 3, 4}


def test_poisson_workload_groups_and_utility_factory():
    """Groups are drawn by share; the utility factory is called with each job's runtime."""
    jobs = list(
        poisson_workload(
            1.0, runtime=Uniform(1, 2), count=10_000, groups={"atlas": 1, "cms": 4}, utility=LinearDecay, seed=5
        )
    )
    atlas = sum(j.group == "atlas" for j in jobs)
    assert atlas / len(jobs) == pytest.approx(0.2, abs=0.02)
    assert all(j.utility == LinearDecay(j.runtime) for j in jobs[:50])


@pytest.mark.parametrize("rate", [0, -1, math.nan, math.inf])
def test_poisson_workload_bad_rate_names_the_value(rate):
    """An impossible arrival rate is a WorkloadError (a ValueError) that shows the value."""
    with pytest.raises(WorkloadError, match=f"arrival rate must be a finite number > 0, got {rate!r}"):
        poisson_workload(rate, count=1)


def test_poisson_workload_other_bad_parameters():
    """Negative counts and bad class or group shares are refused up front."""
    with pytest.raises(WorkloadError, match="count must be a whole number >= 0, got -1"):
        poisson_workload(1.0, count=-1)
    with pytest.raises(WorkloadError, match="class shares"):
        poisson_workload(1.0, count=1, classes=[JobClass("a", 0, 1.0)])
    with pytest.raises(WorkloadError, match="share must be finite and >= 0"):
        JobClass("a", -1, 1.0)
    with pytest.raises(WorkloadError, match="group shares"):
        poisson_workload(1.0, count=1, groups={"a": math.nan})


def test_poisson_workload_checks_its_jobs_as_job_does():
    """A block is checked at once; a value Job refuses still stops the workload at that job, named."""
    # Uniform(-0.5, 3) gives a negative runtime now and then: the jobs before it come out whole
    jobs = poisson_workload(1.0, Uniform(-0.5, 3.0), count=5000, seed=4)
    made = []
    with pytest.raises(JobError, match=r"job 7: runtime must be finite and > 0, got -0\.405"):
        for job in jobs:
            made.append(job)
    assert [j.id for j in made] == list(range(7))
    assert all(j.runtime > 0 for j in made)
    # a bad value that only an unused class's draw holds: every job made, the same ones as a clean block
    risky = [JobClass("ok", 1.0, Exponential(1.0)), JobClass("never", 0.0, Uniform(-1.0, 1.0))]
    clean = [JobClass("ok", 1.0, Exponential(1.0)), JobClass("never", 0.0, Uniform(0.5, 1.0))]
    first = [(j.submit, j.runtime) for j in poisson_workload(1.0, classes=risky, count=3000, seed=2)]
    assert first == [(j.submit, j.runtime) for j in poisson_workload(1.0, classes=clean, count=3000, seed=2)]


def test_poisson_workload_accepts_numpy_integer_rate():
    """A rate taken from a numpy array (np.int64) is a number like any other."""
    jobs = list(poisson_workload(np.int64(2), count=3, seed=0))
    assert len(jobs) == 3


# --------------------------------------------------------------------------- distributions


def test_distributions_draw_and_mean():
    """Each distribution draws n values in its range and knows its mean."""
    rng = np.random.default_rng(0)
    assert Fixed(2.5).draw(rng, 3).tolist() == [2.5, 2.5, 2.5]
    assert Fixed(2.5).mean == 2.5
    exp = Exponential(2.0).draw(rng, 50_000)
    assert exp.min() >= 0 and exp.mean() == pytest.approx(2.0, rel=0.03)
    assert Exponential.from_rate(4.0).mean == 0.25
    uni = Uniform(5, 10).draw(rng, 10_000)
    assert uni.min() >= 5 and uni.max() <= 10 and Uniform(5, 10).mean == 7.5
    ints = UniformInt(4, 20).draw(rng, 10_000)
    assert set(ints.tolist()) == set(range(4, 21))  # both ends included
    assert UniformInt(4, 20).mean == 12


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Fixed(math.nan), "Fixed: value must be finite"),
        (lambda: Exponential(0.0), "Exponential: mean must be finite and > 0, got 0.0"),
        (lambda: Exponential.from_rate(-1.0), "Exponential: rate must be finite and > 0, got -1.0"),
        (lambda: Uniform(2, 1), r"Uniform: need finite low <= high, got \[2, 1\]"),
        (lambda: UniformInt(1.5, 3), "UniformInt: need whole numbers low <= high"),
    ],
)
def test_distribution_validation(make, message):
    """Impossible parameters raise a ValueError that names the distribution and the values."""
    with pytest.raises(ValueError, match=message):
        make()


def test_as_distribution():
    """A number means Fixed; a distribution passes through; anything else is a TypeError."""
    assert as_distribution(3) == Fixed(3.0)
    dist = Exponential(1.0)
    assert as_distribution(dist) is dist
    with pytest.raises(TypeError, match="expected a number or a Distribution, got str"):
        as_distribution("3")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- queueing formulas


def test_mm1_wait_known_value():
    """M/M/1 with rho = 0.5, mu = 1: Wq = rho / (mu - lambda) = 1."""
    assert mm1_wait(0.5, 1.0) == pytest.approx(1.0)
    assert mm1_wait(0.9, 1.0) == pytest.approx(9.0)


def test_erlang_b_and_c_known_values():
    """Erlang B(2, 1) = 1/5, Erlang C(2, a=1) = 1/3, Erlang C(3, a=2) = 4/9."""
    assert erlang_b(1, 1.0) == pytest.approx(0.5)
    assert erlang_b(2, 1.0) == pytest.approx(0.2)
    assert erlang_c(2, 1.0, 1.0) == pytest.approx(1 / 3)
    assert erlang_c(3, 2.0, 1.0) == pytest.approx(4 / 9)
    assert erlang_c_wait(2, 1.0, 1.0) == pytest.approx(1 / 3)  # C / (c mu - lambda)
    assert erlang_c_wait(3, 4.0, 2.0) == pytest.approx((4 / 9) / 2)


def test_erlang_c_with_one_server_is_mm1():
    """With c = 1 the probability of waiting is rho and the wait is the M/M/1 wait."""
    assert erlang_c(1, 0.3, 1.0) == pytest.approx(0.3)
    assert erlang_c_wait(1, 0.3, 1.0) == pytest.approx(mm1_wait(0.3, 1.0))


@pytest.mark.parametrize(("c", "load"), [(2.5, 1.0), (-1, 1.0), (2, -1.0), (2, math.nan)])
def test_erlang_b_validates_its_arguments(c, load):
    """erlang_b refuses what erlang_c refuses: a non-whole or non-positive c, a negative or nan load."""
    with pytest.raises(ValueError):
        erlang_b(c, load)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: mm1_wait(1.0, 1.0), "M/M/1 is unstable"),
        (lambda: mm1_wait(2.0, 1.0), "M/M/1 is unstable"),
        (lambda: erlang_c(2, 2.0, 1.0), "M/M/c is unstable"),
        (lambda: erlang_c_wait(2, 3.0, 1.0), "M/M/c is unstable"),
        (lambda: erlang_c(0, 0.5, 1.0), "number of servers c must be a whole number >= 1, got 0"),
        (lambda: erlang_c(2, -1.0, 1.0), "arrival_rate must be finite and > 0, got -1.0"),
        (lambda: mm1_wait(0.5, math.nan), "service_rate must be finite and > 0, got nan"),
    ],
)
def test_queueing_errors(call, message):
    """Unstable or impossible queues raise a ValueError that says why."""
    with pytest.raises(ValueError, match=message):
        call()

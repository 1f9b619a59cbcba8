"""Seed 001's bounds and readings: Kleinrock's sum, the monitoring filter, paired differences, readings wired."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest
import simpy

from schedlab.experiment.scenario import load_scenario
from schedlab.model.analysis.conservation import class_terms, conservation_sum
from schedlab.model.analysis.paired import paired_difference
from schedlab.model.core.job import Job
from schedlab.model.core.streams import Streams
from schedlab.model.formats.egee import busiest_segment, is_monitoring, without_monitoring
from schedlab.model.formats.logs import load_log
from schedlab.model.records.job_record import JobRecord, Status
from schedlab.model.records.table import job_record
from schedlab.papers.responsive_tables import READINGS, reading_of

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "responsive_grid.py"


def _record(i: int, job_class: str, submit: float, start: float, runtime: float) -> JobRecord:
    job = Job(id=i, submit=submit, runtime=runtime, job_class=job_class)
    return job_record(job, "core", Status.COMPLETED, start=start, end=start + runtime, cpu_time=runtime)


def test_conservation_sum_is_the_same_for_both_orders_of_a_two_class_example():
    # one core, two jobs at time 0: a runs 1, b runs 3; the horizon (capacity time) is 4
    a_first = [_record(0, "a", 0.0, 0.0, 1.0), _record(1, "b", 0.0, 1.0, 3.0)]
    b_first = [_record(0, "a", 0.0, 3.0, 1.0), _record(1, "b", 0.0, 0.0, 3.0)]
    terms = class_terms(a_first, capacity_time=4.0)
    assert terms == {"a": (0.25, 0.0), "b": (0.75, 1.0)}  # (rho_k, mean wait of class k)
    # favouring b cuts b's wait by 1 and costs a 3: rho_a x 3 = rho_b x 1
    assert conservation_sum(terms) == conservation_sum(class_terms(b_first, 4.0)) == 0.75
    with pytest.raises(ValueError, match="capacity_time"):
        class_terms(a_first, 0.0)


def test_paired_difference_and_its_t_interval():
    mean, half, n = paired_difference([10.0, 12.0, 11.0, 13.0], [9.0, 10.0, 10.0, 11.0])
    assert (mean, n) == (1.5, 4)
    assert half == pytest.approx(3.182446 * np.std([1, 2, 1, 2], ddof=1) / 2, rel=1e-5)  # t(0.975, 3 dof)
    assert paired_difference([1.0, np.nan], [0.0, 0.0])[2] == 1  # pairs with a missing side are left out


SWF = """; MaxProcs: 4
; Queue: 1 test
;  job submit wait run procs cpu mem req_procs req_time req_mem status user group exe queue part prev think
1 0    5 12   1 -1 -1 1 600 -1 1 1 1 -1 1 -1 -1 -1
2 10   3 4000 1 -1 -1 1 600 -1 1 2 2 -1 1 -1 -1 -1
3 20   7 30   1 -1 -1 1 600 -1 1 3 2 -1 2 -1 -1 -1
4 30   0 290  1 -1 -1 1 600 -1 1 1 1 -1 1 -1 -1 -1
5 40   1 7200 1 -1 -1 1 9000 -1 1 3 3 -1 3 -1 -1 -1
"""


def test_monitoring_jobs_are_the_short_jobs_of_the_test_queue(tmp_path):
    path = tmp_path / "site.swf.gz"
    with gzip.open(path, "wt") as f:
        f.write(SWF)
    log = load_log(str(path))
    assert [j.job_class for j in log.jobs] == ["1", "1", "2", "1", "3"]  # SWF queue numbers
    assert [is_monitoring(j) for j in log.jobs] == [True, False, False, True, False]
    jobs, waits, removed = without_monitoring(log.jobs, log.recorded_wait)
    # job 2 ran 4000 s in the test queue: real work, kept; job 3 is short but a user queue's
    assert removed == 2 and [j.id for j in jobs] == [2, 3, 5] and waits == [3.0, 7.0, 1.0]


def test_busiest_segment_takes_whole_weeks_with_the_most_work():
    week = 7 * 86400.0
    jobs = [Job(id=i, submit=i * week / 2, runtime=r) for i, r in enumerate([1, 1, 50, 60, 1, 1])]
    seg = busiest_segment(jobs, cores=1, weeks=1)
    assert (seg.first, seg.last) == (2, 4) and seg.load == pytest.approx(110 / week)
    assert busiest_segment(jobs, cores=1, weeks=1, week=0).first == 0
    with pytest.raises(ValueError, match="spans 3 weeks"):
        busiest_segment(jobs, cores=1, weeks=4)


def test_readings_are_named_and_unknown_ones_refused():
    assert reading_of("RL") == frozenset() and reading_of("RL+waited+smdp") == {"waited", "smdp"}
    with pytest.raises(ValueError, match="unknown readings"):
        reading_of("RL+clairvoyant")


def _elections(setting: str) -> list[int]:
    scenario = load_scenario(SCENARIO)
    cfg = scenario.config({"jobs": 260, "drop": 10, "cores": 8, "pretrain": 20, "refit_every": 20})
    cell = {"experiment": "synthetic", "interactive": 0.4, "fairness": "feasible", "setting": setting}
    model = scenario.build(simpy.Environment(), cfg, cell, Streams(5)).run()
    return [r.id for r in sorted(model.records(), key=lambda r: (r.start, r.id))]


@pytest.mark.parametrize("reading", sorted(READINGS))
def test_each_reading_changes_the_elections_on_the_same_jobs(reading):
    paper = _elections("RL")
    other = _elections(f"RL+{reading}")
    assert sorted(paper) == sorted(other)  # the same jobs (common random numbers) ...
    assert paper != other  # ... elected in another order


class _View:
    """A stand-in for a machine's view: a queue, a clock and free cores."""

    def __init__(self, waiting, now, free=1):
        self.waiting, self.now, self.free = waiting, now, free

    def fits(self, job):
        return job.cpus <= self.free


def test_bounds_and_the_greedy_diagnostic_elect_as_their_rules_say():
    from schedlab.model.analysis.estimates import OracleRuntime
    from schedlab.policies.site_supervisor import GreedyReward, InteractiveFirst, ShortestFirst

    old_short = Job(id=0, submit=0.0, runtime=100.0, job_class="interactive")
    fresh_long = Job(id=1, submit=1000.0, runtime=5000.0, job_class="batch")
    view = _View([old_short, fresh_long], now=1000.0)
    assert InteractiveFirst()(view).job is old_short
    assert ShortestFirst(OracleRuntime())(view).job is old_short
    # the elected job's own W: 100 / 1100 for the old short job, 1 for the fresh long one
    assert GreedyReward(OracleRuntime())(view).job is fresh_long
    assert InteractiveFirst()(_View([old_short], now=0.0, free=0)) is None

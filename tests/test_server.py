"""Server and JobQueue (seeds 003 and 004): one job at a time, FIFO, speed, capacity-gated head.

Like SimPy's own tests, each test builds a tiny model, runs it and checks the times.
"""

from __future__ import annotations

import math

import pytest
import simpy

from schedlab.model.core.job import Job
from schedlab.model.records.job_record import Status
from schedlab.processes import JobQueue, Server, Source, TracedEnvironment


def run_server(jobs, **kwargs):
    env = simpy.Environment()
    server = Server(env, **kwargs)
    Source(env, jobs, server)
    env.run()
    return server


def times(server):
    return {r.id: (r.start, r.end) for r in server.records}


def test_jobs_are_served_first_in_first_out():
    """Three jobs arriving together run one after another, in arrival order."""
    jobs = [Job(0, 0.0, 2.0), Job(1, 0.0, 1.0), Job(2, 0.5, 3.0)]
    server = run_server(jobs)
    assert times(server) == {0: (0.0, 2.0), 1: (2.0, 3.0), 2: (3.0, 6.0)}
    assert [r.id for r in server.records] == [0, 1, 2]
    assert all(r.status is Status.COMPLETED for r in server.records)
    assert [r.wait for r in server.records] == [0.0, 2.0, 2.5]


def test_service_time_is_runtime_over_speed():
    """A job of length 6 on a speed-3 server takes 2; an idle gap leaves the server waiting."""
    server = run_server([Job(0, 1.0, 6.0), Job(1, 10.0, 3.0)], speed=3.0)
    assert times(server) == {0: (1.0, 3.0), 1: (10.0, 11.0)}
    with pytest.raises(ValueError, match="speed must be finite and > 0, got 0"):
        Server(simpy.Environment(), speed=0)


def test_front_insertion_jumps_the_queue():
    """A job put at the front (shipped in from a neighbour) is served before those already queued."""
    env = simpy.Environment()
    server = Server(env)

    def feed():
        server.submit(Job(0, 0.0, 5.0))
        server.submit(Job(1, 0.0, 1.0))
        server.submit(Job(2, 0.0, 1.0))
        yield env.timeout(1.0)
        server.submit(Job(3, 1.0, 1.0), front=True)

    env.process(feed())
    env.run()
    assert [r.id for r in server.records] == [0, 3, 1, 2]
    assert times(server)[3] == (5.0, 6.0)


def test_head_that_does_not_fit_blocks_the_server_until_taken():
    """Head-of-line blocking: a head job that needs more than the server has stalls everything behind it;
    ``queue.take(job)`` (shipping it away) unblocks the server at once."""
    env = simpy.Environment()
    server = Server(env, capacities={"memory": 4})
    big = Job(0, 0.0, 1.0, demands={"memory": 8})
    small = Job(1, 0.0, 1.0, demands={"memory": 2})
    server.submit(big)
    server.submit(small)
    env.run(until=5.0)
    assert server.records == []
    assert server.current is None
    assert server.queue.head is big
    assert len(server.queue) == 2

    def ship_away():
        server.queue.take(big)
        yield env.timeout(0)

    env.process(ship_away())
    env.run()
    assert times(server) == {1: (5.0, 6.0)}
    assert len(server.queue) == 0


def test_fitting_job_put_at_the_front_gets_past_a_blocked_head():
    """A blocked server serves a job shipped in at the front, since it is the new head."""
    env = simpy.Environment()
    server = Server(env, capacities={"memory": 4})
    big = Job(0, 0.0, 1.0, demands={"memory": 8})
    server.submit(big)
    env.run(until=2.0)
    server.submit(Job(1, 2.0, 1.0, demands={"memory": 1}), front=True)
    env.run(until=10.0)
    assert times(server) == {1: (2.0, 3.0)}
    assert list(server.queue.items) == [big]


def test_demand_on_a_resource_the_server_lacks_never_fits():
    """A demand on a resource the server does not have is a misfit; a zero demand is not."""
    server = Server(simpy.Environment(), capacities={"memory": 4})
    assert server.fits(Job(0, 0.0, 1.0, demands={"memory": 4}))
    assert not server.fits(Job(1, 0.0, 1.0, demands={"memory": 4.5}))
    assert not server.fits(Job(2, 0.0, 1.0, demands={"disk": 1}))
    assert server.fits(Job(3, 0.0, 1.0, demands={"disk": 0}))


def test_load_and_queued_work_count_the_rest_of_the_job_in_service():
    """queued_work = what is left of the job in service + lengths queued; load (LoR) = that / speed."""
    env = simpy.Environment()
    server = Server(env, speed=2.0)
    for i, length in enumerate([4.0, 6.0, 2.0]):
        server.submit(Job(i, 0.0, length))
    env.run(until=1.0)  # job 0 (4 / 2 = 2 long) is half done: 2 units of length left
    assert server.current is not None and server.current.id == 0
    assert server.queued_work() == pytest.approx(2.0 + 6.0 + 2.0)
    assert server.load() == pytest.approx(10.0 / 2.0)
    env.run()
    assert server.queued_work() == 0.0
    assert server.load() == 0.0


def test_completion_signal_fires_at_completion_time_in_subscription_order():
    """Receivers get the frozen record at the completion time, first-connected first."""
    env = simpy.Environment()
    server = Server(env)
    seen = []
    server.completed.connect(lambda r: seen.append(("first", r.id, env.now, r.end)))
    server.completed.connect(lambda r: seen.append(("second", r.id, env.now, r.end)))
    Source(env, [Job(0, 0.0, 2.0), Job(1, 1.0, 1.0)], server)
    env.run()
    assert seen == [("first", 0, 2.0, 2.0), ("second", 0, 2.0, 2.0), ("first", 1, 3.0, 3.0), ("second", 1, 3.0, 3.0)]


def test_snapshot_reports_running_and_waiting_jobs():
    """Stopping early: the job in service is RUNNING (start and CPU time so far), the rest WAITING."""
    env = simpy.Environment()
    server = Server(env)
    Source(env, [Job(0, 0.0, 3.0), Job(1, 1.0, 3.0), Job(2, 2.0, 3.0)], server)
    env.run(until=4.0)
    recs = server.all_records()
    assert [(r.id, r.status) for r in recs] == [(0, Status.COMPLETED), (1, Status.RUNNING), (2, Status.WAITING)]
    running, waiting = recs[1], recs[2]
    assert (running.start, running.cpu_time) == (3.0, 1.0)
    assert math.isnan(running.end)
    assert math.isnan(waiting.start)


def test_job_queue_is_a_simpy_store_with_an_admission_test():
    """JobQueue on its own: get() waits for an admitted head; take() re-checks the new head."""
    env = simpy.Environment()
    queue = JobQueue(env, admits=lambda job: job.cpus <= 2)
    got = []

    def consumer():
        while True:
            job = yield queue.get()
            got.append((env.now, job.id))

    env.process(consumer())
    wide, narrow = Job(0, 0.0, 1.0, cpus=4), Job(1, 0.0, 1.0, cpus=1)
    queue.put(wide)
    queue.put(narrow)
    env.run(until=1.0)
    assert got == []
    assert queue.head is wide
    env.run(until=2.0)
    queue.take(wide)
    env.run(until=3.0)
    assert got == [(2.0, 1)]
    assert len(queue) == 0 and queue.head is None


def test_server_trace():
    """On a TracedEnvironment the server logs submit, start and complete, in time order."""
    env = TracedEnvironment()
    server = Server(env, name="s0")
    server.submit(Job(0, 0.0, 2.0))
    env.run()
    log = env.tracer.entries  # type: ignore[union-attr]
    assert [(e.time, e.process, e.action) for e in log] == [
        (0.0, "s0", "submit"),
        (0.0, "s0", "start"),
        (2.0, "s0", "complete"),
    ]


def test_a_put_on_the_servers_queue_is_a_submit():
    """``server.queue.put(job)``, a SimPy put event, reaches a free server as ``submit`` does."""
    env = simpy.Environment()
    server = Server(env)

    def feed():
        yield env.timeout(1.0)
        yield server.queue.put(Job(0, 1.0, 2.0))

    env.process(feed())
    env.run()
    assert times(server) == {0: (1.0, 3.0)}


class Doubling(Server):
    """A server extended through its hooks: every job takes twice its length, and completions are counted."""

    def duration(self, job):
        return 2 * super().duration(job)

    def _finish(self, job, start, end):
        self.finished.append((job.id, start, end))
        super()._finish(job, start, end)


def test_a_subclass_changes_the_service_through_the_hooks_only():
    env = simpy.Environment()
    server = Doubling(env)
    server.finished = []
    Source(env, [Job(0, 0.0, 1.0), Job(1, 0.5, 1.0)], server)
    env.run()
    assert server.finished == [(0, 0.0, 2.0), (1, 2.0, 4.0)]
    assert times(server) == {0: (0.0, 2.0), 1: (2.0, 4.0)}  # the base's records, at the hooks' times


def test_clear_drops_the_queue_and_the_job_in_service():
    env = simpy.Environment()
    server = Server(env)
    for i in range(3):
        server.submit(Job(i, 0.0, 4.0))
    env.run(until=1.0)
    assert [j.id for j in server.clear()] == [1, 2, 0]
    assert server.current is None and len(server.queue) == 0
    server.submit(Job(3, 1.0, 1.0))  # the server serves on
    env.run()
    assert times(server) == {3: (1.0, 2.0)}

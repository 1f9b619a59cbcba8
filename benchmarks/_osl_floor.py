"""What the OSL grid costs under the design card, piece by piece (``osl.py --floor``).

A schedlab OSL run does three kinds of work: the learner's numpy work (the same row
operations, argmax and tie test, message copies and step-end table updates as the numpy
loop of ``_numpy_osl.py``), the SimPy events the design card requires (brokers, resources
and the clock are processes), and the Python around both. This module measures the parts:

- :func:`framework_run`: schedlab's run with the learner taken out. The decisions of a
  recorded run are replayed (same jobs, same resources, same events), and the learner's
  hooks do nothing: what remains is the framework (agents, mailboxes, resources, clock,
  jobs, signals, the load series).
- :func:`skeleton_run`: the events alone, in a bare SimPy model with the same processes and
  the same events as schedlab's grid: a clock process (a step's ``timeout(1)``, its
  ``timeout(0)`` and the event that starts the brokers' turns), N broker processes passing
  a turn token (one plain event a turn; the first broker takes the last one's token
  without an event), M FIFO server processes (one ``Timeout`` per job, one plain wake-up
  event when idle). Jobs are ``(length, origin)`` tuples sent where the recorded run sent
  them. With ``parts=True`` it adds what the grid's contract needs around the events: a
  :class:`~schedlab.model.core.job.Job` per job (``trusted_job``), the busy-until array, and a
  :class:`~schedlab.model.contracts.grid.GridCompletion` emitted to two receivers (a count and an
  ATPT sum as the series keeps them, one ``finished`` cell as OSL counts it). With a
  ``learner`` as well, the learner decides and learns in it as in the grid model: the
  design's floor, the least a model with these processes, events and learner can cost.
- :func:`learner_run`: the learner alone, no SimPy: the recorded run's turns, jobs and
  completions fed to its hooks.

The replays make the same decisions as the recorded run (the benchmark checks the final
utility tables bit for bit), so every variant runs the same events and the same numpy work.
"""

from __future__ import annotations

import gc
import time
from collections import deque
from collections.abc import Callable

import numpy as np
import simpy

from schedlab.model.contracts.grid import GridCompletion, GridPolicy, GridTopology
from schedlab.model.core.job import trusted_job
from schedlab.processes.signal import Signal

#: (step, agent) -> the agent's job lengths of that step and the resource each went to
Decisions = dict[tuple[int, int], list[tuple[float, int]]]
#: step -> the completions of that step, in order
Completions = dict[int, list[GridCompletion]]


def record_decisions(build: Callable[[], object]) -> tuple[Decisions, Completions, list[float], np.ndarray]:
    """Run the model ``build()`` makes once: its decisions, completions, capacities and final utility tables."""
    model = build()
    grid = model["grid"]  # type: ignore[index]  # build() returns a Model or a dict of parts, known at run time
    policy, decisions, completions = grid.policy, {}, {}
    grid.completed.connect(lambda event: completions.setdefault(grid.step, []).append(event))
    assign = policy.assign

    def recording(agent: int, lengths: np.ndarray) -> list[tuple[int, int]]:
        out = list(assign(agent, lengths))
        decisions[grid.step, agent] = [(float(lengths[pos]), resource) for pos, resource in out]
        return out

    policy.assign = recording
    model.env.run(until=model.until)  # type: ignore[attr-defined]  # build() is typed as returning object: a Model, known at run time
    return decisions, completions, grid.resources.capacities.tolist(), policy.utility.copy()


def learner_run(
    learner: GridPolicy, decisions: Decisions, completions: Completions, agents: int, resources: int, steps: int
) -> float:
    """CPU seconds of ``learner`` alone, no SimPy: the recorded run's turns, jobs and completions fed to its hooks.

    The same calls as in the grid model (``receive``, ``assign``, ``message`` in each
    broker's turn, ``completed`` per completion, ``end_step``), on a ring in index order.
    """
    view = _View(agents, resources)
    learner.bind(view)
    completed, end_step = view.completed.emit, view.step_ended.emit
    board = {(agents - 1, 0): learner.message(agents - 1)}
    lengths = {key: np.array([length for length, _ in planned]) for key, planned in decisions.items()}
    gc.collect()
    began = time.process_time()
    for step in range(steps):
        for i in range(agents):
            learner.receive(i, [board.pop(((i - 1) % agents, i))])
            if (step, i) in lengths:
                for _ in learner.assign(i, lengths[step, i]):
                    pass
            board[i, (i + 1) % agents] = learner.message(i)
        for event in completions.get(step, ()):
            completed(event)
        end_step(step)
    return time.process_time() - began


def framework_run(build: Callable[[], object], decisions: Decisions) -> float:
    """CPU seconds of the model ``build()`` makes, its learner's decisions replayed from ``decisions``."""
    model = build()
    grid = model["grid"]  # type: ignore[index]  # build() returns a Model or a dict of parts, known at run time
    policy = grid.policy
    grid.completed.disconnect(policy.completed)
    grid.step_ended.disconnect(policy.end_step)
    policy.receive = lambda agent, messages: None
    policy.message = lambda agent: None
    policy.assign = lambda agent, lengths: [(pos, r) for pos, (_, r) in enumerate(decisions[grid.step, agent])]
    gc.collect()
    began = time.process_time()
    model.env.run(until=model.until)  # type: ignore[attr-defined]  # build() is typed as returning object: a Model, known at run time
    return time.process_time() - began


class _View:
    """The least a grid policy binds to: sizes, the complete topology, the two signals."""

    def __init__(self, agents: int, resources: int) -> None:
        self.agents, self.resources = agents, resources
        self.topology = GridTopology.complete(agents, [1.0] * resources)  # the floor reads sizes only
        self.completed: Signal[GridCompletion] = Signal()
        self.step_ended: Signal[int] = Signal()


def skeleton_run(
    decisions: Decisions,
    capacities: list[float],
    agents: int,
    steps: int,
    *,
    parts: bool = False,
    learner: GridPolicy | None = None,
) -> tuple[float, int]:
    """CPU seconds and completions of the bare SimPy model.

    ``parts`` adds a Job per job, busy-until and the completion signal; ``learner`` (a fresh
    policy, with ``parts``) decides instead of the recorded decisions, and hears the
    completions and the step ends, as in the grid model: the design's events and the
    learner, nothing else.
    """
    env = simpy.Environment()
    m = len(capacities)
    view = _View(agents, m)
    queues: list[deque] = [deque() for _ in range(m)]
    idle: list[simpy.Event | None] = [None] * m
    busy = np.zeros(m)
    finished = np.zeros((agents, m))
    series = [0, 0.0]
    completed = view.completed

    def count_cell(event: GridCompletion) -> None:  # as OSL counts a completion
        finished[event.agent, event.resource] += 1

    def count_series(event: GridCompletion) -> None:  # as the load series does
        series[0] += 1
        series[1] += event.end - event.job.submit

    board: dict[tuple[int, int], object] = {}
    if learner is not None:
        learner.bind(view)  # it hears completions first, then the series, as in the grid model
        board[agents - 1, 0] = learner.message(agents - 1)
    else:
        completed.connect(count_cell)
    completed.connect(count_series)
    done = [0]

    def server(j: int):
        items, cap = queues[j], capacities[j]
        while True:
            if items:
                job = items.popleft()
            else:
                idle[j] = wake = simpy.Event(env)
                job = yield wake
            if parts:
                now = env.now
                yield env.timeout(job.runtime / cap)
                completed.emit(GridCompletion(job.origin, j, job, now, env.now))
            else:
                yield env.timeout(job[0] / cap)
            done[0] += 1

    def submit(j: int, job: object) -> None:
        if parts:
            now = env.now
            start = busy.item(j)
            busy[j] = (start if start > now else now) + job.runtime / capacities[j]  # type: ignore[attr-defined]  # jobs arrive typed as object from the shared submit hook
        wake = idle[j]
        if wake is not None:
            idle[j] = None
            wake.succeed(job)
        else:
            queues[j].append(job)

    readers: list[simpy.Event | None] = [None] * agents
    tokens = [0] * agents
    clock = {"step": 0, "started": env.event(), "id": 0}

    def post(k: int) -> None:
        reader = readers[k]
        if reader is not None:
            readers[k] = None
            reader.succeed()
        else:
            tokens[k] += 1

    def broker(i: int):
        while True:
            if i == 0:
                yield clock["started"]
            if tokens[i]:  # the first broker's token has waited since the last step
                tokens[i] -= 1
            else:
                readers[i] = turn = simpy.Event(env)
                yield turn
            step = clock["step"]
            planned = decisions.get((step, i), ())
            if learner is not None:
                learner.receive(i, [board.pop(((i - 1) % agents, i))])
                if planned:
                    jobs = []
                    for length, _ in planned:
                        jobs.append(trusted_job(clock["id"], float(step), length, origin=i))
                        clock["id"] += 1
                    for pos, resource in learner.assign(i, np.array([job.runtime for job in jobs])):
                        submit(resource, jobs[pos])
                board[i, (i + 1) % agents] = learner.message(i)
            else:
                for length, resource in planned:
                    if parts:
                        job: object = trusted_job(clock["id"], float(step), length, origin=i)
                        clock["id"] += 1
                    else:
                        job = (length, i)
                    submit(resource, job)
            post((i + 1) % agents)

    def run_clock():
        for step in range(steps):
            clock["step"] = step
            started, clock["started"] = clock["started"], env.event()
            started.succeed(step)
            yield env.timeout(1)
            yield env.timeout(0)
            view.step_ended.emit(step)

    for j in range(m):
        env.process(server(j))
    for i in range(agents):
        env.process(broker(i))
    post(0)
    end = env.process(run_clock())
    gc.collect()
    began = time.process_time()
    env.run(until=end)
    return time.process_time() - began, done[0]


def learner_of(build: Callable[[], object]) -> GridPolicy:
    """A fresh policy as the scenario makes it (its exploration stream untouched), for :func:`skeleton_run`."""
    return build()["grid"].policy  # type: ignore[index]  # build() returns a Model or a dict of parts, known at run time

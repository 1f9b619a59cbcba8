"""Hand-written heapq FCFS + conservative backfilling: the plain-Python reference of benchmarks/replay.py.

No SimPy, no schedlab: jobs are tuples, the clock is a heap of ``(time, seq, kind, i)``,
and the rule is written from the paper's description, not from schedlab's code. It
should give schedlab's ``make_policy("fcfs", "conservative")`` schedule job for job.

The rule, decision for decision: one decision after every arrival and every completion,
in the order SimPy takes them (same-time events in scheduling order; a job's completion
is scheduled after the arrival that the source schedules in the same step). At each
decision the plan is made from scratch:

- the profile is two lists, step times from ``now`` and the CPUs free from each: the free CPUs,
  plus each running job's CPUs from ``max(now, start + requested)`` on;
- in FCFS order, each waiting job takes the earliest step time ``t`` such that every
  step overlapping ``[t, t + requested)`` has its CPUs free; the profile loses
  them over that interval (a new step at ``t + requested`` if there is none);
- the jobs whose slot is ``now`` start.

``full=False`` (the default) stops planning when no waiting job left is narrow enough
for the CPUs still free now, in the plan or on the machine (none of them could
start), and so plans nothing when no waiting job fits the free CPUs, and starts
a job alone in the queue when it fits (alone, its slot is now exactly then: the
profile only grows before anything is reserved); ``full=True`` plans the whole queue
at every decision, to check that these shortcuts change no start.

``kill=True`` ends a job at its requested time if it has not finished by then (the
walltime kill schedlab's log replay applies by default): its CPUs come back at
``start + min(runtime, requested)``.

:func:`replay` returns each job's start time (same order as the jobs).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence

#: (id, submit, runtime, cpus, requested time), in submit order
JobTuple = tuple[int, float, float, int, float]

ARRIVAL, COMPLETION = 0, 1


def _slot(at: list[float], room: list[int], need: int, length: float) -> int:
    """Position of the first step where ``need`` CPUs stay free for ``length``; -1 if none."""
    a, n = 0, len(at)
    while a < n:
        if room[a] < need:
            a += 1
            continue
        stop = at[a] + length
        b = a + 1
        while b < n and at[b] < stop and room[b] >= need:
            b += 1
        if b == n or at[b] >= stop:
            return a  # every step of [t, t + length) has room
        a = b + 1  # step b is short of CPUs: no slot starts at or before it
    return -1


def _take(at: list[float], room: list[int], a: int, need: int, length: float) -> None:
    """Remove ``need`` CPUs from step ``a``'s time until that time + ``length``."""
    stop = at[a] + length
    b = a + 1
    while b < len(at) and at[b] < stop:
        b += 1
    if b == len(at) or at[b] != stop:
        at.insert(b, stop)
        room.insert(b, room[b - 1])
    for s in range(a, b):
        room[s] -= need


def replay(jobs: Sequence[JobTuple], procs: int, full: bool = False, kill: bool = False) -> list[float]:
    """Start time of each job under FCFS + conservative backfilling on ``procs`` CPUs."""
    submit = [j[1] for j in jobs]
    runtime = [min(j[2], j[4]) if kill else j[2] for j in jobs]  # time held: a killed job's ends at its limit
    cpus = [j[3] for j in jobs]
    requested = [j[4] for j in jobs]
    n = len(jobs)
    start = [math.nan] * n
    running: dict[int, float] = {}  # job -> start + requested
    waiting: list[int] = []  # arrival (= FCFS) order
    heap: list[tuple[float, int, int, int]] = []
    free = procs
    seq = 0

    def decide(now: float) -> list[int]:
        nonlocal free
        if not waiting:
            return []
        smallest = [0] * len(waiting)  # smallest[p]: fewest CPUs asked by a job from p on
        low = math.inf
        for p in range(len(waiting) - 1, -1, -1):
            low = min(low, cpus[waiting[p]])
            smallest[p] = low
        if not full and smallest[0] > free:
            return []  # nothing fits the free CPUs: no plan can start anything
        if not full and len(waiting) == 1:  # alone, it is reserved now exactly when it fits now
            j = waiting.pop()
            free -= cpus[j]
            start[j] = now
            running[j] = now + requested[j]
            return [j]
        released: dict[float, int] = {}
        for j, end in running.items():
            t = end if end > now else now
            released[t] = released.get(t, 0) + cpus[j]
        at, room = [now], [free + released.pop(now, 0)]  # the profile: room[s] free from at[s] on
        for t in sorted(released):
            at.append(t)
            room.append(room[-1] + released[t])
        started = []
        for pos, j in enumerate(waiting):
            if not full and (smallest[pos] > room[0] or smallest[pos] > free):
                break  # none of the rest fits in what is free now: none can start
            a = _slot(at, room, cpus[j], requested[j])
            if a < 0:
                continue
            _take(at, room, a, cpus[j], requested[j])
            if a == 0 and cpus[j] <= free:
                free -= cpus[j]
                start[j] = now
                running[j] = now + requested[j]
                started.append(j)
        waiting[:] = [j for j in waiting if start[j] != start[j]]  # drop the started (nan != nan)
        return started

    def push(t: float, kind: int, i: int) -> None:
        nonlocal seq
        seq += 1
        heapq.heappush(heap, (t, seq, kind, i))

    if n:
        push(submit[0], ARRIVAL, 0)
    while heap:
        now, _, kind, i = heapq.heappop(heap)
        started: list[int] = []
        if kind == ARRIVAL:  # the source submits every job due now, one decision after each
            while i < n and submit[i] == now:
                waiting.append(i)
                started += decide(now)
                i += 1
            if i < n:
                push(submit[i], ARRIVAL, i)
        else:
            free += cpus[i]
            del running[i]
            started += decide(now)
        for j in started:  # SimPy schedules a started job's end after the step that started it
            push(now + runtime[j], COMPLETION, j)
    return start

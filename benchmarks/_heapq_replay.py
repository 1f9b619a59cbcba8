"""Hand-written heapq FCFS + EASY replay: the plain-Python reference of benchmarks/replay.py.

No SimPy, no schedlab: jobs are tuples, the clock is a heap of ``(time, seq, kind, i)``.
Two rules, chosen by ``rule``:

``"easy"``
    schedlab's rule (:class:`schedlab.policies.backfilling.EASY` over
    :class:`~schedlab.policies.scoring.Priority` ``"fcfs"``), decision for decision:
    one decision after every arrival and every completion, in the order SimPy takes
    them (same-time events by scheduling order; a job's completion is scheduled after
    the arrival that the source schedules in the same step). Jobs start in FCFS
    order while they fit; the first that does not is the head; its shadow time is
    the first running end (``max(now, start + requested)``, sorted with the width)
    at which enough CPUs are free, the extra CPUs what is then left;
    a later job that fits starts if it ends by the shadow time or uses only extras.
``"accasim"``
    AccaSim 1.1.3's ``EASYBackfilling`` as it is coded (for explaining its numbers):
    one decision per time point, after that time's completions and arrivals. FIFO
    starts until a job blocks; that job gets a reservation (running jobs' ``start +
    requested``, not bounded by now) and is not tried again before that time, even
    if it fits; every other queued job that fits starts, whether or not it ends
    before the reservation, because AccaSim passes ``reserved_nodes=[]`` to the
    allocator and so never refuses a backfill.

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


def replay(jobs: Sequence[JobTuple], procs: int, rule: str = "easy", kill: bool = False) -> list[float]:
    """Start time of each job under FCFS + EASY (``rule="easy"``) or AccaSim's variant (``"accasim"``)."""
    if rule not in ("easy", "accasim"):
        raise ValueError(f"rule must be 'easy' or 'accasim', got {rule!r}")
    submit = [j[1] for j in jobs]
    runtime = [min(j[2], j[4]) if kill else j[2] for j in jobs]  # time held: a killed job's ends at its limit
    cpus = [j[3] for j in jobs]
    requested = [j[4] for j in jobs]
    n = len(jobs)
    start = [math.nan] * n
    running: dict[int, float] = {}  # job -> start + requested, in start order
    waiting: list[int] = []  # jobs in arrival (= FCFS) order
    heap: list[tuple[float, int, int, int]] = []
    state = {"free": procs, "seq": 0, "blocked": False, "res": None}

    def push(t: float, kind: int, i: int) -> None:
        state["seq"] += 1
        heapq.heappush(heap, (t, state["seq"], kind, i))

    def begin(i: int, now: float, started: list[int]) -> None:
        state["free"] -= cpus[i]
        start[i] = now
        running[i] = now + requested[i]
        started.append(i)

    def easy(now: float, started: list[int]) -> None:
        queue = waiting  # already FCFS: submit order, ties in arrival order
        k = 0
        while k < len(queue) and cpus[queue[k]] <= state["free"]:
            begin(queue[k], now, started)
            k += 1
        if k < len(queue) - 1:
            need = cpus[queue[k]]
            shadow, extra, available = math.inf, 0, state["free"]
            for end, width in sorted((max(now, e), cpus[j]) for j, e in running.items()):
                if end > shadow:
                    break
                available += width  # every job ending at the shadow time adds to the extras
                if shadow == math.inf and available >= need:
                    shadow = end
            if shadow < math.inf:
                extra = available - need
            for j in queue[k + 1 :]:
                if cpus[j] > state["free"]:
                    continue
                if now + requested[j] <= shadow:
                    begin(j, now, started)
                elif cpus[j] <= extra:
                    extra -= cpus[j]
                    begin(j, now, started)
        waiting[:] = [j for j in waiting if start[j] != start[j]]  # drop the started (nan != nan)

    def accasim(now: float, started: list[int]) -> None:
        queue, k, prev = waiting, 0, []
        reached = bool(state["res"]) and state["res"] <= now
        if reached:
            k = 1
            if cpus[queue[0]] <= state["free"]:
                begin(queue[0], now, prev)
                state["blocked"], state["res"] = False, None
        fill = queue[1:] if state["blocked"] else []
        if not state["blocked"]:
            before = list(running)  # jobs of earlier time points, in start order
            fifo: list[int] = []
            while k < len(queue) and cpus[queue[k]] <= state["free"]:
                begin(queue[k], now, fifo)
                k += 1
            if k < len(queue):
                state["blocked"] = True
                if not state["res"]:
                    ends = [(running[j], cpus[j]) for j in before if j not in prev]
                    ends += [(now + requested[j], cpus[j]) for j in fifo + prev]
                    available = state["free"]
                    for end, width in sorted(ends, key=lambda e: e[0]):  # stable, like SortedListWithKey
                        available += width
                        if available >= cpus[queue[k]]:
                            state["res"] = end
                            break
                fill = queue[k + 1 :]
            started += prev + fifo
        else:
            started += prev
        for j in fill:
            if cpus[j] <= state["free"]:
                begin(j, now, started)
        waiting[:] = [j for j in waiting if start[j] != start[j]]

    if rule == "easy":
        if n:
            push(submit[0], ARRIVAL, 0)
        while heap:
            now, _, kind, i = heapq.heappop(heap)
            started: list[int] = []
            if kind == ARRIVAL:  # the source submits every job due now, one decision after each
                while i < n and submit[i] == now:
                    waiting.append(i)
                    easy(now, started)
                    i += 1
                if i < n:
                    push(submit[i], ARRIVAL, i)
            else:
                state["free"] += cpus[i]
                del running[i]
                easy(now, started)
            for j in started:  # SimPy schedules a started job's end after the step that started it
                push(now + runtime[j], COMPLETION, j)
        return start

    ends: dict[float, list[int]] = {}
    points = sorted(set(submit))
    heapq.heapify(points)
    i = 0
    while points:
        now = heapq.heappop(points)
        while points and points[0] == now:
            heapq.heappop(points)
        for j in ends.pop(now, ()):
            state["free"] += cpus[j]
            del running[j]
        while i < n and submit[i] == now:
            waiting.append(i)
            i += 1
        if waiting:
            started = []
            accasim(now, started)
            for j in started:
                end = now + runtime[j]
                if end not in ends:
                    ends[end] = []
                    heapq.heappush(points, end)
                ends[end].append(j)
    return start

"""Tau-steps per second of the seed-004 model: schedlab (SimPy) against a plain numpy time-stepped loop.

One 50-server small-world network at (r, M) = (0.8, 8), RAND vectors (a fresh random
vector per agent and run; no learning, so both sides do exactly the same work). The
plain loop below is the same model written directly: deques for the queues, integer
service times, the same streams drawn in the same order, so it must give the same
efficiency per run; the benchmark prints both rates, their ratio and whether the
curves agree. The two run ``--repeat`` times, interleaved, in this one process, and the
best CPU time of each is kept. It never asserts a time.

    python benchmarks/collectives.py [--runs 5] [--steps 400] [--r 0.8] [--M 8] [--repeat 3]
"""

from __future__ import annotations

import argparse
import math
import time
from collections import deque

import numpy as np
import simpy

from schedlab.model.contracts.routing import neighbour_lists
from schedlab.model.core.streams import Streams
from schedlab.policies import RandomVectors, ShippingAgents
from schedlab.processes.network.network import ServerNetwork
from schedlab.topologies import small_world_ring


def numpy_reference(
    neighbours: list[list[int]],
    capacities: np.ndarray,
    r: float,
    m: int,
    streams: Streams,
    *,
    steps: int,
    runs: int,
) -> list[float]:
    """G per run of the seed-004 model with RAND vectors, as a plain loop (same draws as schedlab).

    Each step: completions due now (and the start of each freed server's head job if it
    fits), deliveries of last step's shipments to the front, arrivals to the back, then
    every head job's agent keeps or ships it (to a neighbour, arriving next step). A job
    of c cycles holds a server of speed s for ceil(c / s) steps.
    """
    n, k = capacities.shape
    classes = 2**k
    caps = capacities.tolist()
    speed = [row[0] for row in caps]
    degree = np.repeat([len(nb) for nb in neighbours], classes)
    width = 1 + int(degree.max())
    mask = np.arange(width)[None, :] <= degree[:, None]
    targets = [[i, *neighbours[i]] for i in range(n) for _ in range(classes)]
    arrivals, requirements = streams["arrivals"], streams["requirements"]
    routing, exploration = streams["routing"], streams["exploration"]
    half = m // 2
    curve = []
    now = 0
    queues: list[deque[int]] = [deque() for _ in range(n)]
    running = [-1] * n
    ends = [0] * n
    jobs: list[list[int]] = []  # requirements per job of the run
    job_class: list[int] = []

    def start(i: int, t: int) -> None:
        q = queues[i]
        if running[i] < 0 and q:
            req, cap = jobs[q[0]], caps[i]
            if all(req[x] <= cap[x] for x in range(1, k)):
                j = q.popleft()
                running[i], ends[i] = j, t + math.ceil(req[0] / speed[i])

    for _ in range(runs):
        draws = exploration.exponential(1.0, mask.shape) * mask
        cumulative = np.cumsum(draws / draws.sum(axis=1, keepdims=True), axis=1)
        cumulative[:, -1] = 2.0
        cum = cumulative.tolist()
        for q in queues:  # the system is cleared between runs
            q.clear()
        running[:] = [-1] * n
        jobs.clear()
        job_class.clear()
        executed = 0
        in_flight: list[tuple[int, int]] = []
        for _ in range(steps + 1):
            for i in range(n):  # completions due now
                if running[i] >= 0 and ends[i] == now:
                    running[i] = -1
                    executed += 1
                    start(i, now)
            if _ == steps:  # the run's end: count what completed at its last instant
                break
            for i, j in in_flight:  # deliveries, in shipping order, to the front
                queues[i].appendleft(j)
                start(i, now)
            in_flight = []
            where = np.flatnonzero(arrivals.random(n) < r).tolist()
            if where:
                reqs = requirements.integers(1, m + 1, size=(len(where), k)).tolist()
                for i, req in zip(where, reqs, strict=True):
                    job_class.append(sum(1 << x for x, v in enumerate(req) if v > half))
                    jobs.append(req)
                    queues[i].append(len(jobs) - 1)
                    start(i, now)
            heads = [(i, queues[i][0]) for i in range(n) if queues[i]]
            if heads:
                u = routing.random(n).tolist()
                ships = []
                for i, j in heads:
                    a = i * classes + job_class[j]
                    row, x = cum[a], 0
                    while u[i] >= row[x]:
                        x += 1
                    if x:
                        ships.append((i, j, targets[a][x]))
                for i, j, dest in ships:
                    queues[i].popleft()
                    start(i, now)
                    in_flight.append((dest, j))
            now += 1
        curve.append(executed / len(jobs) if jobs else math.nan)
    return curve


def schedlab_curve(
    neighbours: list[list[int]], graph, capacities, r: float, m: int, streams: Streams, *, steps: int, runs: int
) -> list[float]:
    env = simpy.Environment()
    agents = ShippingAgents(neighbours, 2 ** capacities.shape[1], streams["routing"])
    rule = RandomVectors(agents, streams["exploration"])
    net = ServerNetwork(
        env, graph, capacities, r, m, rule, streams["arrivals"], streams["requirements"], steps=steps, runs=runs
    )
    env.run(net.done)
    return net.curve


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--steps", type=int, default=400)
    p.add_argument("--r", type=float, default=0.8)
    p.add_argument("--M", type=int, default=8)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeat", type=int, default=3, metavar="K", help="interleaved runs of each side, best kept")
    args = p.parse_args()
    setup = Streams(args.seed)
    graph = small_world_ring(50, seed=setup["topology"])
    capacities = setup["capacities"].integers(1, args.M + 1, size=(50, 2))
    neighbours = neighbour_lists(graph)
    tau = args.runs * args.steps
    t_ours, t_ref = math.inf, math.inf
    for _ in range(args.repeat):
        began = time.process_time()
        ours = schedlab_curve(neighbours, graph, capacities, args.r, args.M, Streams(args.seed + 1),
                              steps=args.steps, runs=args.runs)  # fmt: skip
        t_ours = min(t_ours, time.process_time() - began)
        began = time.process_time()
        ref = numpy_reference(neighbours, capacities, args.r, args.M, Streams(args.seed + 1), steps=args.steps,
                              runs=args.runs)  # fmt: skip
        t_ref = min(t_ref, time.process_time() - began)
    print(
        f"one 50-server network, (r, M) = ({args.r}, {args.M}), RAND, {args.runs} runs x {args.steps} tau "
        f"(CPU time, best of {args.repeat}, interleaved)"
    )
    print(f"  schedlab (SimPy)    {tau / t_ours:10.0f} tau/s   ({t_ours:.2f} s)")
    print(f"  plain numpy loop    {tau / t_ref:10.0f} tau/s   ({t_ref:.2f} s)")
    print(f"  ratio               {t_ours / t_ref:10.2f} x slower (target: within 2.5x)")
    print(f"  same G per run, bit for bit: {ours == ref}  (schedlab {np.round(ours, 4).tolist()})")
    per_cell = t_ours / tau * 160_000 * 50 * 5
    print(f"  the paper's cell (400 runs x 400 tau x 50 networks x 5 algorithms): {per_cell / 3600:.1f} CPU-hours")


if __name__ == "__main__":
    main()

"""OSL grid speed (seed 003): schedlab's SimPy model against the same model as a plain numpy loop.

    python benchmarks/osl.py                  # (300, 1000) x 2000 steps both ways, then (1000, 500) x 2000 steps
    python benchmarks/osl.py --steps 1000 --repeat 3 --skip-large
    python benchmarks/osl.py --steps 500 --skip-large --profile 25
    python benchmarks/osl.py --steps 400 --repeat 3 --floor       # where the time goes: framework, bare events

The (300, 1000) cell of experiment 'scale' (xi = 0.93, about 70% load) is built and run
by ``scenarios/osl_grid.py``'s ``build`` with OSL, exactly as ``schedlab run`` does it
(bipartite grid, ring, N agent processes, M server processes), and by
``benchmarks/_numpy_osl.py``, a vectorised numpy loop with no SimPy that makes the same
draws and decisions. Both get the same replication seed, so their final ALoR must agree
(printed). The two run ``--repeat`` times, interleaved, in this one process, and the
best CPU time of each is kept. Prints both times and the ratio schedlab / numpy
(target: <= 2.5), the cost per step of the run's last quarter over its first (flat: about
1), then the time of the (1000, 500) cell of experiment 'ratio' through schedlab (target:
< 180 s). The grid keeps no job records, as the scenario builds it by default
(``job_records=False``); ``--records`` keeps them (``job_records=True``).
Nothing is asserted: timings depend on the machine and on what else runs on it.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import sys
import time
from pathlib import Path

import numpy as np
import simpy

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _numpy_osl import numpy_osl  # noqa: E402
from _osl_floor import framework_run, learner_of, learner_run, record_decisions, skeleton_run  # noqa: E402

from schedlab.experiment.runner import build_model  # noqa: E402
from schedlab.experiment.scenario import load_scenario  # noqa: E402
from schedlab.experiment.seeding import replication_seeds  # noqa: E402

SCENARIO = HERE.parent / "scenarios" / "osl_grid.py"


def builder(experiment: str, agents: int, steps: int, seed, records: bool = False):
    """A function that builds one OSL cell through the scenario, as ``schedlab run`` does."""
    scenario = load_scenario(SCENARIO)
    cfg = scenario.config(
        {"steps": steps, "series_dir": "", "experiments": (experiment,), "policies": ("osl",), "job_records": records}
    )
    (cell,) = [c for c in scenario.cells(cfg) if c["agents"] == agents]
    return lambda: build_model(scenario, cfg, cell, seed, env=simpy.Environment())


def schedlab_run(
    experiment: str, agents: int, steps: int, seed, profile: int = 0, records: bool = False
) -> tuple[float, float, int, float]:
    """Build and run one OSL cell through the scenario; returns (CPU seconds, final ALoR, jobs, last/first quarter)."""
    build = builder(experiment, agents, steps, seed, records)
    gc.collect()
    began = time.process_time()
    prof = cProfile.Profile() if profile else None
    if prof:
        prof.enable()
    model = build()
    quarters: list[float] = []
    env = model.env
    for k in range(1, 5):  # the run in quarters, each timed: a flat cost per step keeps them equal
        t0 = time.process_time()
        env.run(until=min(k * steps // 4 + 0.5, steps + 0.5) if k < 4 else model.until)
        quarters.append(time.process_time() - t0)
    if prof:
        prof.disable()
    seconds = time.process_time() - began
    if prof:
        pstats.Stats(prof).sort_stats("tottime").print_stats(profile)
    grid = model["grid"]
    return seconds, float(grid.series.column("alor")[-1]), grid.resources.submitted, quarters[3] / quarters[0]


def floor(steps: int, seed, repeat: int) -> None:
    """The numpy loop, schedlab, schedlab's framework alone and the design's bare events, interleaved (best of K)."""
    build = builder("scale", 300, steps, seed)
    decisions, completions, capacities, utility = record_decisions(build)
    learner, alone = learner_of(build), learner_of(build)
    skeleton_run(decisions, capacities, 300, steps, parts=True, learner=learner)
    learner_run(alone, decisions, completions, 300, 1000, steps)
    # the bare model with the learner, and the learner alone, decide as schedlab did
    same = np.array_equal(learner.utility, utility) and np.array_equal(alone.utility, utility)
    times: dict[str, list[float]] = {
        k: [] for k in ("numpy", "schedlab", "framework", "events", "events+", "floor", "learner")
    }
    for _ in range(repeat):
        gc.collect()
        began = time.process_time()
        numpy_osl(300, 1000, 0.93, steps, seed=seed)
        times["numpy"].append(time.process_time() - began)
        times["schedlab"].append(schedlab_run("scale", 300, steps, seed)[0])
        times["framework"].append(framework_run(build, decisions))
        times["events"].append(skeleton_run(decisions, capacities, 300, steps)[0])
        times["events+"].append(skeleton_run(decisions, capacities, 300, steps, parts=True)[0])
        times["floor"].append(skeleton_run(decisions, capacities, 300, steps, parts=True, learner=learner_of(build))[0])
        times["learner"].append(learner_run(learner_of(build), decisions, completions, 300, 1000, steps))
    best = {k: min(v) for k, v in times.items()}
    ref = best["numpy"]
    print(f"(300, 1000) x {steps} steps, OSL: where the time goes (CPU time, best of {repeat}, interleaved)")
    rows = [
        ("numpy", "the numpy loop (_numpy_osl.py)"),
        ("schedlab", "schedlab, the scenario's OSL run"),
        ("framework", "schedlab, decisions replayed, no learner: the framework alone"),
        ("events", "bare SimPy: the design's processes and events only"),
        ("events+", "bare SimPy + a Job per job, busy-until, the completion signal"),
        ("floor", "bare SimPy + those + the OSL learner: the design's floor"),
        ("learner", "the OSL learner alone, fed the run's jobs and completions"),
    ]
    for key, what in rows:
        per_step = 1000 * best[key] / steps
        print(f"  {what:<64} {best[key]:7.3f} s  {per_step:6.2f} ms/step  {best[key] / ref:5.2f}x numpy")
    inside = best["floor"] - best["events+"]
    print(
        f"  the learner inside the bare model (floor - events+): {inside:.3f} s, {inside / best['learner']:.2f}x "
        f"the learner alone; schedlab / floor: {best['schedlab'] / best['floor']:.2f}"
    )
    print(f"  the floor's learner and the learner alone end with schedlab's utility tables, bit for bit: {same}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeat", type=int, default=1, metavar="K", help="interleaved runs of each side, best kept")
    p.add_argument("--skip-large", action="store_true", help="leave out the (1000, 500) run")
    p.add_argument("--profile", type=int, default=0, metavar="N", help="cProfile schedlab's run, show N lines")
    p.add_argument("--records", action="store_true", help="keep every job's record (the scenario's job_records)")
    p.add_argument(
        "--floor",
        action="store_true",
        help="split the (300, 1000) run: framework alone, the design's bare SimPy events (_osl_floor.py)",
    )
    args = p.parse_args(argv)
    seed = replication_seeds(args.seed, 1)[0]
    if args.floor:
        floor(args.steps, seed, args.repeat)
        return 0

    numpy_times, ours, drifts = [], [], []
    for _ in range(args.repeat):
        gc.collect()
        began = time.process_time()
        ref = numpy_osl(300, 1000, 0.93, args.steps, seed=seed)
        numpy_times.append(time.process_time() - began)
        simpy_s, alor, jobs, drift = schedlab_run("scale", 300, args.steps, seed, args.profile, args.records)
        ours.append(simpy_s)
        drifts.append(drift)
    numpy_s, simpy_s = min(numpy_times), min(ours)
    print(f"(300, 1000) x {args.steps} steps, OSL, {jobs} jobs; best CPU time of {args.repeat}, interleaved")
    print(f"  numpy loop : {numpy_s:8.2f} s   final ALoR {ref['alor'][-1]:.6f}")
    print(f"  schedlab   : {simpy_s:8.2f} s   final ALoR {alor:.6f}   ({jobs / simpy_s:,.0f} jobs/s)")
    print(
        f"  ratio schedlab / numpy: {simpy_s / numpy_s:.2f} (target <= 2.5); same ALoR: {alor == ref['alor'][-1]}"
        f"; each pair: {', '.join(f'{a / b:.2f}' for a, b in zip(ours, numpy_times, strict=True))}"
    )
    print(
        f"  last quarter's time / first quarter's: {', '.join(f'{d:.2f}' for d in drifts)} (flat per step: ~1.0); "
        f"job records {'' if args.records else 'not '}kept"
    )
    if not args.skip_large:
        large_s, alor, jobs, _ = schedlab_run("ratio", 1000, args.steps, seed, records=args.records)
        print(f"(1000, 500) x {args.steps} steps, OSL, {jobs} jobs")
        print(f"  schedlab   : {large_s:8.2f} s   final ALoR {alor:.4f}   (target < 180 s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

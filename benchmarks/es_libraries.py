"""schedlab's hand-written evolution strategies against EvoTorch and nevergrad, on the same budget.

The setting is ``schedlab train Machine-v0 --set teacher=sjf`` (docs/rl.md: the env's
defaults, the MLP 32-32 scorer, imitation of SJF for 32 episodes and 100 epochs), and
every optimizer gets, for each seed:

- the **same start**: the weights imitation of SJF gives, made by training's own
  functions as :func:`schedlab.training.run.train` makes them (``init`` stream,
  :func:`~schedlab.training.imitation.teacher_decisions`, :func:`~schedlab.training.imitation.imitate`);
- the **same episodes**: each generation the training episodes ``train_episodes``
  draws (every member scored on them, relative to SJF's cost on the same episodes,
  :func:`~schedlab.training.search.relative`), and the same validation episodes;
- the **same budget**: ``generations`` generations of ``2 * pairs`` members, each
  member's whole episodes scored by :func:`~schedlab.training.episodes.episode_costs`;
- the **same choice of weights**: after each generation the optimizer's current weights
  (ES's weights, EvoTorch's centre, nevergrad's recommendation) are scored on the
  validation episodes, and the best so far are kept, as ``train`` keeps them.

Rows: ``es`` (:func:`schedlab.training.search.generation_step`: antithetic pairs, centred
ranks, Adam 0.01, sigma 0.02); EvoTorch's ``PGPE`` (symmetric, centred ranks, Adam
0.01, stdev 0.02 adapted at 0.1) and ``SNES`` (stdev 0.02, its default rates) on an
``evotorch.Problem`` whose evaluation calls ``episode_costs``; nevergrad's ``CMA`` and
``DiagonalCMA`` (population 16, initial step 0.02 through ``Array.set_mutation``) and
its recommended default ``NGOpt`` (16 workers' worth of asks a generation), by ask/tell.
A library that is not installed is skipped with a line saying so.

Printed: one line per run, then per optimizer over the seeds the episodes used, wall and
CPU seconds (serial, this process), and the best weights' score (mean relative cost
against SJF, lower is better) on the validation episodes and on held-out episodes
``reset(seed=k)``, ``k = 0..n-1`` (below every training and validation seed), as
mean ± standard deviation over the seeds.

``--parallel`` instead measures the parallel side: the start of a 2-worker spawn process
pool against ``ray.init`` and EvoTorch's ray actors, a short search of each kind on 2
workers, and whether each gives the weights of the serial run (and of a second serial
run: determinism for one seed).

    PYTHONPATH=$PWD python benchmarks/es_libraries.py --seeds 0 1 2
    PYTHONPATH=$PWD /tmp/esvenv/bin/python benchmarks/es_libraries.py --seeds 0 1 2
    PYTHONPATH=$PWD /tmp/esvenv/bin/python benchmarks/es_libraries.py --parallel --generations 4
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import multiprocessing
import time
import warnings
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from schedlab.model.core.streams import Streams
from schedlab.training import MLPPolicy, TrainConfig
from schedlab.training.episodes import EnvSpec, episode_costs, make_env
from schedlab.training.imitation import imitate, teacher_decisions
from schedlab.training.run import TRAINING_SEEDS, VALIDATION_SEEDS, env_spec, scored
from schedlab.training.search import Adam, gather, generation_step, relative

SIGMA, RATE = 0.02, 0.01  # TrainConfig's defaults, the same for every optimizer's initial step


@dataclass
class Setup:
    """One seed's start, episodes and baselines, shared by every optimizer."""

    config: TrainConfig
    spec: EnvSpec
    start: np.ndarray
    validation: list[int]
    val_base: np.ndarray
    train: list[tuple[list[int], np.ndarray]]  # per generation: the episodes and SJF's cost on them
    held_out: list[int]
    held_base: np.ndarray


def make_setup(seed: int, args: argparse.Namespace) -> Setup:
    """Seed ``seed``'s start (imitation of SJF, as ``train`` does it) and its episodes."""
    config = TrainConfig(
        env="Machine-v0", teacher="sjf", generations=args.generations, pairs=args.pairs, episodes=args.episodes,
        validation=args.validation, seed=seed,
    )  # fmt: skip
    env = make_env(config.env, dict(config.env_settings))
    spec = env_spec(config)
    streams = Streams(config.seed)
    policy = MLPPolicy(env.observation_space.shape[0], int(env.action_space.n), config.hidden, streams["init"])
    validation = [int(s) for s in streams["validation_episodes"].integers(*VALIDATION_SEEDS, size=config.validation)]
    seeds = [int(s) for s in streams["imitation_episodes"].integers(*TRAINING_SEEDS, config.imitation_episodes)]
    data = teacher_decisions(env, config.env, config.teacher, seeds)
    imitate(policy, data, epochs=config.imitation_epochs, rate=config.imitation_rate, rng=streams["imitation"])
    draw = streams["train_episodes"]
    train = []
    for _ in range(config.generations):
        episodes = [int(s) for s in draw.integers(*TRAINING_SEEDS, size=config.episodes)]
        train.append((episodes, scored(spec, None, config.teacher, episodes, None)))
    held_out = list(range(args.held_out))
    return Setup(
        config, spec, policy.vector(), validation, scored(spec, None, config.teacher, validation, None), train,
        held_out, scored(spec, None, config.teacher, held_out, None),
    )  # fmt: skip


def population_costs(
    spec: EnvSpec, vectors: np.ndarray, seeds: list[int], base: np.ndarray, executor: Executor | None
) -> np.ndarray:
    """Each weight vector's mean cost on ``seeds`` relative to SJF's: one ``episode_costs`` task a member."""
    return relative(np.asarray(gather(executor, episode_costs, [(spec, v, None, seeds) for v in vectors])), base)


# -- the optimizers: each ``make(setup, executor, workers) -> step(generation) -> current weights``

Step = Callable[[int], np.ndarray]


def make_es(setup: Setup, executor: Executor | None, workers: int) -> Step:
    """schedlab's OpenAI-ES: :func:`generation_step` as ``train`` calls it."""
    cfg, state = setup.config, {"weights": setup.start.copy()}
    zeros = np.zeros_like(setup.start)
    adam = Adam(zeros, zeros.copy(), 0)

    def step(g: int) -> np.ndarray:
        seeds, base = setup.train[g]
        state["weights"], _ = generation_step(
            setup.spec, state["weights"], adam, seed=cfg.seed, generation=g + 1, pairs=cfg.pairs, sigma=SIGMA,
            learning_rate=RATE, seeds=seeds, baseline=base, executor=executor,
        )  # fmt: skip
        return state["weights"]

    return step


def _evotorch_problem(setup: Setup, executor: Executor | None, actors: int) -> Any:
    """An ``evotorch.Problem`` (minimise) whose members are scored by ``episode_costs``.

    The generation's episodes and SJF's costs on them are the problem's state; with ray
    actors they reach every actor through EvoTorch's sync hooks before each evaluation.
    """
    from evotorch import Problem

    logging.getLogger("evotorch").setLevel(logging.WARNING)  # not a line per problem made

    class EpisodeProblem(Problem):  # type: ignore[misc]
        def __init__(self) -> None:
            self.spec, self.executor = setup.spec, executor
            self.seeds: list[int] = []
            self.base = np.zeros(0)
            super().__init__(
                "min", solution_length=setup.start.size, dtype=torch.float64, seed=setup.config.seed,
                num_actors=actors if actors > 1 else 0,
            )  # fmt: skip

        def _evaluate_batch(self, batch: Any) -> None:
            vectors = batch.values.detach().cpu().numpy()
            costs = population_costs(self.spec, vectors, self.seeds, self.base, self.executor)
            batch.set_evals(torch.as_tensor(costs, dtype=torch.float64))

        def seed(self, value: int) -> None:  # EvoTorch 0.6.1's ray actor calls seed(), a Problem has manual_seed()
            self.manual_seed(value)

        def _make_sync_data_for_actors(self) -> Any:
            return self.seeds, self.base

        def _use_sync_data_from_main(self, received: Any) -> None:
            self.seeds, self.base = received

    return EpisodeProblem()


def make_evotorch(kind: str) -> Callable[[Setup, Executor | None, int], Step]:
    """EvoTorch's ``PGPE`` or ``SNES`` from the start, centre as the current weights."""

    def make(setup: Setup, executor: Executor | None, workers: int) -> Step:
        from evotorch.algorithms import PGPE, SNES

        problem = _evotorch_problem(setup, executor, workers if executor is None else 0)
        popsize = 2 * setup.config.pairs
        center = torch.as_tensor(setup.start, dtype=torch.float64)
        if kind == "pgpe":
            searcher = PGPE(
                problem, popsize=popsize, center_learning_rate=RATE, stdev_learning_rate=0.1, stdev_init=SIGMA,
                optimizer="adam", ranking_method="centered", center_init=center, symmetric=True,
            )  # fmt: skip
        else:
            searcher = SNES(problem, stdev_init=SIGMA, popsize=popsize, center_init=center)

        def step(g: int) -> np.ndarray:
            problem.seeds, problem.base = setup.train[g]
            searcher.step()
            return np.asarray(searcher.status["center"].detach().cpu().numpy(), dtype=np.float64)

        step.problem = problem  # type: ignore[attr-defined]  # for --parallel's actors
        return step

    return make


def make_nevergrad(kind: str) -> Callable[[Setup, Executor | None, int], Step]:
    """nevergrad's CMA, DiagonalCMA (population 2 x pairs) or NGOpt by ask/tell; its recommendation as the weights."""

    def make(setup: Setup, executor: Executor | None, workers: int) -> Step:
        import nevergrad as ng

        warnings.filterwarnings("ignore", message="TPA: apparent inconsistency")  # cma's, within NGOpt's choice
        popsize = 2 * setup.config.pairs
        param = ng.p.Array(init=setup.start).set_mutation(sigma=SIGMA)
        param.random_state = np.random.RandomState(setup.config.seed)
        budget = popsize * setup.config.generations
        families = {
            "cma": lambda: ng.families.ParametrizedCMA(popsize=popsize),
            "diagcma": lambda: ng.families.ParametrizedCMA(popsize=popsize, diagonal=True),
            "ngopt": lambda: ng.optimizers.NGOpt,
        }
        optimizer = families[kind]()(parametrization=param, budget=budget, num_workers=popsize)

        def step(g: int) -> np.ndarray:
            seeds, base = setup.train[g]
            members = [optimizer.ask() for _ in range(popsize)]
            vectors = np.stack([m.value for m in members])
            for member, cost in zip(members, population_costs(setup.spec, vectors, seeds, base, executor), strict=True):
                optimizer.tell(member, float(cost))
            return np.asarray(optimizer.provide_recommendation().value, dtype=np.float64)

        return step

    return make


OPTIMIZERS: dict[str, tuple[str | None, Callable[[Setup, Executor | None, int], Step]]] = {
    "schedlab es": (None, make_es),
    "evotorch PGPE": ("evotorch", make_evotorch("pgpe")),
    "evotorch SNES": ("evotorch", make_evotorch("snes")),
    "nevergrad CMA": ("nevergrad", make_nevergrad("cma")),
    "nevergrad DiagonalCMA": ("nevergrad", make_nevergrad("diagcma")),
    "nevergrad NGOpt": ("nevergrad", make_nevergrad("ngopt")),
}


def available(module: str | None) -> str | None:
    """The module's version, '' for schedlab's own, or None when it is not installed."""
    if module is None:
        return ""
    try:
        return str(__import__(module).__version__)
    except ImportError:
        return None


@dataclass
class Run:
    """One optimizer's search from one seed's start."""

    wall_s: float
    cpu_s: float
    episodes: int
    validation: float
    held_out: float
    start_validation: float
    best_generation: int
    sha256: str


def search(make: Callable[..., Step], setup: Setup, executor: Executor | None = None, workers: int = 1) -> Run:
    """The budget's generations from the start, the best weights on validation kept (as ``train``)."""
    spec, cfg = setup.spec, setup.config
    used = [0]

    def validate(vector: np.ndarray) -> float:
        used[0] += len(setup.validation)
        return float(relative(scored(spec, vector, None, setup.validation, executor), setup.val_base))

    wall, cpu = time.perf_counter(), time.process_time()
    step = make(setup, executor, workers)
    best, best_score, best_g = setup.start, validate(setup.start), 0
    start_score = best_score
    for g in range(cfg.generations):
        weights = step(g)
        used[0] += (2 * cfg.pairs + 1) * cfg.episodes  # the members' and SJF's episodes
        score = validate(weights)
        if score < best_score:
            best, best_score, best_g = weights, score, g + 1
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    held = float(relative(scored(spec, best, None, setup.held_out, executor), setup.held_base))
    sha = hashlib.sha256(np.ascontiguousarray(best, dtype="<f8").tobytes()).hexdigest()
    problem = getattr(step, "problem", None)
    if problem is not None and workers > 1 and executor is None:
        problem.kill_actors()
    return Run(wall, cpu, used[0], best_score, held, start_score, best_g, sha)


def spread(values: list[float], digits: int = 3) -> str:
    """``mean ± sd`` over the seeds."""
    sd = np.std(values, ddof=1) if len(values) > 1 else 0.0
    return f"{np.mean(values):+.{digits}f} ± {sd:.{digits}f}"


def compare(args: argparse.Namespace) -> None:
    """The table: every optimizer on every seed, serial."""
    names = [n for n in OPTIMIZERS if not args.only or any(o.lower() in n.lower() for o in args.only)]
    versions = {n: available(OPTIMIZERS[n][0]) for n in names}
    for n in names:
        if versions[n] is None:
            print(f"skipped {n}: {OPTIMIZERS[n][0]} is not installed")
    names = [n for n in names if versions[n] is not None]
    print(
        f"budget: {args.generations} generations x {2 * args.pairs} members x {args.episodes} training episodes"
        f" ({args.generations * 2 * args.pairs * args.episodes} member episodes) + SJF on them + "
        f"{args.validation} validation episodes a generation; held-out episodes 0..{args.held_out - 1}; serial"
    )
    runs: dict[str, list[Run]] = {n: [] for n in names}
    starts: list[tuple[float, float]] = []
    for seed in args.seeds:
        t = time.perf_counter()
        setup = make_setup(seed, args)
        held = float(relative(scored(setup.spec, setup.start, None, setup.held_out, None), setup.held_base))
        print(f"seed {seed}: imitation of SJF and the episodes in {time.perf_counter() - t:.1f} s", flush=True)
        for n in names:
            r = search(OPTIMIZERS[n][1], setup)
            runs[n].append(r)
            print(
                f"  {n}: validation {r.start_validation:+.4f} -> {r.validation:+.4f} (generation {r.best_generation}),"
                f" held-out {r.held_out:+.4f}, {r.wall_s:.1f} s wall, {r.cpu_s:.1f} s CPU, {r.sha256[:12]}",
                flush=True,
            )
        starts.append((runs[names[0]][-1].start_validation if names else float("nan"), held))
    print(f"\nover seeds {', '.join(map(str, args.seeds))} (mean ± sd); relative cost against SJF, lower is better")
    print("| optimizer | version | episodes used | wall s | CPU s | validation | held-out |")
    print("|---|---|---|---|---|---|---|")
    print(
        f"| imitation of SJF (the start) | | | | |"
        f" {spread([s[0] for s in starts])} | {spread([s[1] for s in starts])} |"
    )
    for n in names:
        rs = runs[n]
        print(
            f"| {n} | {versions[n] or 'schedlab'} | {rs[0].episodes} | {np.mean([r.wall_s for r in rs]):.1f} |"
            f" {np.mean([r.cpu_s for r in rs]):.1f} | {spread([r.validation for r in rs])} |"
            f" {spread([r.held_out for r in rs])} |"
        )


def parallel(args: argparse.Namespace) -> None:
    """The parallel side: pool start against ray's, and the same weights on 2 workers (seed ``args.seeds[0]``)."""
    setup = make_setup(args.seeds[0], args)
    spec = setup.spec
    print(f"seed {args.seeds[0]}, {args.generations} generations x {2 * args.pairs} members x {args.episodes} episodes")
    t = time.perf_counter()
    pool = ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn"))
    list(pool.map(episode_costs, *zip(*[(spec, None, "sjf", [0])] * 4, strict=True)))
    print(f"process pool (2 spawn workers) started and warm (env made): {time.perf_counter() - t:.2f} s", flush=True)
    rows: list[tuple[str, str, Callable[[], Run]]] = [
        ("schedlab es", "serial", lambda: search(make_es, setup)),
        ("schedlab es", "serial again", lambda: search(make_es, setup)),
        ("schedlab es", "process pool 2", lambda: search(make_es, setup, pool, 2)),
    ]
    if available("evotorch") is not None:
        import ray

        t = time.perf_counter()
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        print(f"ray.init(num_cpus=2): {time.perf_counter() - t:.2f} s", flush=True)
        pgpe = make_evotorch("pgpe")

        def actors() -> Run:
            t = time.perf_counter()
            step = pgpe(setup, None, 2)
            step.problem.all_remote_problems()  # type: ignore[attr-defined]  # the actors made (started lazily)
            warm = step.problem  # type: ignore[attr-defined]
            warm.seeds, warm.base = setup.train[0]
            batch = warm.generate_batch(2, empty=True)
            batch.set_values(torch.as_tensor(np.stack([setup.start] * 2)))
            warm.evaluate(batch)  # each actor makes its env
            print(f"EvoTorch's 2 ray actors started and warm: {time.perf_counter() - t:.2f} s", flush=True)
            warm.kill_actors()
            return search(pgpe, setup, None, 2)

        rows += [
            ("evotorch PGPE", "serial", lambda: search(pgpe, setup)),
            ("evotorch PGPE", "serial again", lambda: search(pgpe, setup)),
            ("evotorch PGPE", "process pool 2", lambda: search(pgpe, setup, pool, 2)),
            ("evotorch PGPE", "ray actors 2", actors),
        ]
    else:
        print("skipped evotorch: not installed")
    if available("nevergrad") is not None:
        for kind, name in (("diagcma", "nevergrad DiagonalCMA"), ("ngopt", "nevergrad NGOpt")):
            ng_make = make_nevergrad(kind)
            rows += [
                (name, "serial", lambda m=ng_make: search(m, setup)),
                (name, "serial again", lambda m=ng_make: search(m, setup)),
                (name, "process pool 2", lambda m=ng_make: search(m, setup, pool, 2)),
            ]
    else:
        print("skipped nevergrad: not installed")
    print("| optimizer | workers | wall s | validation | weights sha256 | same as serial |")
    print("|---|---|---|---|---|---|")
    serial: dict[str, str] = {}
    for name, how, run in rows:
        r = run()
        serial.setdefault(name, r.sha256)
        print(
            f"| {name} | {how} | {r.wall_s:.1f} | {r.validation:+.4f} | {r.sha256[:16]}... |"
            f" {r.sha256 == serial[name]} |",
            flush=True,
        )
    pool.shutdown()
    if available("evotorch") is not None:
        import ray

        ray.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--generations", type=int, default=20)
    parser.add_argument("--pairs", type=int, default=8, help="population 2 x pairs for every optimizer")
    parser.add_argument("--episodes", type=int, default=4, help="training episodes a generation")
    parser.add_argument("--validation", type=int, default=16)
    parser.add_argument("--held-out", type=int, default=50)
    parser.add_argument("--only", nargs="*", help="optimizers whose name contains one of these")
    parser.add_argument("--parallel", action="store_true", help="time the workers' start and check determinism")
    args = parser.parse_args()
    torch.set_num_threads(1)
    parallel(args) if args.parallel else compare(args)


if __name__ == "__main__":
    main()

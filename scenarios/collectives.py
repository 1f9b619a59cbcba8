"""Collectives for multi-resource job routing on a small-world ring (seed 004, Tumer and Lawson, section 4).

N = 50 servers with K = 2 integer resources (speed, and a resource a job must fit)
on a ring with random shortcuts; 2^K = 4 agents per server decide, each step, whether
the head job of their class stays or goes to a neighbour. Learning happens between
runs of 400 steps (queues cleared after each): random vectors for the first 100 runs,
then eq. 3 estimates and a Boltzmann choice among Gaussian candidates. Five
algorithms per (r, M) cell: RAND (random vectors every run), SU, TG and WLU (the
private utilities of eqs. 9, 6 and 8) and LB (multi-resource load balancing, section
3.4). One replication is one network configuration (graph and capacities); every
algorithm of a replication sees the same network and the same job stream.

Rows: ``r``, ``M``, ``algorithm``, ``efficiency`` (G at the last run),
``efficiency_last10`` (mean G over the last 10 runs) and ``optimal_estimate`` (section
4: the share of jobs that can run where they enter when every server gets a job each
step, spread instantly over the servers: ``min(1, P1 / r)``). ``gain`` (relative to the
gap between RAND and the optimal estimate) needs every algorithm of a cell, so it is
computed after the run from the summary (``tables.csv``, written by ``schedlab run``
next to the summary, or by the ``tables`` command below), with the learning curves (G per run, saved per
replication in ``curves_dir``) and, with matplotlib, the analogues of figures 2-5:

    schedlab run scenarios/collectives.py --quick
    schedlab run scenarios/collectives.py --workers 2             # Tables I-IV at the paper's scale
    python scenarios/collectives.py tables results/collectives    # tables.csv with gains (several folders: joined)
    python scenarios/collectives.py figures results/collectives/series
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import simpy

from schedlab.experiment import cli_main
from schedlab.learners import CollectiveLearner, VectorLearner
from schedlab.learners.utilities import SU_EXECUTED
from schedlab.model.contracts.network import TOUCHES
from schedlab.model.contracts.routing import neighbour_lists
from schedlab.model.core.fields import folder, items, number
from schedlab.model.core.streams import Streams
from schedlab.papers.collectives_tables import ALGORITHMS, curves, tables
from schedlab.papers.ring_bounds import paper_estimate, throughput_bound
from schedlab.plots import agg_pyplot
from schedlab.policies import LoadBalancing, RandomVectors, ShippingAgents
from schedlab.processes import Model
from schedlab.processes.network.network import ServerNetwork
from schedlab.topologies import scale_free_network, small_world_ring, torus_network

TOPOLOGIES = ("small_world", "torus", "scale_free")


@dataclass(frozen=True)
class Config:
    #: N: servers on the ring
    servers: int = number(50, low=1, work=True)
    #: K: resources per server and requirements per job (2^K agents per server)
    resources: int = 2
    #: r values: each server's probability of a new job per step
    arrival_probs: tuple[float, ...] = items((0.2, 0.8), gt=0, high=1)
    #: M values: capacities and requirements uniform on {1..M}
    max_requirements: tuple[int, ...] = (2, 8)
    #: algorithms compared: rand, su, tg, wlu, lb
    algorithms: tuple[str, ...] = ALGORITHMS
    #: network configurations (replications) per cell
    networks: int = number(50, low=1, work=True)
    #: runs t (the learning time scale)
    runs: int = number(400, low=1, work=True)
    #: steps tau per run
    steps: int = number(400, low=1, work=True)
    #: runs with random vectors before learning starts
    warmup: int = 100
    #: probability that a server opens a shortcut (degrees stay 2-4)
    shortcut_prob: float = number(0.5, high=1)
    #: server network: small_world (the paper's ring + shortcuts), torus (2-D, rows x cols = N), scale_free (BA, m=2)
    topology: str = "small_world"
    #: LB: relative margin above the mean load before a server sheds a job
    lb_tolerance: float = 0.1
    #: candidate vectors per agent and run (besides the current one)
    candidates: int = 20
    #: standard deviation of the Gaussian candidates about the current vector
    sigma: float = number(0.1, gt=0)
    #: eq. 3 data-aging rate alpha_T (per run)
    alpha_t: float = 0.01
    #: eq. 3 distance rate alpha_P (per unit of Euclidean distance between vectors)
    alpha_p: float = 5.0
    #: Boltzmann temperature, in standard deviations of the agent's recorded rewards
    temperature: float = 0.2
    #: what makes an agent touch a job (I_k = 1): visit (entered its server's queue) or decision (it kept/shipped it)
    touches: str = "visit"
    #: SU's e_k: system (eq. 9: executed anywhere) or agent (eq. 4's e_k^eta: executed at the agent's server)
    su_executed: str = "system"
    #: also copy each replication's learning curve here ('' copies none; they are saved in --out/series anyway)
    curves_dir: str = folder()
    #: keep the job records of the last run (large)
    job_records: bool = False

    def __post_init__(self) -> None:
        bad = [a for a in self.algorithms if a not in ALGORITHMS]
        if not self.algorithms or bad:
            raise ValueError(f"algorithms: unknown {bad[:1]}; choose from {', '.join(ALGORITHMS)}")
        if self.resources < 1:
            raise ValueError(f"resources (K) must be >= 1, got {self.resources}")
        if self.servers < 3:
            raise ValueError(f"servers (N) must be >= 3, got {self.servers}")
        for m in self.max_requirements:
            if m < 1:
                raise ValueError(f"max_requirements: M must be >= 1, got {m}")
        if not self.arrival_probs or not self.max_requirements:
            raise ValueError("arrival_probs and max_requirements need at least one value each")
        for name in ("networks", "runs", "steps", "candidates"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        for name in ("sigma", "alpha_t", "alpha_p"):
            if not getattr(self, name) >= 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")
        if not self.temperature > 0:
            raise ValueError(f"temperature must be > 0, got {self.temperature}")
        if self.touches not in TOUCHES:
            raise ValueError(f"touches: unknown {self.touches!r}; choose from {', '.join(TOUCHES)}")
        if self.su_executed not in SU_EXECUTED:
            raise ValueError(f"su_executed: unknown {self.su_executed!r}; choose from {', '.join(SU_EXECUTED)}")
        if not 0 <= self.warmup < self.runs:
            raise ValueError(f"warmup must be in [0, runs), got {self.warmup} with runs = {self.runs}")
        if self.topology not in TOPOLOGIES:
            raise ValueError(f"topology: unknown {self.topology!r}; choose from {', '.join(TOPOLOGIES)}")
        if self.topology == "torus":
            torus_sides(self.servers)  # N must have two factors >= 3


QUICK = dict(networks=2, runs=16, warmup=6, steps=100)


def REPS(cfg: Config) -> int:
    return cfg.networks


def cells(cfg: Config) -> list[dict]:
    return [
        {"r": r, "M": m, "algorithm": a}
        for r in cfg.arrival_probs
        for m in cfg.max_requirements
        for a in cfg.algorithms
    ]


def optimal_estimate(capacities: np.ndarray, m: int, r: float) -> float:
    """Section 4's estimate ``min(1, P1 / r)`` (:func:`~schedlab.papers.ring_bounds.paper_estimate`)."""
    return paper_estimate(capacities, m, r)


def torus_sides(n: int) -> tuple[int, int]:
    """The squarest rows x cols = n with both sides >= 3 (50 servers: 5 x 10)."""
    rows = max((d for d in range(3, math.isqrt(n) + 1) if n % d == 0), default=0)
    if not rows:
        raise ValueError(f"topology 'torus': servers = {n} is not rows x cols with both >= 3")
    return rows, n // rows


def server_graph(cfg: Config, rng: np.random.Generator):
    """The servers' network of ``cfg.topology``, drawn from ``rng`` (the ``topology`` stream; a torus draws nothing)."""
    if cfg.topology == "torus":
        return torus_network(*torus_sides(cfg.servers))
    if cfg.topology == "scale_free":
        return scale_free_network(cfg.servers, 2, seed=rng)
    return small_world_ring(cfg.servers, cfg.shortcut_prob, seed=rng)


def build(env: simpy.Environment, cfg: Config, cell: dict, streams: Streams) -> Model:
    m, r, algorithm = int(cell["M"]), float(cell["r"]), cell["algorithm"]
    graph = server_graph(cfg, streams["topology"])
    capacities = streams["capacities"].integers(1, m + 1, size=(cfg.servers, cfg.resources))
    agents = ShippingAgents(neighbour_lists(graph), 2**cfg.resources, streams["routing"])
    learner: CollectiveLearner | None = None
    if algorithm == "lb":
        rule = LoadBalancing(cfg.lb_tolerance, streams["routing"])
    elif algorithm == "rand":
        rule = RandomVectors(agents, streams["exploration"])
    else:  # the agents ship; the learner listens to the runs and sets their vectors
        rule = agents
        vectors = VectorLearner(
            agents.mask,
            cfg.runs,
            streams["exploration"],
            warmup=cfg.warmup,
            candidates=cfg.candidates,
            sigma=cfg.sigma,
            alpha_t=cfg.alpha_t,
            alpha_p=cfg.alpha_p,
            temperature=cfg.temperature,
        )
        utility = "su_agent" if algorithm == "su" and cfg.su_executed == "agent" else algorithm
        learner = CollectiveLearner(agents, utility, vectors)
    network = ServerNetwork(
        env,
        graph,
        capacities,
        r,
        m,
        rule,
        streams["arrivals"],
        streams["requirements"],
        steps=cfg.steps,
        runs=cfg.runs,
        keep_records=cfg.job_records,
        touches=cfg.touches,
    )
    if learner is not None:
        learner.subscribe(network)
    bound: list[float] = []  # the fluid bound of the last run's jobs (measure() reads it)
    network.run_ended.connect(lambda o: _bound_of_last_run(o, network, bound))
    return Model(
        env,
        [network] if cfg.job_records else [],
        until=network.done,
        parts={"cfg": cfg, "cell": cell, "network": network, "rep": streams.replication, "bound": bound},
    )


def _bound_of_last_run(outcome, network: ServerNetwork, out: list[float]) -> None:
    if outcome.run == network.runs - 1:
        out.append(throughput_bound(network.capacities, outcome.requirements, network.steps))


def measure(model: Model) -> dict[str, float]:
    cfg: Config = model["cfg"]
    network: ServerNetwork = model["network"]
    curve = np.array(network.curve)
    if cfg.curves_dir:
        _write_curve(Path(cfg.curves_dir), model["cell"], model["rep"], cfg, curve)
    return {
        # the curve goes back with the result, into this run's results folder (series/), for report()
        "files": {
            f"{_label(model['cell'], model['rep'], cfg)}.csv": _curve_frame(model["cell"], model["rep"], cfg, curve)
        },
        "efficiency": float(curve[-1]),
        "efficiency_last10": float(curve[-10:].mean()),
        "optimal_estimate": optimal_estimate(network.capacities, network.m, network.r),
        "lp_bound": model["bound"][-1] if model["bound"] else math.nan,
        "mean_degree": 2 * network.graph.number_of_edges() / network.n,
    }


def _label(cell: dict, rep: int, cfg: Config) -> str:
    swept = "".join(f"_{k}{v}" for k, v in cell.items() if k not in ("r", "M", "algorithm"))  # --sweep keys
    return f"r{cell['r']:g}_M{cell['M']}_{cell['algorithm']}{swept}_runs{cfg.runs}_steps{cfg.steps}_rep{rep}"


def _curve_frame(cell: dict, rep: int, cfg: Config, curve: np.ndarray):
    import pandas as pd

    frame = pd.DataFrame({"run": np.arange(curve.size), "efficiency": curve})
    for k, (key, value) in enumerate(cell.items()):
        frame.insert(k, key, value)
    frame.insert(0, "rep", rep)
    frame.insert(0, "steps", cfg.steps)
    return frame


def _write_curve(folder: Path, cell: dict, rep: int, cfg: Config, curve: np.ndarray) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    frame = _curve_frame(cell, rep, cfg, curve)
    tmp = folder / f".{_label(cell, rep, cfg)}.csv.tmp"
    frame.to_csv(tmp, index=False)
    tmp.replace(folder / f"{_label(cell, rep, cfg)}.csv")  # whole files only, even with parallel workers


# --------------------------------------------------------------------------- figures
def figures(curves_dir: str | Path, out_dir: str | Path | None = None) -> list[Path]:
    """Write ``curves.csv`` and, where matplotlib is installed, the analogues of figures 2-5 as PNG."""
    mean = curves(curves_dir)
    out = Path(out_dir) if out_dir is not None else Path(curves_dir).parent
    out.mkdir(parents=True, exist_ok=True)
    mean.to_csv(out / "curves.csv", index=False)
    written = [out / "curves.csv"]
    plt = agg_pyplot(wrote="curves.csv")
    if plt is None:
        return written
    numbers = {(0.2, 2): 2, (0.2, 8): 3, (0.8, 2): 4, (0.8, 8): 5}
    for (r, m), part in mean.groupby(["r", "M"], sort=True):
        fig, ax = plt.subplots(figsize=(5.5, 3.6))
        for a in [x for x in ALGORITHMS if x in set(part["algorithm"])]:
            curve = part[part["algorithm"] == a]
            ax.plot(curve["run"], curve["efficiency"], label=a.upper(), lw=1.2)
        ax.set_xlabel("run t (400 tau each in the paper)")
        ax.set_ylabel("processing efficiency G")
        ax.legend(fontsize=8)
        n = numbers.get((float(r), int(m)), 0)
        ax.set_title(f"Figure {n} analogue: r = {r:g}, M = {m} ({int(part['networks'].max())} networks)", fontsize=9)
        fig.tight_layout()
        path = out / f"figure{n}_r{r:g}_M{m}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def report(results, out_dir: str | Path) -> list[Path]:
    """After a run (``schedlab run``): ``tables.csv`` with the gains, and the curves and figures 2-5."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tables(results.frame()).to_csv(out / "tables.csv", index=False)
    written = [out / "tables.csv"]
    # this run's curves only: saved under out/series by the runner (a shared curves_dir mixes in other runs)
    curves_dir = out / "series" if any((out / "series").glob("*.csv")) else results.config.get("curves_dir", "")
    if curves_dir and any(Path(curves_dir).glob("*.csv")):
        written += figures(curves_dir, out)
    return written


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "tables":  # python scenarios/collectives.py tables [RESULTS_DIR ...]
        import pandas as pd

        folders = sys.argv[2:] or ["results/collectives"]
        table = tables(folders)
        table.to_csv(Path(folders[0]) / "tables.csv", index=False)
        with pd.option_context("display.width", 160, "display.max_columns", 20):
            print(table.round(4).to_string(index=False))
        raise SystemExit(0)
    if len(sys.argv) > 1 and sys.argv[1] == "figures":  # python scenarios/collectives.py figures [CURVES_DIR [OUT]]
        args = sys.argv[2:] or ["results/collectives/series"]  # where a default run saves its curves
        for path in figures(*args[:2]):
            print(f"wrote {path}")
        raise SystemExit(0)
    cli_main()

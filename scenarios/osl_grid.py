"""Multi-agent grid load balancing with Ordinal Sharing Learning (seed 003, Wu et al. 2011, section 4).

N scheduler agents on an ordinal ring submit Poisson(xi) jobs per step each, of lengths
uniform in [5, 995], to M FIFO resources of capacities uniform in [C_min, C_max]. Five
selection rules are compared: OSL (utility tables shared along the ring), LLS (least
loaded, exact global information), RS (uniform random), SLS (independent learners,
completion rewards only) and DMMS (decentralised Min-Min on load information refreshed
every ``dmms_period`` steps). The experiments of section 4:

- ``scale`` (4.1, 4.5; figures 5, 9, 10): (30, 100), (100, 250), (300, 1000) at about 70% load;
- ``load`` (4.2, figure 6): 50%, 70%, 90% at (100, 250);
- ``capacity`` (4.3, figure 7): capacities in [150, 250] at (200, 500), loads 50/70/90%;
- ``ratio`` (4.4, figure 8): (500, 200) at xi = 0.2 and (1000, 500) at xi = 0.4, C in [250, 750];
- ``rates`` (4.6, figure 11): OSL at (100, 250), 70%, alpha and beta each in {0.2, 0.5, 0.8}.

Every rule sees the same capacities and jobs in a given replication. Each run's time
series (ALoR, max and std of LoR, ATPT every ``record_every`` steps) is written to
``series_dir``; ``figures`` averages them over replications into ``timeseries.csv``
and, with matplotlib (the plot extra), draws the analogues of figures 5-11.

    schedlab run scenarios/osl_grid.py --quick
    schedlab run scenarios/osl_grid.py --workers 1 --reps 1
    schedlab run scenarios/osl_grid.py --set experiments=scale --set policies=osl,lls
    python scenarios/osl_grid.py figures results/osl_grid/series
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import simpy

from schedlab.experiment import cli_main
from schedlab.learners import OrdinalSharing, SimpleLearning
from schedlab.model.contracts.grid import GridTopology
from schedlab.model.core.fields import folder, number
from schedlab.model.core.streams import Streams
from schedlab.model.core.workloads import PoissonJobs
from schedlab.plots import agg_pyplot
from schedlab.policies import DecentralisedMinMin, LeastLoaded, RandomSelection
from schedlab.processes import Model
from schedlab.processes.grid.grid import GridModel
from schedlab.topologies import ordinal_ring, resource_capacities

POLICIES = ("osl", "lls", "rs", "sls", "dmms")
EXPERIMENTS = ("scale", "load", "capacity", "ratio", "rates")


@dataclass(frozen=True)
class Config:
    #: experiments of section 4: scale (4.1), load (4.2), capacity (4.3), ratio (4.4), rates (4.6)
    experiments: tuple[str, ...] = EXPERIMENTS
    #: selection rules compared: osl, lls, rs, sls, dmms
    policies: tuple[str, ...] = POLICIES
    #: time steps per run
    steps: int = number(2000, low=1, work=True)
    #: shortest job length J_min
    jmin: float = 5.0
    #: longest job length J_max
    jmax: float = 995.0
    #: OSL learning rate alpha (eq. 3)
    alpha: float = 0.5
    #: OSL sharing factor beta (eq. 6)
    beta: float = 0.5
    #: alpha values (beta fixed) and beta values (alpha fixed) of experiment 'rates'
    rates: tuple[float, ...] = (0.2, 0.5, 0.8)
    #: system loads (eq. 7) of experiments 'load' and 'capacity'
    loads: tuple[float, ...] = (0.5, 0.7, 0.9)
    #: DMMS: steps between refreshes of the grid information service (k)
    dmms_period: int = 5
    #: SLS learning rate
    sls_alpha: float = 0.5
    #: SLS probability of a uniformly random resource (exploration)
    sls_epsilon: float = number(0.1, high=1)
    #: sample ALoR, LoR max/std and ATPT every this many steps
    record_every: int = 10
    #: folder for each run's time series CSV ('' writes none)
    series_dir: str = folder()
    #: keep one record per job (large: about N * xi * steps rows per run)
    job_records: bool = False
    #: replications per cell when --reps is not given
    replications: int = number(3, low=1, work=True)

    def __post_init__(self) -> None:
        for name, allowed in (("experiments", EXPERIMENTS), ("policies", POLICIES)):
            values = getattr(self, name)
            if not values:
                raise ValueError(f"{name}: need at least one of {', '.join(allowed)}")
            bad = [v for v in values if v not in allowed]
            if bad:
                raise ValueError(f"{name}: unknown {bad[0]!r}; choose from {', '.join(allowed)}")
        if self.steps < 1:
            raise ValueError(f"steps must be >= 1, got {self.steps}")
        if not 0 < self.jmin <= self.jmax:
            raise ValueError(f"job length range [jmin, jmax] = [{self.jmin}, {self.jmax}] is empty or not > 0")
        for name in ("alpha", "beta", "sls_alpha", "sls_epsilon"):
            if not 0 <= getattr(self, name) <= 1:
                raise ValueError(f"{name} must be in [0, 1], got {getattr(self, name)}")
        if not self.rates or any(not 0 <= r <= 1 for r in self.rates):
            raise ValueError(f"rates must be one or more values in [0, 1], got {self.rates}")
        if not self.loads or any(not g > 0 for g in self.loads):
            raise ValueError(f"loads must be one or more values > 0, got {self.loads}")
        if self.replications < 1:
            raise ValueError(f"replications must be >= 1, got {self.replications}")
        if self.dmms_period < 1 or self.record_every < 1:
            raise ValueError(f"dmms_period and record_every must be >= 1, got {self.dmms_period}, {self.record_every}")


QUICK = dict(steps=80, record_every=4, replications=1)


def REPS(cfg: Config) -> int:
    """``replications`` (one for --quick)."""
    return cfg.replications


def _xi(load: float, agents: int, resources: int, cmin: float, cmax: float, cfg: Config) -> float:
    """The arrival rate giving system load ``load`` (eq. 7 with the mean capacity)."""
    return load * resources * (cmin + cmax) / 2 / (agents * (cfg.jmin + cfg.jmax) / 2)


def _setting(experiment: str, agents: int, resources: int, xi: float, cmin: float, cmax: float, cfg: Config) -> dict:
    load = xi * agents * (cfg.jmin + cfg.jmax) / 2 / (resources * (cmin + cmax) / 2)
    return dict(
        experiment=experiment,
        agents=agents,
        resources=resources,
        load=round(load, 4),
        xi=round(xi, 6),
        cmin=cmin,
        cmax=cmax,
    )


def cells(cfg: Config) -> list[dict]:
    """One cell per (experiment setting, policy); 'rates' varies OSL's alpha and beta."""
    settings: list[dict] = []
    for exp in cfg.experiments:
        if exp == "scale":
            settings += [
                _setting(exp, n, m, xi, 50.0, 350.0, cfg)
                for n, m, xi in ((30, 100, 0.93), (100, 250, 0.7), (300, 1000, 0.93))
            ]
        elif exp == "load":
            settings += [_setting(exp, 100, 250, _xi(g, 100, 250, 50, 350, cfg), 50.0, 350.0, cfg) for g in cfg.loads]
        elif exp == "capacity":
            settings += [_setting(exp, 200, 500, _xi(g, 200, 500, 150, 250, cfg), 150.0, 250.0, cfg) for g in cfg.loads]
        elif exp == "ratio":
            settings += [_setting(exp, n, m, xi, 250.0, 750.0, cfg) for n, m, xi in ((500, 200, 0.2), (1000, 500, 0.4))]
    out = []
    for s in settings:
        for policy in cfg.policies:
            cell = {**s, "policy": policy}
            if policy == "osl":
                cell.update(learning_rate=cfg.alpha, sharing_factor=cfg.beta)
            out.append(cell)
    if "rates" in cfg.experiments:
        base = _setting("rates", 100, 250, 0.7, 50.0, 350.0, cfg)
        pairs = [(a, cfg.beta) for a in cfg.rates] + [(cfg.alpha, b) for b in cfg.rates if b != cfg.beta]
        out += [{**base, "policy": "osl", "learning_rate": a, "sharing_factor": b} for a, b in pairs]
    return out


def grid_policy(cfg: Config, cell: dict, streams: Streams):
    policy = cell["policy"]
    if policy == "osl":
        return OrdinalSharing(cell["learning_rate"], cell["sharing_factor"], rng=streams["exploration"])
    if policy == "sls":
        return SimpleLearning(cfg.sls_alpha, cfg.sls_epsilon, rng=streams["exploration"])
    if policy == "lls":
        return LeastLoaded(streams["routing"])
    if policy == "rs":
        return RandomSelection(streams["routing"])
    return DecentralisedMinMin(cfg.dmms_period)


def build(env: simpy.Environment, cfg: Config, cell: dict, streams: Streams) -> Model:
    n, m = cell["agents"], cell["resources"]
    # the grid is complete (any agent reaches any resource): only its capacities are needed, drawn as
    # bipartite_grid(n, m, capacity_range=..., seed=streams["capacities"]) draws them, without N x M edges
    capacities = resource_capacities(m, (cell["cmin"], cell["cmax"]), streams["capacities"])
    jobs = PoissonJobs(cell["xi"], cfg.jmin, cfg.jmax, streams["arrivals"], streams["lengths"])
    model = GridModel(
        env,
        GridTopology.complete(n, capacities, sharing=ordinal_ring(n)),
        grid_policy(cfg, cell, streams),
        jobs,
        steps=cfg.steps,
        record_every=cfg.record_every,
        keep_records=cfg.job_records,  # a run completes hundreds of thousands of jobs: no records unless asked
    )
    return Model(
        env,
        [model] if cfg.job_records else [],
        until=model.done,
        parts={"cfg": cfg, "cell": cell, "grid": model, "rep": streams.replication},
    )


def measure(model: Model) -> dict[str, float]:
    cfg: Config = model["cfg"]
    grid: GridModel = model["grid"]
    series = grid.series.as_dict()
    t, alor = series["time"], series["alor"]
    last_quarter = t >= 0.75 * cfg.steps
    half = t >= 0.5 * cfg.steps
    # ALoR's trend over the second half, per 1000 steps: ~0 where it levelled off, > 0 where it diverges
    slope = float(np.polyfit(t[half], alor[half], 1)[0] * 1000) if half.sum() >= 2 else math.nan
    capacity = float(grid.resources.capacities.sum())
    if cfg.series_dir:
        _write_series(Path(cfg.series_dir), model["cell"], model["rep"], cfg.steps, series)
    return {
        # the series go back with the result, into this run's results folder (series/), for report()
        "files": {
            f"{_label(model['cell'])}_s{cfg.steps}_rep{model['rep']}.csv": _series_frame(
                model["cell"], model["rep"], cfg.steps, series
            )
        },
        "alor_final": float(alor[-1]),
        "alor_mean_last_quarter": float(alor[last_quarter].mean()),
        "lor_max_final": float(series["lor_max"][-1]),
        "lor_std_final": float(series["lor_std"][-1]),
        "atpt": grid.series.atpt,
        "alor_slope_last_half": slope,
        "load_eq7": grid.load,
        "offered_load": grid.resources.offered_work / (cfg.steps * capacity),
        "completed_fraction": grid.series.completed / max(grid.resources.submitted, 1),
    }


def _label(cell: dict) -> str:
    name = f"{cell['experiment']}_{cell['agents']}x{cell['resources']}_load{cell['load']:.2f}_{cell['policy']}"
    if cell["experiment"] == "rates":
        name += f"_a{cell['learning_rate']:g}_b{cell['sharing_factor']:g}"
    return name


def _series_frame(cell: dict, rep: int, steps: int, series: dict[str, np.ndarray]):
    import pandas as pd

    frame = pd.DataFrame(series)
    for k, (key, value) in enumerate(cell.items()):
        frame.insert(k, key, value)
    frame.insert(0, "steps", steps)
    frame.insert(0, "rep", rep)
    return frame


def _write_series(folder: Path, cell: dict, rep: int, steps: int, series: dict[str, np.ndarray]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    frame = _series_frame(cell, rep, steps, series)
    tmp = folder / f".{_label(cell)}_s{steps}_rep{rep}.csv.tmp"
    frame.to_csv(tmp, index=False)
    tmp.replace(folder / f"{_label(cell)}_s{steps}_rep{rep}.csv")  # whole files only, even with parallel workers


#: figure number -> (experiment, metric, panels by, title)
FIGURES = {
    5: ("scale", "alor", "scale", "ALoR under small, medium and large scales"),
    6: ("load", "alor", "load", "ALoR under different system loads, (100, 250)"),
    7: ("capacity", "alor", "load", "ALoR with capacities in [150, 250], (200, 500)"),
    8: ("ratio", "alor", "scale", "ALoR with more schedulers than resources"),
    9: ("scale", "lor_max", "scale", "Maximal LoR under small, medium and large scales"),
    10: ("scale", "lor_std", "scale", "Standard deviation of LoR under small, medium and large scales"),
    11: ("rates", "alor", "rates", "OSL with learning rates alpha (beta 0.5) and sharing factors beta (alpha 0.5)"),
}
_KEYS = ["experiment", "agents", "resources", "load", "policy", "learning_rate", "sharing_factor", "time"]


def timeseries(series_dir: str | Path, steps: int | None = None):
    """Every run's series in ``series_dir``, averaged over replications.

    Only runs of ``steps`` steps are kept (default: the longest found).
    """
    import pandas as pd

    files = sorted(Path(series_dir).glob("*.csv"))
    if not files:
        raise ValueError(f"no time series in {str(series_dir)!r}: run the scenario first")
    frame = pd.concat([pd.read_csv(f) for f in files], ignore_index=True)
    steps = int(frame["steps"].max()) if steps is None else steps
    frame = frame[frame["steps"] == steps]
    for key in ("learning_rate", "sharing_factor"):
        if key not in frame:
            frame[key] = math.nan
    values = ["alor", "lor_max", "lor_std", "atpt", "completed", "submitted"]
    out = frame.groupby(_KEYS, dropna=False)[values].mean().reset_index()
    out.insert(len(_KEYS) - 1, "reps", frame.groupby(_KEYS, dropna=False)["rep"].nunique().to_numpy())
    return out


def figures(series_dir: str | Path, out_dir: str | Path | None = None, steps: int | None = None) -> list[Path]:
    """Write ``timeseries.csv`` and, where matplotlib is installed, the analogues of figures 5-11 as PNG."""
    mean = timeseries(series_dir, steps)
    out = Path(out_dir) if out_dir is not None else Path(series_dir).parent
    out.mkdir(parents=True, exist_ok=True)
    mean.to_csv(out / "timeseries.csv", index=False)
    written = [out / "timeseries.csv"]
    plt = agg_pyplot(wrote="timeseries.csv")
    if plt is None:
        return written
    for figure, (exp, metric, by, title) in FIGURES.items():
        data = mean[(mean["experiment"] == exp) & (mean["time"] > 0)]  # log axes: leave out the empty start
        if data.empty:
            continue
        if by == "rates":
            panels = [
                ("alpha (beta = 0.5)", data[data["sharing_factor"] == 0.5], "learning_rate"),
                ("beta (alpha = 0.5)", data[data["learning_rate"] == 0.5], "sharing_factor"),
            ]
        else:
            keys = ["agents", "resources", "load"]
            panels = [
                (f"({n}, {m}), load {g:.0%}", part, "policy") for (n, m, g), part in data.groupby(keys, sort=True)
            ]
        fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.4), squeeze=False)
        for ax, (name, part, line) in zip(axes[0], panels, strict=True):
            for value, curve in part.groupby(line, sort=True):
                label = f"{line.split('_')[0]} {value:g}" if line != "policy" else str(value).upper()
                ax.plot(curve["time"], curve[metric], label=label, lw=1.2)
            ax.set_yscale("log")
            ax.set_title(name, fontsize=9)
            ax.set_xlabel("time step")
            ax.set_ylabel({"alor": "ALoR", "lor_max": "max LoR", "lor_std": "std of LoR"}[metric])
            ax.legend(fontsize=7)
        fig.suptitle(f"Figure {figure} analogue: {title}", fontsize=10)
        fig.tight_layout()
        path = out / f"figure{figure}_{exp}_{metric}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def report(results, out_dir: str | Path) -> list[Path]:
    """After a run: ``timeseries.csv`` and the figures in ``out_dir``, from this run's series files."""
    cfg = Config(**{k: tuple(v) if isinstance(v, list) else v for k, v in results.config.items()})
    own = Path(out_dir) / "series"  # this run's series, saved by the runner: no other run's mixed in
    if any(own.glob("*.csv")):
        return figures(own, out_dir, cfg.steps)
    if not cfg.series_dir:
        return []
    return figures(cfg.series_dir, out_dir, cfg.steps)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "figures":  # python scenarios/osl_grid.py figures [SERIES_DIR [OUT_DIR]]
        args = sys.argv[2:] or ["results/osl_grid/series"]  # where a default run saves its series
        for path in figures(*args[:2]):
            print(f"wrote {path}")
        raise SystemExit(0)
    cli_main()

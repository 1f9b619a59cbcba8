"""Sensitivity of the seed-004 collectives to the learner's parameters, one parameter at a time.

Section 3.2 names the learner's parts (Gaussian candidates about the current vector,
eq. 3's data aging alpha_T and distance weighting alpha_P, a Boltzmann choice) but
none of their values. This scenario varies each of them around the defaults of
``scenarios/collectives.py`` while the others stay put, on one or a few (r, M)
cells, and reports the learners' efficiency and gain per setting: a cell is
``(r, M, algorithm, param, value)``, ``param = "default"`` for the defaults.
RAND does not depend on the learner and runs once, at the defaults. Every setting
sees the same networks and job streams (replication k has the same seed in every
cell), so differences between settings are not differences between networks.

    schedlab run scenarios/collectives_sensitivity.py --workers 1            # (0.8, 8), 2 networks, 100 runs
    schedlab run scenarios/collectives_sensitivity.py --quick
    python scenarios/collectives_sensitivity.py table results/collectives_sensitivity
"""

from __future__ import annotations

import dataclasses
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import simpy

from schedlab.experiment import cli_main
from schedlab.experiment.scenario import load_scenario
from schedlab.model.core import fields
from schedlab.model.core.streams import Streams
from schedlab.papers.collectives_tables import gain
from schedlab.processes import Model

base = load_scenario(Path(__file__).with_name("collectives.py")).module

#: the learner's parameters this scenario may vary, with the type of their values
PARAMETERS = {"temperature": float, "sigma": float, "candidates": int, "alpha_t": float, "alpha_p": float}


@dataclass(frozen=True)
class Config(base.Config):
    #: settings tried one parameter at a time, "name=v1,v2;name=v1": temperature, sigma, candidates, alpha_t, alpha_p
    grid: str = fields.text(
        "temperature=0.05,1.0;sigma=0.03,0.3;candidates=5,50;alpha_t=0,0.1;alpha_p=1,20",
        nonempty=True,
        what='"name=v1,v2;name=v1", one parameter or more',
    )
    arrival_probs: tuple[float, ...] = fields.items((0.8,), gt=0, high=1)
    max_requirements: tuple[int, ...] = (8,)
    algorithms: tuple[str, ...] = ("rand", "su", "wlu")
    networks: int = 2
    runs: int = 100
    warmup: int = 40
    curves_dir: str = fields.folder()

    def __post_init__(self) -> None:
        super().__post_init__()
        settings(self)  # a bad grid is a one-line error now, not in a worker


QUICK = dict(networks=1, runs=12, warmup=4, steps=100, grid="temperature=1.0;alpha_p=1")


def REPS(cfg: Config) -> int:
    return cfg.networks


def settings(cfg: Config) -> list[tuple[str, int | float]]:
    """``(param, value)`` pairs of ``cfg.grid``, in order."""
    out: list[tuple[str, int | float]] = []
    for part in filter(None, (p.strip() for p in cfg.grid.split(";"))):
        name, eq, values = part.partition("=")
        name = name.strip()
        if not eq or name not in PARAMETERS:
            raise ValueError(f"grid: unknown parameter {name!r} in {part!r}; choose from {', '.join(PARAMETERS)}")
        for text in values.split(","):
            try:
                value = PARAMETERS[name](text.strip())
            except ValueError:
                raise ValueError(
                    f"grid: {name} needs {PARAMETERS[name].__name__} values, got {text.strip()!r}"
                ) from None
            dataclasses.replace(cfg, **{name: value, "grid": ""})  # the base Config checks the value's range
            out.append((name, value))
    return out


def cells(cfg: Config) -> list[dict]:
    out = []
    for cell in base.cells(cfg):
        out.append({**cell, "param": "default", "value": math.nan})
        if cell["algorithm"] not in ("rand", "lb"):
            out += [{**cell, "param": name, "value": value} for name, value in settings(cfg)]
    return out


def build(env: simpy.Environment, cfg: Config, cell: dict, streams: Streams) -> Model:
    core = {k: cell[k] for k in ("r", "M", "algorithm")}
    if cell["param"] != "default":
        cfg = dataclasses.replace(cfg, **{cell["param"]: PARAMETERS[cell["param"]](cell["value"]), "grid": ""})
    return base.build(env, cfg, core, streams)


def measure(model: Model) -> dict[str, float]:
    return base.measure(model)


def table(summary):
    """Per (r, M, algorithm, param, value): efficiency, its gain vs RAND against both bounds, and the change."""
    import pandas as pd

    if isinstance(summary, str | Path):
        summary = pd.read_csv(Path(summary) / "summary.csv")
    rows = []
    for (r, m), part in summary.groupby(["r", "M"], sort=True):
        rand = part[part["algorithm"] == "rand"]["efficiency"].mean()
        opt, lp = part["optimal_estimate"].mean(), part["lp_bound"].mean()
        for _, row in part[part["algorithm"] != "rand"].iterrows():
            default = part[(part["algorithm"] == row["algorithm"]) & (part["param"] == "default")]["efficiency"].mean()
            rows.append({
                "r": r, "M": m, "algorithm": row["algorithm"], "param": row["param"], "value": row["value"],
                "efficiency": row["efficiency"], "efficiency_ci95": row.get("efficiency_ci95", math.nan),
                "efficiency_last10": row.get("efficiency_last10", math.nan),
                "change_vs_default": row["efficiency"] - default, "rand": rand,
                "gain": gain(row["efficiency"], rand, opt), "gain_lp": gain(row["efficiency"], rand, lp),
            })  # fmt: skip
    return pd.DataFrame(rows)


def report(results, out_dir: str | Path) -> list[Path]:
    """After a run (``schedlab run``): ``sensitivity.csv``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    table(results.frame()).to_csv(out / "sensitivity.csv", index=False)
    return [out / "sensitivity.csv"]


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "table":  # python scenarios/collectives_sensitivity.py table [RESULTS_DIR]
        import pandas as pd

        folder = sys.argv[2] if len(sys.argv) > 2 else "results/collectives_sensitivity"
        with pd.option_context("display.width", 160, "display.max_columns", 20):
            print(table(folder).round(4).to_string(index=False))
        raise SystemExit(0)
    cli_main()

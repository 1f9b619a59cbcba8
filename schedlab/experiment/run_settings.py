"""What a run computes, settled before any work: its settings, its size, its tasks.

:class:`RunSettings` holds the scenario's config, sweep, replications and seed;
:func:`check_work` estimates the run from the config alone and refuses one too large;
:meth:`RunSettings.tasks` then makes the (cell, replication) tasks one at a time, each
with its replication's seed computed on demand, so nothing scales with the
replication count before the estimate has passed.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.experiment.scenario import Scenario, config_dict, load_scenario, make_config
from schedlab.experiment.seeding import replication_seed

__all__ = [
    "REPLICATION_WORK_LIMIT",
    "WORK_LIMIT",
    "ExperimentError",
    "RunSettings",
    "Task",
    "check_work",
    "estimate_work",
]


class ExperimentError(RuntimeError):
    """A replication failed; the message names the cell and replication, and the cause."""

    def __init__(self, message: str, details: str = "") -> None:
        super().__init__(message)
        self.details = details


@dataclass(frozen=True)
class Task:
    """One replication of one cell: everything a worker needs, and nothing else."""

    scenario_path: str
    overrides: Mapping[str, Any]
    quick: bool
    cell_index: int
    cell: Mapping[str, Any]
    rep: int
    seed: np.random.SeedSequence
    keep_records: bool


#: work units (the product of a config's ``work=True`` fields, times replications) a run may need without ``force``;
#: a run estimated at the limit or over it is refused
WORK_LIMIT = 1e12
#: work units one replication (one cell's product of ``work=True`` fields) may declare without ``force``:
#: a replication runs in one process from start to end and cannot be split, stopped part-way or resumed,
#: so a huge one is refused even in a run of few replications. Ten times the largest default of the
#: shipped scenarios (machine_rl's, about 1e9); for mmc, a unit is a customer: about 10 us and 40 bytes
REPLICATION_WORK_LIMIT = 1e10


def estimate_work(scenario: Scenario, cfg: Any, sweep: Mapping[str, Sequence[Any]] | None, reps: int) -> float:
    """A run's size before it starts: replications times each sweep point's declared work fields.

    Made from the config alone, before any seed, cell or task exists, so a huge
    replication count or work field costs nothing to estimate (and refuse).
    """
    return float(sum(units for _, units in replication_work(scenario, cfg, sweep)) * float(reps))


def replication_work(
    scenario: Scenario, cfg: Any, sweep: Mapping[str, Sequence[Any]] | None
) -> list[tuple[dict[str, Any], float]]:
    """Each sweep point (``{}`` without a sweep) and the work one replication there declares."""
    from schedlab.model.core.fields import work_units

    if not sweep:
        return [({}, work_units(cfg))]
    where = f"scenario {scenario.name!r}"
    return [
        (p, work_units(make_config(scenario.config_type, {**config_dict(cfg), **p}, where=where)))
        for p in _sweep_points(sweep)
    ]


def _sweep_points(sweep: Mapping[str, Sequence[Any]] | None) -> list[dict[str, Any]]:
    if not sweep:
        return [{}]
    names = list(sweep)
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*(sweep[n] for n in names))]


@dataclass(frozen=True)
class RunSettings:
    """What a run computes: the scenario's config, its sweep, replications and seed (not where it runs)."""

    scenario: Scenario
    overrides: Mapping[str, Any]
    cfg: Any
    sweep: Mapping[str, Sequence[Any]]
    reps: int
    seed: int
    quick: bool
    keep_records: bool

    @classmethod
    def make(
        cls,
        scenario: Scenario | str | Path,
        *,
        overrides: Mapping[str, Any] | None = None,
        sweep: Mapping[str, Sequence[Any]] | None = None,
        reps: int | None = None,
        seed: int = 0,
        quick: bool = False,
        keep_records: bool = True,
    ) -> RunSettings:
        """Load the scenario, build its config and settle the replications (no seed or task is made yet)."""
        scn = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
        overrides = dict(overrides or {})
        cfg = scn.config(overrides, quick=quick)
        n_reps = scn.default_reps(cfg) if reps is None else reps
        if isinstance(n_reps, bool) or not isinstance(n_reps, int | np.integer) or n_reps < 1:
            raise ExperimentError(f"reps must be a whole number >= 1, got {n_reps!r}")
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
            raise ExperimentError(f"seed must be a whole number >= 0, got {seed!r}")
        sweep = {k: list(v) for k, v in (sweep or {}).items()}
        return cls(scn, overrides, cfg, sweep, int(n_reps), int(seed), quick, keep_records)

    def identity(self) -> dict[str, Any]:
        """What makes a journal this run's: script and its code, settings, seed (see ``store.run_identity``)."""
        from schedlab.experiment.store import run_identity, script_digest

        scn = self.scenario
        return run_identity(
            script=str(scn.path),
            digest=script_digest(scn.path),
            config=config_dict(self.cfg),
            sweep=dict(self.sweep),
            seed=self.seed,
            reps=self.reps,
            quick=self.quick,
            keep_records=self.keep_records,
        )

    def tasks(self, cells: Sequence[Mapping[str, Any]]) -> Iterator[Task]:
        """Every (cell, replication) task, made as they are taken: seeds are computed, not stored."""
        path = str(self.scenario.path)
        for i, cell in enumerate(cells):
            for r in range(self.reps):
                yield Task(
                    path, self.overrides, self.quick, i, cell, r, replication_seed(self.seed, r), self.keep_records
                )


def check_work(settings: RunSettings, *, force: bool = False) -> float:
    """The run's estimated work; refused (ExperimentError) unless ``force`` at :data:`WORK_LIMIT` or over,
    or when one replication of a cell declares :data:`REPLICATION_WORK_LIMIT` or over.

    The estimate refuses before anything runs; it does not bound a run that passes it
    (a work unit is whatever the scenario's ``work=True`` fields count, not a second).
    """
    work = estimate_work(settings.scenario, settings.cfg, settings.sweep, settings.reps)
    if work >= WORK_LIMIT and not force:
        raise ExperimentError(
            f"this run is estimated at {work:.3g} work units ({settings.reps} replication(s) x the config's work "
            f"fields), at or over the limit of {WORK_LIMIT:.0e}: it would likely run out of memory or time. "
            "Lower them, or add --force"
        )
    for point, units in replication_work(settings.scenario, settings.cfg, settings.sweep):
        if units >= REPLICATION_WORK_LIMIT and not force:
            fields = _work_fields(settings, point)
            where = f"cell {point}" if point else "each cell"
            raise ExperimentError(
                f"one replication of {where} is estimated at {units:.3g} work units ({fields}), at or over the "
                f"limit of {REPLICATION_WORK_LIMIT:.0e} per replication: one replication runs in one process from "
                "start to end and would likely run for days or out of memory. Lower them, or add --force"
            )
    return work


def _work_fields(settings: RunSettings, point: Mapping[str, Any]) -> str:
    """The work fields of the config at sweep ``point``, as ``name=value`` (what to lower)."""
    from schedlab.model.core.fields import field_checks

    values = {**config_dict(settings.cfg), **point}
    checks = field_checks(settings.scenario.config_type)
    return ", ".join(f"{name}={values[name]!r}" for name, check in checks.items() if check.work)

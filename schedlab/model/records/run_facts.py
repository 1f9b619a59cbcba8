"""What a figure must know of one run that its job records do not say: the machine's size, the time unit, units.

A utilization plot divides busy CPUs by the machine's CPUs, and a chart over a log's
times reads best in hours or days. Neither is in the records, and the run's config
may not say it either: ``scenarios/first_look.py``'s config has ``c = 4`` for its
M/M/c cell while its log cells run on the log's 128 CPUs. So a scenario's
``measure`` hands them over per run as a small file, which the runner saves as
``series/cell<i>-rep<r>-run.json`` and ``schedlab plot`` reads for the run it draws.
The same file may name each metric's unit in that cell: one scenario can measure a
wait in hours on a log and in mean service times on a queue, and a plot must not put
the two on one axis.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

__all__ = ["RUN_FILE", "TIME_UNITS", "read_run_facts", "run_facts"]

#: the file's name inside a measure's ``"files"`` (the runner prefixes ``series/cell<i>-rep<r>-``)
RUN_FILE = "run.json"
#: what simulated time counts: seconds (a log), or an abstract unit (a queueing model); any
#: other text names the abstract unit (``"mean service times"``), for the time axis's label
TIME_UNITS = ("s", "")


def run_facts(capacity: float, time_unit: str = "s", units: Mapping[str, str] | None = None) -> dict[str, str]:
    """``{"run.json": text}`` for a measure's ``"files"``: the run's CPUs, what its time counts
    and its metrics' units.

    Parameters
    ----------
    capacity
        The CPUs (CPUs, cores) of the machine the run's jobs ran on.
    time_unit
        ``"s"`` when simulated time is seconds (a log's replay), ``""`` when it is
        unitless, or the name of its unit when that is not seconds (``"mean service
        times"``: a queue whose mean service time is 1), which the time axis then names.
    units
        Each metric's unit in this run, as an axis names it (``{"wait": "hours"}``);
        ``schedlab plot`` draws a metric's cells of different units in separate panels.
    """
    if not (isinstance(capacity, int | float) and math.isfinite(capacity) and capacity > 0):
        raise ValueError(f"run facts: capacity must be a number > 0, got {capacity!r}")
    if not isinstance(time_unit, str):
        raise ValueError(f"run facts: time_unit must be 's', '' or a unit's name, got {time_unit!r}")
    named = dict(units or {})
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in named.items()):
        raise ValueError(f"run facts: units must map metric names to unit names, got {named!r}")
    facts: dict[str, Any] = {"capacity": capacity, "time_unit": time_unit}
    if named:
        facts["units"] = named
    return {RUN_FILE: json.dumps(facts)}


def read_run_facts(text: str, where: str) -> dict[str, Any]:
    """The facts :func:`run_facts` wrote, checked; ``where`` (a path) names the file in errors."""
    try:
        facts = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where}: not JSON ({exc.msg}, line {exc.lineno})") from None
    capacity = facts.get("capacity") if isinstance(facts, dict) else None
    if not (isinstance(capacity, int | float) and math.isfinite(capacity) and capacity > 0):
        raise ValueError(f"{where}: field capacity must be a number > 0, got {capacity!r}")
    unit = facts.get("time_unit", "")
    if not isinstance(unit, str):
        raise ValueError(f"{where}: field time_unit must be 's', '' or a unit's name, got {unit!r}")
    units = facts.get("units", {})
    if not (isinstance(units, dict) and all(isinstance(v, str) for v in units.values())):
        raise ValueError(f"{where}: field units must map metric names to unit names, got {units!r}")
    return {"capacity": float(capacity), "time_unit": unit, "units": units}

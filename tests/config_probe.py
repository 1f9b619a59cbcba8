"""A probe of every scenario's Config: each field set to each bad value, as ``--set`` would.

``python tests/config_probe.py`` prints how many bad values each scenario accepts, with
the checks of :mod:`schedlab.model.fields` and without them (``--before``).
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from schedlab.experiment import scenario as scenario_module
from schedlab.experiment.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = sorted((ROOT / "scenarios").glob("*.py")) + [ROOT / "schedlab" / "scenarios" / "trace_replay.py"]
BAD = ("inf", "nan", "-1", "", "1e300", str(10**12))


def probe(scripts=SCRIPTS, bad=BAD) -> tuple[int, int, list[str]]:
    """(values tried, values accepted, 'scenario.field=value' accepted) over ``scripts``."""
    tried, accepted = 0, []
    for path in scripts:
        scn = load_scenario(path)
        for f in dataclasses.fields(scn.config_type):
            if f.type in ("bool", bool):
                continue  # switches: the parser refuses what is not true/false
            for value in bad:
                tried += 1
                try:
                    scn.config({f.name: value})
                except (ValueError, TypeError, OSError):
                    continue
                accepted.append(f"{scn.name}.{f.name}={value!r}")
    return tried, len(accepted), accepted


if __name__ == "__main__":
    if "--before" in sys.argv:
        scenario_module.validate = lambda cfg: None
    tried, n, names = probe()
    print(f"{n} of {tried} bad values accepted")
    for name in names:
        print("  ", name)

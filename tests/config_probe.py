"""A probe of every scenario's Config: each field set to each bad value, as ``--set`` would.

``python tests/config_probe.py`` prints how many bad values each scenario accepts, with
the checks of :mod:`schedlab.model.core.fields` and without them (``--before``).
"""

from __future__ import annotations

import dataclasses
import sys
import types
import typing
from pathlib import Path

from schedlab.experiment import scenario as scenario_module
from schedlab.experiment.runner import WORK_LIMIT
from schedlab.experiment.scenario import ScenarioError, coerce, load_scenario, make_config
from schedlab.learners.dqn import DQNConfig
from schedlab.model.core.fields import work_units

#: learners' configs probed too (those whose checks are declared with schedlab.model.core.fields)
LEARNER_CONFIGS = (DQNConfig,)


def direct_configs() -> list[tuple[type, dict]]:
    """Environments' and learners' configs, each with what it needs besides the field probed.

    These are built directly, as their users build them (``DeepRMEnv(**overrides)``,
    ``TDConfig(...)``), not through ``make_config``, which would add the type rules a
    direct construction gets only from the config's own ``__post_init__``.
    """
    from schedlab.envs.deeprm import DeepRMConfig
    from schedlab.envs.grid_obs import GridAgentsConfig
    from schedlab.envs.machine_env import MachineEnvConfig
    from schedlab.envs.network_obs import NetworkAgentsConfig
    from schedlab.learners.approximators import ApproximatorConfig
    from schedlab.learners.sarsa import SarsaConfig
    from schedlab.learners.td import LearningRate, TDConfig
    from schedlab.model.papers.deeprm_jobs import DeepRMJobs

    return [
        (TDConfig, {}), (LearningRate, {}), (DeepRMConfig, {}),
        (DeepRMJobs, {"capacities": {"cpus": 20, "memory": 20}}), (MachineEnvConfig, {"cpus": 4}),
        (GridAgentsConfig, {}), (NetworkAgentsConfig, {}), (SarsaConfig, {}), (ApproximatorConfig, {}),
    ]

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = [*sorted((ROOT / "scenarios").glob("*.py")), ROOT / "schedlab" / "replay" / "trace_replay.py"]
BAD = ("inf", "nan", "-1", "", "1e300", str(10**12))


def probe(scripts=SCRIPTS, bad=BAD, *, numeric_only: bool = False, with_estimate: bool = True,
          direct: bool = True) -> tuple[int, int, list[str]]:
    """(values tried, values accepted, 'scenario.field=value' accepted) over ``scripts`` (and, with
    ``direct``, over :func:`direct_configs`)."""
    tried, accepted = 0, []
    targets = []
    for path in scripts:
        try:
            scn = load_scenario(path)
        except ScenarioError as exc:
            if "defines no build" in str(exc):
                continue  # a helper script beside the scenarios, not one
            raise
        targets.append((scn.name, scn.config_type, scn.default_reps))
    targets += [(cls.__name__, cls, lambda cfg: 1) for cls in LEARNER_CONFIGS]
    for name, config_type, reps in targets:
        for f in dataclasses.fields(config_type):
            if f.type in ("bool", bool) or (numeric_only and "str" in str(f.type)):
                continue  # switches: the parser refuses what is not true/false; words are names and paths
            for value in bad:
                tried += 1
                try:
                    cfg = make_config(config_type, {f.name: value})
                except (ValueError, TypeError, OSError):
                    continue
                if with_estimate and work_units(cfg) * reps(cfg) > WORK_LIMIT:
                    continue  # `schedlab run` refuses it before any work, with the estimate
                accepted.append(f"{name}.{f.name}={value!r}")
    for config_type, needs in direct_configs() if direct else ():
        hints = typing.get_type_hints(config_type)
        for f in dataclasses.fields(config_type):
            if f.name in needs or not _numeric(hints[f.name]):
                continue  # switches, names, mappings, callables and objects: not numbers
            for value in bad:
                tried += 1
                try:
                    config_type(**{**needs, f.name: coerce(f.name, value, hints[f.name])})
                except (ValueError, TypeError, OSError):
                    continue
                accepted.append(f"{config_type.__name__}.{f.name}={value!r}")
    return tried, len(accepted), accepted


def _numeric(hint) -> bool:
    """Whether a field of type ``hint`` holds numbers (an int, a float, a tuple of them, or None)."""
    if hint in (int, float):
        return True
    args = [a for a in typing.get_args(hint) if a not in (type(None), Ellipsis)]
    return typing.get_origin(hint) in (tuple, typing.Union, types.UnionType) and bool(args) and all(map(_numeric, args))


if __name__ == "__main__":
    before = "--before" in sys.argv
    if before:
        scenario_module.validate = lambda cfg: None
    tried, n, names = probe(numeric_only="--numeric" in sys.argv, with_estimate=not before)
    print(f"{n} of {tried} bad values accepted")
    for name in names:
        print("  ", name)

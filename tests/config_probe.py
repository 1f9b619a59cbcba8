"""A probe of every scenario's Config: each field set to each bad value, as ``--set`` would.

``python tests/config_probe.py`` prints how many bad values each scenario accepts, with
the checks of :mod:`schedlab.model.core.fields` and without them (``--before``), and which
of those are meant (:data:`MEANT`, each with its reason) and which are not.
"""

from __future__ import annotations

import ast
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
    from schedlab.envs.grid.obs import GridAgentsConfig
    from schedlab.envs.machine.config import MachineEnvConfig
    from schedlab.envs.network.obs import NetworkAgentsConfig
    from schedlab.envs.slotted.deeprm import DeepRMConfig
    from schedlab.learners.approximators import ApproximatorConfig
    from schedlab.learners.sarsa import SarsaConfig
    from schedlab.learners.td import LearningRate, TDConfig
    from schedlab.model.core.deeprm_jobs import DeepRMJobs

    return [
        (TDConfig, {}),
        (LearningRate, {}),
        (DeepRMConfig, {}),
        (DeepRMJobs, {"capacities": {"cpus": 20, "memory": 20}}),
        (MachineEnvConfig, {"cpus": 4}),
        (GridAgentsConfig, {}),
        (NetworkAgentsConfig, {}),
        (SarsaConfig, {}),
        (ApproximatorConfig, {}),
    ]


ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = [*sorted((ROOT / "scenarios").glob("*.py")), ROOT / "schedlab" / "replay" / "log_replay.py"]
BAD = ("inf", "nan", "-1", "", "1e300", str(10**12), "0", "x")

_FOLDER = "an output folder or file: any name can be meant ('' writes none, or uses the cache)"
_SEED = "a seed: any whole number up to 2**63 - 1"
_ZERO = {  # what 0 means where it is accepted
    "alpha_t": "no ageing of experience (the sensitivity grid tries alpha_t=0)",
    "alpha_p": "no discount by distance between vectors (an ablation beside alpha_t=0)",
    "warmup": "no random-vector runs before learning",
    "lb_tolerance": "shed any load above the mean",
    "shortcut_prob": "a plain ring, no shortcuts",
    "sw_shortcut_prob": "a plain ring, no shortcuts",
    "learning_starts": "learn from the first step",
    "exploration_fraction": "epsilon at its end value from the start",
    "guide_fraction": "no guided exploration (DQNConfig's default)",
    "eval_epsilon": "greedy evaluation",
    "end_epsilon": "greedy after the decay",
    "sls_epsilon": "greedy SLS",
    "epsilon": "greedy SARSA",
    "warmup_fraction": "no warm-up left out of the statistics",
    "gamma": "a myopic learner (no discount of the future)",
    "alpha": "learning rate 0: a no-learning baseline",
    "sls_alpha": "learning rate 0: a no-learning baseline",
    "eta": "learning rate 0: a no-learning baseline",
    "beta": "no sharing between agents",
    "rates": "alpha or beta 0 in the 'rates' experiment: no learning, no sharing",
    "latency_scale": "documented: 0 makes both topologies the complete grid",
    "hops": "documented: 0 is every resource a broker is connected to",
    "drop": "no jobs left out at the ends",
    "log_week": "documented: 0 is the busiest segment",
    "log_jobs": "documented: 0 is all the segment's jobs",
    "log_cores": "documented: 0 is the log's own cores",
    "cpus": "documented: 0 is the header's MaxProcs",
    "lambda_s": "fair share only",
    "pretrain": "no pre-training",
    "pool_pretrain": "no pre-training",
    "weight_decay": "no weight decay",
    "train_time": "no training: the test of an untrained learner",
    "starts": "one window, at job 0",
    "idle_timeout": "idle shutdown switches a node off as soon as it is idle",
    "energy_weight": "energy left out of the reward (the default)",
    "failure_epoch": "documented: the failure log's times as they are",
    "mtbf": "documented: no random failures",
    "monitoring_queue": "queue 0",
    "train_seed": _SEED,
    "window_seed": _SEED,
    "search_generations": "documented: no evolution-strategy search, PPO alone trains (rlscheduler)",
    "train_steps": "documented: no PPO after the search (rlscheduler; the other scenarios refuse 0)",
    "ppo_steps": "documented: no PPO after the search, the default (grid_training)",
}
#: field -> {value (or "*": any): why it is meant}; an accepted value not here is a defect of the probe's rules
MEANT: dict[str, dict[str, str]] = {
    **{name: {"0": why} for name, why in _ZERO.items()},
    **{name: {"*": _FOLDER} for name in ("curves_dir", "out_dir", "series_dir", "pool_log", "models_dir")},
    "generations": {"0": "documented: no evolution strategies, the imitated policy is kept (grid_training)"},
    "imitation_episodes": {"0": "documented: no imitation, the search starts from random weights (grid_training)"},
    "train_seed": {"0": _SEED, str(10**12): _SEED},
    "window_seed": {"0": _SEED, str(10**12): _SEED},
    "recipe_seed": {"0": _SEED, str(10**12): _SEED},
    "recipe_generations": {"0": "documented: no evolution strategies, the imitated policy is kept (machine_rl)"},
    "recipe_imitation": {"0": "documented: no imitation, the search starts from random weights (machine_rl)"},
    "recipe_imitate": {"": "documented: behaviour cloning copies the teacher, recipe_teacher (machine_rl)"},
    "recipe_candidates": {"": "documented: recipe_seed's model alone, no choice among seeds (machine_rl)"},
    "seeds": {
        "0": "one training seed, 0: " + _SEED,
        str(10**12): "one training seed: " + _SEED,
        "": "documented: the seeds of the models evaluated, else 0, 1, 2 (rlscheduler)",
    },
    "eval_seed": {"0": _SEED, str(10**12): _SEED},
    "trained_on": {"": "documented: empty evaluates the models of the log itself"},
    "easy_model": {"": "documented: empty, model's models serve both backfilling settings"},
    "training_range": {"": "documented: empty is RLScheduler's protocol, training and test windows from the same jobs"},
    "train_logs": {"": "documented: empty trains on log alone, no mixture of logs"},
    "imitate": {"": "documented: no imitation, training starts from random weights"},
    "draw_within": {"0": "documented: 0 draws as the paper did for this log (or among all jobs)"},
    "learning_rate_half_life": {
        v: "inf keeps the rate constant; a huge half-life is the same, and costs no work"
        for v in ("inf", "1e300", str(10**12))
    },
    "starts": {"": "no explicit starts: windows drawn from window_seed", "0": _ZERO["starts"]},
    "walltime": {"": "documented: kill, or run-on under compat rlscheduler"},
    "platform": {"": "documented: no platform, one machine of the log's CPUs"},
    "failures": {"": "documented: no failure log"},
    "failure_cluster": {"": "documented: every cluster's lines of the failure log"},
    "log_reading": {"": "documented: the paper's reading"},
    "monitoring_queue": {"": "documented: no monitoring queue", "0": _ZERO["monitoring_queue"]},
    "half_life": {
        v: "inf keeps the rate constant; a huge half-life is the same" for v in ("inf", "1e300", str(10**12))
    },
    "initial_p": {v: "documented: a starting value, any sign (seed 000 starts from 0)" for v in ("0", "-1")},
    "initial_rho": {v: "documented: a starting estimate of the average reward, any sign" for v in ("0", "-1")},
    "short_share": {"0": "every job long: a share of the mix"},
    "rate": {"0": "an environment with no arrivals: an edge its property tests step through"},
    "arrival_prob": {"0": "an environment with no arrivals: an edge its property tests step through"},
    "discount_time": {"0": "documented: gamma per decision, the paper's reading"},
}


def meant(accepted: str) -> str | None:
    """Why an accepted ``'scenario.field=value'`` of :func:`probe` is meant, or None."""
    target, value = accepted.split("=", 1)
    reasons = MEANT.get(target.split(".")[-1], {})
    return reasons.get(ast.literal_eval(value)) or reasons.get("*")


def probe(
    scripts=SCRIPTS, bad=BAD, *, numeric_only: bool = False, with_estimate: bool = True, direct: bool = True
) -> tuple[int, int, list[str]]:
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
                    if with_estimate and work_units(cfg) * reps(cfg) >= WORK_LIMIT:
                        continue  # `schedlab run` refuses it before any work, with the estimate
                except (ValueError, TypeError, OSError):
                    continue
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
    unmeant = [name for name in names if meant(name) is None]
    print(f"{n} of {tried} bad values accepted: {n - len(unmeant)} meant (each with its reason), {len(unmeant)} not")
    for name in unmeant:
        print("   not meant:", name)
    if "--why" in sys.argv:
        for name in names:
            if name not in unmeant:
                print(f"   meant: {name}: {meant(name)}")

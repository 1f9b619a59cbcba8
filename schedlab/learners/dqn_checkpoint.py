"""A DQN trained for a scenario: the best-validated weights, cached on disk by their settings.

Scenarios that compare a learned scheduler with heuristics train it once, before their
cells run, and every worker then loads the same weights. :func:`train_keeping_best`
trains with a validation callback and keeps the weights that scored best (the last
ones are often not: a DQN's greedy policy wanders as it trains);
:func:`cached_checkpoint` trains only when no checkpoint of the same settings exists,
and writes the training curve beside it; :func:`train_checkpoint` is the same for
``schedlab train SCENARIO``, which refuses a folder that holds the training already
unless ``--resume``; :func:`scenario_dqn_config` is the learner's settings from the ones
a scenario's config names alike.
"""

from __future__ import annotations

import copy
import csv
import dataclasses
import math
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from schedlab.learners.dqn import DQN, DQNConfig, train

if TYPE_CHECKING:
    import gymnasium as gym

__all__ = [
    "CheckpointError",
    "cache_dir",
    "cached_checkpoint",
    "check_checkpoint",
    "checkpoint_path",
    "refuse_started",
    "scenario_dqn_config",
    "train_checkpoint",
    "train_keeping_best",
    "weights_sha256",
]


def train_keeping_best(
    env: gym.Env,
    config: DQNConfig,
    *,
    seed: int,
    validate: Callable[[DQN, int], dict[str, float]],
    every: int,
    keep_best: bool = True,
    name: str = "dqn",
    guide: Callable[[gym.Env], int] | None = None,
) -> tuple[DQN, list[dict[str, float]]]:
    """Train on ``env``, validating every ``every`` steps; keep the best-scoring weights.

    Parameters
    ----------
    validate
        ``validate(agent, step)`` returns a row for the training curve with a ``"score"``
        (lower is better), e.g. the mean slowdown on fixed validation sequences.
    keep_best
        Load the weights of the best score into the returned agent (and its target
        network); otherwise the last weights stay.
    name
        Prefix of the progress lines printed to stderr.

    Returns
    -------
    The agent and the training curve (:func:`schedlab.learners.dqn.train`'s rows,
    the validation rows with the seconds since training began).
    """
    began = time.perf_counter()
    best: dict = {"score": math.inf}

    def on_eval(agent: DQN, step: int) -> dict[str, float]:
        row = validate(agent, step)
        if row["score"] < best["score"]:
            best.update(score=row["score"], step=step, policy=copy.deepcopy(agent.policy.state_dict()))
        print(f"{name}: step {step}: " + ", ".join(f"{k}={v:.3f}" for k, v in sorted(row.items())), file=sys.stderr)
        return row | {"seconds": time.perf_counter() - began}

    agent, curve = train(env, config, seed=seed, callback=on_eval, callback_every=every, guide=guide)
    if keep_best and "policy" in best:
        agent.policy.load_state_dict(best["policy"])
        agent.sync_target()
        print(f"{name}: kept the weights of step {best['step']} (score {best['score']:.3f})", file=sys.stderr)
    return agent, curve


class CheckpointError(ValueError):
    """A cached checkpoint does not belong to the settings asked for, or holds broken weights."""


def cache_dir(name: str = "") -> Path:
    """Where trained checkpoints are cached: ``$SCHEDLAB_CACHE``, else the platform's user cache folder.

    Linux ``$XDG_CACHE_HOME/schedlab`` (``~/.cache/schedlab``), macOS
    ``~/Library/Caches/schedlab``, Windows ``%LOCALAPPDATA%\\schedlab\\Cache``; ``name``
    (a scenario's) is a subfolder.
    """
    if os.environ.get("SCHEDLAB_CACHE"):
        base = Path(os.environ["SCHEDLAB_CACHE"])
    elif sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local")) / "schedlab" / "Cache"
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches" / "schedlab"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "schedlab"
    return base / name if name else base


def scenario_dqn_config(cfg: Any, **own: Any) -> DQNConfig:
    """The learner's settings from a scenario's ``cfg``, which names them alike, and the scenario's ``own``.

    ``cfg`` has ``train_steps`` (the learner's ``total_steps``), ``learning_starts``,
    ``buffer_size``, ``hidden``, ``learning_rate``, ``reward_scale`` and
    ``exploration_fraction`` (``scenarios/deeprm.py``'s and ``scenarios/machine_rl.py``'s
    configs); ``own`` are any other :class:`~schedlab.learners.dqn.DQNConfig` fields.
    """
    return DQNConfig(
        total_steps=cfg.train_steps,
        learning_starts=cfg.learning_starts,
        buffer_size=cfg.buffer_size,
        hidden=cfg.hidden,
        learning_rate=cfg.learning_rate,
        reward_scale=cfg.reward_scale,
        exploration_fraction=cfg.exploration_fraction,
        **own,
    )


def _plain(config: DQNConfig) -> dict:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(config).items()}


def check_checkpoint(path: Path, config: DQNConfig) -> None:
    """Refuse ``path`` unless it was trained with ``config``, by this schedlab version, and its weights are finite."""
    import torch

    from schedlab import __version__

    state = torch.load(path, weights_only=True)
    stored, asked = state.get("config", {}), _plain(config)
    differ = sorted(k for k in set(stored) | set(asked) if stored.get(k) != asked.get(k))
    if differ:
        shown = ", ".join(f"{k}={stored.get(k)!r} (asked {asked.get(k)!r})" for k in differ[:4])
        raise CheckpointError(f"{path}: was trained with other settings: {shown}; delete it to retrain")
    if state.get("schedlab") not in (None, __version__):
        raise CheckpointError(f"{path}: was trained by schedlab {state['schedlab']}, this is {__version__}")
    for part in ("policy", "target"):
        for name, tensor in state[part].items():
            if not bool(torch.isfinite(tensor).all()):
                raise CheckpointError(f"{path}: {part} weight {name} is not finite; delete it to retrain")


def cached_checkpoint(
    out_dir: str | Path,
    key: str,
    make: Callable[[], tuple[DQN, list[dict[str, float]]]],
    *,
    config: DQNConfig | None = None,
    name: str = "",
) -> Path:
    """``out_dir/dqn_<key>-<version>.pt``, made by ``make()`` unless it exists; the curve goes beside it.

    ``key`` should hash every setting that changes the trained agent; schedlab's
    version is added to it (``out_dir`` empty: :func:`cache_dir` of ``name``, a scenario's). With ``config``
    (the learner's settings asked for), an existing checkpoint trained with other
    settings, or with weights that are not finite, is refused with a
    :class:`CheckpointError` saying why. The checkpoint appears whole or not at all
    (written aside, then renamed), so a worker never reads half of one.
    """
    path = checkpoint_path(out_dir, key, name)
    out, key = path.parent, path.stem.removeprefix("dqn_")
    if path.exists():
        if config is not None:
            check_checkpoint(path, config)
        return path
    agent, curve = make()
    if config is not None and agent.config != config:
        raise CheckpointError(f"the agent trained for {path} has other settings than the ones asked for")
    out.mkdir(parents=True, exist_ok=True)
    names = sorted({k for row in curve for k in row})
    with open(out / f"curve_{key}.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=names)
        writer.writeheader()
        writer.writerows(curve)
    tmp = path.with_suffix(".tmp")
    agent.save(tmp)
    tmp.replace(path)
    return path


def checkpoint_path(out_dir: str | Path, key: str, name: str = "") -> Path:
    """Where :func:`cached_checkpoint` keeps ``key``'s checkpoint: ``out_dir/dqn_<key>-<version>.pt``."""
    from schedlab import __version__

    out = Path(out_dir) if str(out_dir) else cache_dir(name)
    return out / f"dqn_{key}-{__version__}.pt"


def train_checkpoint(
    out_dir: str | Path,
    key: str,
    make: Callable[[], tuple[DQN, list[dict[str, float]]]],
    *,
    config: DQNConfig,
    name: str,
    resume: bool,
) -> tuple[Path, str]:
    """``schedlab train SCENARIO`` for a scenario's DQN: :func:`cached_checkpoint`'s file and its weights' sha256.

    A checkpoint there already is refused unless ``resume``; then it is kept as it is
    (checked against ``config``): a DQN is trained whole, with no state to go on from.
    """
    refuse_started(checkpoint_path(out_dir, key, name), resume)
    path = cached_checkpoint(out_dir, key, make, config=config, name=name)
    return path, weights_sha256(path)


def refuse_started(path: Path, resume: bool) -> None:
    """Refuse, in one line, a checkpoint at ``path`` unless ``resume``: a command trains what it has not yet.

    A scenario training more than one model calls it for every one before the first starts.
    """
    if path.exists() and not resume:
        raise ValueError(f"--out: {path} holds this training already: add --resume to keep it, or choose another --out")


def weights_sha256(path: str | Path) -> str:
    """SHA-256 of a checkpoint's policy weights (float32, little-endian, ``state_dict`` order): the agent's identity.

    The same whatever file holds them (the file's bytes also carry the version and counters).
    """
    import hashlib

    import torch

    digest = hashlib.sha256()
    for tensor in torch.load(path, weights_only=True)["policy"].values():
        digest.update(tensor.detach().cpu().numpy().astype("<f4").tobytes())
    return digest.hexdigest()

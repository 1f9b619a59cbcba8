"""What a training leaves in its folder: ``model.pt``, ``settings.json``, ``curve.csv``, ``curve.png``.

``model.pt`` (torch's format) holds the best weights as the float64 vector the search
found (see :mod:`schedlab.training.policy`) with the environment id, its settings and
the observation's shape; :func:`load_policy` refuses, in one line, a model saved for
another environment or observation shape. ``settings.json`` says how it was made
(the env, its settings, the observation shape, the training's config, the versions of
the libraries) and its ``weights sha256``.
"""

from __future__ import annotations

import csv
import json
import platform
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import torch

from schedlab.plots import agg_pyplot
from schedlab.training.episodes import env_name, spaces
from schedlab.training.kernel import make_scorer
from schedlab.training.policy import Scorer

__all__ = ["CURVE_FIELDS", "load_policy", "save_model", "write_curve"]

CURVE_FIELDS = ("generation", "train_cost", "validation_score", "wall_s", "phase", "steps")


def _versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for name in ("schedlab", "numpy", "torch", "gymnasium"):
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "unknown"
    return found


def save_model(out: Path, policy: Scorer, env_id: str, config: dict[str, Any], extra: dict[str, Any]) -> Path:
    """Write ``model.pt`` and ``settings.json`` for ``policy``; the model's path.

    A kernel scorer's files also say ``"policy": "kernel"``; an MLP's say nothing of it
    (files from before the kernel existed are MLPs, and stay as they were).
    """
    about = {
        "env": env_id,
        "env_settings": config["env_settings"],
        "observation_shape": [policy.obs_size],
        "n_actions": policy.n_actions,
        "hidden": list(policy.hidden),
    }
    if policy.kind != "mlp":
        about["policy"] = policy.kind
    path = out / "model.pt"
    torch.save({**about, "vector": torch.from_numpy(policy.vector())}, path)
    settings = {**about, "config": config, "versions": _versions(), "weights_sha256": policy.sha256(), **extra}
    (out / "settings.json").write_text(json.dumps(settings, indent=2) + "\n")
    return path


def load_policy(path: str | Path, env: Any) -> Scorer:
    """The policy saved at ``path``, for ``env`` (Gymnasium or Parallel); refused in one line if made for another."""
    saved = torch.load(path, weights_only=True)
    env_id = env_name(env)
    if saved["env"] != env_id:
        raise ValueError(f"{path}: a model for {saved['env']}, not for {env_id}")
    observation, action = spaces(env)
    shape = list(observation.shape)
    if saved["observation_shape"] != shape:
        raise ValueError(
            f"{path}: a model for observations of shape {saved['observation_shape']}, this env's are {shape}"
        )
    if saved["n_actions"] != int(action.n):
        raise ValueError(f"{path}: a model for {saved['n_actions']} actions, this env has {action.n}")
    policy = make_scorer(
        saved.get("policy", "mlp"), env, (observation, action), saved["hidden"], np.random.default_rng(0)
    )
    policy.set_vector(saved["vector"].numpy())
    return policy


def write_curve(out: Path, rows: list[dict[str, Any]]) -> None:
    """``curve.csv`` (a row per generation, then per PPO validation) and, with matplotlib, ``curve.png``."""
    with open(out / "curve.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=CURVE_FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    plt = agg_pyplot()
    if plt is None:
        return  # the figure needs the plot extra; the CSV is the record
    ppo = [r for r in rows if r.get("phase") == "ppo"]
    search = [r for r in rows if r.get("phase") != "ppo"]
    fig, axes = plt.subplots(1, 2 if ppo else 1, figsize=(10 if ppo else 6, 3.5), sharey=True, squeeze=False)
    ax = axes[0, 0]
    gens = [r["generation"] for r in search]
    ax.plot(gens[1:], [r["train_cost"] for r in search[1:]], label="training cost (population mean)")
    ax.plot(gens, [r["validation_score"] for r in search], marker="o", label="validation score")
    ax.set_xlabel("generation")
    ax.set_ylabel("cost (relative to the teacher when given)")
    if ppo:
        steps = [r["steps"] for r in ppo]
        axes[0, 1].plot(
            steps[1:], [r["train_cost"] for r in ppo[1:]], marker=".", label="training cost (sampled episodes)"
        )  # a marker: a stage of one validation has one point, which a bare line does not draw
        axes[0, 1].plot(steps, [r["validation_score"] for r in ppo], marker="o", label="validation score (greedy)")
        axes[0, 1].set_xlabel("PPO steps")
    for a in axes[0]:
        a.axhline(0.0, color="grey", lw=0.8, ls="--")
        a.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "curve.png", dpi=110)
    plt.close(fig)

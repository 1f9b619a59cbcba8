"""A training's whole state after each generation and each PPO validation, so that ``--resume`` goes on exactly.

:class:`Checkpoint` holds what the next generation depends on (the weights, Adam's
moments, the training-episode stream's position, the best weights so far and their
validation score) and the curve so far. It is written to ``checkpoint.pkl`` in the
output folder after each generation, atomically (a temporary file renamed over the
old one), so a run killed at any moment leaves the last whole generation. A resumed
run must have the same settings but for ``generations``, ``workers`` and PPO's.

The optional PPO stage is saved in the same file after each of its validations
(:class:`PPOState` in ``Checkpoint.ppo``): the learner's own state
(:class:`LearnerState`: actor, critic, Adam's state, its steps, its random streams),
the episode stream's position, the best weights so far and PPO's rows of the curve, and
the PPO settings it was made with. A run stopped during PPO, resumed with the same PPO
settings, goes on from the last saved validation and ends with the weights of a run
never stopped; resumed with a larger ``ppo_steps`` it goes on too (the stage is
longer, not other); resumed with other PPO settings, it runs PPO again from the search's best
weights (the saved PPO state is dropped at its first validation, never mixed with the
new settings). A search generation run on resuming (more ``generations``) drops the PPO
state too, since PPO starts from the search's best weights. A checkpoint from before PPO
was saved (no ``ppo`` attribute) loads as one whose PPO stage has not started.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["Checkpoint", "LearnerState", "PPOState", "load_checkpoint", "save_checkpoint"]

NAME = "checkpoint.pkl"


@dataclass
class LearnerState:
    """What :class:`~schedlab.training.ppo.PPO`'s next rollout and update depend on, after ``steps`` steps.

    The torch parts are kept as torch gives them (tensors pickle as they are), so that
    they are restored bit for bit.
    """

    steps: int
    actor: np.ndarray  # the scorer's float64 vector (its float32 network's weights)
    critic: dict[str, Any]  # the critic network's state_dict
    optimizer: dict[str, Any]  # the Adam over actor and critic: its state_dict
    actions: Any  # the ppo_actions torch.Generator's get_state() (a uint8 tensor)
    batches: Mapping[str, Any]  # the ppo_batches stream's bit-generator state


@dataclass
class PPOState:
    """Where the PPO stage stands after a validation: its learner, its draws, its best weights and curve rows."""

    settings: dict[str, Any]  # the ppo_* settings it was made with (TrainConfig.ppo_part)
    learner: LearnerState
    episodes_stream: Mapping[str, Any]  # the ppo_episodes stream's bit-generator state
    best: np.ndarray  # the best weights of all stages so far (the search's until PPO validates better)
    best_score: float
    best_steps: int  # the PPO steps ``best`` were validated after (0: the search's)
    rows: list[dict[str, Any]]  # PPO's rows of the curve, from its start (steps 0)


@dataclass
class Checkpoint:
    """Where a training stands after ``generation`` (0: after imitation, before any search)."""

    settings: dict[str, Any]
    generation: int
    weights: np.ndarray
    m: np.ndarray
    v: np.ndarray
    adam_steps: int
    episodes_stream: Mapping[str, Any]
    best: np.ndarray
    best_score: float
    best_generation: int
    rows: list[dict[str, Any]] = field(default_factory=list)  # the search's rows (PPO's are in ``ppo``)
    ppo: PPOState | None = None  # the PPO stage after its last validation, or None: not started (or dropped)


def save_checkpoint(out: Path, state: Checkpoint) -> None:
    """Write ``state`` to ``out/checkpoint.pkl``, replacing the previous one atomically."""
    tmp = out / (NAME + ".tmp")
    with open(tmp, "wb") as f:
        pickle.dump(state, f)
    os.replace(tmp, out / NAME)


def load_checkpoint(out: Path, settings: dict[str, Any]) -> Checkpoint:
    """The checkpoint in ``out``, refused in one line if missing or made with other settings."""
    path = out / NAME
    if not path.exists():
        raise ValueError(f"--resume: {path} does not exist (no training to resume there)")
    with open(path, "rb") as f:
        state: Checkpoint = pickle.load(f)  # our own file, written by save_checkpoint
    saved = {"policy": "mlp", "imitate": "", **state.settings}  # before policy=: an MLP; before imitate=: none
    if saved != settings:
        changed = sorted(k for k in settings if saved.get(k) != settings[k])
        raise ValueError(f"--resume: {path} was made with other settings ({', '.join(changed)})")
    return state

"""What one training run is: :class:`TrainConfig`, checked before any work starts.

Every field carries its line of help (``number(..., help=...)``); :func:`TrainConfig.__post_init__`
refuses a bad value in one line naming the field and the value (``validate``), and the
rules that relate fields (a teacher needs imitation episodes...). The environment is a
Gymnasium id (``schedlab/Machine-v0``, or ``Machine-v0`` for schedlab's own) or a
PettingZoo Parallel one of schedlab's registry (``GridParallel-v0``), made with
``env_settings`` as keyword arguments.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from schedlab.model.core.fields import INT_MAX, number, text, validate

__all__ = ["TrainConfig", "env_id", "quick"]


def env_id(name: str) -> str:
    """The registered id for ``name`` (``Machine-v0`` means ``schedlab/Machine-v0``), or a one-line error.

    Gymnasium's registry first, then schedlab's of PettingZoo Parallel environments
    (:mod:`schedlab.envs.parallel_registry`: ``GridParallel-v0``).
    """
    import gymnasium as gym

    import schedlab.envs  # noqa: F401  # registers schedlab's environments
    from schedlab.envs.parallel_registry import parallel_id, parallel_ids

    for candidate in (name, f"schedlab/{name}"):
        if candidate in gym.registry:
            return candidate
    found = parallel_id(name)
    if found is not None:
        return found
    known = sorted(k for k in gym.registry if k.startswith("schedlab/")) + parallel_ids()
    raise ValueError(f"env: {name!r} is not a registered environment; schedlab's are {', '.join(known)}")


@dataclass(frozen=True)
class TrainConfig:
    """One training: imitation of a heuristic, evolution strategies on whole episodes, then optionally PPO.

    In a PettingZoo Parallel env every stage trains one policy shared by every agent; a PPO
    step is one agent's decision (the critic shared too).
    """

    env: str = text(
        "schedlab/Machine-v0", nonempty=True, help="Gymnasium or Parallel-registry id of the env to train in"
    )
    env_settings: Mapping[str, Any] = field(
        default_factory=dict, metadata={"help": "keyword arguments the environment is made with"}
    )
    policy: str = text(
        "mlp",
        pattern="mlp|kernel",
        what="mlp or kernel",
        help="the scorer: mlp (one MLP over the whole observation) or kernel (one MLP per action's row, shared)",
    )
    hidden: tuple[int, ...] = field(default=(32, 32), metadata={"help": "widths of the scorer's hidden layers"})
    generations: int = number(30, low=0, work=True, help="evolution-strategies generations")
    pairs: int = number(8, low=1, work=True, help="antithetic pairs per generation (2 x pairs members)")
    sigma: float = number(0.02, gt=0, help="standard deviation of the weights' perturbations")
    learning_rate: float = number(0.01, gt=0, help="Adam's step size on the weights")
    episodes: int = number(4, low=1, work=True, help="training episodes per generation, every member on the same")
    validation: int = number(8, low=1, work=True, help="validation episodes that choose the best weights")
    teacher: str = text("", help="heuristic whose actions are imitated and that costs are relative to ('' : none)")
    imitate: str = text(
        "",
        help="heuristic behaviour cloning copies instead of the teacher ('': the teacher), e.g. rollout-easy-sjf; "
        "best: the env's heuristic (not a clairvoyant one) with the best validation score",
    )
    imitation_episodes: int = number(32, low=0, work=True, help="teacher episodes behaviour cloning learns from")
    imitation_epochs: int = number(100, low=0, help="passes of behaviour cloning over the teacher's decisions")
    imitation_rate: float = number(1e-2, gt=0, help="Adam's step size in behaviour cloning")
    dagger: int = number(
        0, low=0, work=True, help="DAgger rounds: the learner plays imitation_episodes more, the teacher labels, refit"
    )
    ppo_steps: int = number(
        0, help="PPO steps from the search's best weights (0: none); in a Parallel env a step is an agent's decision"
    )
    ppo_rollout: int = number(1024, low=1, help="steps a PPO rollout gathers at least (whole episodes) per update")
    ppo_epochs: int = number(4, low=1, help="passes of PPO's update over each rollout")
    ppo_minibatch: int = number(256, low=1, help="steps per minibatch of PPO's update (at most ppo_rollout)")
    ppo_rate: float = number(3e-4, gt=0, high=1, help="Adam's step size for PPO's actor and critic")
    ppo_clip: float = number(0.2, gt=0, high=1, help="PPO's clip range of the new-to-old probability ratio")
    ppo_entropy: float = number(0.0, low=0, high=1, help="weight of the policy's entropy bonus in PPO's loss")
    ppo_gamma: float = number(0.99, gt=0, high=1, help="PPO's discount of future rewards")
    ppo_lambda: float = number(0.95, low=0, high=1, help="GAE's lambda: bias (0) against variance (1) of advantages")
    ppo_validate: int = number(4096, low=1, help="PPO steps between validations (rounded up to whole rollouts)")
    seed: int = number(0, high=INT_MAX, help="the training's seed: every random draw comes from its named streams")
    workers: int = number(1, low=1, help="processes scoring the population (the result does not depend on it)")

    def __post_init__(self) -> None:
        validate(self)  # every number finite and in range, one line naming the field
        object.__setattr__(self, "env", env_id(self.env))  # frozen: the registered id, or a one-line error
        for width in self.hidden:
            if not (isinstance(width, int) and 1 <= width <= 4096):
                raise ValueError(f"hidden must be layer widths between 1 and 4096, got {self.hidden!r}")
        if (self.teacher or self.imitate) and self.imitation_episodes > 0 and self.imitation_epochs == 0:
            raise ValueError("imitation_epochs=0 with a teacher and imitation_episodes > 0: set one of them to 0")
        if self.ppo_minibatch > self.ppo_rollout:
            raise ValueError(f"ppo_minibatch={self.ppo_minibatch} exceeds ppo_rollout={self.ppo_rollout}")
        if not isinstance(self.env_settings, Mapping):
            raise ValueError(f"env_settings must be a mapping of keyword arguments, got {self.env_settings!r}")

    def as_dict(self) -> dict[str, Any]:
        """The settings as plain JSON data (for settings.json and the checkpoint's check)."""
        values = dataclasses.asdict(self)
        values["env_settings"] = dict(self.env_settings)
        values["hidden"] = list(self.hidden)
        return values

    def search_part(self) -> dict[str, Any]:
        """The settings a resumed run must share with the stopped one: all but generations, workers and PPO's.

        A finished search may be resumed with another PPO stage: the checkpoint's PPO
        state goes on only with the same :meth:`ppo_part`, else PPO runs again from the
        search's best weights (:mod:`schedlab.training.checkpoint`).
        """
        values = self.as_dict()
        del values["generations"], values["workers"]
        return {k: v for k, v in values.items() if not k.startswith("ppo_")}

    def ppo_part(self) -> dict[str, Any]:
        """The PPO settings a saved PPO stage was made with: a resumed one goes on only with the same.

        All ``ppo_*`` settings but ``ppo_steps``, as the search's :meth:`search_part` leaves
        out ``generations``: resuming with more steps goes on with the saved stage, with the
        same rollouts and updates as a run that long from the start (its validations fall
        where the shorter run's end put them); with fewer, a finished stage stays as it is.
        """
        return {k: v for k, v in self.as_dict().items() if k.startswith("ppo_") and k != "ppo_steps"}


def quick(config: TrainConfig) -> TrainConfig:
    """A tiny run of the same kind (``--quick``): a few generations of a small population."""
    return dataclasses.replace(
        config,
        generations=min(config.generations, 3),
        pairs=min(config.pairs, 3),
        episodes=min(config.episodes, 2),
        validation=min(config.validation, 2),
        imitation_episodes=min(config.imitation_episodes, 2),
        imitation_epochs=min(config.imitation_epochs, 5),
        ppo_steps=min(config.ppo_steps, 256),
        ppo_rollout=min(config.ppo_rollout, 128),
        ppo_minibatch=min(config.ppo_minibatch, 64),
        ppo_validate=min(config.ppo_validate, 128),
    )

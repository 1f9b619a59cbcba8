"""What a training of RLScheduler's kernel policy is given: its stages' settings, and the heuristics it meets.

:class:`TrainSettings` is one training seed's settings, PPO's named as RLScheduler names
them (its values in brackets); each is checked when the settings are made, so that a
bad one stops a run in one line before any training. :data:`HEURISTICS` are the nine
orders a model is compared with, and among which ``imitate="best"`` chooses its teacher.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from schedlab.policies.scoring import RLSCHEDULER_SCORES as SCORES

__all__ = ["HEURISTICS", "TrainSettings"]


#: the heuristics RLScheduler's protocol is compared with: RLScheduler's five (FCFS, WFP3,
#: UNICEP, SJF, F1), then F2, F3, F4 (Carastan-Santos and de Camargo, SC 2017) and SAF;
#: ``imitate="best"`` chooses among them (``sjf-runtime`` reads the true runtime: not a teacher)
HEURISTICS = ("fcfs", "wfp3", "unicep", "sjf", "f1", "f2", "f3", "f4", "saf")


@dataclass(frozen=True)
class TrainSettings:
    """One training seed's settings for every stage: imitation, the search, PPO (RLScheduler's values in brackets)."""

    steps: int = 100_000
    seed: int = 0
    learning_rate: float = 3e-4  # (pi_lr 3e-4)
    n_steps: int = 2048
    batch_size: int = 256
    n_epochs: int = 10
    gamma: float = 1.0  # (--gamma 1)
    gae_lambda: float = 0.97  # (lam 0.97)
    target_kl: float = 0.01  # (target_kl 0.01)
    relative: bool = True
    #: first imitate this heuristic's choices (sjf, f1, ...; "best": the best of HEURISTICS on the
    #: validation sequences, measured as a validation measures a model; "" for none)
    imitate: str = "best"
    #: episodes of the heuristic's choices to imitate, and passes over them
    imitate_episodes: int = 40
    imitate_epochs: int = 30
    eval_every: int = 10_000
    #: validation sequences (from the training draw's range, fixed by the seed) and their length: the
    #: evaluation's (1,024), since which order is best differs between 256 and 1,024 jobs; a log's
    #: windows differ widely (SDSC-SP2's bounded slowdown from tens to thousands), so there are many
    validation: int = 16
    validation_length: int = 1024
    #: draw the validation sequences from the last this share of the training draw's range only (1: all of
    #: it): on a log whose load drifts, the jobs nearest those a model will meet next choose its weights
    validation_tail: float = 1.0
    #: train and validate with and without EASY backfilling: the one model of a log serves both settings
    both_backfills: bool = False
    #: generations of evolution strategies on the scorer's weights before PPO (0: none; see
    #: :mod:`schedlab.training.rlscheduler.search`), validated every ``search_eval_every``
    search_generations: int = 0
    search_eval_every: int = 10
    #: antithetic pairs per generation, and the training sequences every member is scored on
    search_pairs: int = 16
    search_episodes: int = 8
    #: the noise's scale on the weights, and Adam's step size on the search's gradient
    search_sigma: float = 0.05
    search_learning_rate: float = 0.02
    device: str = "cpu"

    def __post_init__(self) -> None:
        for name in ("learning_rate", "gamma", "gae_lambda", "target_kl", "search_sigma", "search_learning_rate"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
        tail = self.validation_tail
        if isinstance(tail, bool) or not (isinstance(tail, int | float) and 0 < tail <= 1):
            raise ValueError(f"validation_tail must be a share in (0, 1], got {tail!r}")
        if self.imitate not in ("", "best", *SCORES):
            raise ValueError(f"imitate must be empty, best or one of {', '.join(SCORES)}, got {self.imitate!r}")
        wholes = (
            "n_steps",
            "batch_size",
            "n_epochs",
            "eval_every",
            "validation",
            "validation_length",
            "search_eval_every",
            "search_pairs",
            "search_episodes",
        )
        for name in ("steps", "search_generations", *wholes):
            value = getattr(self, name)
            low = 0 if name in ("steps", "search_generations") else 1
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"{name} must be a whole number >= {low}, got {value!r}")

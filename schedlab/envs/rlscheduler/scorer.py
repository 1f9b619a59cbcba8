"""A kernel model's greedy choice, computed one way everywhere: the search, the validation and the evaluation.

A trained kernel policy (:class:`~schedlab.envs.kernel_policy.MaskableKernelPolicy`) picks
the waiting job its scorer rates highest. Computed in float32, as PyTorch and a float32
numpy matmul compute it, that choice depends on the machine: OpenBLAS picks its matrix
kernel by CPU (Haswell, SkylakeX, ...), each kernel rounds differently, and even two
*identical* jobs (same features: a job array) get scores that differ in the last bit
depending on where they sit in the queue. Their argmax then flips, and a window's schedule
goes another way from there. HPC2N's shipped seed-0 model scores 0.4327 of SJF's on its
validation windows under the SkylakeX kernel and 0.4434 under the Haswell one (docs/rl.md,
"Reproducibility").

So :class:`KernelScorer` scores in float64 and rounds the scores to float32 before the
argmax (the first of equal ones): rounding differences of the float64 kernels (about
1e-16) vanish in the rounding, identical jobs get identical scores, and the choice is the
same on any CPU and thread count. :func:`greedy_policy` hands it in place of an SB3 kernel
model wherever a model chooses greedily (:class:`~schedlab.envs.rlscheduler.env.ModelChooser`,
the training's ``evaluate``), so the score a training records is the saved model's own.
SB3's ``model.predict`` itself still computes in float32 torch and may break such ties
otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from schedlab.envs.rlscheduler.obs import FEATURES

__all__ = ["KernelScorer", "ScorerLayout", "greedy_policy", "kernel_scorer", "scorer_layout", "scorer_vector"]


class KernelScorer:
    """A kernel scorer's layers as float64 numpy arrays: its greedy choice, the same on any machine.

    ``predict`` has SB3's signature, so a :class:`~schedlab.envs.rlscheduler.env.ModelChooser`
    runs it as it runs a model. It scores the ``keep`` columns of each row the mask
    marks (each row whose ``present`` column is set, without a mask), rounds the scores
    to float32 and picks the highest, the first of equal ones.
    """

    def __init__(
        self, layers: list[tuple[np.ndarray, np.ndarray]], keep: list[int], width: int = FEATURES, present: int = -1
    ) -> None:
        self.layers = [(np.asarray(w, dtype=np.float64), np.asarray(b, dtype=np.float64)) for w, b in layers]
        self.keep, self.width = keep, width
        self.present = present % width

    def scores(self, rows: np.ndarray) -> np.ndarray:
        """Each row's score (float64 arithmetic, rounded to float32): what the argmax compares."""
        h = np.asarray(rows, dtype=np.float64)[:, self.keep]
        last = len(self.layers) - 1
        for i, (weight, bias) in enumerate(self.layers):
            h = h @ weight.T + bias
            if i < last:
                h = np.maximum(h, 0.0)
        return h[:, 0].astype(np.float32)

    def predict(
        self, obs: np.ndarray, deterministic: bool = True, action_masks: np.ndarray | None = None
    ) -> tuple[int, None]:
        """The slot of the highest-scored job (``deterministic`` is accepted and always so)."""
        rows = np.asarray(obs).reshape(-1, self.width)
        mask = rows[:, self.present] > 0.5 if action_masks is None else np.asarray(action_masks, dtype=bool)
        slots = np.flatnonzero(mask[: len(rows)])
        if not len(slots):
            return 0, None
        return int(slots[int(np.argmax(self.scores(rows[slots])))]), None


def _scorer_net(model: Any) -> Any:
    """The :class:`~schedlab.envs.kernel_policy.KernelNet` of an SB3 kernel model on RLScheduler's rows, or None."""
    net: Any = getattr(getattr(model, "policy", None), "mlp_extractor", None)
    layout = getattr(net, "layout", None)
    if layout is None or not hasattr(net, "scorer") or layout.width != FEATURES or layout.prefix or layout.extra:
        return None
    if net.scorer[0].in_features != len(net.keep):  # the rows are scored with global values too
        return None
    return net


def scorer_vector(model: Any) -> np.ndarray:
    """The scorer's weights of an SB3 kernel model, flat (float64), in ``parameters()`` order."""
    import torch

    scorer = model.policy.mlp_extractor.scorer
    return torch.nn.utils.parameters_to_vector(scorer.parameters()).detach().cpu().double().numpy()


@dataclass(frozen=True)
class ScorerLayout:
    """The shape of a kernel model's scorer: with a flat weight vector, all a :class:`KernelScorer` needs.

    Small and picklable, so that a worker process rebuilds the scorer of any weights it is
    sent (:mod:`schedlab.training.rlscheduler.search` scores its population that way)
    without the SB3 model.
    """

    #: (outputs, inputs) of each linear layer, in order
    shapes: tuple[tuple[int, int], ...]
    #: the columns of a row the first layer reads, the row's width, and the column marking a present job
    keep: tuple[int, ...]
    width: int
    present: int

    def scorer(self, vector: np.ndarray) -> KernelScorer:
        """The scorer with the weights ``vector`` (``parameters()`` order), rounded to float32 as a model holds them.

        Rounded first, so that a search's float64 weights score as the SB3 model they are
        saved into.
        """
        layers, at = [], 0
        for out, inp in self.shapes:
            weight = vector[at : at + out * inp].reshape(out, inp).astype(np.float32)
            at += out * inp
            layers.append((weight, vector[at : at + out].astype(np.float32)))
            at += out
        return KernelScorer(layers, list(self.keep), self.width, self.present)


def scorer_layout(model: Any) -> ScorerLayout:
    """The :class:`ScorerLayout` of an SB3 kernel model's scorer."""
    net = model.policy.mlp_extractor
    shapes = tuple(
        (int(layer.weight.shape[0]), int(layer.weight.shape[1])) for layer in net.scorer if hasattr(layer, "weight")
    )
    return ScorerLayout(shapes, tuple(int(k) for k in net.keep), int(net.layout.width), int(net.layout.present))


def kernel_scorer(model: Any, vector: np.ndarray | None = None) -> KernelScorer:
    """The scorer of ``model`` with the weights ``vector`` (default: the model's own), as the model holds them."""
    return scorer_layout(model).scorer(scorer_vector(model) if vector is None else vector)


def greedy_policy(model: Any) -> Any:
    """What chooses greedily for ``model``: its :class:`KernelScorer` for an SB3 kernel model, else the model itself."""
    return kernel_scorer(model) if _scorer_net(model) is not None else model

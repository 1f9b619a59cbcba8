"""Value-function approximators for SARSA over continuous states and actions (seed 001 section 3.3).

Both map a batch of state-action vectors ``x`` to ``Q(x)`` and are re-fit in batch
on the examples collected so far ("batch re-learning"):

- :class:`EchoStateNetwork`: a fixed random recurrent reservoir of sigmoid units with
  a linear readout fit by ridge regression. Its reservoir carries a memory of the
  decisions made so far, so Q can depend on more than the current state.
- :class:`MLPApproximator`: a feed-forward network trained by backpropagation.

Each works on *features* ``z = features(x)``: for the ESN, the reservoir state each
candidate would drive it to (plus the input and a bias); for the MLP, ``x`` itself. A
learner evaluates its candidates with ``predict(features(X))``, and ``commit``s the
features of the one it chose, which is when the ESN's memory moves on.

Every random weight comes from a ``torch.Generator`` seeded from the caller's numpy
stream, so a run's weights depend only on its seed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import torch

from schedlab.model.core.fields import number, validate

__all__ = ["ApproximatorConfig", "EchoStateNetwork", "MLPApproximator", "QApproximator", "make_approximator"]


class QApproximator(Protocol):
    """What :class:`~schedlab.learners.sarsa.Sarsa` needs of an approximator."""

    def features(self, x: torch.Tensor) -> torch.Tensor:
        """The features ``z`` of a batch of state-action vectors ``x``: what :meth:`predict` and :meth:`fit` read."""
        ...

    def predict(self, z: torch.Tensor) -> torch.Tensor:
        """``Q`` of each row of features ``z``."""
        ...

    def commit(self, z: torch.Tensor) -> None:
        """The chosen action's features ``z``: an approximator with memory moves on to them."""
        ...

    def fit(self, z: torch.Tensor, y: torch.Tensor) -> None:
        """Re-fit on every example so far: features ``z`` and their targets ``y``."""
        ...

    def state_dict(self) -> dict[str, Any]:
        """Everything a copy needs to predict and train as this one does."""
        ...

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Take over a :meth:`state_dict`."""
        ...


@dataclass(frozen=True)
class ApproximatorConfig:
    """Settings of the value-function approximators (one line of help per field)."""

    #: "esn" (echo state network, ridge readout) or "mlp" (feed-forward, backpropagation)
    kind: str = "esn"
    #: ESN reservoir units (seed 001: 100 sigmoid units)
    units: int = number(100, low=1, integer=True)
    #: fraction of reservoir-to-reservoir connections present (seed 001: 10%)
    connectivity: float = number(0.1, gt=0, high=1)
    #: fraction of reservoir units the readout sees (seed 001: 15%)
    readout_connectivity: float = number(0.15, gt=0, high=1)
    #: the reservoir's weights, uniform in [0, 1] as in seed 001, are scaled to this spectral radius
    spectral_radius: float = number(0.9, gt=0)
    #: scale of the input weights (uniform in [-scale, scale])
    input_scale: float = number(1.0, gt=0)
    #: ridge penalty of the ESN readout
    ridge: float = number(1e-3, gt=0)
    #: MLP hidden units per layer (two hidden tanh layers)
    hidden: int = number(32, low=1, integer=True)
    #: MLP passes over the training set at each re-fit
    epochs: int = number(5, low=1, integer=True)
    #: MLP Adam learning rate
    mlp_learning_rate: float = number(1e-3, gt=0)

    def __post_init__(self) -> None:
        validate(self)  # every number finite and in range (model/fields)
        if self.kind not in ("esn", "mlp"):
            raise ValueError(f"approximator kind must be 'esn' or 'mlp', got {self.kind!r}")


def _torch_generator(rng: np.random.Generator) -> torch.Generator:
    return torch.Generator().manual_seed(int(rng.integers(2**63 - 1)))


class EchoStateNetwork:
    """An echo state network: fixed random sigmoid reservoir, ridge-regression readout.

    Parameters
    ----------
    inputs
        Length of the state-action vectors.
    config
        Reservoir size, connectivities, spectral radius, ridge penalty.
    rng
        The numpy stream the fixed random weights are drawn from.

    Notes
    -----
    The reservoir state moves ``h <- sigmoid(W_in x + W h)`` at each committed
    decision. Seed 001 fixes the reservoir weights at random in [0, 1] with 10%
    connectivity; all-positive weights of that density have a spectral radius of
    about ``0.5 * 0.1 * units``, far above 1, so they are rescaled to
    ``spectral_radius`` (the echo state property; Jaeger 2001). The readout sees a
    fixed random 15% of the reservoir units, the input and a bias, and is fit by ridge
    regression in float64.

    References
    ----------
    H. Jaeger, "The echo state approach to analysing and training recurrent neural
    networks", GMD Report 148, 2001. Perez et al., seed 001 section 3.3.
    """

    def __init__(self, inputs: int, config: ApproximatorConfig, rng: np.random.Generator) -> None:
        self.inputs, self.config = inputs, config
        g = _torch_generator(rng)
        n = config.units
        w = torch.rand(n, n, generator=g, dtype=torch.float64)
        w *= torch.rand(n, n, generator=g, dtype=torch.float64) < config.connectivity
        radius = float(torch.linalg.eigvals(w).abs().max())
        self.w = (w * (config.spectral_radius / radius) if radius > 0 else w).float()
        self.w_in = ((torch.rand(n, inputs, generator=g) * 2 - 1) * config.input_scale).float()
        k = max(1, round(config.readout_connectivity * n))
        units = torch.randperm(n, generator=g)[:k].sort().values
        # readout columns of z = [h (n), x (inputs), 1]: the chosen units, every input, the bias
        self.readout = torch.cat([units, torch.arange(n, n + inputs + 1)])
        self.w_out = torch.zeros(len(self.readout), dtype=torch.float64)
        self.h = torch.zeros(n)

    def features(self, x: torch.Tensor) -> torch.Tensor:
        """The reservoir state each row of ``x`` would drive the network to, then ``x`` and a bias."""
        h = torch.sigmoid(x @ self.w_in.T + self.h @ self.w.T)
        return torch.cat([h, x, torch.ones(len(x), 1)], dim=1)

    def predict(self, z: torch.Tensor) -> torch.Tensor:
        """The linear readout of the readout columns of ``z`` (in float64, as it was fit)."""
        return (z[:, self.readout].double() @ self.w_out).float()

    def commit(self, z: torch.Tensor) -> None:
        """The reservoir moves on to the chosen row's state: the memory of the decisions made."""
        self.h = z[: self.config.units].clone()

    def fit(self, z: torch.Tensor, y: torch.Tensor) -> None:
        """Ridge regression of the readout on ``(z, y)``, solved in float64."""
        a = z[:, self.readout].double()
        gram = a.T @ a + self.config.ridge * torch.eye(a.shape[1], dtype=torch.float64)
        self.w_out = torch.linalg.solve(gram, a.T @ y.double())

    def state_dict(self) -> dict[str, Any]:
        """The reservoir, input and readout weights and the reservoir state."""
        return {"w": self.w, "w_in": self.w_in, "readout": self.readout, "w_out": self.w_out, "h": self.h}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Take over a :meth:`state_dict`."""
        self.w, self.w_in, self.readout = state["w"], state["w_in"], state["readout"]
        self.w_out, self.h = state["w_out"], state["h"]


class MLPApproximator:
    """A feed-forward network (two tanh hidden layers) trained by backpropagation.

    Each :meth:`fit` continues training the current weights for ``epochs`` passes of
    Adam over the training set, in shuffled mini-batches of 256 (a warm start: re-
    training from scratch at every re-fit would cost far more for the same fit).
    """

    def __init__(self, inputs: int, config: ApproximatorConfig, rng: np.random.Generator) -> None:
        self.config = config
        self._g = _torch_generator(rng)
        h = config.hidden
        self.net = torch.nn.Sequential(
            torch.nn.Linear(inputs, h), torch.nn.Tanh(), torch.nn.Linear(h, h), torch.nn.Tanh(), torch.nn.Linear(h, 1)
        )
        with torch.no_grad():  # initialised from our generator, not torch's global one
            for layer in self.net:
                if isinstance(layer, torch.nn.Linear):
                    bound = 1 / math.sqrt(layer.in_features)
                    layer.weight.uniform_(-bound, bound, generator=self._g)
                    layer.bias.uniform_(-bound, bound, generator=self._g)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=config.mlp_learning_rate)

    def features(self, x: torch.Tensor) -> torch.Tensor:
        """``x`` itself: the network sees the state-action vector as it is."""
        return x

    def predict(self, z: torch.Tensor) -> torch.Tensor:
        """The network's output for each row of ``z``, without gradients."""
        with torch.no_grad():
            return self.net(z).squeeze(1)

    def commit(self, z: torch.Tensor) -> None:
        """Nothing: the network has no memory of past decisions."""
        pass  # no memory: Q depends on the current state and action only

    def fit(self, z: torch.Tensor, y: torch.Tensor) -> None:
        """``epochs`` more passes of Adam over ``(z, y)`` in shuffled mini-batches (a warm start)."""
        for _ in range(self.config.epochs):
            order = torch.randperm(len(z), generator=self._g)
            for start in range(0, len(z), 256):
                batch = order[start : start + 256]
                loss = torch.nn.functional.mse_loss(self.net(z[batch]).squeeze(1), y[batch])
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()

    def state_dict(self) -> dict[str, Any]:
        """The network's and the optimizer's state and the shuffling generator's, so a copy trains on identically."""
        return {
            "net": self.net.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "generator": self._g.get_state(),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Take over a :meth:`state_dict`."""
        self.net.load_state_dict(state["net"])
        self.optimizer.load_state_dict(state["optimizer"])
        self._g.set_state(state["generator"])


def make_approximator(inputs: int, config: ApproximatorConfig, rng: np.random.Generator) -> QApproximator:
    """The approximator ``config.kind`` names, for state-action vectors of length ``inputs``."""
    if config.kind == "esn":
        return EchoStateNetwork(inputs, config, rng)
    return MLPApproximator(inputs, config, rng)

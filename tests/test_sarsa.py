"""SARSA with delayed rewards, the ESN and MLP approximators, and their checkpoints (seed 001)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from schedlab.learners.approximators import ApproximatorConfig, EchoStateNetwork, MLPApproximator
from schedlab.learners.sarsa import Sarsa, SarsaConfig


class Table:
    """A test approximator: column 0 of each row *is* its Q; fit() records what it was given."""

    def __init__(self):
        self.fits = []

    def features(self, x):
        return x

    def predict(self, z):
        return z[:, 0]

    def commit(self, z):
        pass

    def fit(self, z, y):
        self.fits.append((z.clone(), y.clone()))

    def state_dict(self):
        return {}

    def load_state_dict(self, state):
        pass


def test_sarsa_targets_on_a_hand_computed_chain():
    table = Table()
    learner = Sarsa(table, SarsaConfig(epsilon=0.0, gamma=0.8, eta=0.2, refit_every=2), np.random.default_rng(0))
    # three decisions, each between two candidates; the greedy choice is the larger Q
    row0, d0 = learner.choose([[1.0, 0], [2.0, 1]])  # picks Q = 2
    row1, d1 = learner.choose([[5.0, 2], [3.0, 3]])  # picks Q = 5
    learner.reward(d1, 1.0)  # rewards arrive out of order: d1's job completes first
    assert table.fits == []  # d1 still needs d2's Q; d0 still needs its reward
    row2, d2 = learner.choose([[4.0, 4]], forced=0)
    learner.reward(d0, 10.0)
    assert (row0, row1, row2, d0, d1, d2) == (1, 0, 0, 0, 1, 2)
    # y1 = 5 + 0.2 (1 + 0.8 x 4 - 5) = 4.84 (closed when d2 came); y0 = 2 + 0.2 (10 + 0.8 x 5 - 2) = 4.4
    ((z, y),) = table.fits
    assert z[:, 1].tolist() == [2.0, 1.0]  # the examples, in the order they closed: d1 then d0
    assert y.tolist() == pytest.approx([4.84, 4.4])
    assert learner.examples == 2
    with pytest.raises(KeyError, match="decision 0"):
        learner.reward(d0, 1.0)


def test_epsilon_one_explores_uniformly():
    learner = Sarsa(Table(), SarsaConfig(epsilon=1.0), np.random.default_rng(3))
    picks = [learner.choose([[0.0], [9.0], [1.0]])[0] for _ in range(3000)]
    assert np.bincount(picks).tolist() == pytest.approx([1000, 1000, 1000], rel=0.1)


@pytest.mark.parametrize(
    "bad", [dict(epsilon=-0.1), dict(epsilon=1.5), dict(gamma=2), dict(eta=-1), dict(refit_every=0), dict(window=0)]
)
def test_bad_sarsa_settings_are_named(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        SarsaConfig(**bad)


def test_esn_readout_is_the_ridge_regression_numpy_computes():
    cfg = ApproximatorConfig(units=40, ridge=0.5)
    esn = EchoStateNetwork(6, cfg, np.random.default_rng(1))
    rng = np.random.default_rng(2)
    x = torch.as_tensor(rng.normal(size=(200, 6)), dtype=torch.float32)
    z = esn.features(x)
    y = torch.as_tensor(rng.normal(size=200), dtype=torch.float32)
    esn.fit(z, y)
    a = z[:, esn.readout].double().numpy()
    # ridge as least squares on [A; sqrt(lambda) I] against [y; 0]
    stacked = np.vstack([a, np.sqrt(0.5) * np.eye(a.shape[1])])
    target = np.concatenate([y.double().numpy(), np.zeros(a.shape[1])])
    expected, *_ = np.linalg.lstsq(stacked, target, rcond=None)
    np.testing.assert_allclose(esn.w_out.numpy(), expected, rtol=1e-6, atol=1e-8)
    # the readout sees 15% of the reservoir (6 of 40 units), every input and the bias
    assert len(esn.readout) == 6 + 6 + 1


def test_esn_reservoir_is_sparse_positive_and_contracting():
    esn = EchoStateNetwork(3, ApproximatorConfig(), np.random.default_rng(5))
    w = esn.w
    assert (w >= 0).all()
    assert 0.05 < (w > 0).float().mean() < 0.15  # about 10% connectivity
    assert float(torch.linalg.eigvals(w.double()).abs().max()) == pytest.approx(0.9, rel=1e-4)


def test_mlp_learns_a_fixed_batch():
    torch.set_num_threads(1)
    mlp = MLPApproximator(2, ApproximatorConfig(kind="mlp", epochs=5, mlp_learning_rate=1e-2), np.random.default_rng(0))
    x = torch.rand(512, 2, generator=torch.Generator().manual_seed(0))
    y = x[:, 0] - 2 * x[:, 1]
    before = torch.nn.functional.mse_loss(mlp.predict(x), y)
    for _ in range(10):
        mlp.fit(x, y)
    assert torch.nn.functional.mse_loss(mlp.predict(x), y) < before / 10


@pytest.mark.parametrize("kind", ["esn", "mlp"])
def test_a_resumed_learner_continues_identically(kind, tmp_path):
    torch.set_num_threads(1)
    cfg = ApproximatorConfig(kind=kind, units=30, epochs=2)
    sarsa_cfg = SarsaConfig(refit_every=5, epsilon=0.3)

    def fresh(seed):
        from schedlab.learners.approximators import make_approximator

        return Sarsa(make_approximator(4, cfg, np.random.default_rng(seed)), sarsa_cfg, np.random.default_rng(seed + 1))

    data = np.random.default_rng(9)
    steps = [(data.normal(size=(int(data.integers(1, 6)), 4)), float(data.random())) for _ in range(60)]

    def play(learner, part, log):
        for x, r in part:
            row, decision = learner.choose(x)
            log.append(
                (
                    row,
                    float(
                        learner.approximator.predict(
                            learner.approximator.features(torch.as_tensor(x, dtype=torch.float32))
                        )[row]
                    ),
                )
            )
            if decision >= 2:
                learner.reward(decision - 2, r)  # rewards come two decisions late

    straight, resumed = fresh(0), fresh(0)
    log_straight, log_resumed = [], []
    play(straight, steps, log_straight)
    play(resumed, steps[:25], log_resumed)
    resumed.save(tmp_path / "learner.pt")
    other = fresh(123)  # different weights and stream: everything must come from the checkpoint
    other.load(tmp_path / "learner.pt")
    play(other, steps[25:], log_resumed)
    assert log_resumed == log_straight


def test_semi_markov_discount_applies_gamma_per_elapsed_time():
    table = Table()
    config = SarsaConfig(epsilon=0.0, gamma=0.5, eta=1.0, refit_every=1, discount_time=100.0)
    learner = Sarsa(table, config, np.random.default_rng(0))
    _, d0 = learner.choose([[1.0]], at=0.0)
    learner.choose([[8.0]], at=200.0)  # two discount_times later: gamma ** 2
    learner.reward(d0, 1.0)
    ((_, y),) = table.fits
    assert y.tolist() == pytest.approx([1.0 + 0.25 * 8.0])  # eta = 1: y = r + gamma^(dt / 100) Q'
    with pytest.raises(ValueError, match="discount_time"):
        SarsaConfig(discount_time=-1.0)

"""DQN sanity: the loss falls on a fixed batch, the target network syncs when it should,
checkpoints round-trip, and a seeded run replays exactly."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import schedlab
from schedlab.envs.slotted.deeprm import DeepRMEnv
from schedlab.learners.dqn import DQN, DQNConfig, adamw, linear_schedule, train
from schedlab.learners.replay_buffer import ReplayBuffer


@pytest.fixture(autouse=True)
def one_thread():
    """Small networks: one torch thread is fastest, and spares the cores other tests use."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def same_curve(a: list[dict], b: list[dict]) -> bool:
    """Curves compare row by row; a nan loss (no update yet) equals a nan loss."""
    return len(a) == len(b) and all(
        x.keys() == y.keys() and all(x[k] == y[k] or (np.isnan(x[k]) and np.isnan(y[k])) for k in x)
        for x, y in zip(a, b, strict=True)
    )


def fixed_batch(obs_dim=8, n=64, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (
        torch.rand(n, obs_dim, generator=g),
        torch.randint(0, 3, (n,), generator=g),
        torch.randn(n, generator=g),
        torch.rand(n, obs_dim, generator=g),
        torch.zeros(n),
    )


def same_weights(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values(), strict=True))


def test_the_loss_falls_on_a_fixed_replay_batch():
    agent = DQN(8, 3, DQNConfig(hidden=(32,), learning_rate=1e-2), seed=1)
    batch = fixed_batch()
    losses = [agent.update(batch) for _ in range(300)]  # target frozen: a plain regression
    assert losses[-1] < 0.2 * losses[0]


def test_the_target_network_moves_only_when_synchronised():
    agent = DQN(8, 3, DQNConfig(hidden=(16,)), seed=2)
    assert same_weights(agent.policy, agent.target)
    agent.update(fixed_batch())
    assert not same_weights(agent.policy, agent.target)
    agent.sync_target()
    assert same_weights(agent.policy, agent.target) and agent.syncs == 1


def test_a_soft_sync_moves_the_target_by_tau():
    agent = DQN(8, 3, DQNConfig(hidden=(16,), tau=0.25), seed=3)
    agent.update(fixed_batch())
    before = [t.clone() for t in agent.target.parameters()]
    agent.sync_target()
    for old, new, p in zip(before, agent.target.parameters(), agent.policy.parameters(), strict=True):
        assert torch.allclose(new, 0.75 * old + 0.25 * p)


def tiny_env():
    return DeepRMEnv(flatten=True, load=1.3, arrival_steps=8)


def test_training_syncs_every_target_every_steps_and_replays_from_its_seed():
    cfg = DQNConfig(
        total_steps=400,
        learning_starts=100,
        train_every=4,
        target_every=100,
        buffer_size=500,
        batch_size=16,
        hidden=(16,),
    )
    agent, curve = train(tiny_env(), cfg, seed=4)
    assert agent.syncs == 4 and agent.updates == (400 - 100) // 4
    assert curve and all(row["step"] <= 400 for row in curve)
    again, curve_again = train(tiny_env(), cfg, seed=4)
    assert same_curve(curve_again, curve) and same_weights(agent.policy, again.policy)
    _, curve_other = train(tiny_env(), cfg, seed=5)
    assert not same_curve(curve_other, curve)


def test_training_calls_back_for_the_curve():
    cfg = DQNConfig(total_steps=200, learning_starts=50, buffer_size=200, batch_size=8, hidden=(8,))
    _, curve = train(tiny_env(), cfg, seed=0, callback=lambda agent, step: {"probe": float(step)}, callback_every=100)
    assert [row["probe"] for row in curve if "probe" in row] == [100.0, 200.0]


def test_checkpoints_save_and_load_with_weights_only(tmp_path):
    agent = DQN(8, 3, DQNConfig(hidden=(16, 8)), seed=6, obs_high=np.full(8, 2.0))
    agent.update(fixed_batch())
    agent.save(tmp_path / "dqn.pt")
    torch.load(tmp_path / "dqn.pt", weights_only=True)  # plain tensors and builtins only
    loaded = DQN.load(tmp_path / "dqn.pt")
    obs = np.linspace(0, 1, 8, dtype=np.float32)
    assert np.array_equal(loaded.q_values(obs), agent.q_values(obs))
    assert same_weights(loaded.target, agent.target) and loaded.config == agent.config
    assert loaded.updates == 1


def test_the_replay_buffer_wraps_and_samples_from_its_generator():
    buffer = ReplayBuffer(4, 2, compact=True)
    for i in range(6):
        buffer.add(np.array([i, 1]), i % 3, float(i), np.array([i + 1, 0]), 0.0 if i == 5 else 0.99)
    assert len(buffer) == 4 and sorted(buffer.rewards.tolist()) == [2, 3, 4, 5]
    a = buffer.sample(10, np.random.default_rng(0))
    b = buffer.sample(10, np.random.default_rng(0))
    assert all(torch.equal(x, y) for x, y in zip(a, b, strict=True))
    assert a[0].dtype == torch.float32


def test_epsilon_decays_linearly_then_stays():
    assert [linear_schedule(1.0, 0.1, 10, t) for t in (0, 5, 10, 20)] == pytest.approx([1.0, 0.55, 0.1, 0.1])


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("gamma", 1.0, r"gamma=1.0 must be < 1"),
        ("tau", 0.0, r"tau=0.0 must be > 0"),
        ("batch_size", 0, r"batch_size=0 must be >= 1"),
        ("end_epsilon", 0.5, r"need end_epsilon <= start_epsilon, got 0.5, 0.4"),
    ],
)
def test_bad_dqn_config_is_a_clear_error(field, value, message):
    base = {"start_epsilon": 0.4} if field == "end_epsilon" else {}
    with pytest.raises(ValueError, match=message):
        DQNConfig(**base, **{field: value})


def test_training_needs_a_flat_observation():
    with pytest.raises(ValueError, match="flatten the observation"):
        train(DeepRMEnv(), DQNConfig(total_steps=1))


def test_n_step_transitions_sum_discounted_rewards_and_stop_at_termination():
    from collections import deque

    from schedlab.learners.replay_buffer import store_n_step

    buffer = ReplayBuffer(8, 1)
    pending = deque((np.array([float(i)]), i, r, 0.5) for i, r in enumerate([1.0, 2.0, 3.0]))
    store_n_step(buffer, pending, np.array([9.0]), None, False)  # a full window: 1 + 0.5 * 2 + 0.25 * 3, then gamma^3
    assert (buffer.rewards[0], buffer.discounts[0], buffer.actions[0]) == (2.75, 0.125, 0)
    while pending:  # the episode ended: what is left is stored, with nothing to bootstrap from
        store_n_step(buffer, pending, np.array([9.0]), None, True)
    assert buffer.rewards[1:3].tolist() == [3.5, 3.0] and buffer.discounts[1:3].tolist() == [0.0, 0.0]


def test_time_discounts_multiply_per_transition():
    """Decisions that take no time (discount 1) do not shrink what follows them."""
    from collections import deque

    from schedlab.learners.replay_buffer import store_n_step

    buffer = ReplayBuffer(4, 1, n_actions=3)
    pending = deque([(np.zeros(1), 0, 0.0, 1.0), (np.zeros(1), 1, -2.0, 0.5), (np.zeros(1), 2, -4.0, 0.25)])
    store_n_step(buffer, pending, np.ones(1), np.array([True, False, True]), False)
    assert (buffer.rewards[0], buffer.discounts[0]) == (0.0 - 2.0 - 0.5 * 4.0, 0.125)
    assert buffer.next_masks[0].tolist() == [True, False, True]


def test_masked_actions_are_never_chosen_nor_bootstrapped():
    def constant_q() -> DQN:  # a network whose Q is (1, 2, 3) whatever it sees
        agent = DQN(2, 3, DQNConfig(hidden=(4,), double=False), seed=0)
        with torch.no_grad():
            for layer in agent.policy.net:
                if isinstance(layer, torch.nn.Linear):
                    layer.weight.zero_()
                    layer.bias.zero_()
            agent.policy.net[-1].bias.copy_(torch.tensor([1.0, 2.0, 3.0]))
        agent.sync_target()
        return agent

    obs = np.zeros(2, dtype=np.float32)
    assert constant_q().act(obs) == 2
    assert constant_q().act(obs, np.array([True, True, False])) == 1
    batch = (torch.zeros(1, 2), torch.tensor([0]), torch.zeros(1), torch.zeros(1, 2), torch.ones(1))
    # the loss is Huber(Q(s, 0) = 1, target = max over the valid next actions): 3 unmasked, 1 masked
    assert constant_q().update(batch) == pytest.approx(2.0 - 0.5)
    assert constant_q().update((*batch, torch.tensor([[True, False, False]]))) == pytest.approx(0.0)


def test_training_explores_and_acts_only_among_valid_actions():
    from schedlab.envs.slotted.deeprm import DeepRMEnv

    class Recorder(DeepRMEnv):
        invalid = 0

        def step(self, action):
            if not self.action_masks()[int(action)]:
                Recorder.invalid += 1
            return super().step(action)

    env = Recorder(flatten=True, arrival_steps=5, load=1.9)
    train(env, DQNConfig(total_steps=600, learning_starts=100, hidden=(8,), buffer_size=500))
    assert Recorder.invalid == 0
    train(env, DQNConfig(total_steps=600, learning_starts=100, hidden=(8,), buffer_size=500, mask_actions=False))
    assert Recorder.invalid > 0  # without the mask, random exploration picks empty slots too


def test_time_discount_needs_the_clock():
    import gymnasium as gym

    env = gym.make("CartPole-v1")
    with pytest.raises(ValueError, match='info\\["time"\\]'):
        train(env, DQNConfig(total_steps=10, discount="time"))


def test_a_dueling_network_trains_and_round_trips(tmp_path):
    agent = DQN(8, 3, DQNConfig(hidden=(16,), dueling=True, learning_rate=1e-2), seed=7)
    losses = [agent.update(fixed_batch()) for _ in range(200)]
    assert losses[-1] < 0.2 * losses[0]
    agent.save(tmp_path / "dueling.pt")
    obs = np.ones(8, dtype=np.float32)
    assert np.array_equal(DQN.load(tmp_path / "dueling.pt").q_values(obs), agent.q_values(obs))


def test_compact_replay_refuses_observations_that_are_not_whole_bytes():
    buffer = ReplayBuffer(4, 2, compact=True)
    buffer.add(np.array([0.0, 255.0]), 0, 0.0, np.array([1.0, 2.0]), 0.9)
    with pytest.raises(ValueError, match="compact=False"):
        buffer.add(np.array([0.5, 1.0]), 0, 0.0, np.array([1.0, 2.0]), 0.9)


def test_training_keeps_the_best_validated_weights_and_caches_the_checkpoint(tmp_path):
    from schedlab.learners.dqn_checkpoint import cached_checkpoint, train_keeping_best

    env = DeepRMEnv(flatten=True, arrival_steps=5, load=1.3)
    cfg = DQNConfig(total_steps=400, learning_starts=50, hidden=(8,), buffer_size=400)
    snapshots = {}

    def validate(agent, step):  # scores 3, 1, 2, 4 at steps 100..400: the kept weights are those of step 200
        snapshots[step] = {k: v.clone() for k, v in agent.policy.state_dict().items()}
        return {"score": {100: 3.0, 200: 1.0, 300: 2.0, 400: 4.0}[step]}

    def make():
        return train_keeping_best(env, cfg, seed=0, validate=validate, every=100)

    path = cached_checkpoint(tmp_path, "k", make, config=cfg)
    assert path.name == f"dqn_k-{schedlab.__version__}.pt"  # the key carries the code's version
    kept = DQN.load(path)
    assert sorted(snapshots) == [100, 200, 300, 400]
    assert all(torch.equal(v, snapshots[200][k]) for k, v in kept.policy.state_dict().items())
    assert all(torch.equal(v, snapshots[200][k]) for k, v in kept.target.state_dict().items())
    curve = (tmp_path / f"curve_k-{schedlab.__version__}.csv").read_text().splitlines()
    assert "score" in curve[0] and "seconds" in curve[0]
    assert cached_checkpoint(tmp_path, "k", lambda: pytest.fail("trained twice"), config=cfg) == path


def test_a_guide_replaces_its_share_of_the_random_exploration():
    from schedlab.envs.slotted.deeprm import DeepRMEnv

    class Recorder(DeepRMEnv):
        def step(self, action):
            self.actions.append(int(action))
            return super().step(action)

    def always_explore(fraction):
        env = Recorder(flatten=True, arrival_steps=5, load=1.3)
        env.actions = []
        cfg = DQNConfig(
            total_steps=300,
            learning_starts=1000,
            hidden=(8,),
            buffer_size=300,
            start_epsilon=1.0,
            end_epsilon=1.0,
            guide_fraction=fraction,
        )
        train(env, cfg, seed=0, guide=lambda e: e.unwrapped.config.slots)  # the guide always waits
        return env.actions

    assert set(always_explore(1.0)) == {5}
    mixed = always_explore(0.5)
    assert 0.35 < mixed.count(5) / len(mixed) < 0.9 and len(set(mixed)) > 1


def test_adamw_is_fused_where_torch_has_the_kernel_else_the_default(monkeypatch):
    """A torch without a fused CPU kernel refuses fused=True when AdamW is built: the default takes over."""
    params = list(torch.nn.Linear(3, 2).parameters())
    assert adamw(params, lr=1e-3, weight_decay=0.0).defaults["fused"]  # this torch has it (2.4 and later)
    real = torch.optim.AdamW

    def no_fused_kernel(params, **kwargs):
        if kwargs.get("fused"):
            raise RuntimeError("`fused=True` requires all the params to be floating point Tensors of supported devices")
        return real(params, **kwargs)

    monkeypatch.setattr(torch.optim, "AdamW", no_fused_kernel)
    opt = adamw(params, lr=1e-3, weight_decay=0.01)
    assert not opt.defaults["fused"] and opt.defaults["weight_decay"] == 0.01
    agent = DQN(4, 3, DQNConfig(), seed=0)  # builds, and its optimiser is the default one
    assert not agent.optimizer.defaults["fused"]

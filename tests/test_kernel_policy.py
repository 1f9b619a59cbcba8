"""The kernel policy: one MLP scores each job, a masked softmax over the scores; SB3 PPO and MaskablePPO."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO
from stable_baselines3 import PPO

from schedlab.envs.kernel_policy import KernelLayout, KernelNet, KernelPolicy, MaskableKernelPolicy, kernel_layout
from schedlab.envs.machine.env import MachineEnv
from schedlab.envs.rlscheduler.env import RLSchedulerConfig, RLSchedulerEnv

TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces"
needs_logs = pytest.mark.skipif(not (TRACES / "lublin_256.swf.gz").exists(), reason="needs ../shared/traces")


def test_scores_follow_the_jobs_when_the_queue_is_permuted_and_padding_is_masked():
    torch.manual_seed(0)
    layout = KernelLayout(rows=6, width=9, present=8, ignore=(8,))
    net = KernelNet(6 * 9, layout)
    rows = torch.rand(1, 6, 9)
    rows[0, :, 8] = torch.tensor([1, 1, 1, 1, 0, 0.0])
    perm = torch.tensor([2, 0, 3, 1, 4, 5])
    logits = net.forward_actor(rows.reshape(1, -1))
    moved = net.forward_actor(rows[:, perm].reshape(1, -1))
    assert torch.allclose(moved, logits[:, perm])
    assert (logits[0, 4:] < -1e7).all()  # padding
    assert torch.allclose(net.forward_critic(rows.reshape(1, -1)), net.forward_critic(rows[:, perm].reshape(1, -1)))


@needs_logs
@pytest.mark.parametrize("algo,policy", [(PPO, KernelPolicy), (MaskablePPO, MaskableKernelPolicy)])
def test_ppo_and_maskable_ppo_learn_save_and_load(algo, policy, tmp_path):
    env = RLSchedulerEnv(RLSchedulerConfig(logs_dir=str(TRACES), queue=32))
    model = algo(policy, env, n_steps=128, batch_size=64, n_epochs=2, seed=0, device="cpu")
    model.learn(300)
    assert model.num_timesteps >= 300
    model.save(tmp_path / "m.zip")
    loaded = algo.load(tmp_path / "m.zip", env=env, device="cpu")
    obs, _ = env.reset(seed=4)
    kw = {"action_masks": env.action_masks()} if algo is MaskablePPO else {}
    a1, _ = model.predict(obs, deterministic=True, **kw)
    a2, _ = loaded.predict(obs, deterministic=True, **kw)
    assert a1 == a2 and env.action_masks()[int(a1)]  # a valid slot, with or without sb3-contrib's mask
    params = sum(p.numel() for p in loaded.policy.parameters())
    assert params < 10_000  # the same small network for any queue length


def test_the_kernel_runs_on_machine_v0_with_its_wait_action():
    env = MachineEnv(window=5)
    layout = kernel_layout(env)
    assert (layout.rows, layout.extra) == (5, 1)
    model = MaskablePPO(
        MaskableKernelPolicy,
        env,
        policy_kwargs={"layout": layout},
        n_steps=64,
        batch_size=32,
        n_epochs=1,
        seed=0,
        device="cpu",
    )
    model.learn(128)
    obs, _ = env.reset(seed=0)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]
    assert np.isfinite(model.policy.predict_values(model.policy.obs_to_tensor(obs)[0]).item())


def test_the_initial_weights_are_orthogonal_and_the_float64_qr_of_sb3s_own_draws():
    """SB3's orthogonal initialisation with its QR in float64: the same draws, orthonormal to float32 rounding."""
    layer = torch.nn.Linear(8, 32)
    torch.manual_seed(3)
    torch.nn.init.orthogonal_(layer.weight, gain=np.sqrt(2))  # SB3's float32 QR of the same draws
    theirs = layer.weight.detach().clone()
    torch.manual_seed(3)
    MaskableKernelPolicy.init_weights(layer, gain=np.sqrt(2))
    ours = layer.weight.detach()
    assert torch.allclose(ours, theirs, atol=1e-5)
    gram = ours.double().T @ ours.double() / 2.0  # 32 x 8: orthonormal columns, times the gain
    assert torch.allclose(gram, torch.eye(8, dtype=torch.float64), atol=1e-6)
    assert (layer.bias == 0).all()

"""``schedlab train --set policy=kernel``: one MLP per action's row, equivariant, saved and trained like the MLP."""

from __future__ import annotations

import json
from dataclasses import replace

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("pettingzoo")

import torch

from schedlab.envs import make_parallel
from schedlab.envs.action_rows import ABSENT, action_rows
from schedlab.experiment.cli import main
from schedlab.training import KernelScorer, TrainConfig, load_policy, train
from schedlab.training.episodes import EnvSpec, episode_costs, greedy_act, make_env, run_episode

GRID = "schedlab/GridParallel-v0"
SMALL = {"agents": 3, "resources": 6, "steps": 12, "rate": 1.0, "features": ["runtime", "latency", "agent"]}
TINY = TrainConfig(
    env="GridParallel-v0", env_settings=SMALL, generations=2, pairs=2, episodes=1, validation=2,
    teacher="mct", imitation_episodes=2, imitation_epochs=3, hidden=(8,), policy="kernel",
)  # fmt: skip


def _permuted(obs: np.ndarray, index: np.ndarray, perm: np.ndarray) -> np.ndarray:
    """``obs`` with the actions' rows moved: action ``a``'s row becomes action ``perm[a]``'s (the rest kept)."""
    out = obs.copy()
    own = index >= 0
    out[..., index[own]] = obs[..., index[perm][own]]
    return out


def _scores(scorer: KernelScorer, obs: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        return scorer.scores(torch.as_tensor(obs, dtype=torch.float32)).numpy()


def test_permuting_the_resources_permutes_the_scores():
    """The grid's kernel: each resource's score is a function of its own row, whatever its place."""
    env = make_parallel("GridParallel-v0", topology="small_world", **SMALL)
    env.reset(seed=2)
    env.step({a: 0 for a in env.agents})  # some load on resource 0: the rows differ
    obs = np.stack([env.observe(a) for a in env.possible_agents])
    rows = action_rows(env)
    assert rows.index.shape == (6, 5) and rows.width == 5 + 3 + 3  # load, capacity, unfinished, runtime, latency
    scorer = KernelScorer(rows, (16,), np.random.default_rng(1))
    perm = np.random.default_rng(0).permutation(6)
    before, after = _scores(scorer, obs), _scores(scorer, _permuted(obs, rows.index, perm))
    assert not np.allclose(before, before[:, :1])  # not a constant: the test can see a permutation
    np.testing.assert_allclose(after, before[:, perm], rtol=1e-5, atol=1e-6)
    assert scorer.act(obs[0]) == int(np.argmax(before[0]))


def test_permuting_the_window_slots_permutes_their_scores_and_wait_keeps_its_own():
    """Machine-v0's kernel: the window slots are exchangeable; *wait* (no slot's values) is the last action."""
    env = gym.make("schedlab/Machine-v0", disable_env_checker=True)
    rows = action_rows(env)
    assert rows.actions == env.action_space.n and (rows.index[-1] == ABSENT).all()
    obs = np.random.default_rng(3).random((4, rows.size)).astype(np.float32)
    scorer = KernelScorer(rows, (8, 8), np.random.default_rng(2))
    perm = np.r_[np.random.default_rng(4).permutation(rows.actions - 1), rows.actions - 1]
    before, after = _scores(scorer, obs), _scores(scorer, _permuted(obs, rows.index, perm))
    np.testing.assert_allclose(after, before[:, perm], rtol=1e-5, atol=1e-6)


def test_a_saved_kernel_loads_to_the_same_weights_and_actions(tmp_path):
    """model.pt holds the kernel's vector: loaded, the same sha256 and the same episode as in the search."""
    result = train(TINY, tmp_path)
    env = make_env(GRID, SMALL)
    policy = load_policy(result.model, env)
    assert isinstance(policy, KernelScorer) and policy.sha256() == result.sha256
    spec = EnvSpec(GRID, json.dumps(SMALL, sort_keys=True), TINY.hidden, "kernel")
    [searched] = episode_costs(spec, policy.vector(), None, [5])
    assert run_episode(env, greedy_act(policy), 5) == pytest.approx(searched, rel=1e-12)
    assert json.loads((tmp_path / "settings.json").read_text())["config"]["policy"] == "kernel"
    with pytest.raises(ValueError, match="observations of shape"):  # another layout is another model
        load_policy(result.model, make_env(GRID, {**SMALL, "features": ["runtime"]}))


def test_a_kernel_training_resumes_exactly_and_takes_ppo(tmp_path):
    """--resume goes on with the kernel's own weights; PPO fine-tunes it as the actor's logits."""
    whole = train(replace(TINY, generations=2), tmp_path / "whole")
    train(replace(TINY, generations=1), tmp_path / "cut")
    assert train(replace(TINY, generations=2), tmp_path / "cut", resume=True).sha256 == whole.sha256
    with pytest.raises(ValueError, match=r"other settings \(policy\)"):  # an MLP cannot resume the kernel's search
        train(replace(TINY, generations=3, policy="mlp"), tmp_path / "cut", resume=True)
    ppo = replace(TINY, ppo_steps=64, ppo_rollout=32, ppo_minibatch=16, ppo_validate=32)
    result = train(ppo, tmp_path / "ppo")
    assert np.isfinite(result.validation_score) and (result.phase == "ppo") == (result.ppo_steps > 0)


def _command(tmp_path, name: str, *settings: str) -> list[str]:
    return ["train", "GridParallel-v0", "--executor", "serial", "--set", "policy=kernel", "--set", "teacher=mct",
            "--set", "hidden=8", "--set", "env.agents=3", "--set", "env.resources=5", "--set", "env.steps=10",
            "--set", "env.topology=small_world", "--set", "env.features=runtime,latency", "--set", "generations=2",
            "--set", "pairs=2", "--set", "episodes=1", "--set", "validation=1", "--set", "imitation_episodes=1",
            "--set", "imitation_epochs=2", *settings, "--out", str(tmp_path / name)]  # fmt: skip


def test_the_command_trains_a_kernel_and_the_same_seed_gives_the_same_weights(tmp_path, capsys):
    """``schedlab train GridParallel-v0 --set policy=kernel``: end to end, the same sha256 twice, another seed's not."""
    hashes = []
    for name, seed in (("a", "0"), ("b", "0"), ("c", "1")):
        assert main(_command(tmp_path, name, "--set", f"seed={seed}")) == 0
        last = capsys.readouterr().out.splitlines()[-1]
        assert last.startswith("weights sha256 ")
        hashes.append(last.split()[-1])
    assert hashes[0] == hashes[1] != hashes[2]
    assert torch.load(tmp_path / "a" / "model.pt", weights_only=True)["policy"] == "kernel"


def test_a_bad_policy_setting_is_refused_in_one_line(tmp_path, capsys):
    """An unknown scorer, or a kernel for an env that declares no rows: one line, exit status 2, nothing trained."""
    assert main(_command(tmp_path, "x", "--set", "policy=transformer")) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) <= 2 and "policy" in err[0] and "mlp or kernel" in err[0]
    args = [
        "train",
        "DeepRM-v0",
        "--quick",
        "--executor",
        "serial",
        "--set",
        "policy=kernel",
        "--out",
        str(tmp_path / "y"),
    ]
    assert main(args) == 2
    err = capsys.readouterr().err.splitlines()
    assert "policy=kernel: schedlab/DeepRM-v0 declares no per-action rows" in err[0]
    assert not (tmp_path / "x").exists() and not (tmp_path / "y" / "model.pt").exists()


def test_machine_v0_trains_a_kernel_that_loads_to_the_same_actions(tmp_path):
    """Machine-v0 declares its rows too: a tiny kernel training, loaded, plays the search's episode."""
    config = TrainConfig(
        env="Machine-v0", generations=1, pairs=2, episodes=1, validation=1, teacher="sjf",
        imitation_episodes=1, imitation_epochs=2, hidden=(8,), policy="kernel",
    )  # fmt: skip
    result = train(config, tmp_path)
    env = make_env("schedlab/Machine-v0", {})
    policy = load_policy(result.model, env)
    assert isinstance(policy, KernelScorer) and policy.sha256() == result.sha256
    [searched] = episode_costs(EnvSpec("schedlab/Machine-v0", "{}", (8,), "kernel"), policy.vector(), None, [3])
    assert run_episode(env, greedy_act(policy), 3) == pytest.approx(searched, rel=1e-12)

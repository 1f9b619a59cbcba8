"""``schedlab train`` in a PettingZoo Parallel env: one policy shared by the grid's brokers, seeded, checked."""

from __future__ import annotations

import json
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("pettingzoo")

from schedlab.envs import make_parallel
from schedlab.experiment.cli import main
from schedlab.training import TrainConfig, load_policy, train
from schedlab.training.episodes import EnvSpec, episode_costs, greedy_act, heuristic_act, make_env, run_episode
from schedlab.training.heuristics import heuristic, heuristic_names

GRID = "schedlab/GridParallel-v0"
SMALL = {"agents": 3, "resources": 6, "steps": 12, "rate": 1.0}
TINY = TrainConfig(
    env="GridParallel-v0", env_settings=SMALL, generations=2, pairs=2, episodes=1, validation=2,
    teacher="mct", imitation_episodes=2, imitation_epochs=3, hidden=(8,),
)  # fmt: skip


def test_the_grid_is_made_by_name_and_its_bad_settings_are_one_line():
    """``make_parallel`` knows the grid; an unknown topology, setting or feature is refused in one line."""
    env = make_parallel("GridParallel-v0", topology="tree", features="runtime,latency,agent", **SMALL)
    assert env.registry_id == GRID
    obs, _ = env.reset(seed=0)
    observer = env.observer
    assert obs["scheduler_1"].shape == (3 + 3 * 6 + 6 + 6 + 3,)
    assert np.array_equal(observer.feature(obs["scheduler_1"], "latency"), env.config.topology.latency[1])
    assert observer.feature(obs["scheduler_1"], "agent").tolist() == [0.0, 1.0, 0.0]
    for bad, words in [({"topology": "ring"}, "topology"), ({"colour": 1}, "colour"), ({"features": "x"}, "features")]:
        with pytest.raises(ValueError, match=words) as info:
            make_parallel("GridParallel-v0", **bad)
        assert "\n" not in str(info.value)


def test_the_tree_spreads_25_resources_over_10_brokers():
    """docs/grid.md's tree with M = 25: 3 resources under each of the first five brokers, 2 under the others."""
    env = make_parallel("GridParallel-v0", topology="tree")
    near = env.config.topology.latency.min(axis=1, keepdims=True) == env.config.topology.latency
    assert near.sum(axis=1).tolist() == [3] * 5 + [2] * 5  # each broker's own sites, 0.5 away


def test_the_grid_has_teachers_and_one_runner_plays_it():
    """LLS and MCT act through the env; an episode's cost is minus the sum of every broker's rewards."""
    assert heuristic_names(GRID) == ["lls", "mct"]
    env = make_env(GRID, SMALL)
    costs = {name: run_episode(env, heuristic_act(GRID, name), 3) for name in ("lls", "mct")}
    env.reset(seed=3)
    total = 0.0
    while env.agents:
        step = env.step({a: 0 for a in env.agents})  # every job to resource 0
        total += sum(step[1].values())
    assert min(costs.values()) > 0 and -total > max(costs.values())  # both spread the jobs; all on one is worse
    with pytest.raises(ValueError, match=r"'sjf' is not a heuristic of schedlab/GridParallel-v0 \(it has: lls, mct\)"):
        heuristic(GRID, "sjf")


def test_the_same_seed_gives_the_same_shared_policy_with_one_or_two_workers(tmp_path):
    """Every member's noise comes from (seed, generation, pair): the worker count cannot change the weights."""
    hashes = []
    for workers in (1, 2):
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            hashes.append(train(TINY, tmp_path / f"w{workers}", executor=pool).sha256)
    assert hashes[0] == hashes[1]


def test_a_loaded_grid_model_acts_as_in_the_search_and_only_in_its_own_env(tmp_path):
    """The loaded policy scores an episode as the search did; another env or observation size is one line."""
    result = train(TINY, tmp_path)
    env = make_env(GRID, SMALL)
    policy = load_policy(result.model, env)
    assert policy.sha256() == result.sha256
    spec = EnvSpec(GRID, json.dumps(SMALL, sort_keys=True), (8,))
    [searched] = episode_costs(spec, policy.vector(), None, [5])
    assert run_episode(env, greedy_act(policy), 5) == pytest.approx(searched, rel=1e-12)
    with pytest.raises(ValueError, match="observations of shape") as info:
        load_policy(result.model, make_env(GRID, {**SMALL, "features": ["runtime"]}))
    assert "\n" not in str(info.value)
    with pytest.raises(ValueError, match="a model for schedlab/GridParallel-v0, not for schedlab/Machine-v0"):
        load_policy(result.model, make_env("schedlab/Machine-v0", {}))


def test_the_command_trains_the_grid(tmp_path, capsys):
    """``schedlab train GridParallel-v0 --set env.NAME=VALUE`` trains one shared policy and prints its sha256."""
    args = ["train", "GridParallel-v0", "--quick", "--executor", "serial", "--set", "teacher=lls", "--set", "hidden=8",
            "--set", "env.agents=3", "--set", "env.resources=5", "--set", "env.steps=10",
            "--set", "env.topology=small_world", "--out", str(tmp_path)]  # fmt: skip
    assert main(args) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("weights sha256 ")
    assert main([*args[:-2], "--set", "env.topology=ring", "--out", str(tmp_path / "x")]) == 2
    assert "topology: unknown 'ring'" in capsys.readouterr().err.splitlines()[0]
    assert not (tmp_path / "x").exists()

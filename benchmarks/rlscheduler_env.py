"""schedlab/RLScheduler-v0 against RLScheduler's own environment: steps per CPU second, in one process.

RLScheduler's ``HPCSimPickJobs.HPCEnv`` (DIR-LAB/deep-batch-scheduler) is imported from
a checkout given by ``--rlscheduler DIR`` (with its ``job.py`` and ``cluster.py``; the
log as plain ``.swf`` in ``--swf``). Its TensorFlow and gym imports are not needed to
step it: they are replaced by stand-ins (gym's 2019 seeding is schedlab's
:func:`~schedlab.model.formats.window_draw.legacy_gym_rng`). Both environments play the
same number of episodes of 256 jobs, choosing uniformly among the valid slots, and
the CPU time of ``reset`` and ``step`` is summed; the two alternate, several rounds,
and the best round of each is kept. RLScheduler asks its agent at every decision;
schedlab skips decisions with one job waiting (``ask_single=False``), so both a
per-step and a per-episode ratio are printed (``--ask-single`` asks as RLScheduler).

    python benchmarks/rlscheduler_env.py --rlscheduler /tmp/deep-batch-scheduler \\
        --swf /tmp/lublin_256.swf --episodes 20 --rounds 3
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import time
import types
from pathlib import Path

import numpy as np


def _stub_imports() -> None:
    from schedlab.model.formats.window_draw import legacy_gym_rng

    sys.modules.setdefault("tensorflow", types.ModuleType("tensorflow"))
    gym = types.ModuleType("gym")
    gym.Env = object
    spaces = types.ModuleType("gym.spaces")
    spaces.Box = spaces.Discrete = lambda *a, **k: None
    seeding = types.ModuleType("gym.utils.seeding")
    seeding.np_random = lambda seed: (legacy_gym_rng(seed), seed)
    utils = types.ModuleType("gym.utils")
    utils.seeding = seeding
    gym.spaces, gym.utils = spaces, utils
    sys.modules.update({"gym": gym, "gym.spaces": spaces, "gym.utils": utils, "gym.utils.seeding": seeding})


def theirs(checkout: str, swf: str, episodes: int, rng: np.random.Generator) -> tuple[float, int]:
    sys.path.insert(0, checkout)
    _stub_imports()
    with contextlib.redirect_stdout(io.StringIO()):
        import HPCSimPickJobs as hpc

        env = hpc.HPCEnv()
        env.my_init(workload_file=swf)
    env.seed(0)
    steps, cpu = 0, 0.0
    for _ in range(episodes):
        t = time.process_time()
        env.reset()
        done = False
        while not done:
            valid = [i for i, p in enumerate(env.pairs) if p[0] is not None]
            out = env.step(int(rng.choice(valid)))
            done = out[2]
            steps += 1
        cpu += time.process_time() - t
    return cpu, steps


def ours(log: str, episodes: int, rng: np.random.Generator, ask_single: bool) -> tuple[float, int]:
    from schedlab.envs.rlscheduler.env import RLSchedulerEnv

    env = RLSchedulerEnv(log=log, ask_single=ask_single)
    env.reset(seed=0)
    steps, cpu = 0, 0.0
    for _ in range(episodes):
        t = time.process_time()
        env.reset()
        done = False
        while not done:
            _, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            steps += 1
        cpu += time.process_time() - t
    return cpu, steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rlscheduler", required=True, help="a checkout of DIR-LAB/deep-batch-scheduler")
    parser.add_argument("--swf", required=True, help="the log as plain .swf, for RLScheduler's loader")
    parser.add_argument("--log", default="lublin_256", help="the same log for schedlab (name or path)")
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ask-single", action="store_true", help="schedlab asks at every decision, as RLScheduler")
    args = parser.parse_args()
    best_t, best_o = (np.inf, 0), (np.inf, 0)
    for r in range(args.rounds):
        t = theirs(str(Path(args.rlscheduler)), args.swf, args.episodes, np.random.default_rng(r))
        o = ours(args.log, args.episodes, np.random.default_rng(r), args.ask_single)
        best_t, best_o = min(best_t, t), min(best_o, o)
        print(
            f"round {r}: RLScheduler {t[1] / t[0]:.0f} steps/s ({t[0]:.2f} CPU s), "
            f"schedlab {o[1] / o[0]:.0f} steps/s ({o[0]:.2f} CPU s)"
        )
    print(
        f"best of {args.rounds}: RLScheduler {best_t[1] / best_t[0]:.0f} steps/s, "
        f"schedlab {best_o[1] / best_o[0]:.0f} steps/s; per episode schedlab is "
        f"{best_t[0] / best_o[0]:.2f}x as fast ({args.episodes} episodes of 256 jobs each)"
    )


if __name__ == "__main__":
    main()

"""Behaviour cloning: start the search from a heuristic's choices instead of random weights.

The teacher plays ``episodes`` episodes; at each decision its action, the observation
and the mask are kept (in a Parallel env, every agent's decisions: the policy is
shared). The network is then fitted to them by cross-entropy over the valid actions'
scores (an invalid action's score is not taught), with Adam, in minibatches shuffled
by the ``imitation_batches`` stream. Evolution strategies then start from a scheduler
about as good as the teacher, and only has to improve on it.

**DAgger** (``TrainConfig.dagger`` rounds): cloning fits the teacher on the states the
teacher's own actions lead to, and a learner that errs drifts to states it was never
taught. Each round the learner plays new episodes greedily while the teacher only labels
every state it visits (its action recorded, the learner's taken); the network is then
fitted again on every decision gathered so far. With the clairvoyant rollout teacher
(:mod:`schedlab.training.rollout`) each label replays the learner's own prefix.

References
----------
S. Ross, G. J. Gordon, J. A. Bagnell, "A reduction of imitation learning and structured
prediction to no-regret online learning", AISTATS 2011.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from schedlab.training.episodes import heuristic_act, run_episode
from schedlab.training.policy import Scorer

__all__ = ["imitate", "teacher_decisions"]


def teacher_decisions(
    env: Any, env_id: str, teacher: str, seeds: list[int], learner: Scorer | None = None
) -> tuple[np.ndarray, ...]:
    """The teacher's observations, masks and actions over the episodes of ``seeds``.

    In the states the teacher's own actions lead to, or, with ``learner``, those its greedy
    actions lead to (DAgger's: the teacher labels, the learner acts).
    """
    rule = heuristic_act(env_id, teacher)
    observations, masks, actions = [], [], []

    def act(obs: np.ndarray, mask: np.ndarray, e: Any, agent: str | None = None) -> int:
        action = rule(obs, mask, e, agent)
        observations.append(np.asarray(obs, dtype=np.float32))
        masks.append(mask.copy())
        actions.append(action)
        return action if learner is None else learner.act(obs, mask)

    for s in seeds:
        run_episode(env, act, s)
    return np.stack(observations), np.stack(masks), np.asarray(actions, dtype=np.int64)


def imitate(
    policy: Scorer, data: tuple[np.ndarray, ...], *, epochs: int, rate: float, rng: np.random.Generator
) -> float:
    """Fit ``policy`` to the teacher's decisions ``data``; the share of them it then agrees with."""
    observations, masks, actions = (torch.as_tensor(a) for a in data)
    optimizer = torch.optim.Adam(policy.net.parameters(), lr=rate)
    batch = 256
    for _ in range(epochs):
        order = torch.as_tensor(rng.permutation(len(actions)))
        for at in range(0, len(order), batch):
            rows = order[at : at + batch]
            scores = policy.scores(observations[rows]).masked_fill(~masks[rows], -1e9)
            loss = torch.nn.functional.cross_entropy(scores, actions[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    policy.sync_from_net()
    with torch.no_grad():
        chosen = policy.scores(observations).masked_fill(~masks, -1e9).argmax(1)
    return float((chosen == actions).float().mean())

"""PPO after the search: the scorer's weights fine-tuned by proximal policy optimisation.

The optional last stage of ``schedlab train`` (``ppo_steps > 0``), in the style of
CleanRL's single-file PPO, read top to bottom:

1. **Actor and critic.** The actor is the scorer itself (the
   :class:`~schedlab.training.policy.MLPPolicy`, or ``policy=kernel``'s
   :class:`~schedlab.training.kernel.KernelScorer`), from the search's best weights:
   its scores are the logits of a softmax over the valid actions (an invalid action's
   logit is :data:`MASKED`, so its probability is 0). The critic is a separate small
   MLP over the whole observation (the scorer's hidden widths, one output, drawn from
   the ``ppo_critic`` stream) that estimates the value of an observation.
2. **Rollout.** The actor plays whole episodes (:func:`~schedlab.training.episodes.run_episode`,
   seeds from the ``ppo_episodes`` stream) until at least ``ppo_rollout`` steps are
   gathered, **sampling** its actions from the masked softmax (a ``torch.Generator``
   seeded from the ``ppo_actions`` stream). A step is one decision: in a Gymnasium env
   one per env step; in a PettingZoo Parallel env one per agent asked at a parallel step
   (parameter sharing: the same actor and critic for every agent, each on its own
   observation and mask). Each agent's decisions form **its own trajectory** (a
   Gymnasium env has one agent): a reward the env pays an agent goes to that agent's
   latest decision, so rewards paid between two of its decisions are summed onto the
   first, and its trajectory ends at its last decision (its termination or truncation,
   or the episode's end). With a teacher, an episode's rewards are divided by the
   teacher's cost on the same episode (a Parallel env's cost being minus the sum of
   every agent's rewards), so that PPO maximises what the search minimises and
   validation measures (the cost relative to the teacher's) and a heavy episode weighs
   as much as a light one; without one they are used as they are.
3. **Advantages.** Generalised advantage estimation (GAE, ``ppo_gamma``, ``ppo_lambda``)
   within each trajectory, discounted per decision; its end, terminated or truncated, is
   taken as terminal (rollouts are whole episodes, so none is cut). The advantages are
   normalised over the rollout.
4. **Update.** ``ppo_epochs`` passes over the rollout in minibatches of
   ``ppo_minibatch`` steps (shuffled by the ``ppo_batches`` stream): the clipped
   surrogate (``ppo_clip``) minus ``ppo_entropy`` times the entropy, plus half the
   critic's squared error, one Adam (``ppo_rate``) over both networks, each network's
   gradient norm clipped at :data:`MAX_GRAD_NORM`.

After each update the actor's float32 weights become the policy's vector again
(:meth:`~schedlab.training.policy.Scorer.sync_from_net`), which
:mod:`schedlab.training.run` validates greedily, as the search's, keeping the best.
Everything runs in this process on one thread, so the same seed gives the same weights.
:meth:`PPO.save_state` copies all that the next rollout and update depend on but the
episode seeds' stream (the caller's): the actor, the critic, Adam's state, the steps and
the ``ppo_actions`` and ``ppo_batches`` draws (``ppo_critic`` is drawn only once, for
the critic's first weights); :meth:`PPO.load_state` puts it back, so that a resumed PPO
stage goes on bit for bit.

References
----------
J. Schulman, F. Wolski, P. Dhariwal, A. Radford, O. Klimov. Proximal Policy Optimization
Algorithms. arXiv:1707.06347, 2017. S. Huang et al. CleanRL: High-quality Single-file
Implementations of Deep Reinforcement Learning Algorithms. JMLR 23(274), 2022.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from schedlab.model.core.streams import Streams
from schedlab.training.checkpoint import LearnerState
from schedlab.training.config import TrainConfig
from schedlab.training.episodes import is_parallel, run_episode
from schedlab.training.policy import MLPPolicy, Scorer
from schedlab.training.search import relative

__all__ = ["PPO"]

#: the logit of an invalid action: finite, so that its probability times its log is 0, not nan
MASKED = -1e8
#: each network's gradient norm is clipped at this (CleanRL's default)
MAX_GRAD_NORM = 0.5


class _Paid:
    """``env`` (Gymnasium or Parallel) passing each step's rewards to ``paid``, so that
    :func:`run_episode` plays the rollout's episodes unchanged; anything else is ``env``'s."""

    def __init__(self, env: Any) -> None:
        self.env, self.parallel = env, is_parallel(env)
        self.paid: Callable[[dict[Any, float]], None] = lambda rewards: None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.env, name)

    def reset(self, **kwargs: Any) -> Any:
        return self.env.reset(**kwargs)

    def step(self, action: Any) -> Any:
        result = self.env.step(action)
        self.paid(result[1] if self.parallel else {None: result[1]})  # per agent; a Gymnasium env's is None
        return result


class PPO:
    """PPO on ``policy``'s scorer in ``env``; :meth:`learn` runs rollouts and updates, in place.

    Parameters
    ----------
    config
        The training's settings (the ``ppo_*`` fields).
    env
        The Gymnasium environment (Discrete actions over a flat Box), or the PettingZoo
        Parallel one whose agents all act through ``policy``.
    policy
        The actor, holding the weights PPO starts from; its vector follows each update.
    streams
        The training's named streams (``ppo_critic``, ``ppo_actions``, ``ppo_episodes``, ``ppo_batches``).
    baseline
        An episode seed's teacher cost (rewards are divided by its magnitude), or ``None``: rewards as they are.
    seeds
        Draws the next episode's seed.
    """

    def __init__(
        self,
        config: TrainConfig,
        env: Any,
        policy: Scorer,
        streams: Streams,
        baseline: Callable[[int], float] | None,
        seeds: Callable[[], int],
    ) -> None:
        self.config, self.env, self.policy = config, _Paid(env), policy
        self.baseline, self.seeds = baseline, seeds
        critic = MLPPolicy(policy.obs_size, 1, policy.hidden, streams["ppo_critic"])
        self.critic = critic.net
        self.actions = torch.Generator().manual_seed(int(streams["ppo_actions"].integers(2**63)))
        self.batches = streams["ppo_batches"]
        params = [*self.policy.net.parameters(), *self.critic.parameters()]
        self.optimizer = torch.optim.Adam(params, lr=config.ppo_rate, eps=1e-5)
        self.steps = 0

    def logits(self, obs: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
        """The actor's scores, an invalid action's set to :data:`MASKED` (no valid action: every one is)."""
        masks = masks | ~masks.any(-1, keepdim=True)
        return self.policy.scores(obs).masked_fill(~masks, MASKED)

    # -- 2. rollout ------------------------------------------------------------------------------------

    def rollout(self) -> tuple[dict[str, torch.Tensor], list[float]]:
        """Whole episodes until at least ``ppo_rollout`` steps; the steps' data and each episode's relative cost.

        The steps are laid out trajectory after trajectory (an episode's agents in the
        order of their first decision), ``ends`` marking each trajectory's last step.
        """
        rows: list[list[Any]] = []  # obs, mask, action, reward, end
        costs: list[float] = []
        episode: dict[Any, list[list[Any]]] = {}  # agent (None in a Gymnasium env) -> its steps so far

        def sample(o: np.ndarray, mask: np.ndarray, e: Any, agent: Any = None) -> int:
            o32 = np.asarray(o, dtype=np.float32).reshape(-1)
            with torch.no_grad():
                logits = self.logits(torch.from_numpy(o32)[None], torch.from_numpy(mask)[None])
                action = int(torch.multinomial(torch.softmax(logits, -1), 1, generator=self.actions))
            episode.setdefault(agent, []).append([o32, mask.copy(), action, 0.0, False])
            return action

        def paid(rewards: dict[Any, float]) -> None:
            for agent, reward in rewards.items():
                if agent in episode:  # before an agent's first decision nothing it chose is paid for
                    episode[agent][-1][3] += float(reward)

        self.env.paid, empty = paid, 0
        while len(rows) < self.config.ppo_rollout:
            seed = self.seeds()
            episode.clear()
            cost = run_episode(self.env, sample, seed)
            base = None if self.baseline is None else np.asarray([self.baseline(seed)])
            scale = 1.0 if base is None else max(abs(float(base[0])), 1e-9)
            for trajectory in episode.values():
                trajectory[-1][4] = True
                rows += [[o, m, a, r / scale, end] for o, m, a, r, end in trajectory]
            costs.append(float(relative(np.asarray([cost]), base)))
            empty = 0 if episode else empty + 1
            if empty == 100:
                raise ValueError("PPO: 100 episodes in a row without a decision to learn from")
        obs, masks, actions, rewards, ends = zip(*rows, strict=True)
        data = {
            "obs": torch.from_numpy(np.stack(obs)),
            "masks": torch.from_numpy(np.stack(masks)),
            "actions": torch.as_tensor(actions, dtype=torch.int64),
            "rewards": torch.as_tensor(rewards, dtype=torch.float32),
            "ends": torch.as_tensor(ends, dtype=torch.bool),
        }
        return data, costs

    # -- 3. advantages ---------------------------------------------------------------------------------

    def advantages(self, data: dict[str, torch.Tensor]) -> None:
        """Add the old log-probabilities, values, GAE advantages and returns to ``data``."""
        with torch.no_grad():
            logp = torch.log_softmax(self.logits(data["obs"], data["masks"]), -1)
            data["logp"] = logp.gather(1, data["actions"][:, None])[:, 0]
            values = self.critic(data["obs"])[:, 0]
        gamma, lam = self.config.ppo_gamma, self.config.ppo_lambda
        advantages = torch.zeros_like(values)
        running = 0.0
        for t in reversed(range(len(values))):
            following = 0.0 if data["ends"][t] else float(values[t + 1])
            delta = float(data["rewards"][t]) + gamma * following - float(values[t])
            running = delta + (0.0 if data["ends"][t] else gamma * lam * running)
            advantages[t] = running
        data["returns"] = advantages + values
        data["advantages"] = (advantages - advantages.mean()) / (advantages.std(correction=0) + 1e-8)

    # -- 4. update -------------------------------------------------------------------------------------

    def update(self, data: dict[str, torch.Tensor]) -> None:
        """``ppo_epochs`` passes of minibatch steps on the clipped surrogate, the entropy and the value loss."""
        config = self.config
        for _ in range(config.ppo_epochs):
            order = torch.as_tensor(self.batches.permutation(len(data["actions"])))
            for at in range(0, len(order), config.ppo_minibatch):
                rows = order[at : at + config.ppo_minibatch]
                logp_all = torch.log_softmax(self.logits(data["obs"][rows], data["masks"][rows]), -1)
                logp = logp_all.gather(1, data["actions"][rows, None])[:, 0]
                entropy = -(logp_all.exp() * logp_all).sum(-1).mean()
                ratio = (logp - data["logp"][rows]).exp()
                advantage = data["advantages"][rows]
                clipped = ratio.clamp(1 - config.ppo_clip, 1 + config.ppo_clip)
                surrogate = torch.max(-advantage * ratio, -advantage * clipped).mean()
                value_loss = 0.5 * (self.critic(data["obs"][rows])[:, 0] - data["returns"][rows]).pow(2).mean()
                loss = surrogate - config.ppo_entropy * entropy + value_loss
                self.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.policy.net.parameters(), MAX_GRAD_NORM)
                torch.nn.utils.clip_grad_norm_(self.critic.parameters(), MAX_GRAD_NORM)
                self.optimizer.step()
        self.policy.sync_from_net()

    def save_state(self) -> LearnerState:
        """A copy of the learner's state now (after an update): what :meth:`load_state` goes on from."""
        return LearnerState(
            steps=self.steps,
            actor=self.policy.vector(),
            critic=copy.deepcopy(self.critic.state_dict()),
            optimizer=copy.deepcopy(self.optimizer.state_dict()),
            actions=self.actions.get_state(),
            batches=self.batches.bit_generator.state,
        )

    def load_state(self, saved: LearnerState) -> None:
        """Take ``saved`` (from :meth:`save_state` of a learner with the same settings) as the state, in place."""
        self.steps = saved.steps
        self.policy.set_vector(saved.actor)
        self.critic.load_state_dict(saved.critic)
        self.optimizer.load_state_dict(copy.deepcopy(saved.optimizer))
        self.actions.set_state(saved.actions)
        self.batches.bit_generator.state = saved.batches

    def learn(self, steps: int) -> float:
        """Rollouts and updates until ``steps`` more environment steps; the episodes' mean (relative) cost."""
        target, costs = self.steps + steps, []
        while self.steps < target:
            data, episode_costs = self.rollout()
            self.advantages(data)
            self.update(data)
            self.steps += len(data["actions"])
            costs += episode_costs
        return float(np.mean(costs))

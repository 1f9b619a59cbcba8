"""Deep Q-learning (DQN) in torch, CleanRL style: read it top to bottom.

Seed 002, sections 5, 7 and 8: a *policy* network estimates Q(s, a) and picks the
actions (epsilon-greedy); a *target* network, a lagged copy, gives the bootstrap
targets ``r + gamma * max_a' Q_target(s', a')``; transitions go into an experience
replay buffer, and each optimisation step fits the policy network to the targets of a
random batch with the Huber (smooth L1) loss and AdamW. The target network is
synchronised every ``target_every`` steps (a hard copy with ``tau = 1``, a soft
update otherwise). Each episode is reset with its own seed, drawn from the run's
seed, so a run replays exactly.

Two options fit event-driven schedulers. Where the environment reports the valid
actions (``info["action_mask"]``), exploration, the greedy choice and the bootstrap
``max`` range over them only (Huang and Ontañón 2022). Where decisions take no
simulated time (placing a job) and only some actions move the clock,
``discount="time"`` discounts by ``gamma ** elapsed`` (``info["time"]``), a
semi-Markov discount, so a value counts the cost to come in simulated time rather
than in decisions.

References
----------
V. Mnih et al., "Human-level control through deep reinforcement learning",
Nature 518, 2015.
H. van Hasselt, A. Guez, D. Silver, "Deep reinforcement learning with double
Q-learning", AAAI 2016 (``double=True``).
S. Huang et al., "CleanRL: high-quality single-file implementations of deep
reinforcement learning algorithms", JMLR 23, 2022.
S. Huang, S. Ontañón, "A closer look at invalid action masking in policy gradient
algorithms", FLAIRS 35, 2022.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np
import torch
from torch import nn

from schedlab.learners.replay_buffer import ReplayBuffer, store_n_step
from schedlab.model.core.fields import items, number, validate

if TYPE_CHECKING:
    import gymnasium as gym

__all__ = ["DQN", "DQNConfig", "QNetwork", "adamw", "linear_schedule", "train"]


@dataclass(frozen=True)
class DQNConfig:
    """Hyperparameters of DQN, one line each."""

    #: environment steps of training
    total_steps: int = number(200_000, low=1)
    #: AdamW learning rate
    learning_rate: float = number(2.5e-4, gt=0)
    #: AdamW weight decay
    weight_decay: float = 1e-4
    #: transitions the replay buffer holds
    buffer_size: int = number(50_000, low=1)
    #: discount factor
    gamma: float = number(0.99, lt=1)
    #: target update rate at each synchronisation (1 = copy the policy network)
    tau: float = number(1.0, gt=0, high=1)
    #: environment steps between target synchronisations
    target_every: int = number(1_000, low=1)
    #: transitions per optimisation step
    batch_size: int = number(64, low=1)
    #: exploration rate at the start
    start_epsilon: float = number(1.0, high=1)
    #: exploration rate after the decay
    end_epsilon: float = number(0.05, high=1)
    #: fraction of total_steps over which epsilon decays linearly
    exploration_fraction: float = number(0.3, high=1)
    #: environment steps before the first optimisation step
    learning_starts: int = 5_000
    #: environment steps between optimisation steps
    train_every: int = number(4, low=1)
    #: widths of the hidden layers
    hidden: tuple[int, ...] = items((128, 64), low=1)
    #: rewards are multiplied by this before learning (keeps Q values near 1)
    reward_scale: float = number(0.1, gt=0)
    #: gradient norm clip
    max_grad_norm: float = number(10.0, gt=0)
    #: double DQN targets: the policy network picks a', the target network values it
    double: bool = True
    #: dueling head: Q = V(s) + A(s, a) - mean_a A(s, a)
    dueling: bool = False
    #: steps summed into each return before bootstrapping (n-step Q-learning)
    n_step: int = number(1, low=1)
    #: store observations as uint8 (for images of whole numbers in 0..255, as DeepRM's)
    compact: bool = True
    #: act and bootstrap over the valid actions only, where the env gives info["action_mask"]
    mask_actions: bool = True
    #: discount per decision ("step") or per unit of simulated time ("time": gamma ** elapsed info["time"])
    discount: Literal["step", "time"] = "step"
    #: share of the exploratory actions taken from train's ``guide`` policy instead of uniformly at random
    guide_fraction: float = number(0.0, high=1)

    def __post_init__(self) -> None:
        validate(self)  # every field in the range it declares (model/fields); the rules below relate fields
        if not self.end_epsilon <= self.start_epsilon:
            raise ValueError(f"need end_epsilon <= start_epsilon, got {self.end_epsilon}, {self.start_epsilon}")
        if self.discount not in ("step", "time"):
            raise ValueError(f"discount must be 'step' or 'time', got {self.discount!r}")


def adamw(params: list[nn.Parameter], *, lr: float, weight_decay: float) -> torch.optim.AdamW:
    """AdamW with torch's fused kernel where this torch has one for the parameters' device, else its default.

    Feature-detected, not version-compared: a torch without a fused CPU kernel (before 2.4)
    refuses ``fused=True`` when the optimiser is built, and the default implementation
    (the same algorithm; floats may differ in the last bits) takes over.
    """
    try:
        return torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay, fused=True)
    except RuntimeError:  # "`fused=True` requires all the params to be ... Tensors of supported devices"
        return torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay)


def linear_schedule(start: float, end: float, duration: float, t: float) -> float:
    """``start`` moving linearly to ``end`` over ``duration`` steps, then ``end``."""
    return end if duration <= 0 else start + (end - start) * min(1.0, t / duration)


class QNetwork(nn.Module):
    """An MLP from an observation vector to one Q value per action.

    Inputs are divided by the observation space's upper bounds (where finite), so a
    backlog count and binary image cells reach the first layer on the same scale.
    With ``dueling``, a state value and per-action advantages are separate heads
    (Wang et al. 2016): where most of Q is the state's cost to come, the advantages
    carry the small differences between actions.
    """

    scale: torch.Tensor  # 1 / the observation bounds: a buffer (it moves with the module, it is not trained)

    def __init__(
        self, obs_dim: int, n_actions: int, hidden: tuple[int, ...], obs_high: np.ndarray, *, dueling: bool = False
    ) -> None:
        super().__init__()
        high = np.where(np.isfinite(obs_high) & (obs_high > 0), obs_high, 1.0).astype(np.float32)
        self.register_buffer("scale", torch.from_numpy(1.0 / high))
        layers: list[nn.Module] = []
        width = obs_dim
        for h in hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        self.value: nn.Linear | None = None
        if dueling:
            self.value, self.advantage = nn.Linear(width, 1), nn.Linear(width, n_actions)
        else:
            layers.append(nn.Linear(width, n_actions))
        self.net = nn.Sequential(*layers)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Q of every action for a batch of observations (with dueling: value plus centred advantages)."""
        x = self.net(obs * self.scale)
        if self.value is None:
            return x
        advantage = self.advantage(x)
        return self.value(x) + advantage - advantage.mean(dim=1, keepdim=True)


class DQN:
    """The two networks, the optimiser and the update rule.

    Parameters
    ----------
    obs_dim, n_actions
        Size of the (flat) observation and number of discrete actions.
    config
        Hyperparameters.
    seed
        Seeds the networks' initial weights (inside a forked torch RNG: the global
        torch state is left as it was).
    obs_high
        Upper bounds of the observation, for input scaling (ones by default).
    """

    def __init__(
        self,
        obs_dim: int,
        n_actions: int,
        config: DQNConfig | None = None,
        *,
        seed: int = 0,
        obs_high: np.ndarray | None = None,
    ) -> None:
        self.config = cfg = config or DQNConfig()
        self.obs_dim, self.n_actions = obs_dim, n_actions
        self.obs_high = np.ones(obs_dim, dtype=np.float32) if obs_high is None else np.asarray(obs_high, np.float32)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.policy = QNetwork(obs_dim, n_actions, cfg.hidden, self.obs_high, dueling=cfg.dueling)
        self.target = QNetwork(obs_dim, n_actions, cfg.hidden, self.obs_high, dueling=cfg.dueling)
        self.target.load_state_dict(self.policy.state_dict())
        self.optimizer = adamw(list(self.policy.parameters()), lr=cfg.learning_rate, weight_decay=cfg.weight_decay)
        self.updates = 0
        self.syncs = 0

    @torch.no_grad()
    def q_values(self, obs: np.ndarray) -> np.ndarray:
        """Q of every action for one observation, without gradients."""
        return self.policy(torch.as_tensor(obs, dtype=torch.float32).unsqueeze(0))[0].numpy()

    def act(self, obs: np.ndarray, mask: np.ndarray | None = None) -> int:
        """The greedy action among those ``mask`` allows (all by default; ties: the lowest index)."""
        q = self.q_values(obs)
        return int(np.argmax(q if mask is None else np.where(mask, q, -np.inf)))

    def update(self, batch: tuple[torch.Tensor, ...]) -> float:
        """One optimisation step on ``batch``; returns the Huber loss before the step.

        ``batch`` is what :meth:`ReplayBuffer.sample` gives; an optional sixth
        tensor masks the actions that are invalid in ``next_obs`` out of the bootstrap.
        """
        obs, actions, rewards, next_obs, discounts = batch[:5]
        next_mask = batch[5] if len(batch) > 5 else None
        cfg = self.config
        with torch.no_grad():  # a' is the valid action the policy network (double DQN) or the target ranks first
            target_q = self.target(next_obs)
            ranks = self.policy(next_obs) if cfg.double else target_q
            if next_mask is not None:
                ranks = ranks.masked_fill(~next_mask, -torch.inf)
            next_q = target_q.gather(1, ranks.argmax(dim=1, keepdim=True)).squeeze(1)
            target = rewards + discounts * next_q
        q = self.policy(obs).gather(1, actions.unsqueeze(1)).squeeze(1)
        loss = nn.functional.smooth_l1_loss(q, target)
        self.optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(self.policy.parameters(), cfg.max_grad_norm)
        self.optimizer.step()
        self.updates += 1
        return float(loss.item())

    @torch.no_grad()
    def sync_target(self) -> None:
        """Move the target network towards the policy network by ``tau`` (a copy at 1)."""
        tau = self.config.tau
        for t, p in zip(self.target.parameters(), self.policy.parameters(), strict=True):
            t.mul_(1.0 - tau).add_(p, alpha=tau)
        self.syncs += 1

    # ------------------------------------------------------------------ checkpoints
    def save(self, path: str | Path) -> None:
        """Weights, sizes and config; plain tensors and builtins, loadable with ``weights_only``."""
        from schedlab import __version__

        torch.save(
            {
                "obs_dim": self.obs_dim,
                "n_actions": self.n_actions,
                "obs_high": torch.from_numpy(self.obs_high),
                "config": {
                    k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self.config).items()
                },
                "policy": self.policy.state_dict(),
                "target": self.target.state_dict(),
                "updates": self.updates,
                "syncs": self.syncs,
                "schedlab": __version__,
            },
            path,
        )

    @classmethod
    def load(cls, path: str | Path) -> DQN:
        """A DQN from :meth:`save` (``torch.load(weights_only=True)``: no code is run)."""
        state = torch.load(path, weights_only=True)
        config = {**state["config"], "hidden": tuple(state["config"]["hidden"])}
        agent = cls(state["obs_dim"], state["n_actions"], DQNConfig(**config), obs_high=state["obs_high"].numpy())
        agent.policy.load_state_dict(state["policy"])
        agent.target.load_state_dict(state["target"])
        agent.updates, agent.syncs = state["updates"], state["syncs"]
        return agent


class TrainingDiverged(FloatingPointError):
    """The loss or a weight became inf or nan: the run stops instead of reporting a broken agent."""


def _check_finite(agent: DQN, loss: float, step: int, cfg: DQNConfig) -> None:
    """Stop at the first non-finite loss or weight (one check of the weights per 100 updates)."""
    if not np.isfinite(loss):
        bad = f"the loss is {loss}"
    elif step % (100 * cfg.train_every) or all(bool(torch.isfinite(p).all()) for p in agent.policy.parameters()):
        return
    else:
        bad = "a weight of the Q-network is not finite"
    raise TrainingDiverged(
        f"DQN training diverged at step {step}: {bad} (learning_rate={cfg.learning_rate!r}, "
        f"reward_scale={cfg.reward_scale!r}, max_grad_norm={cfg.max_grad_norm!r}); lower the learning rate "
        "or the reward scale"
    )


def _mask(info: dict, cfg: DQNConfig) -> np.ndarray | None:
    """The valid actions the environment reports, if masking is on and it reports them."""
    mask = info.get("action_mask") if cfg.mask_actions else None
    return None if mask is None else np.asarray(mask, dtype=bool)


def train(
    env: gym.Env,
    config: DQNConfig | None = None,
    *,
    seed: int = 0,
    callback: Callable[[DQN, int], dict[str, float] | None] | None = None,
    callback_every: int = 10_000,
    guide: Callable[[gym.Env], int] | None = None,
) -> tuple[DQN, list[dict[str, float]]]:
    """Train a DQN on ``env`` (a flat Box observation, Discrete actions).

    Returns the agent and the training curve: one row per finished episode (step,
    return, length, epsilon, mean loss since the last row), and every
    ``callback_every`` steps a row with what ``callback(agent, step)`` returns.

    ``guide(env)``, a heuristic's action, replaces the uniform draw for a share
    ``config.guide_fraction`` of the exploratory actions: Q-learning is off-policy,
    so a behaviour that visits the states a sensible scheduler visits teaches the
    values there (as demonstrations do in DQfD, Hester et al. 2018) without the
    heuristic's choices entering the targets.
    """
    from gymnasium import spaces  # the rl extra; the learner itself needs only torch

    cfg = config or DQNConfig()
    if not isinstance(env.action_space, spaces.Discrete) or not isinstance(env.observation_space, spaces.Box):
        raise ValueError("DQN needs a Box observation space and a Discrete action space; flatten the observation")
    seeds = np.random.SeedSequence(seed)
    rng = np.random.Generator(np.random.PCG64(seeds.spawn(1)[0]))  # exploration, batches and episode seeds
    obs_dim = int(np.prod(env.observation_space.shape))
    n_actions = int(env.action_space.n)
    agent = DQN(obs_dim, n_actions, cfg, seed=seed, obs_high=np.asarray(env.observation_space.high).ravel())
    buffer = ReplayBuffer(cfg.buffer_size, obs_dim, compact=cfg.compact, n_actions=n_actions)
    curve: list[dict[str, float]] = []
    losses: list[float] = []
    episode, ep_return, ep_length = 0, 0.0, 0
    pending: deque[tuple[np.ndarray, int, float, float]] = deque()
    obs, info = env.reset(seed=int(rng.integers(2**31)))
    if cfg.discount == "time" and "time" not in info:
        raise ValueError('discount="time" needs the environment to report its clock as info["time"]')
    mask = _mask(info, cfg)
    for step in range(1, cfg.total_steps + 1):
        epsilon = linear_schedule(cfg.start_epsilon, cfg.end_epsilon, cfg.exploration_fraction * cfg.total_steps, step)
        if rng.random() < epsilon:
            if guide is not None and rng.random() < cfg.guide_fraction:
                action = int(guide(env))
            elif mask is None:
                action = int(rng.integers(n_actions))
            else:
                action = int(rng.choice(np.flatnonzero(mask)))
        else:
            action = agent.act(obs, mask)
        next_obs, reward, terminated, truncated, next_info = env.step(action)
        next_mask = _mask(next_info, cfg)
        discount = (
            cfg.gamma ** (float(next_info["time"]) - float(info["time"])) if cfg.discount == "time" else cfg.gamma
        )
        # n-step returns: a transition enters the buffer once n rewards (or the episode's end) follow it
        pending.append((obs, action, float(reward) * cfg.reward_scale, discount))
        ep_return += float(reward)
        ep_length += 1
        obs, info, mask = next_obs, next_info, next_mask
        if terminated or truncated:
            while pending:
                store_n_step(buffer, pending, next_obs, next_mask, terminated)
            curve.append(
                {
                    "step": step,
                    "episode": episode,
                    "return": ep_return,
                    "length": ep_length,
                    "epsilon": epsilon,
                    "loss": float(np.mean(losses)) if losses else float("nan"),
                }
            )
            losses.clear()
            episode, ep_return, ep_length = episode + 1, 0.0, 0
            obs, info = env.reset(seed=int(rng.integers(2**31)))  # a fresh, seeded job sequence per episode
            mask = _mask(info, cfg)
        elif len(pending) == cfg.n_step:
            store_n_step(buffer, pending, next_obs, next_mask, False)
        if step > cfg.learning_starts and step % cfg.train_every == 0:
            losses.append(agent.update(buffer.sample(cfg.batch_size, rng)))
            _check_finite(agent, losses[-1], step, cfg)
        if step % cfg.target_every == 0:
            agent.sync_target()
        if callback is not None and step % callback_every == 0:
            row = callback(agent, step)
            if row:
                curve.append({"step": step, **row})
    return agent, curve

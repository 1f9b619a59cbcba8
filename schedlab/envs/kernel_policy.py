"""A permutation-invariant "kernel" policy for Stable-Baselines3: one small MLP scores every waiting job.

RLScheduler's network (Zhang et al., SC 2020): the same MLP reads each job's feature
vector and gives it a score; a softmax over the scores of the slots that hold a job
is the policy, so the order of the queue does not matter and the network is the same
size for any queue length. The critic reads the jobs' hidden features pooled (masked
mean and max) with the observation's global part, through its own small MLP.

:class:`KernelPolicy` works with SB3's ``PPO`` (the mask is read from the observation:
padding slots get a logit of -1e8) and :class:`MaskableKernelPolicy` with sb3-contrib's
``MaskablePPO`` (which also applies ``action_masks()``). Both save and load the SB3 way
(``model.save``, ``PPO.load``); the layout travels in ``policy_kwargs``.

A :class:`KernelLayout` says where the job rows are in the flat observation.
:func:`kernel_layout` gives it for :class:`~schedlab.envs.rlscheduler.env.RLSchedulerEnv`
(any ``queue``) and :class:`~schedlab.envs.machine.env.MachineEnv` (any ``window``;
there the extra action, *wait*, is scored from the pooled features).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.policies import ActorCriticPolicy, BasePolicy
from stable_baselines3.common.torch_layers import MlpExtractor
from torch import nn

__all__ = ["KernelLayout", "KernelNet", "KernelPolicy", "MaskableKernelPolicy", "kernel_layout"]

_NEG = -1e8


@dataclass(frozen=True)
class KernelLayout:
    """Where the job rows sit in a flat observation: ``prefix`` globals, ``rows`` x ``width``, then the rest.

    ``present`` is the column that is 1 for a job and 0 for padding; the columns in
    ``ignore`` are not scored (the present flag itself). ``extra`` actions follow the
    rows' (Machine-v0's *wait*), scored from pooled features.
    """

    rows: int
    width: int
    present: int
    prefix: int = 0
    extra: int = 0
    ignore: tuple[int, ...] = ()

    def globals_dim(self, obs_dim: int) -> int:
        """How many of an ``obs_dim``-float observation's values are global (outside the job rows).

        Every job's row is scored together with them, and the critic pools them in.
        """
        return obs_dim - self.rows * self.width


def kernel_layout(env: Any) -> KernelLayout:
    """The layout of an :class:`RLSchedulerEnv` or :class:`MachineEnv` (wrapped or not)."""
    env = getattr(env, "unwrapped", env)
    from schedlab.envs.machine.env import MachineEnv
    from schedlab.envs.rlscheduler.env import RLSchedulerEnv
    from schedlab.envs.rlscheduler.obs import FEATURES

    if isinstance(env, RLSchedulerEnv):
        return KernelLayout(env.config.queue, FEATURES, FEATURES - 1, ignore=(FEATURES - 1,))
    if isinstance(env, MachineEnv):
        r = env.observer.n_resources
        return KernelLayout(env.observer.window, r + 4, 0, prefix=r, extra=1, ignore=(0,))
    raise ValueError(f"kernel_layout: no layout known for {type(env).__name__}; give a KernelLayout")


def _mlp(sizes: list[int], last_activation: bool) -> nn.Sequential:
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(itertools.pairwise(sizes)):
        layers.append(nn.Linear(a, b))
        if last_activation or i < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class KernelNet(nn.Module):
    """The actor's per-job scorer and the critic's pooled reader (SB3's ``mlp_extractor`` slot).

    ``forward_actor`` returns the logits themselves (padding at -1e8); the policy's
    ``action_net`` is the identity.
    """

    def __init__(
        self,
        obs_dim: int,
        layout: KernelLayout,
        hidden: tuple[int, ...] = (32, 16, 8),
        critic_hidden: tuple[int, ...] = (64, 32),
    ) -> None:
        super().__init__()
        self.layout = layout
        self.keep = [c for c in range(layout.width) if c not in layout.ignore]
        n_glob = layout.globals_dim(obs_dim)
        row_in = len(self.keep) + n_glob
        self.scorer = _mlp([row_in, *hidden, 1], last_activation=False)
        self.embed = _mlp([row_in, *hidden], last_activation=True)
        pooled = 2 * hidden[-1] + n_glob
        self.extra = _mlp([pooled, *hidden, layout.extra], last_activation=False) if layout.extra else None
        self.critic = _mlp([pooled, *critic_hidden], last_activation=True)
        self.latent_dim_pi = layout.rows + layout.extra
        self.latent_dim_vf = critic_hidden[-1]

    def _split(self, obs: th.Tensor) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
        lay = self.layout
        end = lay.prefix + lay.rows * lay.width
        rows = obs[:, lay.prefix : end].reshape(-1, lay.rows, lay.width)
        glob = th.cat([obs[:, : lay.prefix], obs[:, end:]], dim=1)
        present = rows[:, :, lay.present] > 0.5
        x = rows[:, :, self.keep]
        if glob.shape[1]:
            x = th.cat([x, glob.unsqueeze(1).expand(-1, lay.rows, -1)], dim=2)
        return x, glob, present

    def _pooled(self, x: th.Tensor, glob: th.Tensor, present: th.Tensor) -> th.Tensor:
        h = self.embed(x)
        m = present.unsqueeze(2).to(h.dtype)
        count = m.sum(1).clamp(min=1.0)
        mean = (h * m).sum(1) / count
        top = (h * m - (1 - m) * 1e4).max(1).values.clamp(min=0.0)  # ReLU features: an empty queue pools to 0
        return th.cat([mean, top, glob], dim=1)

    def forward_actor(self, obs: th.Tensor) -> th.Tensor:
        """The logits: one score per job row (padding at -1e8), then the ``extra`` actions' from the pool."""
        x, glob, present = self._split(obs)
        logits = self.scorer(x).squeeze(2).masked_fill(~present, _NEG)
        if self.extra is not None:
            logits = th.cat([logits, self.extra(self._pooled(x, glob, present))], dim=1)
        return logits

    def forward_critic(self, obs: th.Tensor) -> th.Tensor:
        """The critic's latent features, read from the jobs' pooled features and the globals."""
        x, glob, present = self._split(obs)
        return self.critic(self._pooled(x, glob, present))

    def forward(self, obs: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        """Both outputs, ``(actor logits, critic latents)``: what SB3 asks of its ``mlp_extractor``."""
        return self.forward_actor(obs), self.forward_critic(obs)


class _Kernel:
    """What both policies share: a :class:`KernelNet` in the extractor's place, logits passed through.

    A mix-in for two SB3 policy classes that share no base with these attributes, so it
    declares those of the host policy (the class after it in the MRO) that it uses.
    """

    features_dim: int
    mlp_extractor: MlpExtractor
    action_net: nn.Module
    optimizer: th.optim.Optimizer

    def __init__(
        self,
        *args: Any,
        layout: KernelLayout | None = None,
        hidden: tuple[int, ...] = (32, 16, 8),
        critic_hidden: tuple[int, ...] = (64, 32),
        **kwargs: Any,
    ) -> None:
        self.layout, self.hidden, self.critic_hidden = layout, tuple(hidden), tuple(critic_hidden)
        super().__init__(*args, **kwargs)

    @staticmethod
    def init_weights(module: nn.Module, gain: float = 1) -> None:
        """SB3's orthogonal initialisation, its QR computed in float64 and the result rounded to float32.

        SB3 runs the QR in float32 (``nn.init.orthogonal_``), and MKL's float32 QR rounds
        by the CPU's instruction set: the same seed gave other initial weights on an AVX2
        CPU than on an AVX-512 one (docs/rl.md, "Reproducibility"). The normal draws are
        the same float32 ones ``orthogonal_`` takes, from the same generator.
        """
        if not isinstance(module, nn.Linear | nn.Conv2d):
            return
        weight = module.weight
        rows = weight.size(0)
        cols = weight.numel() // rows
        flat = weight.new_empty((rows, cols)).normal_(0, 1).double()
        if rows < cols:
            flat = flat.t()
        q, r = th.linalg.qr(flat)
        q = q * th.diag(r, 0).sign()
        if rows < cols:
            q = q.t()
        with th.no_grad():
            weight.view_as(q).copy_((q * gain).to(weight.dtype))
            if module.bias is not None:
                module.bias.fill_(0.0)

    def _build_mlp_extractor(self) -> None:
        obs_dim = int(self.features_dim)
        layout = self.layout
        if layout is None:  # RLSchedulerEnv's rows of 9, the last the present flag
            if obs_dim % 9:
                raise ValueError(
                    f"KernelPolicy: observations of {obs_dim} floats are not rows of 9; "
                    "pass policy_kwargs=dict(layout=kernel_layout(env))"
                )
            layout = KernelLayout(obs_dim // 9, 9, 8, ignore=(8,))
            self.layout = layout
        # SB3 annotates MlpExtractor; its custom-network guide puts any module with the same
        # interface (latent_dim_pi/vf, forward_actor/critic) in this slot
        self.mlp_extractor = KernelNet(obs_dim, layout, self.hidden, self.critic_hidden)  # type: ignore[assignment]  # SB3's slot, duck-typed

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)  # type: ignore[misc]  # the host SB3 policy, after this mix-in in the MRO, defines it
        self.action_net = nn.Identity()  # the scorer's outputs are the logits
        assert isinstance(self, BasePolicy)  # always: both policies below are SB3 policies
        # super()._build made the optimizer over the replaced action_net's parameters: make it again
        self.optimizer = self.optimizer_class(
            self.parameters(),
            lr=lr_schedule(1),  # type: ignore[call-arg]  # torch's base Optimizer takes no lr; its subclasses SB3 takes do (SB3 ignores it too)
            **self.optimizer_kwargs,
        )

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()  # type: ignore[misc]  # the host SB3 policy, after this mix-in in the MRO, defines it
        data.update(layout=self.layout, hidden=self.hidden, critic_hidden=self.critic_hidden)
        return data


class KernelPolicy(_Kernel, ActorCriticPolicy):
    """The kernel policy for SB3's ``PPO`` (and A2C): ``PPO(KernelPolicy, env)``."""


class MaskableKernelPolicy(_Kernel, MaskableActorCriticPolicy):
    """The kernel policy for sb3-contrib's ``MaskablePPO``: ``MaskablePPO(MaskableKernelPolicy, env)``."""

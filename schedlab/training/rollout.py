"""The rollout policy: one-step lookahead over a base heuristic, simulated to the episode's end.

At each decision of a ``schedlab/Machine-v0`` episode, every valid action is tried: the
episode is simulated from that action on, the base heuristic (``easy-sjf``...) choosing
every later action, and the action whose simulated episode costs least (minus the
return: with ``reward="bounded_slowdown"`` the episode's total bounded slowdown) is
taken. Ties go to the base heuristic's own action, then to the lowest index; costs
within a relative ``1e-9`` are ties (two orders of starts at one instant often build
the same schedule, up to rounding). Since the base heuristic is a deterministic
function of the state, the rollout never costs more than the base heuristic on an
episode (Bertsekas et al.'s cost improvement).

**How a branch is simulated.** SimPy models cannot be copied, but an episode is
deterministic given its jobs and its actions: a second env, made with the same
settings, is reset with the episode's jobs (``episode_jobs``), replays the actions taken
so far (``episode_actions``), takes the candidate, then follows the base heuristic to the
end. A decision with ``v`` valid actions costs ``v`` simulated episodes (one fewer when
the previous decision's branch already simulated the base heuristic from here); a
decision with one valid action costs none.

**Clairvoyant.** The branches run on the episode's true future: the jobs not yet
submitted and every job's true runtime. The rollout is therefore not a scheduler that
could run on a real machine: it measures how much room a base heuristic leaves on these
episodes, and serves as a *privileged teacher* whose actions a learner that sees only the
observation imitates (learning by cheating; ``TrainConfig.imitate``).

References
----------
D. P. Bertsekas, J. N. Tsitsiklis, C. Wu, "Rollout algorithms for combinatorial
optimization", Journal of Heuristics 3 (1997) 245-262.
D. Chen, B. Zhou, V. Koltun, P. Kraehenbuehl, "Learning by cheating", CoRL 2019.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["Rollout"]

#: costs closer than this, relative, are a tie
TIE = 1e-9


class Rollout:
    """The rollout policy over ``base`` (an env-level heuristic ``act(env) -> action``), itself one.

    Called as ``rollout(env)`` at a decision of an episode of a ``MachineEnv`` (wrapped or
    not), it returns the action whose branch costs least. It keeps one simulation env per
    configuration of the env it is asked in, and the costs of the previous decision's
    branches (one of which is the base heuristic from the current state).
    """

    def __init__(self, base: Callable[[Any], int]) -> None:
        self.base = base
        self._simulators: dict[int, Any] = {}
        self._last: tuple[tuple[Any, ...], tuple[Any, ...], dict[int, float]] | None = None
        self.simulated = 0  #: branches simulated so far (each a whole episode's replay)

    def _simulator(self, env: Any) -> Any:
        """A second env of ``env``'s settings (made once per settings object)."""
        key = id(env.config)
        if key not in self._simulators:
            self._simulators[key] = (type(env)(env.config), env.config)  # the config kept alive: its id stays its own
        return self._simulators[key][0]

    def branch_cost(self, env: Any, actions: Sequence[Any]) -> float:
        """The cost of ``env``'s episode replayed through ``actions``, then the base heuristic to its end."""
        episode = env.unwrapped
        sim = self._simulator(episode)
        sim.reset(options={"jobs": list(episode.episode_jobs)})
        total, done = 0.0, False
        for action in actions:
            _, reward, done, _, _ = sim.step(action)
            total += reward
        while not done:
            _, reward, done, _, _ = sim.step(self.base(sim))
            total += reward
        self.simulated += 1
        return -total

    def costs(self, env: Any) -> dict[int, float]:
        """Each valid action's branch cost at ``env``'s current decision."""
        episode = env.unwrapped
        prefix = tuple(episode.episode_actions)
        known: dict[int, float] = {}
        if self._last is not None:
            jobs, before, costs = self._last
            if jobs is episode.episode_jobs and prefix and prefix[:-1] == before and prefix[-1] in costs:
                # the previous decision's branch of the action taken ran the base heuristic from here on
                known[int(self.base(env))] = costs[prefix[-1]]
        valid = [int(a) for a in np.flatnonzero(episode.action_masks())]
        costs = {a: known[a] if a in known else self.branch_cost(env, (*prefix, a)) for a in valid}
        self._last = (episode.episode_jobs, prefix, costs)
        return costs

    def __call__(self, env: Any) -> int:
        """The action to take at ``env``'s current decision (see the module)."""
        valid = [int(a) for a in np.flatnonzero(env.unwrapped.action_masks())]
        if len(valid) == 1:
            return valid[0]
        costs = self.costs(env)
        best = min(costs.values())
        ties = [a for a in valid if costs[a] <= best + TIE * max(1.0, abs(best))]
        base = int(self.base(env))
        return base if base in ties else ties[0]

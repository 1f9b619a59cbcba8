"""The site supervisor's heuristics, as slot choices: the yardsticks and teachers of ``SiteSupervisor-v0``.

Each is an order on the candidates (:mod:`schedlab.envs.site.slots`): the heuristic
elects the candidate the order ranks first (ties to the earlier arrival). They read the
environment's state (the candidates, the clock, the fair share), not the observation.

- ``fifo``: the oldest waiting job (seed 001's baseline; exact, as every pair's oldest
  job is a candidate);
- ``prio``: the oldest interactive job, else the oldest job: non-preemptive priority to
  interactive jobs (exact too);
- ``edf``: earliest deadline, submit + execution time (seed 001's pre-training rule),
  among the candidates;
- ``sjf``: the shortest execution time among the candidates;
- ``greedy``: the candidate whose election earns the highest reward now (the reward the
  environment was made with): a perfect one-step learner of that reward.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schedlab.model.contracts.site import INTERACTIVE
from schedlab.model.core.job import Job

__all__ = ["SITE_ORDERS", "site_heuristic"]

Order = Callable[[Job, Any], float | tuple[float, ...]]

#: name -> the key a heuristic minimises over the candidates, ``key(job, env)``
SITE_ORDERS: dict[str, Order] = {
    "fifo": lambda job, env: job.submit,
    "prio": lambda job, env: (job.job_class != INTERACTIVE, job.submit),
    "edf": lambda job, env: job.submit + job.runtime,
    "sjf": lambda job, env: job.runtime,
    "greedy": lambda job, env: -env.election_reward(job),
}


def site_heuristic(order: Order) -> Callable[[Any], int]:
    """``act(env) -> slot``: the candidate ``order`` ranks first (the earliest arrival of equal ones)."""

    def act(env: Any) -> int:
        site = env.unwrapped
        held = [(slot, job) for slot, job in enumerate(site.candidates) if job is not None]
        slot, _ = min(held, key=lambda sj: (order(sj[1], site), sj[1].submit, sj[1].id))
        return slot

    return act

"""Run an agent on a DeepRM machine inside a SimPy model, and measure the episode.

:func:`drive` is the scheduler's process: at each decision event (a time step, after
every arrival, completion and reserved start of that instant) it asks the agent for
actions until the agent lets time move on, exactly as :class:`~schedlab.envs.deeprm.DeepRMEnv`
steps. Scenarios use it to evaluate trained agents and baselines on the runner's own
SimPy environment; :func:`episode_metrics` gives the section 4 metrics of seed 002.
"""

from __future__ import annotations

from collections.abc import Generator

import numpy as np
import simpy

from schedlab.envs.baselines import Agent
from schedlab.envs.slotted import SlottedMachine
from schedlab.model import metrics
from schedlab.model.records import Status

__all__ = ["drive", "episode_metrics"]


def drive(model: SlottedMachine, agent: Agent, *, max_time: int) -> Generator[simpy.Event, object, float]:
    """The agent's process: decide at each step until every job completed or ``max_time``.

    Returns the episode's total cost ``sum_t sum_j 1/T_j`` (minus the environment's
    return with the ``slowdown_sum`` reward).
    """
    total = 0.0
    yield model.tick(0)
    while not model.done and model.now < max_time:
        while True:
            action = agent(model)
            if not 0 <= action < model.slots or not model.place(action):
                break  # the void action, an empty slot or a job that fits nowhere: time moves on
        total += model.end_step()
        yield model.tick()
    return total


def episode_metrics(model: SlottedMachine, *, threshold: float = 10.0) -> dict[str, float]:
    """Mean slowdown, bounded slowdown, response time and utilization of an episode (seed 002, section 4).

    A job still waiting or running when the episode was cut short (``max_time``) counts
    as if it completed at the episode's end: a lower bound on its times, so an agent
    that leaves jobs behind is not flattered by the jobs it finished.
    ``completed_fraction`` says how many of the sequence's jobs completed.
    ``utilization`` is the mean over resources of the fraction of capacity used from
    time 0 to the episode's end (seed 002's ``U(0, t)``); its CPU part equals
    :func:`schedlab.model.metrics.utilization` of the records.
    """
    now = float(model.now)
    records = [
        r if r.status is Status.COMPLETED else r._replace(end=now, status=Status.COMPLETED) for r in model.records()
    ]
    done = sum(1 for r in model.records() if r.status is Status.COMPLETED)
    nan = float("nan")
    return {
        "slowdown_mean": float(metrics.slowdown(records).mean()) if records else nan,
        "bounded_slowdown_mean": float(metrics.bounded_slowdown(records, threshold).mean()) if records else nan,
        "response_mean": float(metrics.response(records).mean()) if records else nan,
        "utilization": float(np.mean(model.utilization())),
        "completed_fraction": done / model.n_jobs if model.n_jobs else 1.0,
    }

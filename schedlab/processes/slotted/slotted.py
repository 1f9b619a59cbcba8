"""The DeepRM machine: a schedlab :class:`~schedlab.processes.Machine` run in time steps, and its agent's process.

A :class:`SlottedMachine` wires, on a given SimPy environment, a schedlab Machine
with ``d`` resources (the first is its CPUs, the others named resources), a
:class:`~schedlab.processes.Source` that submits a job sequence, and the scheduler's
picture of it (seed 002, section 6; Mao et al. 2016, section 3):

- the *occupation image*: units of each resource held in each of the next ``horizon``
  time steps by the jobs already placed;
- ``slots`` visible job slots: the oldest waiting jobs not yet placed, in arrival
  order, and a *backlog* count of the waiting jobs behind them.

Placing slot ``i`` puts its job at the earliest step of the horizon where it fits for
its whole length (the look-ahead of seed 002, section 6). At offset 0 the machine
starts it now; later, a reserved start fires at that step. The Machine runs the
jobs, emits their completions and keeps their records; the image is the plan, and the
tests check that the Machine's own accounting always agrees with its first row.

Ordering within an instant is explicit: completions and arrivals (SimPy's normal
priority) come first, then reserved starts, then the decision tick, so a decision at
time t sees every event of time t.

The machine is a :class:`~schedlab.model.contracts.slotted.SlottedView`: agents (the baselines of
:mod:`schedlab.policies.slotted`, a trained network) and learners are written against
that contract. :func:`drive` is the agent's SimPy process, the scenario-side twin of
:class:`~schedlab.envs.slotted.deeprm.DeepRMEnv`'s step.
"""

from __future__ import annotations

import math
from collections.abc import Generator, Mapping, Sequence

import numpy as np
import simpy
from simpy.events import EventPriority

from schedlab.model.contracts.machine import MachineView
from schedlab.model.contracts.slotted import Agent, SlottedStep
from schedlab.model.core.fields import is_int, is_whole, whole
from schedlab.model.core.job import Job
from schedlab.model.records.job_record import JobRecord
from schedlab.processes.machine.machine import Machine
from schedlab.processes.signal import Signal
from schedlab.processes.source import Source

__all__ = ["SlottedMachine", "drive"]

#: SimPy priorities below NORMAL (1): reserved starts after completions, the tick last
_RESERVED, _TICK = EventPriority(2), EventPriority(3)


class _Late(simpy.events.Event):
    """An event at ``now + delay`` processed after the normal events of that instant."""

    def __init__(self, env: simpy.Environment, delay: float, priority: EventPriority) -> None:
        super().__init__(env)
        self._ok = True
        self._value = None
        env.schedule(self, priority, delay)


def _hold(view: MachineView) -> None:
    """The Machine's own policy: start nothing; the agent places jobs through the image."""
    return None


class SlottedMachine:
    """A DeepRM machine over a schedlab Machine, fed a job sequence.

    Parameters
    ----------
    sim
        The SimPy environment.
    capacities
        Capacity of each resource in whole units; the first is the Machine's CPUs.
    jobs
        The job sequence, in submission order: whole-number submit times and
        lengths, lengths at most ``horizon``, demands within capacity.
    horizon
        Time steps of the image (the farthest a job may be placed ends within it).
    slots
        Visible job slots (DeepRM's M).
    backlog
        Largest backlog count the observation shows (more jobs still wait; none is dropped).
    """

    def __init__(
        self,
        sim: simpy.Environment,
        capacities: Mapping[str, int],
        jobs: Sequence[Job],
        *,
        horizon: int = 20,
        slots: int = 5,
        backlog: int = 60,
        name: str = "deeprm",
    ) -> None:
        self.names = list(capacities)
        if not self.names:
            raise ValueError("capacities: need at least one resource")
        for r, cap in capacities.items():
            if not is_int(cap, 1):
                raise ValueError(f"capacity of {r!r} must be a whole number > 0, got {cap!r}")
        for what, value in (("horizon", horizon), ("slots", slots), ("backlog", backlog)):
            whole(what, value, 1)
        self.sim = sim
        self.cap = np.array([capacities[r] for r in self.names], dtype=np.int64)
        self.horizon, self.slots, self.backlog_cap = horizon, slots, backlog
        self._len: dict[Job, int] = {}
        self._demand: dict[Job, np.ndarray] = {}
        self._image: dict[Job, np.ndarray] = {}
        for job in jobs:
            self._check(job)
        self.n_jobs = len(jobs)
        self.machine = Machine(
            sim,
            int(self.cap[0]),
            _hold,
            name=name,
            oversize="raise",
            resources={r: float(c) for r, c in zip(self.names[1:], self.cap[1:], strict=True)},
        )
        self.occ = np.zeros((horizon, len(self.names)), dtype=np.int64)  # the plan, row 0 = now
        self.queue: list[Job] = []  # waiting and not placed, in arrival order
        self.area = np.zeros(len(self.names))  # unit-steps used so far, per resource
        self.n_completed = 0
        #: emitted with the step's time and cost when a step closes (:meth:`end_step`)
        self.step_ended: Signal[SlottedStep] = Signal()
        # jobs in the system by length: the per-step cost sum(1/T_j) without a loop over jobs
        self._present = np.zeros(horizon + 1, dtype=np.int64)
        self._inverse = np.concatenate([[0.0], 1.0 / np.arange(1, horizon + 1)])
        width = int(np.max(self.cap))
        self._bars = (np.arange(width)[None, :] < np.arange(width + 1)[:, None]).astype(np.float32)
        self._beyond = (np.arange(width)[None, :] >= self.cap[:, None]).astype(np.float32)  # (d, C)
        self.machine.completed.connect(self._on_complete)
        self.source = Source(sim, jobs, self, name=f"{name}-source")

    def _check(self, job: Job) -> None:
        length = job.runtime
        if not is_whole(length) or not is_whole(job.submit):
            raise ValueError(
                f"job {job.id}: a time-stepped machine needs whole-number submit and length, "
                f"got submit={job.submit} runtime={job.runtime}"
            )
        if length > self.horizon:
            raise ValueError(
                f"horizon {self.horizon} is shorter than job {job.id}'s length {int(length)}: "
                "raise horizon to at least the longest job"
            )
        demand = np.array([job.demand("cpus")] + [job.demands.get(r, 0.0) for r in self.names[1:]])
        extra = set(job.demands) - set(self.names[1:])
        if extra:
            raise ValueError(f"job {job.id} demands {sorted(extra)}, which machine resources {self.names} lack")
        if np.any(demand != np.round(demand)):
            raise ValueError(f"job {job.id}: demands must be whole units, got {demand.tolist()}")
        over = np.flatnonzero(demand > self.cap)
        if over.size:
            r = int(over[0])
            raise ValueError(
                f"job {job.id} demands {demand[r]:g} of {self.names[r]!r}, above its capacity {self.cap[r]}"
            )
        self._len[job] = int(length)
        self._demand[job] = demand.astype(np.int64)
        # the job's slot image never changes: drawn once (length rows, demand cells per resource)
        rows = np.arange(self.horizon)[:, None, None] < length
        self._image[job] = (rows & (np.arange(int(np.max(self.cap))) < demand[None, :, None])).astype(np.float32)

    # ------------------------------------------------------------------ the model's side
    def submit(self, job: Job) -> None:
        """Called by the Source at the job's submit time: the job enters the queue."""
        self.machine.submit(job)
        self.queue.append(job)
        self._present[self._len[job]] += 1

    def _on_complete(self, record: JobRecord) -> None:
        self._present[int(record.runtime)] -= 1
        self.n_completed += 1

    def tick(self, delay: int = 1) -> simpy.Event:
        """The next decision event: ``delay`` steps on, after every other event of that instant."""
        return _Late(self.sim, delay, _TICK)

    # ------------------------------------------------------------------ the scheduler's side
    @property
    def now(self) -> int:
        """The current time slot."""
        return int(self.sim.now)

    @property
    def done(self) -> bool:
        """Has every job of the sequence arrived and completed?"""
        return self.n_completed == self.n_jobs

    @property
    def capacities(self) -> np.ndarray:
        """Each resource's capacity in whole units (the CPUs first; read-only)."""
        return self.cap

    @property
    def completed(self) -> Signal[JobRecord]:
        """The Machine's completion signal: a job's record at its completion time."""
        return self.machine.completed

    def slot(self, i: int) -> Job | None:
        """The job in slot ``i``, or None for an empty slot."""
        return self.queue[i] if 0 <= i < min(self.slots, len(self.queue)) else None

    @property
    def backlog(self) -> int:
        """Waiting jobs beyond the slots (not capped)."""
        return max(0, len(self.queue) - self.slots)

    def length(self, job: Job) -> int:
        """``job``'s length in slots."""
        return self._len[job]

    def demand(self, job: Job) -> np.ndarray:
        """Units of each resource ``job`` holds while it runs (read-only)."""
        return self._demand[job]

    def free_now(self) -> np.ndarray:
        """Units of each resource free in the current step."""
        return self.cap - self.occ[0]

    def fits_now(self, job: Job) -> bool:
        """Can ``job`` start now and hold its demand for its whole length?"""
        return bool(np.all(self.occ[: self._len[job]] + self._demand[job] <= self.cap))

    def earliest(self, job: Job) -> int | None:
        """The first step offset where ``job`` fits for its whole length in the horizon, or None."""
        length = self._len[job]
        free = np.all(self.occ + self._demand[job] <= self.cap, axis=1)
        # a window of `length` free rows starting at s has no blocked row: count them by prefix sums
        blocked = np.concatenate([[0], np.cumsum(~free)])
        ok = np.flatnonzero(blocked[length:] == blocked[: self.horizon - length + 1])
        return int(ok[0]) if ok.size else None

    def action_mask(self, *, work_conserving: bool = False) -> np.ndarray:
        """Which actions do something: slots whose job fits somewhere in the horizon, and the void action (last).

        An empty slot, or a job that fits nowhere, advances time exactly as the void
        action does; masking them lets a learner skip actions that only alias another.
        With ``work_conserving``, the void action is masked too while a visible job
        fits now: the scheduler may choose which job, not whether to idle.
        """
        mask = np.zeros(self.slots + 1, dtype=bool)
        fits_now = False
        for i, job in enumerate(self.queue[: self.slots]):
            offset = self.earliest(job)
            mask[i] = offset is not None
            fits_now = fits_now or offset == 0
        mask[-1] = not (work_conserving and fits_now)
        return mask

    def place(self, i: int) -> bool:
        """Place slot ``i``'s job at its earliest fit; False (nothing changes) if empty or it never fits."""
        job = self.slot(i)
        if job is None:
            return False
        offset = self.earliest(job)
        if offset is None:
            return False
        self.occ[offset : offset + self._len[job]] += self._demand[job]
        del self.queue[i]
        if offset == 0:
            self.machine.start(job)
        else:  # a reservation: started by an event that comes after that instant's completions
            _Late(self.sim, offset, _RESERVED).callbacks.append(lambda _e: self.machine.start(job))
        return True

    def end_step(self) -> float:
        """Close the current step: its cost ``sum(1/T_j)`` over jobs in the system; the image moves on.

        Call it, then run the model to :meth:`tick`. Summed over an episode whose jobs
        all complete, the costs are the total slowdown (each job is present
        ``response`` steps, each costing ``1/T_j``).
        """
        self.area += self.occ[0]
        cost = float(self._present @ self._inverse)
        self.occ[:-1] = self.occ[1:]
        self.occ[-1] = 0
        if self.step_ended:
            self.step_ended.emit(SlottedStep(self.now, cost))
        return cost

    def utilization(self) -> np.ndarray:
        """Fraction of each resource's capacity used, averaged over the steps so far."""
        steps = self.now
        return self.area / (self.cap * steps) if steps > 0 else np.full(len(self.names), math.nan)

    def records(self) -> list[JobRecord]:
        """Every job's record: completed ones, then those running or waiting."""
        return self.machine.all_records()

    # ------------------------------------------------------------------ the observation
    def images(self) -> tuple[np.ndarray, np.ndarray]:
        """The occupation image ``(horizon, d, C)`` and the slot images ``(slots, horizon, d, C)``.

        ``C`` is the largest capacity; cells beyond a smaller resource's capacity read
        as occupied, so they never look free.
        """
        obs = self.observation()
        return obs["machine"], obs["slots"]

    def observation(self, *, flat: bool = False) -> dict[str, np.ndarray] | np.ndarray:
        """What the agent sees: the backlog count (capped), the occupation and slot images.

        ``flat`` gives them as one float32 vector, in that order (that of
        ``gymnasium.spaces.flatten`` on the environment's Dict space); otherwise a dict
        of views into such a vector. A fresh vector each call: callers may keep it.
        """
        t, d, c = self.occ.shape[0], self.occ.shape[1], self._bars.shape[1]
        cells = t * d * c
        out = np.zeros(1 + cells * (self.slots + 1), dtype=np.float32)
        out[0] = min(self.backlog, self.backlog_cap)
        machine = out[1 : 1 + cells].reshape(t, d, c)
        # row k of the bar table has its first k cells set: one gather draws the whole image
        np.maximum(self._bars[self.occ], self._beyond, out=machine)
        slots = out[1 + cells :].reshape(self.slots, t, d, c)
        for i, job in enumerate(self.queue[: self.slots]):
            slots[i] = self._image[job]
        if flat:
            return out
        return {"backlog": out[:1], "machine": machine, "slots": slots}

    def __repr__(self) -> str:
        return (
            f"SlottedMachine(t={self.now}, queue={len(self.queue)}, running={len(self.machine.running)}, "
            f"completed={self.n_completed}/{self.n_jobs})"
        )


def drive(model: SlottedMachine, agent: Agent, *, max_time: int) -> Generator[simpy.Event, object, float]:
    """The agent's process: decide at each step until every job completed or ``max_time``.

    At each decision event (a time step, after every arrival, completion and reserved
    start of that instant) it asks the agent for actions until the agent lets time move
    on, exactly as :class:`~schedlab.envs.slotted.deeprm.DeepRMEnv` steps. Scenarios run it on
    their own SimPy environment to evaluate trained agents and baselines.

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

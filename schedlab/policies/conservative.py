"""Conservative backfilling as Mu'alem & Feitelson (2001) define it: reservations made at arrival.

Every waiting job holds a reservation, not only the first. A job is given its
reservation **when it arrives**: the earliest slot in the
:class:`~schedlab.policies.profile.Profile` of free CPUs (the running jobs'
requested ends, then every reservation already made) where its CPUs stay free
for its requested time. That slot is its promise: no later arrival can take it. A job
starts when its reservation comes.

When a job ends before its requested time, its CPUs are free earlier than the
plan assumed, and the schedule is **compressed**: the waiting jobs are taken in the
order of their reservations, each moved to the earliest slot the profile now has
(running jobs and the jobs already moved). A job can only move earlier: a job moved
before it keeps, at and after its reservation, a subset of the CPUs it held
there, and the jobs after it are not yet placed. So no job starts later than the
reservation it was given on arrival (``tests/test_conservative_properties.py``),
as long as no job holds its CPUs past its requested time: under
``walltime="kill"`` none does. A job that runs on past its request (``run-on``)
holds CPUs the plan counted free; a job reserved then waits, and the plan is
compressed again at each decision until it starts.

What it leaves out, and why
---------------------------
- Decisions at equal times follow the machine's event order, one per event (an
  arrival and a completion at the same instant are two decisions). A reservation is
  the earliest slot *at its arrival's decision*; a completion at the same instant
  that comes after it in the event list compresses it at its own decision.
- It plans CPUs. A job reserved now whose other named resources do not fit
  (``view.fits``) waits, and the plan is compressed at each decision until it starts.
- The plan is the policy's own state: one :class:`Conservative` per run (a scenario's
  ``build`` makes one). Jobs started, preempted or resized by anything else make it
  compress (a preempted job is planned again, as a new arrival). So do CPUs
  that come or go with no job starting or ending: a capacity changed (elastic), a
  node repaired, booted, down or switched off. A job reserved while none of its
  pool's CPUs were on would otherwise keep its ``inf`` slot after they boot.
- It plans one pool of CPUs, the machine's. Three methods say what the plan is
  made over (``_fresh``: the profiles from what runs now; ``_pool``: a job's profile;
  ``_relaid``: the pools changed with new arrivals), so a cluster's version,
  :class:`~schedlab.policies.partition_conservative.PartitionConservative`, plans
  each partition's cores apart with this same reservation code.
- :class:`~schedlab.policies.conservative_rebuild.RebuildConservative`
  (``conservative-rebuild``) keeps no plan and rebuilds it at each decision in priority
  order; on SDSC-SP2 windows under ``--walltime kill`` it starts some jobs later than
  their arrival reservation (docs/traces.md).

Cost: at each decision the profile kept from the last one is moved to now and the new
arrivals are carved into it; a compression (an early end) re-places every waiting job,
each a walk over at most ``running + waiting + 1`` steps.

References
----------
A. W. Mu'alem and D. G. Feitelson, "Utilization, predictability, workloads, and user
runtime estimates in scheduling the IBM SP2 with backfilling", IEEE TPDS 12(6), 2001.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterator

from schedlab.model.contracts.machine import MachineView, Order, Score, Start
from schedlab.model.core.job import Job
from schedlab.policies.profile import Profile
from schedlab.policies.scoring import as_order

__all__ = ["Conservative"]


class Conservative:
    """Conservative backfilling over the queue order ``order`` (default FCFS), with compression.

    ``order`` is an order or a score, as :class:`~schedlab.policies.backfilling.EASY`
    takes it. It ranks only the jobs that arrive at one decision (``batch_decisions``,
    or a source's jobs submitted together); after that the plan's order is the order of
    the reservations. Stateful: one per run.

    Attributes
    ----------
    promised
        Each job's reservation as given at its arrival (its first decision here): the
        time it is guaranteed to start by, when no job runs past its requested time.
    """

    def __init__(self, order: Order | Score | str = "fcfs") -> None:
        self.order = as_order(order)
        self.promised: dict[Job, float] = {}
        self._plan: dict[Job, list[float]] = {}  # waiting job -> [reservation, arrival number]
        self._ends: dict[Job, float] = {}  # running job -> requested end, as the profile holds it
        self._profiles: dict[Hashable, Profile] | None = None  # running jobs and the plan, per pool
        self._usable = -1  # CPUs free or held by running jobs, as the profile was made over
        self._arrivals = 0
        self._stuck = False  # a job reserved now did not fit: the profile is not the machine's

    def reservations(self) -> dict[Job, float]:
        """The plan now: every waiting job's reservation (``inf`` for a job wider than the machine is)."""
        return {job: slot[0] for job, slot in self._plan.items()}

    def __call__(self, view: MachineView) -> Iterator[Start] | None:
        waiting = view.waiting
        if not waiting:  # nothing planned: the next arrival's profile is made afresh from the running jobs
            self._plan.clear()
            self._profiles = None
            return None
        return self._starts(view)

    # ------------------------------------------------------------------ what the plan is made over
    def _fresh(self, view: MachineView) -> dict[Hashable, Profile]:
        """The profiles of free CPUs from what runs now, by pool: a machine is one pool."""
        return {None: Profile.of_running(view.now, view.free, view.running)}

    def _pool(self, view: MachineView, job: Job) -> Hashable:
        """The pool of CPUs ``job`` is planned in (a key of :meth:`_fresh`'s answer)."""
        return None

    def _relaid(self, view: MachineView, new: list[Job]) -> bool:
        """Note the arriving jobs ``new``; True when the pools changed, so the plan must be made again."""
        return False

    # ------------------------------------------------------------------ the plan
    def _changed(self, view: MachineView) -> bool:
        """Update the running jobs seen; True when the profile no longer matches the machine.

        It matches when every job that left ended at its requested end and every job
        that came started at its reservation: a reserved slot then simply became a
        running job's, over the same CPUs and times.
        """
        now, ends = view.now, self._ends
        changed = self._stuck or _usable(view) != self._usable
        seen: dict[Job, float] = {}
        for run in view.running:
            job, end = run.job, run.requested_end
            seen[job] = end
            if ends.get(job) != end:  # started by something else (None), or resized or resumed: a new end
                changed = True
        if not changed:
            for job, end in ends.items():
                if job not in seen and now < end:  # ended before its requested end
                    changed = True
                    break
        self._ends = seen
        return changed

    def _compress(self, view: MachineView) -> dict[Hashable, Profile]:
        """Every reservation moved to the earliest slot, in the order of the reservations."""
        profiles = self._fresh(view)
        waiting = set(view.waiting)
        for job in [j for j in self._plan if j not in waiting]:
            del self._plan[job]  # taken away (or started) by something else
        pool = self._pool
        for job, slot in sorted(self._plan.items(), key=lambda item: item[1]):
            profile = profiles.get(pool(view, job))
            slot[0] = math.inf if profile is None else profile.take_earliest(job.cpus, job.requested_time)
        return profiles

    def _starts(self, view: MachineView) -> Iterator[Start]:
        now = view.now
        plan = self._plan
        new = [job for job in view.waiting if job not in plan]
        relaid = self._relaid(view, new) if new else False
        profiles = self._profiles
        if profiles is None and len(new) == 1 and view.fits(new[0]):
            # alone in the queue and it fits now: a profile of running jobs only rises from now,
            # so its earliest slot is now; no plan is needed (the next queue makes one afresh)
            job = new[0]
            self._arrivals += 1
            self.promised.setdefault(job, now)
            yield Start(job)
            return
        if profiles is None:
            self._ends = {run.job: run.requested_end for run in view.running}
            self._stuck = False
            profiles = self._compress(view)
        elif self._changed(view) or relaid:
            self._stuck = False
            profiles = self._compress(view)
        else:
            for kept in profiles.values():
                kept.advance(now)
        self._profiles = profiles
        self._usable = _usable(view)
        if new:
            pool = self._pool
            for job in self.order.rank(new, now) if len(new) > 1 else new:
                self._arrivals += 1
                profile = profiles.get(pool(view, job))
                slot = math.inf if profile is None else profile.take_earliest(job.cpus, job.requested_time)
                plan[job] = [slot, self._arrivals]
                self.promised.setdefault(job, slot)
        due = sorted((slot, job) for job, slot in plan.items() if slot[0] <= now)
        fits, ends = view.fits, self._ends
        for (promised, _order), job in due:
            if fits(job):
                if promised != now:  # late (see below): it holds CPUs past what the profile carved
                    self._stuck = True
                del plan[job]
                ends[job] = now + job.requested_time  # the slot it held in the profile
                yield Start(job)
            else:  # the profile counted CPUs free that are not (a job ran past its request)
                self._stuck = True

    def __str__(self) -> str:
        return f"{self.order}+conservative"

    def __repr__(self) -> str:
        return f"Conservative({self.order!r})"


def _usable(view: MachineView) -> int:
    """The CPUs free or held by running jobs: what the profile is made over."""
    return view.free + sum(run.cpus for run in view.running)

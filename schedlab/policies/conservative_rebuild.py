"""Conservative backfilling that rebuilds every reservation at each decision (``conservative-rebuild``).

Conservative backfilling (Mu'alem & Feitelson 2001): every waiting job holds a
reservation, not only the first. :class:`~schedlab.policies.conservative.Conservative`
is the paper's: a reservation is made at arrival and only ever moves earlier. This
variant keeps no plan. In priority order, each job is given the earliest
slot in the :class:`~schedlab.policies.profile.Profile` of free CPUs (built from
the running jobs' requested ends, then carved by the reservations of the jobs before
it) where its CPUs stay free for its requested time. A job starts now only if
its reservation is now; so no job starts early at the cost of an earlier job's
reservation, as far as requested times can tell.

Which reading
-------------
The paper makes each reservation at arrival and, when a job ends before its requested
time, *compresses* the schedule: jobs are moved earlier in the order of their
reservations, never later (:class:`~schedlab.policies.conservative.Conservative`).
Here the reservations are **recomputed at every decision event** (arrival,
completion, capacity change) from scratch, in priority order. What this reading
offers:

- it is a policy without memory, like :class:`~schedlab.policies.backfilling.EASY`: it
  reads the view and nothing else, so it works over any order (the
  order may change between decisions: SJF, WFP3...), on any machine, behind the RL
  adapters, and a preempted or resized job needs no bookkeeping;
- with exact requested times and a fixed order (FCFS) it keeps the classic guarantee:
  no job starts later than the reservation it was given when it arrived, because each
  recomputation sees the same running jobs and the same earlier jobs and so gives the
  same slots (``tests/test_conservative_properties.py`` checks it);
- it is what Batsim's batsched and CQSim call conservative backfilling in replay.

With early completions a recomputation may move a job later than an earlier plan
(an earlier job moved up can take its slot), which compression forbids; and an order
that re-scores the queue (SJF) lets a newcomer go ahead of a waiting job. Both are the
price of not keeping a plan; an order with fixed scores and exact estimates pay none.
On SDSC-SP2 under ``--walltime kill``, 29 of its first 6,000 jobs started later than
the slot they were given on arrival (``benchmarks/conservative_guarantee.py``; the
paper's rule: 0); neither reading wins on mean wait across the windows tried, which is
why both are kept.

What bounds the scan
--------------------
Only jobs reserved *now* start, and the reservations of jobs behind a job never move
its own. So the plan stops as soon as no later job could start now: when every job
left is wider than the CPUs the profile still has free now, or than the
machine's free CPUs (a job alone in the queue is the shortest case: it starts if it
fits). A decision thus costs the placement of the jobs up to that point, each a
walk over at most ``running + placed + 1`` steps; the rest of the queue is not
planned (its reservations could not start anything).

Resources: it plans CPUs. A job reserved now whose other named resources do not fit
(``view.fits`` is asked) keeps its reservation but does not start.

References
----------
A. W. Mu'alem and D. G. Feitelson, "Utilization, predictability, workloads, and user
runtime estimates in scheduling the IBM SP2 with backfilling", IEEE TPDS 12(6), 2001.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate

from schedlab.model.contracts.machine import MachineView, Order, Score, Start
from schedlab.model.core.job import Job
from schedlab.policies.backfilling import Backfilling
from schedlab.policies.profile import Profile
from schedlab.policies.scoring import as_order

__all__ = ["RebuildConservative", "plan"]


def plan(view: MachineView, order: Order | Score | str = "fcfs") -> dict[Job, float]:
    """Every waiting job's reservation (start time) under conservative backfilling, now.

    The whole queue is planned (no early stop), in ``order``'s ranking (default FCFS;
    an order or a score, as :class:`RebuildConservative` takes it). A job wider than the
    machine's capacity gets ``inf``. This is what a user reads to see the plan;
    :class:`RebuildConservative` starts the jobs reserved now.
    """
    now = view.now
    profile = Profile.of_running(now, view.free, view.running)
    return {job: profile.take_earliest(job.cpus, job.requested_time) for job in as_order(order).rank(view.waiting, now)}


@dataclass(frozen=True, init=False)
class RebuildConservative(Backfilling):
    """Conservative backfilling over the queue order ``order`` (default FCFS), rebuilt at each decision.

    The queue is re-ranked and every reservation recomputed at each decision (see the
    module's docstring for why, and for what bounds the scan). ``--backfill
    conservative-rebuild`` on the command line.
    """

    def _starts(self, view: MachineView) -> Iterator[Start]:
        now = view.now
        queue: Sequence[Job] = list(self.order.rank(view.waiting, now))  # a copy: starting jobs changes the queue
        # narrowest[k]: the fewest CPUs any job from position k on asks for, so the scan
        # can stop when no job left could be reserved now
        narrowest = list(accumulate(reversed([job.cpus for job in queue]), min))[::-1]
        profile = Profile.of_running(now, view.free, view.running)
        free = profile.free  # free[0]: CPUs not yet reserved now
        earliest, reserve, fits = profile.earliest, profile.reserve, view.fits
        for k, job in enumerate(queue):
            if free[0] < narrowest[k] or view.free < narrowest[k]:
                # no job from here on could be reserved now, or fit now: nothing more starts
                return
            cpus = job.cpus
            requested = job.requested_time
            i = earliest(cpus, requested)
            if i < 0:
                continue  # wider than the machine is now: it holds nothing
            reserve(i, cpus, requested)
            if i == 0 and fits(job):
                yield Start(job)

    def __str__(self) -> str:
        return f"{self.order}+conservative-rebuild"

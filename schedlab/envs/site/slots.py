"""What the site supervisor sees and elects: seed 001's state, and its actions as candidate slots.

Seed 001 (section 3.2) describes the site by five quantities (total work of the running
jobs, time until a core frees up, backlog, idle cores, each VO's share of the queue:
:class:`~schedlab.model.contracts.site.SiteFeatures`) and an action, a waiting job, by
its type (interactive or batch), its VO and its execution time. A Discrete action space
needs a fixed number of actions, so the waiting jobs are offered through *slots*: one
per (type, VO) pair and rank, holding that pair's ``per_group`` oldest waiting jobs.
A slot's type and VO are its identity; the observation gives, per slot, whether it
holds a job and the job's execution time (``log1p(t / time_scale)``; the oracle model
of section 5), and with ``waited`` its wait so far.

Any job the site could elect is the oldest of its pair or queued behind one that is, so
FIFO and non-preemptive priority to interactive jobs (PRIO) are slot policies exactly;
only orders that pass over the oldest job of a pair (SJF, EDF) are restricted to the
candidates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from schedlab.model.analysis.estimates import OracleRuntime
from schedlab.model.contracts.machine import MachineView
from schedlab.model.contracts.site import INTERACTIVE, SiteFeatures
from schedlab.model.core.job import Job

__all__ = ["CLASSES", "SiteSlots"]

#: the job types, in slot order
CLASSES = (INTERACTIVE, "batch")


@dataclass(frozen=True)
class SiteSlots:
    """The observation, mask and candidates of the site supervisor's decision.

    Parameters
    ----------
    groups
        The VOs, in slot order (jobs of other VOs are never candidates).
    cores
        The site's cores (the scale of core counts).
    per_group
        Candidates per (type, VO) pair: its oldest waiting jobs, in arrival order.
    waited
        Also show each candidate's wait so far.
    time_scale
        The scale of times.
    """

    groups: tuple[str, ...]
    cores: int
    per_group: int = 1
    waited: bool = False
    time_scale: float = 3600.0
    features: SiteFeatures = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "features", SiteFeatures(self.groups, self.cores, self.time_scale))

    @property
    def n_actions(self) -> int:
        """Slots: one per type, VO and rank."""
        return len(CLASSES) * len(self.groups) * self.per_group

    @property
    def per_slot(self) -> int:
        """Values per slot in the observation: present, execution time (and wait)."""
        return 2 + self.waited

    @property
    def obs_size(self) -> int:
        """Length of the observation: the site's state, then every slot's values."""
        return self.features.state_size + self.n_actions * self.per_slot

    def slot_of(self, job: Job) -> int | None:
        """The first slot of ``job``'s (type, VO) pair, or None for a VO outside ``groups``."""
        if job.group not in self.groups:
            return None
        kind = 0 if job.job_class == INTERACTIVE else 1
        return (kind * len(self.groups) + self.groups.index(job.group)) * self.per_group

    def candidates(self, view: MachineView) -> list[Job | None]:
        """Slot -> the job it holds now (the pair's oldest fitting jobs, in arrival order), or None."""
        out: list[Job | None] = [None] * self.n_actions
        filled, left = [0] * (self.n_actions // self.per_group), self.n_actions
        for job in view.waiting:  # in arrival order: each pair's first jobs are its oldest
            first = self.slot_of(job)
            if first is None or not view.fits(job):
                continue
            pair = first // self.per_group
            if filled[pair] < self.per_group:
                out[first + filled[pair]] = job
                filled[pair] += 1
                left -= 1
                if left == 0:
                    break
        return out

    def mask(self, candidates: Sequence[Job | None]) -> np.ndarray:
        """The valid actions: the slots that hold a job."""
        return np.array([job is not None for job in candidates], dtype=bool)

    def observe(self, view: MachineView, candidates: Sequence[Job | None]) -> np.ndarray:
        """[the site's state (seed 001's five quantities), then per slot: present, execution time (, wait)]."""
        state = self.features.state(view, OracleRuntime())
        slots = np.zeros((self.n_actions, self.per_slot))
        t = self.features.scaled_time
        for i, job in enumerate(candidates):
            if job is not None:
                slots[i, 0], slots[i, 1] = 1.0, t(job.runtime)
                if self.waited:
                    slots[i, 2] = t(view.now - job.submit)
        return np.concatenate([state, slots.ravel()]).astype(np.float32)

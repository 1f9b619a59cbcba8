"""What a job may have of a machine: its CPUs and resources now, at most, and its run time.

:meth:`Fitting.fits` is the test a start must pass (and the view's ``fits``, which a policy
asks), :meth:`Fitting.can_ever_fit` the test an arrival must pass (else the job is
rejected), :meth:`Fitting.time_limit` the run time after which ``walltime="kill"`` kills a
job. A :class:`~schedlab.processes.cluster.cluster.Cluster` answers all three its own way (its
placement rule, its queues' and partitions' limits).

:class:`Fitting` is the part of :class:`~schedlab.processes.machine.machine.Machine` that answers
them (a mix-in: the machine has the state it reads).
"""

from __future__ import annotations

from typing import Literal

from schedlab.model.core.job import Job

__all__ = ["Fitting"]


class Fitting:
    """A mix-in of :class:`~schedlab.processes.machine.machine.Machine`: does a job fit now, ever, and for how long."""

    free: int
    max_capacity: int
    resources: dict[str, float]
    used: dict[str, float]
    #: "run-on" or "kill" (Machine's parameter)
    walltime: Literal["run-on", "kill"]

    def fits(self, job: Job, cpus: int | None = None) -> bool:
        """Could ``job`` start now on ``cpus`` CPUs (default: all it asked for)?"""
        if (job.cpus if cpus is None else cpus) > self.free:
            return False
        demands = job.demands
        if not demands:  # CPUs only, the common case: no generator to build
            return True
        used, resources = self.used, self.resources
        # a relative tolerance: 0.1 + 0.2 of memory must fit a capacity of 0.3
        return all(a <= 0 or used.get(r, 0.0) + a <= resources.get(r, 0.0) * (1 + 1e-9) for r, a in demands.items())

    def can_ever_fit(self, job: Job) -> bool:
        """Does ``job`` fit the empty machine at its largest?"""
        if job.cpus > self.max_capacity:
            return False
        demands = job.demands
        if not demands:
            return True
        resources = self.resources
        return all(a <= 0 or a <= resources.get(r, 0.0) * (1 + 1e-9) for r, a in demands.items())

    def time_limit(self, job: Job) -> float | None:
        """The run time after which ``job`` is killed, or ``None`` for no limit; asked once, at its first start.

        Under ``walltime="kill"``: the job's ``estimate`` (SWF's requested time), if it
        has one. Run time is wall-clock time holding CPUs, squeezed or not; time spent
        suspended after a preemption does not count. A subclass may impose other
        limits (a queue's, say) by overriding this.
        """
        return job.estimate if self.walltime == "kill" else None

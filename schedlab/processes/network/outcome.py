"""A server network's run scored: its jobs' classes, which jobs ran where, which agents touched them.

During a run :class:`~schedlab.processes.network.network.ServerNetwork` keeps a ledger of plain
lists, one entry per job of the run (its class, weight, requirements, where it arrived,
where it completed) and one per touch (a delivery, a decision). At the run's end
:class:`RunScoring` turns them into the run's
:class:`~schedlab.model.contracts.network.RunOutcome`: the executed jobs, the distinct
(agent, job) touches in order (I_k^eta of seed 004, Tumer and Lawson), and the agent that
executed each job, from which the learners' utilities (WLU, TG, SU) and G follow.

:class:`RunScoring` is the part of :class:`~schedlab.processes.network.network.ServerNetwork`
that reads that ledger (a mix-in: the network has the state it reads and writes it in
its phases), kept apart from the phases so that the network module reads as the
step's phases and this one as the run's score.
"""

from __future__ import annotations

import numpy as np

from schedlab.model.contracts.network import RunOutcome
from schedlab.model.core.job import Job
from schedlab.model.records.job_record import JobRecord

__all__ = ["RunScoring"]

#: a touch (agent, job of the run) is kept as one int, ``agent << _JOB_BITS | job``: no tuple per
#: touch, and the ints sort in the pairs' order (a run has far fewer than 2^32 jobs)
_JOB_BITS = 32
_JOB_MASK = (1 << _JOB_BITS) - 1


class RunScoring:
    """A mix-in of :class:`~schedlab.processes.network.network.ServerNetwork`: job classes, touches, outcome."""

    run: int
    n: int
    k: int
    classes: int
    _visits: bool
    _first_id: int
    _weights: list[float]
    _classes: list[int]
    _executed: bytearray
    _where: list[int]
    _reqs: list[np.ndarray]
    _origins: list[int]
    _delivered_to: list[int]
    _delivered_ids: list[int]
    _decided_agents: list[int]
    _decided_ids: list[int]

    def job_class(self, job: Job | JobRecord) -> int:
        """The agent class of a job of the current run (or of its record)."""
        return self._classes[job.id - self._first_id]

    def touch(self, agent: int, job: Job) -> None:
        """Record that ``agent`` decided on ``job`` in this run (I_k = 1 for that agent)."""
        self._decided_agents.append(agent)
        self._decided_ids.append(job.id)

    def executed(self) -> int:
        """Jobs of the current run executed so far."""
        return sum(self._executed)

    def _touches(self, job_class: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The run's distinct (agent, job) touches in lexicographic order, as two arrays."""
        first, classes = self._first_id, self.classes
        agents = [np.array(self._decided_agents, dtype=np.int64)]
        jobs = [np.array(self._decided_ids, dtype=np.int64) - first]
        if self._visits:  # each job's arrival, then each delivery, at the server's agent of the job's class
            agents.append(np.array(self._origins, dtype=np.int64) * classes + job_class)
            jobs.append(np.arange(len(job_class), dtype=np.int64))
            delivered = np.array(self._delivered_ids, dtype=np.int64) - first
            agents.append(np.array(self._delivered_to, dtype=np.int64) * classes + job_class[delivered])
            jobs.append(delivered)
        # sorted and made distinct as one int each, agent << 32 | job, then split
        pairs = np.unique(np.concatenate(agents) << _JOB_BITS | np.concatenate(jobs))
        return pairs >> _JOB_BITS, pairs & _JOB_MASK

    def _outcome(self) -> RunOutcome:
        job_class = np.array(self._classes, dtype=np.int64)
        agents, jobs = self._touches(job_class)
        where = np.array(self._where, dtype=np.int64)
        executed_agent = np.where(where >= 0, where * self.classes + job_class, -1)
        return RunOutcome(
            self.run,
            np.array(self._weights, dtype=float),
            np.frombuffer(bytes(self._executed), dtype=np.uint8).astype(bool),
            agents,
            jobs,
            self.n * self.classes,
            executed_agent,
            np.concatenate(self._reqs) if self._reqs else np.zeros((0, self.k), dtype=np.int64),
        )

"""DVFS on a powered cluster: each node's pstate, the speed of the jobs on it, and the rescaling of their work.

:class:`PstateControl` is a part a :class:`~schedlab.processes.cluster.power.PoweredCluster`
holds (``cluster.pstates``): it applies :class:`~schedlab.model.contracts.power.SetPstate`,
and the cluster calls it as a job starts and leaves its nodes. A node draws the watts of its current pstate
(:class:`~schedlab.model.core.platform.Pstate`) from the instant it is set.

A job runs at the speed ``s`` of its slowest node. Its :class:`~schedlab.processes.machine.running.Running`
state keeps the work left in *seconds at that speed* (the ideal work divided by ``s``)
while the job holds its nodes, so the machine's end planning, time limit and the
policy's ``expected_end`` all read wall-clock seconds with no change to
:class:`~schedlab.processes.machine.machine.Machine` (a plain cluster pays nothing). The work is
turned back into ideal seconds when the job leaves its nodes (end, preemption, node
failure), so a resumed job starts from its true ideal work. A pstate change on a node
that runs a job books the work done so far at the old speed and rescales what is left
to the new one, as Batsim does for compute profiles; a job with a process body
(:class:`~schedlab.model.core.job.ProcessJob`) cannot be rescaled this way, and a change on
its nodes is refused with a one-line :class:`~schedlab.processes.machine.machine.PolicyError`. Its
body, not the machine, decides when it ends (its phases, I/O, checkpoints): only a body that
waits ``alloc.time_left`` follows the rescaled work, and telling the others would take a new
interrupt cause in the body contract (:mod:`schedlab.processes.machine.job_body`). A body that starts
on slowed nodes is given its time left at their speed (``tests/test_dvfs_outputs.py``).
The walltime limit is wall-clock seconds, so a slowed job can reach its limit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import simpy

from schedlab.model.contracts.placement import Allocation, NodeState
from schedlab.model.core.job import Job
from schedlab.model.core.platform import NodePower, Pstate
from schedlab.processes.machine.job_end import _Allocated  # private: the event is no API
from schedlab.processes.machine.machine import PolicyError
from schedlab.processes.machine.running import Running, RunningSet

__all__ = ["PSTATE_COLUMNS", "PSTATE_CSV_COLUMNS", "PstateControl"]

#: the columns of :meth:`PstateControl.pstate_rows`
PSTATE_COLUMNS = ("node", "pstate", "start", "end")
#: the columns of :meth:`PstateControl.pstate_csv`: the rows' with each pstate's speed
PSTATE_CSV_COLUMNS = ("node", "pstate", "speed", "start", "end")


class PstateControl:
    """Each node's DVFS pstate, and the speed of the jobs on it (a powered cluster's ``pstates`` part).

    It is given what it reads of the cluster, live: its ``nodes``, each node's ``power``
    (``None``: its type gives none), the ``running`` jobs, each job's ``allocations`` and
    the jobs ``on_node``; and ``plan_end``, the machine's ``ends.plan``, to plan again the
    end of a job whose speed changed.
    """

    def __init__(
        self,
        env: simpy.Environment,
        name: str,
        nodes: Sequence[NodeState],
        power: Sequence[NodePower | None],
        running: RunningSet,
        allocations: Mapping[Job, Allocation],
        on_node: Sequence[Mapping[Job, int]],
        plan_end: Callable[[simpy.Event], None],
    ) -> None:
        self.env = env
        self.name = name
        self.nodes = nodes
        self.running = running
        self.allocations = allocations
        self.on_node = on_node
        self.plan_end = plan_end
        now = float(env.now)
        #: each node's pstates (empty: its type gives no power), and the one it is in now
        self.levels: list[tuple[Pstate, ...]] = [p.levels if p is not None else () for p in power]
        self.pstate = [p.pstate if p is not None else 0 for p in power]
        self._since = [now] * len(nodes)
        self._rows: list[tuple[str, int, float, float]] = []
        self._speed: dict[Job, float] = {}  # jobs that run below speed 1.0
        self._base: dict[Job, float] = {}  # their ideal work done when their speed last changed

    def pstate_of(self, i: int) -> Pstate | None:
        """Node ``i``'s current pstate (``None``: its type gives no power)."""
        levels = self.levels[i]
        return levels[self.pstate[i]] if levels else None

    def job_speed(self, job: Job) -> float:
        """The speed of ``job``'s slowest node (1.0 on nodes that give no power)."""
        return min(self.levels[i][self.pstate[i]].speed if self.levels[i] else 1.0 for i in self.allocations[job])

    def started(self, job: Job) -> None:
        """``job`` just started on its nodes: its work left becomes seconds at their speed."""
        speed = self.job_speed(job)
        if speed == 1.0:
            return
        run = self.running.last()  # Machine.start added it last
        assert run.job is job
        self._speed[job] = speed
        self._base[job] = run.work_done
        self._rescale(run, 1.0, speed, float(self.env.now))

    @staticmethod
    def _rescale(run: Running, old: float, new: float, now: float) -> None:
        run._remaining = run._remaining * old / new
        # by its request, too (backfilling reasons with it), within the wall-clock time limit
        run.requested_end = min(now + (run.requested_end - now) * old / new, now + run.limit - run.run_time)

    def leaving(self, run: Running) -> None:
        """``run``'s job leaves its nodes: its work is ideal seconds again."""
        job = run.job
        speed = self._speed.pop(job, None)
        if speed is None:
            return
        base = self._base.pop(job)
        run.work_done = base + (run.work_done - base) * speed
        run._remaining *= speed

    def set_pstate(self, i: int, pstate: int) -> None:
        """Put node ``i`` in ``pstate``; the jobs on it go on at their new speed (module's docstring)."""
        name = self.nodes[i].name
        levels = self.levels[i]
        if not levels:
            raise PolicyError(f"cluster {self.name!r}: node {name!r} has no pstates: its type gives no power")
        if isinstance(pstate, bool) or not isinstance(pstate, int) or not 0 <= pstate < len(levels):
            raise PolicyError(
                f"cluster {self.name!r}: node {name!r} has pstates 0..{len(levels) - 1}; cannot set pstate {pstate!r}"
            )
        old = self.pstate[i]
        if pstate == old:
            return
        jobs = list(self.on_node[i])
        for job in jobs:
            if job.__class__ is not Job:
                raise PolicyError(
                    f"cluster {self.name!r} at t={self.env.now}: cannot set node {name!r} to pstate {pstate}: "
                    f"job {job.id} runs a process body on it, whose work cannot be rescaled"
                )
        now = float(self.env.now)
        if old != 0:
            self._rows.append((name, old, self._since[i], now))
        self.pstate[i], self._since[i] = pstate, now
        for job in jobs:
            self._repace(job, now)

    def _repace(self, job: Job, now: float) -> None:
        """Its nodes' speed changed: book the work done at the old speed, plan the rest at the new one."""
        before, after = self._speed.get(job, 1.0), self.job_speed(job)
        if after == before:
            return
        run = self.running.of(job)
        assert run is not None  # it runs on the node, so it is running
        base = self._base.get(job, run.work_done)
        run._book(now)  # in seconds at the old speed: the rate on a cluster is 1
        run.work_done = base + (run.work_done - base) * before
        self._rescale(run, before, after, now)
        if after == 1.0:
            self._speed.pop(job, None)
            self._base.pop(job, None)
        else:
            self._speed[job], self._base[job] = after, run.work_done
        run.event = _Allocated(self.env, run, self.plan_end)

    def pstate_rows(self, *, running: bool = True) -> list[tuple[str, int, float, float]]:
        """Every stretch a node spent in a pstate other than 0: ``(node, pstate, start, end)``
        (:data:`PSTATE_COLUMNS`); with ``running``, the current ones too, ending now."""
        rows = list(self._rows)
        if running:
            now = float(self.env.now)
            rows += [
                (n.name, self.pstate[i], self._since[i], now) for i, n in enumerate(self.nodes) if self.pstate[i] != 0
            ]
        return rows

    def pstate_csv(self) -> str:
        """:meth:`pstate_rows` as CSV text (:data:`PSTATE_CSV_COLUMNS`, a header line first), each
        with its pstate's speed: ``schedlab replay`` saves it as ``series/...-pstates.csv``.

        Batsim writes ``<prefix>_pstate_changes.csv`` instead: one row ``time,machine_id,new_pstate``
        per change (the machines as an interval set, every machine's start pstate at time 0). A
        change of nodes to pstate k there ends their row here and opens one at k; a row here is
        only kept for k other than 0, so a node always at pstate 0 has none and a run whose nodes
        never left pstate 0 writes only the header.
        """
        index = {n.name: i for i, n in enumerate(self.nodes)}
        rows = [",".join(PSTATE_CSV_COLUMNS)]
        for name, pstate, start, end in self.pstate_rows():
            speed = self.levels[index[name]][pstate].speed
            rows.append(f"{name},{pstate},{speed!r},{start!r},{end!r}")
        return "\n".join(rows) + "\n"

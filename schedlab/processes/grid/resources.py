"""The resources of a grid (seed 003): M FIFO servers, their loads, and a time series of them.

Each resource is a :class:`~schedlab.processes.server.Server` (one job at a time, first
come first served, a job of length J takes J / C). :class:`GridResources` owns the M
servers and keeps, beside them, each one's *busy-until* time: when its queue will be
empty if nothing more arrives. For a FIFO server that never idles while jobs wait,
``busy_until - now`` is exactly the queued length over the capacity, the job in service
counted by what is left of it: the LoR of eq. 2. Keeping it as one numpy array makes
LoR of every resource one vector operation, which the least-loaded baseline asks for at
every decision and the metrics at every step, instead of M walks over M queues.

On a topology with link latency a broker sees a resource's load as it was one latency
ago: :class:`GridResources` then also keeps each resource's busy-until history (its
change points, pruned past the largest latency), so :meth:`GridModelView.seen_lor` can
read it back.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence

import numpy as np
import simpy

from schedlab.model.analysis import metrics
from schedlab.model.contracts.grid import (
    SERIES_COLUMNS,
    GridCompletion,
    GridTopology,
    checked_capacities,
    resource_name,
)
from schedlab.model.core.job import Job
from schedlab.model.records.job_record import JobRecord, Status
from schedlab.model.records.log import RecordLog
from schedlab.model.records.table import job_record
from schedlab.processes.server import Server
from schedlab.processes.signal import Signal

__all__ = ["GridModelView", "GridResources", "GridSeries", "GridServer"]


class GridServer(Server):
    """A grid resource: a :class:`Server` that admits every job, keeps light records, and tells its grid directly.

    A grid runs hundreds of thousands of jobs. A grid resource has a speed and nothing
    else to check, so every job is admitted, in order (``admits_all``: the loop never
    asks ``fits``). At each completion (its ``_finish``) it emits its own ``completed``
    signal (a ``JobRecord``, made only when someone listens) and then
    ``grid_completed`` (a :class:`~schedlab.model.contracts.grid.GridCompletion` for
    resource ``index``).

    Its records are a :class:`~schedlab.model.records.log.RecordLog` (columns the garbage
    collector does not walk), or none at all with ``keep_records=False``: a grid run
    whose job records nobody reads made one kept record per job (OSL (300, 1000) x 2000
    steps: GC 4.6 of 21.3 s, RSS 297 MiB against 70 MiB without them).
    """

    admits_all = True

    def __init__(
        self,
        env: simpy.Environment,
        speed: float = 1.0,
        *,
        name: str = "server",
        keep_records: bool = True,
        index: int = 0,
        grid_completed: Signal[GridCompletion] | None = None,
    ) -> None:
        super().__init__(env, speed, name=name)
        self.records: RecordLog = RecordLog()  # type: ignore[assignment]  # Server's list, as columns: read-only, filled by add()
        self.keep_records = keep_records
        self.index = index
        self.grid_completed = grid_completed
        self._log = self.records.add if keep_records else None
        self._grid_emit = grid_completed.emit if grid_completed is not None else None

    def _finish(self, job: Job, start: float, end: float) -> None:
        name = self.name
        if self._log is not None:
            self._log(job, name, Status.COMPLETED, start, end, end - start)
        if self._trace is not None:
            self._trace(end, name, "complete", f"job {job.id}")
        completed = self.completed
        if completed.receivers:
            completed.emit(job_record(job, name, Status.COMPLETED, start=start, end=end, cpu_time=end - start))
        if self._grid_emit is not None:
            self._grid_emit(GridCompletion(job.origin, self.index, job, start, end))  # type: ignore[arg-type]  # a grid job's origin is its broker, never None


class GridModelView:
    """The live :class:`~schedlab.model.contracts.grid.GridView` of a grid model: what a policy may read.

    Learners that model a decentralised scheduler (OSL, SLS) read only ``agents``,
    ``resources``, the topology and their signals; the least-loaded rule reads
    :meth:`seen_lor` (a grid information service: exact on a zero-latency grid);
    decentralised Min-Min reads :attr:`busy_until` only when its service refreshes.
    """

    __slots__ = (
        "_env",
        "_grid",
        "agents",
        "busy_until",
        "capacities",
        "completed",
        "resources",
        "step_ended",
        "topology",
    )

    def __init__(
        self,
        env: simpy.Environment,
        grid: GridResources,
        agents: int,
        topology: GridTopology | None = None,
        step_ended: Signal[int] | None = None,
    ) -> None:
        self._env = env
        self._grid = grid
        self.agents = agents
        self.resources = len(grid.servers)
        self.topology = topology if topology is not None else GridTopology.complete(agents, grid.capacities)
        self.capacities: np.ndarray = grid.capacities.view()
        self.capacities.flags.writeable = False
        #: absolute time each resource's queue empties (read-only; ``lor()`` is the load)
        self.busy_until: np.ndarray = grid.busy_until.view()
        self.busy_until.flags.writeable = False
        self.completed: Signal[GridCompletion] = grid.completed
        self.step_ended: Signal[int] = step_ended if step_ended is not None else Signal()

    @property
    def now(self) -> float:
        """The simulated time."""
        return self._env.now

    def lor(self) -> np.ndarray:
        """LoR of every resource now (eq. 2): queued length over capacity."""
        return self._grid.lor()

    def seen_lor(self, agent: int) -> np.ndarray:
        """LoR of every resource as ``agent`` sees it: as it was one link latency ago."""
        if self._grid.history is None:
            return self._grid.lor()
        return self._grid.lor_at(self._env.now - self.topology.latency[agent])


class GridResources:
    """M resources of capacities ``capacities``, each a FIFO :class:`Server`.

    Parameters
    ----------
    env
        The SimPy environment.
    capacities
        Processing capacity of each resource (length processed per unit of time), > 0.
    keep_records
        Keep every completed job's record (``all_records``); ``False`` keeps none, for
        runs that read only the series and the completion signal.

    Attributes
    ----------
    servers
        The M servers, resource j named ``r<j>``.
    completed
        Emits a :class:`~schedlab.model.contracts.grid.GridCompletion` at each completion, after
        the server's own signal: how learners and metrics hear of completions.
    history
        Per resource, the times and values of its busy-until changes (``None`` unless
        ``keep_history``: a grid with link latency, whose brokers see past loads).
    """

    def __init__(
        self,
        env: simpy.Environment,
        capacities: Sequence[float] | np.ndarray,
        *,
        keep_history: float | None = None,
        keep_records: bool = True,
    ) -> None:
        caps = checked_capacities(capacities)
        self.env = env
        self.capacities = caps
        self.busy_until = np.zeros(caps.size)
        self._capacities: list[float] = caps.tolist()
        self.completed: Signal[GridCompletion] = Signal()
        self.servers = [
            GridServer(
                env,
                speed=float(c),
                name=resource_name(j),
                keep_records=keep_records,
                index=j,
                grid_completed=self.completed,
            )
            for j, c in enumerate(caps)
        ]
        self.submitted = 0
        self.offered_work = 0.0
        #: how far back brokers look (the largest latency), or None: no history kept
        self.horizon = keep_history
        self.history: list[tuple[list[float], list[float]]] | None = (
            None if keep_history is None else [([0.0], [0.0]) for _ in range(caps.size)]
        )

    def submit(self, resource: int, job: Job) -> None:
        """Queue ``job`` at ``resource`` and push that resource's busy-until time."""
        busy = self.busy_until
        now = self.env.now
        # Python floats for the scalar arithmetic (the same IEEE sums): cheaper than numpy scalars
        # (measured: benchmarks/README.md); the array stays what the view and lor() read.
        start = busy.item(resource)
        if start < now:
            start = now
        busy[resource] = start + job.runtime / self._capacities[resource]
        if self.history is not None:
            self._remember(resource, now, float(busy[resource]))
        self.submitted += 1
        self.offered_work += job.runtime
        self.servers[resource].submit(job)

    def _remember(self, resource: int, now: float, busy: float) -> None:
        times, values = self.history[resource]  # type: ignore[index]  # called only while history is kept
        if times[-1] == now:
            values[-1] = busy
        else:
            times.append(now)
            values.append(busy)
        # forget what no broker can look back to any more (keep the last change before that)
        cut = bisect_right(times, now - self.horizon) - 1  # type: ignore[operator]  # history is kept: so is its horizon
        if cut > 64:
            del times[:cut], values[:cut]

    def lor(self) -> np.ndarray:
        """LoR of every resource now: ``max(busy_until - now, 0)`` (eq. 2)."""
        return np.maximum(self.busy_until - self.env.now, 0.0)

    def lor_at(self, when: np.ndarray) -> np.ndarray:
        """LoR of resource j as it was at ``when[j]`` (a past time per resource), from the history."""
        out = np.empty(len(self.servers))
        for j, (times, values) in enumerate(self.history):  # type: ignore[arg-type]  # needs keep_history: without it there is no history to read
            t = float(when[j])
            k = bisect_right(times, t) - 1
            out[j] = max(values[k] - t, 0.0) if k >= 0 else 0.0
        return out

    def all_records(self) -> list[JobRecord]:
        """Every server's records, completed and not, server by server."""
        out: list[JobRecord] = []
        for server in self.servers:
            out.extend(server.all_records())
        return out


class GridSeries:
    """ALoR, max LoR, std of LoR (eq. 2) and ATPT (eq. 1) of a grid, sampled over time.

    :meth:`sample` is called by the grid's clock at the end of a step; ATPT is the mean
    time-per-token of all jobs completed so far (eq. 1 over the jobs completed by then).
    """

    COLUMNS = SERIES_COLUMNS

    def __init__(self, grid: GridResources) -> None:
        self._grid = grid
        self._rows: list[tuple[float, ...]] = []
        self.completed = 0
        self.tpt_total = 0.0
        grid.completed.connect(self._on_completion)

    def _on_completion(self, event: GridCompletion) -> None:
        self.completed += 1
        self.tpt_total += event.end - event.job.submit

    @property
    def atpt(self) -> float:
        """ATPT (eq. 1) of the jobs completed so far."""
        return self.tpt_total / self.completed if self.completed else math.nan

    def sample(self) -> None:
        """Add a row for now: the LoR summary (mean, max, spread), ATPT, completions and submissions so far."""
        grid = self._grid
        summary = metrics.load_summary(grid.lor())
        self._rows.append(
            (
                grid.env.now,
                summary["alor"],
                summary["max_lor"],
                summary["std_lor"],
                self.atpt,
                self.completed,
                grid.submitted,
            )
        )

    def __len__(self) -> int:
        return len(self._rows)

    def column(self, name: str) -> np.ndarray:
        """One column of the samples taken so far."""
        k = self.COLUMNS.index(name)
        return np.array([row[k] for row in self._rows], dtype=float)

    def as_dict(self) -> dict[str, np.ndarray]:
        """The series as ``{column: array}``, for a DataFrame or a plot."""
        return {name: self.column(name) for name in self.COLUMNS}

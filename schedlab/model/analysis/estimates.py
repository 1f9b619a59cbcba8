"""What a scheduler knows of a job's execution time before it runs (seed 001, "oracle" vs "estimated").

- :class:`OracleRuntime`: the true execution time (an upper bound on what a
  scheduler could do, since none knows it);
- :class:`MedianRuntime`: the median execution time of the last ``window`` completed
  jobs of the same class (interactive or batch), a crude estimator that history
  provides on line. Connect its :meth:`~MedianRuntime.observe` to a machine's
  completion signal.
"""

from __future__ import annotations

import statistics
from collections import deque
from typing import Protocol

from schedlab.model.core.fields import is_int
from schedlab.model.core.job import Job
from schedlab.model.records.job_record import JobRecord

__all__ = ["MedianRuntime", "OracleRuntime", "RuntimeEstimate"]


class RuntimeEstimate(Protocol):
    """A scheduler's belief of a job's execution time."""

    def estimate(self, job: Job) -> float:
        """The execution time the scheduler expects of ``job``."""
        ...


class OracleRuntime:
    """Perfect knowledge: the job's true execution time."""

    def estimate(self, job: Job) -> float:
        """The job's true execution time."""
        return job.runtime

    def observe(self, record: JobRecord) -> None:
        """Nothing to learn: the oracle already knows."""
        pass  # nothing to learn

    def __repr__(self) -> str:
        return "OracleRuntime()"


class MedianRuntime:
    """The median execution time of the last ``window`` completed jobs of the job's class.

    Parameters
    ----------
    window
        Completed jobs per class the median is taken over (>= 1).
    default
        The estimate for a class no job of which has completed yet (in simulated time
        units, e.g. the class's threshold).

    Examples
    --------
    >>> from schedlab.model.core.job import Job
    >>> est = MedianRuntime(window=3, default=100.0)
    >>> job = Job(id=0, submit=0.0, runtime=50.0, cpus=1, job_class="interactive")
    >>> est.estimate(job)
    100.0
    """

    def __init__(self, window: int, default: float | dict[str, float]) -> None:
        if not is_int(window, 1):
            raise ValueError(f"MedianRuntime: the window must hold at least 1 job, got {window!r}")
        self.window = window
        self.default = default
        self._seen: dict[str, deque[float]] = {}
        self._median: dict[str, float] = {}  # per class, until the next completion of that class

    def observe(self, record: JobRecord) -> None:
        """Completion-signal receiver: the job's measured execution time joins its class's window."""
        seen = self._seen.get(record.job_class)
        if seen is None:
            seen = self._seen[record.job_class] = deque(maxlen=self.window)
        seen.append(record.service)
        self._median.pop(record.job_class, None)

    def estimate(self, job: Job) -> float:
        """The median measured time of the job's class over the window, or the default before any."""
        cached = self._median.get(job.job_class)
        if cached is not None:
            return cached
        seen = self._seen.get(job.job_class)
        if seen:
            self._median[job.job_class] = value = statistics.median(seen)
            return value
        if isinstance(self.default, dict):
            return self.default[job.job_class]
        return self.default

    def __repr__(self) -> str:
        return f"MedianRuntime(window={self.window})"

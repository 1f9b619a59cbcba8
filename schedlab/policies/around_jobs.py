"""A power policy wrapped around a job policy: the one way its power actions join the job decisions.

:class:`~schedlab.policies.idle_shutdown.IdleShutdown` and
:class:`~schedlab.policies.dvfs.QueueDVFS` both let ``inner`` decide the jobs and add
power actions around its answer. How the two answers combine is subtle (a single job
action makes the machine ask again, so the power actions wait for that next call; a list
is the policy's whole answer, so they go after it), and it lives here once.

Extension points: :meth:`AroundJobs.after` (the power actions that follow ``inner``'s
answer) and, optionally, :meth:`AroundJobs.before` (one action taken before ``inner`` is
asked, e.g. speeding nodes up before jobs start).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from schedlab.model.contracts.machine import Action, Preempt, Resize, Start

__all__ = ["AroundJobs"]


class AroundJobs:
    """``inner``'s job decisions, then :meth:`after`'s power actions (a subclass sets ``inner``)."""

    inner: Callable[[Any], Any]

    def before(self, view: Any) -> Any | None:
        """One action to take before ``inner`` is asked (the machine applies it and asks again); none by default."""
        return None

    def after(self, view: Any) -> list[Any]:
        """The power actions that follow ``inner``'s answer at this decision event."""
        raise NotImplementedError

    def __call__(self, view: Any) -> Action | Iterable[Any] | None:
        first = self.before(view)
        if first is not None:
            return first
        answer = self.inner(view)
        if answer is None:
            return self.after(view) or None  # a list is the policy's whole answer for this event
        if isinstance(answer, Start | Preempt | Resize) or not hasattr(answer, "__iter__"):
            return answer  # one job action: the machine asks again
        return self._then_after(answer, view)

    def _then_after(self, answer: Iterable[Any], view: Any) -> Iterator[Any]:
        yield from answer  # inner's whole answer (lazily), then the power actions
        yield from self.after(view)

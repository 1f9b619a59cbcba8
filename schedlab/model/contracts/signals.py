"""What a learner subscribes to, as a contract: anything with ``connect(receiver)``.

Models own their signals (:class:`schedlab.processes.signal.Signal`: a machine's
``completed``, a grid's ``step_ended``, a network's ``run_ended``...). The contracts in
:mod:`schedlab.model` type them with :class:`Subscribable`, so policies and learners,
which import only the model layer, can connect to them without knowing SimPy or the
process that emits them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

__all__ = ["Subscribable"]

T = TypeVar("T")


class Subscribable(Protocol[T]):
    """A signal a learner connects to: ``receiver(value)`` is called at every emission, in connection order."""

    def connect(self, receiver: Callable[[T], object]) -> Callable[[T], object]:
        """Call ``receiver`` at every emission from now on; returns it (usable as a decorator)."""
        ...

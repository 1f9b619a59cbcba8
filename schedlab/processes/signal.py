"""A tiny synchronous signal: what learners subscribe to.

A machine or server owns a :class:`Signal` (``machine.completed``). At a job's
completion time it calls every connected receiver with the job's frozen record, in
subscription order, before the scheduler makes its next decision, so a learner's
update sees the state the completion left.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["Signal"]

T = TypeVar("T")


class Signal(Generic[T]):
    """Receivers called synchronously, in the order they connected."""

    __slots__ = ("_receivers",)

    def __init__(self) -> None:
        self._receivers: list[Callable[[T], object]] = []

    def connect(self, receiver: Callable[[T], object]) -> Callable[[T], object]:
        """Call ``receiver(value)`` at every emission; returns it (usable as a decorator)."""
        if not callable(receiver):
            raise TypeError(f"a receiver must be callable, got {receiver!r}")
        self._receivers.append(receiver)
        return receiver

    def disconnect(self, receiver: Callable[[T], object]) -> None:
        """Stop calling ``receiver``."""
        self._receivers.remove(receiver)

    def emit(self, value: T) -> None:
        """Call every receiver with ``value``, in connection order."""
        for receiver in self._receivers:
            receiver(value)

    def __bool__(self) -> bool:
        return bool(self._receivers)

    def __len__(self) -> int:
        return len(self._receivers)

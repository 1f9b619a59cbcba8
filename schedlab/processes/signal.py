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
    """Receivers called synchronously, in the order they connected.

    Attributes
    ----------
    receivers
        The connected receivers, in order, as a tuple: read it, never assign it
        (:meth:`connect` and :meth:`disconnect` replace it). A sender on a hot path
        tests it before building a value nobody would hear (``if signal.receivers:``),
        which is a plain attribute read where ``bool(signal)`` is a method call. A
        receiver connected or disconnected during an emission takes part from the next.
    """

    __slots__ = ("receivers",)

    def __init__(self) -> None:
        self.receivers: tuple[Callable[[T], object], ...] = ()

    def connect(self, receiver: Callable[[T], object]) -> Callable[[T], object]:
        """Call ``receiver(value)`` at every emission; returns it (usable as a decorator)."""
        if not callable(receiver):
            raise TypeError(f"a receiver must be callable, got {receiver!r}")
        self.receivers = (*self.receivers, receiver)
        return receiver

    def disconnect(self, receiver: Callable[[T], object]) -> None:
        """Stop calling ``receiver`` (its first connection, if it connected twice); ValueError if it is not here."""
        receivers = list(self.receivers)
        receivers.remove(receiver)
        self.receivers = tuple(receivers)

    def emit(self, value: T) -> None:
        """Call every receiver with ``value``, in the order they connected."""
        for receiver in self.receivers:
            receiver(value)

    def __bool__(self) -> bool:
        return bool(self.receivers)

    def __len__(self) -> int:
        return len(self.receivers)

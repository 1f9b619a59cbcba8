"""A time axis a reader can read: seconds of a log shown in minutes, hours or days from the first event.

A log's times are seconds since its epoch, so a window of SDSC-SP2 spans
5,675,000-5,900,000 s and matplotlib labels it ``1e6``. Shifted to start at the
window's first event and scaled to the largest unit that keeps at least three of
them on the axis, the same window reads "days since the first submission". The label
names the origin as the chart chose it (the first submission, the first start, the
start of a zoomed span), with its time in the run's seconds, so the reader can tell
what 0 is. Time in another unit (a queue in mean service times) is drawn as it is, the
unit named when the run's facts name it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["TimeAxis", "time_axis"]

#: (seconds per unit, its name), largest first
_UNITS = ((86_400.0, "days"), (3_600.0, "hours"), (60.0, "minutes"), (1.0, "seconds"))


@dataclass(frozen=True)
class TimeAxis:
    """Plot ``(t - origin) / scale``; label the axis ``label``."""

    origin: float
    scale: float
    label: str

    def __call__(self, t: Any) -> Any:  # a time or a numpy array of them
        return (t - self.origin) / self.scale


def time_axis(first: float, last: float, unit: str = "", origin: str = "the first event") -> TimeAxis:
    """The axis for times from ``first`` to ``last``.

    Parameters
    ----------
    first, last
        The earliest and latest time drawn.
    unit
        ``"s"``: times are seconds; they are shifted to ``first`` and shown in days,
        hours, minutes or seconds, the largest unit of which the span holds three.
        ``""``: unitless simulated time, drawn as it is; any other text: simulated time
        in that unit (``"mean service times"``), drawn as it is and named.
    origin
        What happened at ``first``, for the label (``"the first submission"``,
        ``"the start of the span drawn"``): the axis counts from ``first``, whatever it is.
    """
    if unit != "s":
        named = unit or "the model's time unit"
        return TimeAxis(0.0, 1.0, f"simulated time ({named})")
    span = max(last - first, 0.0)
    scale, name = next(((s, n) for s, n in _UNITS if span >= 3 * s), _UNITS[-1])
    return TimeAxis(first, scale, f"{name} since {origin} (t = {first:,.0f} s)")

"""matplotlib, imported on first use, with one clear error when the plot extra is missing."""

from __future__ import annotations

from typing import Any

__all__ = ["new_figure"]

MISSING = "plots need matplotlib, which is not installed: pip install schedlab[plot]"


def new_figure(width: float = 8.0, height: float = 4.0, rows: int = 1, *, sharex: bool = True) -> Any:
    """A matplotlib Figure with ``rows`` Axes (sharing x unless ``sharex`` is false), made without
    pyplot (no window, any backend).

    Raises
    ------
    ImportError
        When matplotlib is missing; the message names ``pip install schedlab[plot]``.
    """
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:  # the extra is optional: say which one to install
        raise ImportError(MISSING) from exc
    fig = Figure(figsize=(width, height), layout="constrained")
    fig.subplots(rows, 1, sharex=sharex, squeeze=False)
    return fig

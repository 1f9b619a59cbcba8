"""matplotlib, imported on first use, with one clear error when the plot extra is missing."""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["agg_pyplot", "new_figure"]

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


def agg_pyplot(wrote: str | None = None) -> Any | None:
    """matplotlib's pyplot on the Agg backend (figures to files, never a window), or None where it is missing.

    For the writers whose figures go beside a table they have already written (a scenario's
    ``figures``, training's learning curve): the table is the record and the figures an
    extra, so a missing plot extra skips them rather than failing. ``wrote``, if given, names
    that table in the one line printed to stderr then; without it nothing is printed.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        if wrote is not None:
            print(f"matplotlib is missing (pip install 'schedlab[plot]'): wrote {wrote} only", file=sys.stderr)
        return None
    return plt

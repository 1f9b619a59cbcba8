"""Deprecated, the old name kept: :mod:`schedlab.model.formats.logs` (issue 34: the input workload is a log).

A tutorial imported from here (``from schedlab.model.formats.traces import load_trace``): every
name still resolves, to the one of :mod:`~schedlab.model.formats.logs` (an old name to its new
one), with a :class:`DeprecationWarning`.
"""

from __future__ import annotations

import warnings

from schedlab.model.formats import logs


def __getattr__(name: str) -> object:
    """``name`` of :mod:`~schedlab.model.formats.logs` (an old one renamed), with a DeprecationWarning."""
    new = logs.RENAMED.get(name, name)
    if new.startswith("__") or not hasattr(logs, new):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(
        f"{__name__} is now schedlab.model.formats.logs ({name} is {new} there)", DeprecationWarning, stacklevel=2
    )
    return getattr(logs, new)

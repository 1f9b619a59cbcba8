"""Folders a run's config writes into, tried before any cell runs.

A scenario may write beside its results folder: a series or curves folder, a pool
log, trained models (``series_dir``, ``pool_log``, ``out_dir``...: fields declared with
:func:`schedlab.model.core.fields.folder`). Such a path was met only when the first
cell wrote to it: a bad one failed after hours of cells and left a journal in
``--out``, so the corrected rerun was refused. :func:`check_output_folders` tries every
one (each sweep point's value too) first, and makes nothing: an existing folder must
take a file, a new one must be makeable in its nearest existing parent.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from schedlab.experiment.run_settings import ExperimentError, RunSettings, _sweep_points
from schedlab.experiment.scenario import config_dict, make_config
from schedlab.model.core.fields import field_checks

__all__ = ["check_output_folders", "output_folders"]


def output_folders(settings: RunSettings) -> dict[str, set[str]]:
    """Each output-folder field of the run's config -> the values it takes (over the sweep), empty ones left out."""
    names = [name for name, check in field_checks(settings.scenario.config_type).items() if check.output]
    found: dict[str, set[str]] = {}
    if not names:
        return found
    where = f"scenario {settings.scenario.name!r}"
    for point in _sweep_points(settings.sweep):
        cfg: Any = settings.cfg
        if point:
            cfg = make_config(settings.scenario.config_type, {**config_dict(settings.cfg), **point}, where=where)
        for name in names:
            value = getattr(cfg, name)
            if isinstance(value, str) and value.strip():
                found.setdefault(name, set()).add(value)
    return found


def check_output_folders(settings: RunSettings) -> None:
    """Refuse, in one line naming the field and its value, a folder the run could not write into."""
    for name, values in output_folders(settings).items():
        for value in sorted(values):
            why = _unwritable(Path(value).expanduser())
            if why:
                raise ExperimentError(
                    f"{name}={value!r} cannot be written: {why} (checked before any cell runs); "
                    "give a folder you can write, or '' for none"
                )


def _unwritable(path: Path) -> str | None:
    """Why ``path`` cannot be a folder to write into (None when it can), making nothing."""
    probe_in = path
    while not probe_in.exists():  # the nearest existing folder is where the run would make it
        if probe_in.is_symlink():
            return f"{probe_in} is a dangling symlink"
        if probe_in.parent == probe_in:
            break
        probe_in = probe_in.parent
    if not probe_in.is_dir():
        return f"{probe_in} is not a folder"
    try:
        if probe_in == path:  # the folder exists: it must take a file
            with tempfile.NamedTemporaryFile(dir=path, prefix=".schedlab-probe-"):
                pass
        else:  # os.access says yes to root on a read-only file system: make a folder and remove it
            os.rmdir(tempfile.mkdtemp(dir=probe_in, prefix=".schedlab-probe-"))
    except OSError as exc:
        return os.strerror(exc.errno) if exc.errno else str(exc)
    return None

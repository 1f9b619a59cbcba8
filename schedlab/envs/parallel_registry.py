"""A registry of PettingZoo Parallel environments by name, as Gymnasium's ``register``/``make`` is for single agents.

PettingZoo has no registry: an environment is whatever its module's constructor
builds. Tools that take an environment *by name* (``schedlab train ENV``) need one, so
schedlab keeps this small one: :func:`register_parallel` an id with an entry point
``"module:callable"`` (imported only when made, so registering needs no PettingZoo),
:func:`make_parallel` the environment with keyword settings. Ids follow Gymnasium's
``namespace/Name-vN``; ``make_parallel("GridParallel-v0")`` finds schedlab's own.

A made environment carries its id in ``env.registry_id`` (PettingZoo envs have no
``spec``): a saved model names the environment it was trained in, and a load refuses
another.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["make_parallel", "parallel_id", "parallel_ids", "register_parallel"]

_ENTRY_POINTS: dict[str, str] = {}


def register_parallel(env_id: str, entry_point: str) -> None:
    """Register ``entry_point`` (``"package.module:callable"``, returning a Parallel env) as ``env_id``."""
    module, _, name = entry_point.partition(":")
    if not module or not name.isidentifier():
        raise ValueError(f"entry_point must be 'module:callable', got {entry_point!r}")
    _ENTRY_POINTS[env_id] = entry_point


def parallel_ids() -> list[str]:
    """The registered ids, sorted."""
    return sorted(_ENTRY_POINTS)


def parallel_id(name: str) -> str | None:
    """The registered id for ``name`` (with or without the ``schedlab/`` namespace), or None."""
    for candidate in (name, f"schedlab/{name}"):
        if candidate in _ENTRY_POINTS:
            return candidate
    return None


def make_parallel(name: str, **settings: Any) -> Any:
    """The Parallel environment registered as ``name``, made with ``settings``; an unknown name is one line."""
    env_id = parallel_id(name)
    if env_id is None:
        raise ValueError(f"unknown Parallel environment {name!r}; registered: {', '.join(parallel_ids())}")
    module, _, attr = _ENTRY_POINTS[env_id].partition(":")
    env = getattr(importlib.import_module(module), attr)(**settings)
    env.registry_id = env_id
    return env

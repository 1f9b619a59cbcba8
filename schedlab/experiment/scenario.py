"""Scenarios: Python scripts a user reads top to bottom, loaded by path.

A scenario script defines

- ``Config``: a frozen dataclass, one line of help per field (a ``#:`` comment or a
  ``help`` entry in the field's metadata); ``--set key=value`` overrides any field;
- ``QUICK``: overrides for ``--quick`` (a small, fast, still meaningful run);
- ``cells(cfg) -> list[dict]``: the factor grid (optional; one empty cell by default);
- ``build(env, cfg, cell, streams) -> Model``: wires processes, policies, learners;
- ``measure(model) -> dict``: the metrics of one replication of one cell (optional);
- ``REPS``: default replications (optional, 10 by default), or a function of the
  config (a trace scenario replicates once per window).
- ``warnings(cfg) -> list[str]`` (optional): what a run should know before its results are read;
- ``train_models(cfg, out, executor, resume)`` (optional): train the scenario's learned
  schedulers, for ``schedlab train SCENARIO``; returns each model's path and weights' SHA-256.

:func:`load_scenario` imports such a script from its path; the same path is what
worker processes load, so a scenario needs no installation to run in a pool.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
import inspect
import sys
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from schedlab.model.core.fields import renamed_fields, validate, validate_values

__all__ = ["ConfigError", "Scenario", "ScenarioError", "load_scenario", "parse_assignments"]


class ScenarioError(ValueError):
    """A scenario script is missing, broken, or lacks what a scenario must define."""


class ConfigError(ValueError):
    """A configuration override names an unknown field or has a value of the wrong type."""


@dataclass(frozen=True)
class Scenario:
    """A loaded scenario: its parts, and the path workers load it from."""

    name: str
    path: Path
    config_type: type
    build: Callable[..., Any]
    cells: Callable[[Any], list[dict[str, Any]]]
    measure: Callable[[Any], dict[str, float]] | None
    quick: Mapping[str, Any] = field(default_factory=dict)
    reps: int | Callable[[Any], int] = 10
    module: types.ModuleType | None = field(default=None, compare=False, repr=False)
    #: ``warnings(cfg) -> list of lines``: what the run should know before its results are read
    #: (a guarantee that does not hold for these settings); printed and kept in manifest.json
    warnings: Callable[[Any], Sequence[str]] | None = None
    #: ``train_models(cfg, out, executor, resume) -> [(model path, weights sha256), ...]``: what
    #: ``schedlab train SCENARIO`` runs (the scenario's learned schedulers, trained on ``executor``)
    train_models: Callable[..., list[tuple[Path, str]]] | None = None

    def config(self, overrides: Mapping[str, Any] | None = None, *, quick: bool = False) -> Any:
        """A Config: defaults, then ``QUICK`` if ``quick``, then ``overrides`` (strings are parsed)."""
        where = f"scenario {self.name!r}"
        values: dict[str, Any] = dict(self.quick) if quick else {}
        try:  # the user's old names first: a new name QUICK sets is not the user's, and must not clash
            values.update(renamed_fields(self.config_type, overrides or {}, where))
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        return make_config(self.config_type, values, where=where)

    def default_reps(self, cfg: Any) -> int:
        """Replications per cell when none are asked for: ``REPS``, or ``REPS(cfg)``."""
        n = self.reps(cfg) if callable(self.reps) else self.reps
        if not isinstance(n, int) or n < 1:
            raise ScenarioError(f"{self.path}: REPS must give a whole number >= 1, got {n!r}")
        return n

    def field_help(self) -> dict[str, str]:
        """One line of help per Config field (from ``help`` metadata or a ``#:`` comment)."""
        return config_help(self.config_type, self.path)


def _default_cells(cfg: Any) -> list[dict[str, Any]]:
    return [{}]


@dataclass(frozen=True)
class _EmptyConfig:
    pass


@cache
def _load_cached(path: str) -> Scenario:
    return _load(Path(path))


def load_scenario(path: str | Path) -> Scenario:
    """Load the scenario script at ``path`` (cached per process by absolute path)."""
    resolved = Path(path).expanduser().resolve()
    if not resolved.is_file():
        raise ScenarioError(f"scenario file {str(path)!r} does not exist")
    return _load_cached(str(resolved))


def _load(path: Path) -> Scenario:
    name = path.stem
    module_name = f"schedlab_scenario_{name}_{abs(hash(str(path))) & 0xFFFFFF:06x}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ScenarioError(f"cannot load {str(path)!r} as a Python script")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses and type hints look their module up here
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        del sys.modules[module_name]
        raise ScenarioError(f"{path}:{exc.lineno}: syntax error: {exc.msg}") from exc
    except Exception as exc:
        del sys.modules[module_name]
        raise ScenarioError(f"{path}: failed while loading: {type(exc).__name__}: {exc}") from exc
    build = getattr(module, "build", None)
    if not callable(build):
        raise ScenarioError(
            f"{path} defines no build(env, cfg, cell, streams) function, so it is not a schedlab scenario"
        )
    config_type = getattr(module, "Config", _EmptyConfig)
    if not dataclasses.is_dataclass(config_type):
        raise ScenarioError(f"{path}: Config must be a dataclass, got {config_type!r}")
    quick = getattr(module, "QUICK", {})
    if not isinstance(quick, Mapping):
        raise ScenarioError(f"{path}: QUICK must be a dict of config overrides, got {type(quick).__name__}")
    reps = getattr(module, "REPS", 10)
    if not callable(reps) and (not isinstance(reps, int) or reps < 1):
        raise ScenarioError(f"{path}: REPS must be a whole number >= 1, got {reps!r}")
    scenario = Scenario(
        name=getattr(module, "NAME", name),
        path=path,
        config_type=config_type,
        build=build,
        cells=getattr(module, "cells", _default_cells),
        measure=getattr(module, "measure", None),
        quick=dict(quick),
        reps=reps,
        module=module,
        warnings=getattr(module, "warnings", None),
        train_models=getattr(module, "train_models", None),
    )
    _check_quick(config_type, scenario.quick, path)
    return scenario


def _check_quick(config_type: type, quick: Mapping[str, Any], path: Path) -> None:
    """Refuse a ``QUICK`` that names unknown fields or breaks a field's own rule: the author's error, said at load.

    Field by field only: building the config would run its ``__post_init__``, which may read
    files at their default places (a log in ``../shared/traces``) that the user's ``--set``
    moves elsewhere.
    """
    try:
        make_values(config_type, quick, where=f"{path}: QUICK")
    except ConfigError as exc:
        raise ScenarioError(str(exc)) from None


# --------------------------------------------------------------------------- configs
def parse_assignments(items: Sequence[str], flag: str = "--set") -> dict[str, str]:
    """``["a=1", "b=x"]`` -> ``{"a": "1", "b": "x"}``, with an error naming a malformed item."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"{flag} {item!r}: expected key=value")
        out[key.strip()] = value.strip()
    return out


def make_config(config_type: type, values: Mapping[str, Any], *, where: str = "config") -> Any:
    """Build ``config_type`` from defaults and ``values``; string values are parsed by field type."""
    kwargs = make_values(config_type, values, where=where)
    try:
        cfg = config_type(**kwargs)
        validate(cfg)  # every field, declared or by its type: one rule for all scenarios
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{where}: {exc}") from exc
    return cfg


def make_values(config_type: type, values: Mapping[str, Any], *, where: str = "config") -> dict[str, Any]:
    """``values`` as ``config_type``'s keyword arguments: names checked, strings parsed, each field's own rule."""
    fields = {f.name: f for f in dataclasses.fields(config_type) if f.init}
    try:
        values = renamed_fields(config_type, values, where)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    unknown = sorted(set(values) - set(fields))
    if unknown:
        valid = ", ".join(fields) or "(none: this scenario has no config fields)"
        raise ConfigError(f"{where}: unknown config key(s) {', '.join(map(repr, unknown))}; valid keys: {valid}")
    hints = typing.get_type_hints(config_type)
    kwargs = {k: coerce(k, v, hints.get(k, Any)) for k, v in values.items()}
    try:
        validate_values(config_type, kwargs)  # the field's own rule first: it names the field and value
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{where}: {exc}") from exc
    return kwargs


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def coerce(key: str, value: Any, hint: Any) -> Any:
    """Convert ``value`` to the field's type ``hint``; strings from the command line are parsed."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if (value is None or (isinstance(value, str) and value.lower() == "none")) and type(None) in args:
            return None
        errors = []
        for arg in args:
            if arg is type(None):
                continue
            try:
                return coerce(key, value, arg)
            except ConfigError as exc:
                errors.append(str(exc))
        raise ConfigError(errors[0] if errors else f"{key}: cannot convert {value!r}")
    if origin is typing.Literal:
        for option in args:
            if value == option or (isinstance(value, str) and str(option) == value):
                return option
        raise ConfigError(f"{key} must be one of {', '.join(map(repr, args))}, got {value!r}")
    if origin in (tuple, list):
        items = value
        if isinstance(value, str):
            items = [v.strip() for v in value.split(",") if v.strip()] if value.strip() else []
        if not isinstance(items, list | tuple):
            raise ConfigError(f"{key} takes a comma-separated list, got {value!r}")
        item_hint = args[0] if args else Any
        converted = [coerce(key, v, item_hint) for v in items]
        return tuple(converted) if origin is tuple else converted
    if hint is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in _TRUE | _FALSE:
            return value.lower() in _TRUE
        raise ConfigError(f"{key} is a bool (true/false), got {value!r}")
    if hint is int:
        if isinstance(value, bool):
            raise ConfigError(f"{key} is an int, got {value!r}")
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        try:
            return int(str(value), 10)
        except ValueError:
            raise ConfigError(f"{key} is an int, got {value!r}") from None
    if hint is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        try:
            return float(str(value))
        except ValueError:
            raise ConfigError(f"{key} is a float, got {value!r}") from None
    if hint is str:
        return str(value)
    return value


def config_help(config_type: type, path: Path | None = None) -> dict[str, str]:
    """Help text per field: ``metadata["help"]``, else the ``#:`` comment above the field in ``path``."""
    comments: dict[str, str] = {}
    # fields inherited from a base Config are documented where the base is defined
    for cls in reversed(config_type.__mro__):
        if not dataclasses.is_dataclass(cls):
            continue
        try:
            source = Path(inspect.getsourcefile(cls) or "")
        except TypeError:
            continue
        if cls is config_type and path is not None:
            source = path
        if source.is_file():
            comments.update({k: v for k, v in _field_comments(source.read_text(), cls.__name__).items() if v})
    out = {}
    for f in dataclasses.fields(config_type):
        out[f.name] = f.metadata.get("help") or comments.get(f.name, "")
    return out


def _field_comments(source: str, class_name: str) -> dict[str, str]:
    """``#: text`` comment lines (or a trailing ``# text``) attached to a class's fields."""
    lines = source.splitlines()
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            for stmt in node.body:
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                    line = lines[stmt.lineno - 1]
                    _, hash_, trailing = line.partition("#")
                    text = trailing.strip() if hash_ else ""
                    above = lines[stmt.lineno - 2].strip() if stmt.lineno >= 2 else ""
                    if above.startswith("#:"):
                        text = above[2:].strip()
                    out[stmt.target.id] = text
    return out


def config_dict(cfg: Any) -> dict[str, Any]:
    """A config as a plain dict (tuples become lists, for JSON)."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(cfg).items()}

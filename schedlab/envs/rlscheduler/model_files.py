"""A trained kernel policy's files: SB3's ``.zip`` and, beside it, the settings it was trained with.

A model learns a queue order for one log's features, one queue size and one score type;
run with others, it would choose, silently and badly. So :func:`save_model` writes the
environment's and the training's settings (and the learning curve) into ``name.json``
beside SB3's ``name.zip``, and :func:`load_model` refuses, in one line, a model whose
settings differ from the environment's in :data:`MODEL_KEYS`. :func:`check_model` reads
only the settings file, so a run can check all its models before any work, and
:func:`training_differences` says how a saved model's training differs from a run's
(a model trained by a ``--quick`` run must not pass for a full run's). A settings file
that cannot be read is named in one line (:func:`read_settings`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any

from schedlab.envs.rlscheduler.env import RLSchedulerConfig
from schedlab.envs.rlscheduler.mixture import Mixture
from schedlab.model.formats.logs import log_name

__all__ = [
    "MIX",
    "MODEL_KEYS",
    "check_model",
    "env_settings",
    "load_model",
    "read_settings",
    "save_model",
    "seeds_in",
    "training_differences",
    "weights_sha256",
]


def env_settings(cfg: RLSchedulerConfig | Mixture) -> dict[str, Any]:
    """The environment's settings a model is saved with (the log by its name, without folder or suffix).

    A :class:`~schedlab.envs.rlscheduler.mixture.Mixture`'s: ``log`` is ``"mix"``, ``logs``
    its logs and ``draw_within`` and ``draw_tail`` each one's range, in order.
    """
    if isinstance(cfg, Mixture):
        first = cfg.configs[0]
        env = {k: getattr(first, k) for k in ("backfill", "score_type", "sequence", "queue")}
        ranges = {k: [getattr(c, k) for c in cfg.configs] for k in ("draw_within", "draw_tail")}
        return {"log": MIX, "logs": list(cfg.names), **env, **ranges}
    env = {
        k: getattr(cfg, k) for k in ("log", "backfill", "score_type", "sequence", "queue", "draw_within", "draw_tail")
    }
    env["log"] = log_name(cfg.log)
    return env


#: the ``log`` a mixture's model is saved with (its logs are under ``logs``)
MIX = "mix"


#: settings a saved model must share with the environment it is run in
MODEL_KEYS = ("log", "queue", "score_type")
#: the environment's settings that shape what a model learns, beside the training's own
TRAINING_ENV_KEYS = ("backfill", "draw_within", "draw_tail", "logs", "sequence")
#: training settings that do not change what is learned
NOT_LEARNED = ("device",)
#: environment settings saved only since they were added, and what every model saved before was trained with
SAVED_SINCE = {"draw_tail": 1.0}


def read_settings(path: Path) -> dict[str, Any]:
    """The settings file beside model ``path`` (``name.json``), read; one line naming it if it cannot be."""
    path = Path(path)
    meta_path = path.with_suffix(".json")
    try:
        meta = json.loads(meta_path.read_text())
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"model {path}: its settings file {meta_path} is not valid JSON (line {exc.lineno}, column {exc.colno}: "
            f"{exc.msg}); delete it and {path.name} to train the model again"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ValueError(f"model {path}: its settings file {meta_path} cannot be read: {why}") from None
    if not isinstance(meta, dict) or not isinstance(meta.get("env"), dict):
        raise ValueError(f"model {path}: its settings file {meta_path} holds no 'env' settings; it is not schedlab's")
    return meta


def training_differences(path: Path, cfg: RLSchedulerConfig | Mixture, settings: Any) -> list[str]:
    """How model ``path`` was trained otherwise than ``settings`` in ``cfg`` would: ``name=saved (this run: x)``.

    Empty when it was trained so. Settings a saved file lacks, from an older schedlab, are
    not compared, but for those in :data:`SAVED_SINCE`: a file without one was trained as
    its default is.
    """
    meta = read_settings(path)
    train = meta.get("train")
    saved_train: dict[str, Any] = train if isinstance(train, dict) else {}
    here_train = {k: v for k, v in dataclasses.asdict(settings).items() if k not in NOT_LEARNED}
    here_env = env_settings(cfg)
    saved_env = dict(meta["env"])
    for k, before in SAVED_SINCE.items():  # a mixture's: one value per log
        here = here_env.get(k)
        saved_env.setdefault(k, [before] * len(here) if isinstance(here, list) else before)
    pairs = [(k, saved_train.get(k), v) for k, v in here_train.items() if k in saved_train]
    compared = [k for k in TRAINING_ENV_KEYS if k in saved_env or (k == "logs" and k in here_env)]
    pairs += [(k, saved_env.get(k), here_env.get(k)) for k in compared]
    return [f"{k}={saved!r} (this run: {here!r})" for k, saved, here in pairs if saved != here]


def save_model(
    model: Any,
    folder: Path,
    cfg: RLSchedulerConfig | Mixture,
    settings: Any,
    curve: list[dict[str, Any]],
    name: str = "model",
) -> Path:
    """``name.zip`` (SB3's) and ``name.json`` (the environment's settings, the training's, the learning curve).

    ``settings`` is the :class:`~schedlab.training.rlscheduler.settings.TrainSettings` it was
    trained with (typed ``Any`` here: this module is imported by the trainer, not the
    other way round).
    """
    folder.mkdir(parents=True, exist_ok=True)
    model.save(folder / f"{name}.zip")
    meta = {"env": env_settings(cfg), "train": dataclasses.asdict(settings), "curve": curve}
    (folder / f"{name}.json").write_text(json.dumps(meta, indent=1))
    return folder / f"{name}.zip"


def weights_sha256(model: Any) -> str:
    """SHA-256 of an SB3 model's policy weights (float32, little-endian, ``state_dict`` order): its identity.

    The same value whatever folder or zip the model sits in (a zip's bytes carry dates
    and versions), so two trainings gave the same model exactly when their hashes agree.
    """
    digest = hashlib.sha256()
    for value in model.policy.state_dict().values():
        digest.update(value.detach().cpu().numpy().astype("<f4").tobytes())
    return digest.hexdigest()


def check_model(path: Path, cfg: RLSchedulerConfig | Mixture, other_log: bool = False) -> None:
    """Refuse, in one line, a saved model that is missing or was trained with other settings than ``cfg``'s.

    Reads only the settings file, so a run can check its models before any work.
    ``other_log`` lets a model trained on one log run on another (generalisation); a
    mixture's model (saved with ``logs``) runs on any log.
    """
    path = Path(path)
    meta_path = path.with_suffix(".json")
    if not path.is_file():
        raise ValueError(f"model {path}: no such file")
    if not meta_path.is_file():
        raise ValueError(f"model {path}: its settings file {meta_path.name} is missing")
    saved = read_settings(path)["env"]
    here = env_settings(cfg)
    other_log = other_log or (isinstance(saved.get("logs"), list) and not isinstance(cfg, Mixture))
    for key in MODEL_KEYS:
        if saved.get(key) != here[key] and not (key == "log" and other_log):
            raise ValueError(f"model {path}: trained with {key}={saved.get(key)!r}, this run has {key}={here[key]!r}")


def load_model(path: Path, cfg: RLSchedulerConfig | Mixture, device: str = "cpu", other_log: bool = False) -> Any:
    """A saved model, refused in one line if it was trained with other settings than ``cfg``'s (:func:`check_model`)."""
    from sb3_contrib import MaskablePPO

    check_model(path, cfg, other_log)
    return MaskablePPO.load(Path(path), device=device)


def seeds_in(folder: Path | None) -> tuple[int, ...]:
    """The seeds of the models (``seed<k>.zip``) in ``folder``, in order (none without a folder)."""
    found = (path.stem.removeprefix("seed") for path in folder.glob("seed*.zip")) if folder else ()
    return tuple(sorted(int(k) for k in found if k.isdigit()))

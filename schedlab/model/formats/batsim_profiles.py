"""How long a Batsim profile runs: the profile types schedlab replays, as Batsim's docs/input-workload.rst defines them.

- ``delay`` (Batsim 5: ``DelayProfile``): ``delay`` seconds, whatever the platform.
- ``parallel_homogeneous`` (Batsim 5: ``ParallelTaskHomogeneousProfile``): ``cpu``
  flops on each host of the job, at the host's speed: ``cpu / speed`` seconds, at the
  pstate 0 speed of the platform's hosts. With Batsim 5's ``generation_strategy``
  ``DefinedAmountsSpreadUniformly``, ``cpu`` is the job's total, ``cpu / res`` a host.
  ``com`` (bytes between each pair of hosts) is read and ignored: schedlab models no
  network, so a profile with communications runs as if they took no time (Batsim would
  add their transfer time on its links).
- ``composed`` (Batsim 5: ``SequentialCompositionProfile``): the profiles named in
  ``seq``, one after the other, ``repeat`` times (default 1): the sum of their times,
  times ``repeat``.

The seconds are computed once, when the workload is read, at pstate 0. A node that a
DVFS policy puts in a slower pstate stretches a running job's remaining work by the
ratio of speeds (:mod:`schedlab.processes.cluster.pstates`), so a ``parallel_homogeneous`` job
takes ``cpu / speed`` seconds at that pstate's speed too, as in Batsim. (A ``delay``
job is stretched the same way, where Batsim's is not: DVFS is off unless asked for.)

Any other type (``parallel``, ``smpi``, ``usage_trace``, the PFS and staging ones) is
refused by name: it needs a network or traces schedlab does not model.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

__all__ = ["COMPOSED_TYPES", "DELAY_TYPES", "FLOP_TYPES", "ProfileError", "profile_seconds"]

#: a fixed time: Batsim 4's name, Batsim 5's
DELAY_TYPES = ("delay", "DelayProfile")
#: flops on each host: Batsim 4's name, Batsim 5's
FLOP_TYPES = ("parallel_homogeneous", "ParallelTaskHomogeneousProfile")
#: a sequence of profiles: Batsim 4's name, Batsim 5's
COMPOSED_TYPES = ("composed", "SequentialCompositionProfile")
#: every type read, for the message that refuses the others
KNOWN = (*DELAY_TYPES, *FLOP_TYPES, *COMPOSED_TYPES)


class ProfileError(ValueError):
    """A profile that cannot be replayed; the message (without the file and job) names the profile and field."""


def _amount(profile: Mapping[str, Any], name: str, field: str, *, positive: bool, default: Any = None) -> float:
    value = profile.get(field, default)
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or value < 0 or (positive and value == 0):
        raise ProfileError(
            f"profile {name!r}: field {field!r} must be a finite number {'> 0' if positive else '>= 0'}, got {value!r}"
        )
    return float(value)


def profile_seconds(
    name: Any, profiles: Mapping[str, Any], res: int, flops: float | None, *, _inside: tuple[str, ...] = ()
) -> float:
    """Seconds the profile ``name`` of ``profiles`` runs on ``res`` hosts of ``flops`` flop/s (pstate 0).

    Raises
    ------
    ProfileError
        A name that is no profile, a type not replayed, a bad field, a composition that
        contains itself, or flops without a speed (``flops`` None: no Batsim platform).
    """
    profile = profiles.get(name) if isinstance(name, str) else None
    if not isinstance(profile, dict):
        raise ProfileError(f"names no profile of 'profiles': {name!r}")
    kind = profile.get("type")
    if kind in DELAY_TYPES:
        return _amount(profile, name, "delay", positive=True)
    if kind in FLOP_TYPES:
        cpu = _amount(profile, name, "cpu", positive=False, default=0)
        _amount(profile, name, "com", positive=False, default=0)  # read, checked, then ignored: no network
        if profile.get("generation_strategy") == "DefinedAmountsSpreadUniformly":
            cpu /= res
        if flops is None:
            raise ProfileError(
                f"profile {name!r} has type {kind!r}: its flops need the hosts' speed; "
                "replay it with a Batsim XML platform (--platform platform.xml)"
            )
        return cpu / flops
    if kind in COMPOSED_TYPES:
        if name in _inside:
            raise ProfileError(f"profile {name!r} contains itself ({' -> '.join((*_inside, name))})")
        seq = profile.get("seq")
        if not isinstance(seq, list) or not seq:
            raise ProfileError(f"profile {name!r}: field 'seq' must be a non-empty list of profile names, got {seq!r}")
        repeat = profile.get("repeat", 1)
        if not (isinstance(repeat, int) and not isinstance(repeat, bool) and repeat >= 1):
            raise ProfileError(f"profile {name!r}: field 'repeat' must be a whole number >= 1, got {repeat!r}")
        inner = (*_inside, name)
        try:
            once = sum(profile_seconds(part, profiles, res, flops, _inside=inner) for part in seq)
        except ProfileError as error:
            if str(error).startswith("names no profile"):
                raise ProfileError(f"profile {name!r}: field 'seq' {error}") from None
            raise
        return repeat * once
    raise ProfileError(
        f"profile {name!r} has type {kind!r}; schedlab replays {', '.join(KNOWN)} profiles only "
        "(the others need a network or traces it does not model)"
    )

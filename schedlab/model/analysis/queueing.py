"""Closed-form results for Markovian queues, to validate simulations against.

References
----------
L. Kleinrock, *Queueing Systems, Volume 1: Theory*, Wiley, 1975, section 3.5 (M/M/m).
"""

from __future__ import annotations

import math

from schedlab.model.core.fields import is_whole

__all__ = ["erlang_b", "erlang_c", "erlang_c_wait", "mm1_wait"]


def _check(c: int, arrival_rate: float, service_rate: float) -> float:
    if not is_whole(c, 1):
        raise ValueError(f"number of servers c must be a whole number >= 1, got {c!r}")
    for name, value in (("arrival_rate", arrival_rate), ("service_rate", service_rate)):
        if not (math.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be finite and > 0, got {value!r}")
    return arrival_rate / service_rate


def erlang_b(c: int, offered_load: float) -> float:
    """Blocking probability of M/M/c/c with offered load ``a = lambda / mu`` (Erlang B).

    Computed by the stable recursion ``B(k) = a B(k-1) / (k + a B(k-1))``, ``B(0) = 1``.
    """
    if not is_whole(c, 1):
        raise ValueError(f"number of servers c must be a whole number >= 1, got {c!r}")
    if not (math.isfinite(offered_load) and offered_load >= 0):
        raise ValueError(f"offered load must be finite and >= 0, got {offered_load!r}")
    b = 1.0
    for k in range(1, int(c) + 1):
        b = offered_load * b / (k + offered_load * b)
    return b


def erlang_c(c: int, arrival_rate: float, service_rate: float) -> float:
    """Probability that an arriving customer waits in M/M/c (Erlang C).

    ``C = c B / (c - a (1 - B))`` with ``B`` Erlang B and ``a = lambda / mu``; requires
    ``rho = a / c < 1``.
    """
    a = _check(c, arrival_rate, service_rate)
    if a >= c:
        raise ValueError(f"M/M/c is unstable: rho = lambda/(c mu) = {a / c:.4g} >= 1")
    b = erlang_b(c, a)
    return c * b / (c - a * (1.0 - b))


def erlang_c_wait(c: int, arrival_rate: float, service_rate: float) -> float:
    """Mean waiting time in queue of M/M/c: ``Wq = C(c, a) / (c mu - lambda)``."""
    return erlang_c(c, arrival_rate, service_rate) / (c * service_rate - arrival_rate)


def mm1_wait(arrival_rate: float, service_rate: float) -> float:
    """Mean waiting time in queue of M/M/1: ``rho / (mu - lambda)``."""
    rho = _check(1, arrival_rate, service_rate)
    if rho >= 1:
        raise ValueError(f"M/M/1 is unstable: rho = {rho:.4g} >= 1")
    return rho / (service_rate - arrival_rate)

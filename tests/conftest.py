"""Shared fixtures (paths of the repository's scenarios and traces) and Hypothesis budgets.

Hypothesis profiles set how hard the properties are tried:

- ``ci`` (the default): each property runs the budget written beside it (fast), on
  examples derived from the test's own code (``derandomize``): the same examples every
  run, so a landing never turns on luck. A random draw in CI once found a real bug
  (``RecordLog`` with int times) that then blocked an unrelated landing; such finds
  belong to ``thorough``, and each one is pinned with ``@example`` once fixed;
- ``thorough``: every property runs at least 300 random examples (run it before a
  change to the properties' code lands);

chosen with ``pytest --hypothesis-profile=thorough`` or ``HYPOTHESIS_PROFILE=thorough``.
A budget written beside a test (``@settings(max_examples=20)``) is its floor: a profile
with a larger budget raises it, so ``thorough`` reaches every property.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"
TRACES = ROOT.parent / "shared" / "traces"

THOROUGH_EXAMPLES = 300
settings.register_profile("ci", max_examples=50, deadline=None, derandomize=True)
settings.register_profile("thorough", max_examples=THOROUGH_EXAMPLES, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Raise each property's own budget to the profile's where the profile asks for more."""
    floor = settings().max_examples  # the loaded profile's (the plugin loads --hypothesis-profile first)
    for item in items:
        test = getattr(item, "obj", None)
        own = getattr(test, "_hypothesis_internal_use_settings", None)  # what @settings set on the test
        if own is not None and own.max_examples < floor:
            test._hypothesis_internal_use_settings = settings(own, max_examples=floor)


@pytest.fixture
def mmc_path() -> Path:
    return SCENARIOS / "mmc.py"

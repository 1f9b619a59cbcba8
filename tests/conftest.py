"""Shared fixtures: paths of the repository's scenarios and traces."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"
TRACES = ROOT.parent / "shared" / "traces"


@pytest.fixture
def mmc_path() -> Path:
    return SCENARIOS / "mmc.py"

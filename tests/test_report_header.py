"""Every pytest run names, in its header, the versions it resolved: a CI log says what it ran on."""

from __future__ import annotations

import platform
from importlib import metadata

from conftest import pytest_report_header


def test_the_header_names_the_python_and_the_versions_the_results_depend_on():
    versions, cpu = pytest_report_header(None)
    assert versions.startswith(f"versions: python {platform.python_version()}; numpy {metadata.version('numpy')}, ")
    for name in ("pandas", "scipy", "torch"):  # as pip resolved them (torch's may carry +cpu)
        assert f"{name} {metadata.version(name)}" in versions
    assert cpu.startswith("cpu: numpy dispatch ") and ", torch " in cpu

"""The code passes ``ruff check`` and is as ``ruff format`` writes it (pyproject.toml's ``[tool.ruff]``).

Both over the same paths: the package, the tests, the scenario scripts, the benchmarks and
the documentation site's hooks. A format failure lists the files to reformat; ``ruff format``
with the same paths, from the repository root, rewrites them.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PATHS = ["schedlab", "tests", "scenarios", "benchmarks", "docs/hooks"]


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    if importlib.util.find_spec("ruff") is None:
        pytest.skip("ruff is not installed (pip install -e '.[dev]')")
    return subprocess.run([sys.executable, "-m", "ruff", *args, *PATHS], cwd=ROOT, capture_output=True, text=True)


def test_ruff_check():
    """``ruff check`` finds nothing (the rules pyproject.toml selects)."""
    done = _ruff("check")
    assert done.returncode == 0, f"ruff check failed (exit status {done.returncode}):\n{done.stdout}{done.stderr}"


def test_ruff_format_check():
    """``ruff format --check`` would change no file."""
    done = _ruff("format", "--check")
    if done.returncode != 0:
        # the files only: ruff's newer versions print each file's whole diff, older ones "Would reformat: path"
        lines = done.stdout.splitlines()
        named = [line.strip() for line in lines if line.startswith("Would reformat") or "-->" in line]
        listing = "\n".join(named) if named else done.stdout + done.stderr
        pytest.fail(
            f"ruff format --check failed (exit status {done.returncode}); run `ruff format {' '.join(PATHS)}`:\n"
            f"{listing}\n{lines[-1] if lines else ''}",
            pytrace=False,
        )

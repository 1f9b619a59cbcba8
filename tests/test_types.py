"""The type checker runs over ``schedlab/``, and every ``# type: ignore`` says which error and why.

mypy reads its settings from ``pyproject.toml`` (``[tool.mypy]``), so ``mypy`` on the command
line (from the repository root) and this test check the same thing. Its cache goes to the
temporary directory, not the repository: the first run checks every module (tens of seconds),
later runs only what changed.
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "schedlab"

#: ``# type: ignore[code, ...]  # why``: the codes it silences, then the reason, on the same line
_IGNORE = re.compile(r"#\s*type:\s*ignore\b(?P<rest>.*)")
_EXPLAINED = re.compile(r"^\[[a-z-]+(,\s*[a-z-]+)*\]  # \S")


def test_mypy_clean():
    """``mypy`` finds no error in schedlab/ (the settings of pyproject.toml's [tool.mypy])."""
    api = pytest.importorskip("mypy.api", reason="mypy is not installed (pip install -e '.[dev]')")
    # one cache per checkout: two working trees do not overwrite each other's entries
    cache = Path(tempfile.gettempdir()) / f"schedlab-mypy-cache-{hashlib.sha1(str(ROOT).encode()).hexdigest()[:8]}"
    stdout, stderr, status = api.run(
        ["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(cache), str(PACKAGE)]
    )
    assert status == 0, f"mypy found errors (exit status {status}):\n{stdout}{stderr}"


def test_every_ignore_names_its_code_and_reason():
    """Each ``# type: ignore`` in schedlab/ is ``# type: ignore[code]  # reason``: what it silences, and why."""
    bare = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            found = _IGNORE.search(line)
            if found and not _EXPLAINED.match(found["rest"]):
                bare.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not bare, "ignores without [code]  # reason:\n" + "\n".join(bare)

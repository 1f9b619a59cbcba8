"""Shared fixtures (paths of the repository's scenarios and traces), Hypothesis budgets, and the
tiny logs the ``schedlab replay --platform`` tests write (:func:`tiny_swf`, :func:`replay_args`,
:func:`first_row`).

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

The header of every run names the Python, the resolved versions of the libraries whose
arithmetic the results depend on, and the SIMD level numpy and torch dispatch to (a
learner in float32 elects differently on an AVX2 and an AVX-512 machine: see
``tests/quick_runs.py``), so a CI log says what it ran on.
"""

from __future__ import annotations

import csv
import os
import platform
from collections.abc import Iterable
from importlib import metadata
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

#: the libraries named in the header: those whose float arithmetic the stored results depend on
HEADER_PACKAGES = ("numpy", "pandas", "scipy", "torch", "networkx", "pyarrow", "simpy")


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def _simd() -> str:
    """What numpy's and torch's kernels dispatch to on this CPU (their sums and products depend on it)."""
    try:
        from numpy._core import _multiarray_umath as umath  # numpy >= 2
    except ImportError:  # pragma: no cover (numpy 1.26)
        from numpy.core import _multiarray_umath as umath
    numpy_simd = [f for f in umath.__cpu_dispatch__ if umath.__cpu_features__.get(f)]
    try:
        import torch

        torch_simd = torch.backends.cpu.get_cpu_capability()
    except ImportError:
        torch_simd = "-"
    return f"numpy dispatch {' '.join(numpy_simd) or 'baseline'}, torch {torch_simd}"


def pytest_report_header(config: pytest.Config) -> list[str]:
    """``python 3.11.7; numpy 2.4.6, pandas 3.1.1, ...`` and the SIMD level, at the top of every run."""
    versions = ", ".join(f"{name} {_version(name)}" for name in HEADER_PACKAGES)
    return [f"versions: python {platform.python_version()}; {versions}", f"cpu: {_simd()}"]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Raise each property's own budget to the profile's where the profile asks for more."""
    floor = settings().max_examples  # the loaded profile's (the plugin loads --hypothesis-profile first)
    for item in items:
        test = getattr(item, "obj", None)
        own = getattr(test, "_hypothesis_internal_use_settings", None)  # what @settings set on the test
        if own is not None and own.max_examples < floor:
            test._hypothesis_internal_use_settings = settings(own, max_examples=floor)


def tiny_swf(path: Path, jobs: Iterable[tuple[int, float, float, int]], requested: float | None = None) -> Path:
    """An SWF log at ``path`` of 8 processors: a line per ``(id, submit, runtime, cores)``.

    Each job asks for its runtime (``requested``: that time for every job) on its cores;
    the other fields are SWF's unknown (-1) or 1. The hand-worked cases of the replay
    tests, written once.
    """
    lines = (
        f"{i} {s} -1 {r} {c} -1 -1 {c} {r if requested is None else requested} -1 1 1 1 -1 -1 -1 -1 -1\n"
        for i, s, r, c in jobs
    )
    path.write_text("; MaxProcs: 8\n" + "".join(lines))
    return path


def replay_args(log: Path, platform_file: Path, jobs: int) -> list[str]:
    """``schedlab replay``'s arguments for the first ``jobs`` jobs of ``log`` on ``platform_file``,
    no backfilling, serial, the pure-Python engine; the caller adds ``--out`` and its own options."""
    args = ["replay", str(log), "--platform", str(platform_file), "--start", "0", "--length", str(jobs)]
    return [*args, "--backfill", "none", "--executor", "serial", "--no-native"]


def first_row(out: Path) -> dict[str, str]:
    """The first row of a saved run's ``replications.csv``."""
    with (out / "replications.csv").open() as stream:
        return next(csv.DictReader(stream))


@pytest.fixture
def mmc_path() -> Path:
    return SCENARIOS / "mmc.py"


@pytest.fixture
def dvfs_replays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """``schedlab replay`` of two jobs on two 4-core nodes with two pstates (speed 1 and 0.5), twice:
    with ``--dvfs 1`` into ``tmp_path/"dvfs"`` and without into ``tmp_path/"fast"``.

    Job 1 (4 cores, 10 s) is submitted at 0 and job 2 (8 cores, 10 s) at 5; both ask for
    100 s, so no walltime kill. Returns ``tmp_path``.
    """
    from schedlab.experiment.cli import main

    log = tiny_swf(tmp_path / "two.swf", [(1, 0, 10, 4), (2, 5, 10, 8)], requested=100)
    plat = tmp_path / "dvfs.toml"
    plat.write_text(
        "[nodes.n]\ncount = 2\ncores = 4\n[nodes.n.power]\n"
        "pstates = [{ speed = 1.0, idle = 100, full = 200 }, { speed = 0.5, idle = 60, full = 100 }]\n"
    )
    args = replay_args(log, plat, 2)
    assert main([*args, "--out", str(tmp_path / "dvfs"), "--dvfs", "1"]) == 0
    assert main([*args, "--out", str(tmp_path / "fast")]) == 0
    capsys.readouterr()
    return tmp_path

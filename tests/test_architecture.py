"""The direction of imports and the absence of import cycles (docs/architecture.md, "Import rules").

The rules themselves live in ``pyproject.toml`` (``[tool.importlinter]``), so ``lint-imports``
on the command line and this test check the same contracts. The cycle check is separate:
import-linter's layers see packages, not two modules of one package that import each other.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import subprocess
import sys
from pathlib import Path
from typing import Protocol

import grimp
import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_import_contracts_kept():
    """``lint-imports`` passes: every layer and forbidden-import contract is kept."""
    # A subprocess, so the graph is built from the files as they are, with no cache
    # and no modules this test session happened to import first.
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from importlinter.cli import lint_imports_command; lint_imports_command()",
            "--no-cache",
            "--config",
            str(ROOT / "pyproject.toml"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"lint-imports failed:\n{done.stdout}\n{done.stderr}"


def import_cycles(package: str) -> list[list[str]]:
    """Groups of modules of ``package`` that import each other, directly or round a loop.

    Each group is a strongly connected component of the module import graph.
    Imports under ``if TYPE_CHECKING:`` count: a cycle through one still means neither
    module can be read, moved or type-checked without the other, and it turns into a
    runtime cycle the day someone needs the name at run time. Imports inside functions
    count too, for the same reason.
    """
    graph = grimp.build_graph(package, cache_dir=None)  # TYPE_CHECKING imports are kept by default
    edges = nx.DiGraph()
    for module in graph.modules:
        edges.add_node(module)
        for imported in graph.find_modules_directly_imported_by(module):
            edges.add_edge(module, imported)
    return sorted(sorted(group) for group in nx.strongly_connected_components(edges) if len(group) > 1)


def test_no_import_cycles_between_modules():
    cycles = import_cycles("schedlab")
    assert not cycles, "modules that import each other: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_cycle_check_sees_type_checking_and_function_imports(tmp_path, monkeypatch):
    """A cycle made only by a ``TYPE_CHECKING`` import, and one made by an import inside a function, are found."""
    pkg = tmp_path / "cyclic_probe"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from cyclic_probe.b import B\nA = B\n")
    (pkg / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from cyclic_probe.a import A\nB = 1\n"
    )
    (pkg / "c.py").write_text("def f():\n    from cyclic_probe.d import g\n    return g\n")
    (pkg / "d.py").write_text("from cyclic_probe.c import f\ng = f\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_cycles("cyclic_probe") == [["cyclic_probe.a", "cyclic_probe.b"], ["cyclic_probe.c", "cyclic_probe.d"]]


#: policies' modules of helpers that are not policies themselves (the machine's running-set bookkeeping)
HELPERS = {"machine_state"}


def _policy_classes() -> dict[str, set[str]]:
    """Public classes (not protocols) of each ``schedlab.policies`` submodule's ``__all__``."""
    import schedlab.policies as package

    found: dict[str, set[str]] = {}
    for info in pkgutil.iter_modules(package.__path__):
        if info.name in HELPERS:
            continue
        module = importlib.import_module(f"schedlab.policies.{info.name}")
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if inspect.isclass(obj) and Protocol not in obj.__mro__ and obj.__module__ == module.__name__:
                found.setdefault(info.name, set()).add(name)
    return found


def test_policies_export_every_policy_class():
    import schedlab.policies as package

    missing = {module: sorted(names - set(package.__all__)) for module, names in _policy_classes().items()}
    missing = {module: names for module, names in missing.items() if names}
    assert not missing, f"policies not exported by schedlab.policies: {missing}"
    for name in package.__all__:
        assert getattr(package, name) is not None


@pytest.mark.parametrize("name", ["EASY", "FCFS", "SJF", "Tetris", "LeastLoaded", "LoadBalancing"])
def test_named_policies_importable(name):
    import schedlab.policies as package

    assert name in package.__all__

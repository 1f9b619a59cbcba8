"""Every public definition in ``schedlab/`` has a docstring that says what it is and why.

Public: a module-level class or function, or a method or property of a public class, whose
name does not start with ``_`` (dunder methods are Python's protocol, documented by Python).
Read with ``ast``, so nothing is imported and a definition made inside ``if TYPE_CHECKING:``
counts as well. ``@overload`` stubs share the docstring of the function they describe, and a
property's setter or deleter that of its getter.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "schedlab"

_Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def _decorator_names(node: _Definition) -> set[str]:
    names = set()
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Name):
            names.add(target.id)
        elif isinstance(target, ast.Attribute):
            names.add(target.attr)  # typing.overload, name.setter
    return names


def _body_definitions(body: list[ast.stmt]) -> Iterator[_Definition]:
    """The definitions directly in ``body``, and in its ``if`` / ``try`` blocks (not in functions)."""
    for node in body:
        if isinstance(node, _Definition):
            yield node
        elif isinstance(node, ast.If):
            yield from _body_definitions(node.body)
            yield from _body_definitions(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                yield from _body_definitions(block)


def _public(node: _Definition) -> bool:
    return not node.name.startswith("_")


def _needs_docstring(node: _Definition) -> bool:
    marks = _decorator_names(node)
    return _public(node) and not ({"overload", "setter", "deleter"} & marks)


def undocumented(path: Path, root: Path = ROOT) -> Iterator[str]:
    """``file:line: qualified name`` of each public definition in ``path`` without a docstring (file from ``root``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    where = path.relative_to(root)

    def visit(body: list[ast.stmt], prefix: str) -> Iterator[str]:
        for node in _body_definitions(body):
            if _needs_docstring(node) and ast.get_docstring(node) is None:
                yield f"{where}:{node.lineno}: {prefix}{node.name}"
            if isinstance(node, ast.ClassDef) and _public(node):
                yield from visit(node.body, f"{prefix}{node.name}.")

    yield from visit(tree.body, "")


def test_every_public_definition_has_a_docstring():
    """No public class, function, method or property of schedlab/ lacks a docstring."""
    missing = [line for path in sorted(PACKAGE.rglob("*.py")) for line in undocumented(path)]
    assert not missing, f"{len(missing)} public definitions without a docstring:\n" + "\n".join(missing)


def test_the_check_sees_methods_properties_and_guarded_definitions(tmp_path):
    """The walk finds an undocumented method, property and ``if TYPE_CHECKING:`` function; it skips the rest."""
    source = tmp_path / "sample.py"
    source.write_text(
        "from typing import TYPE_CHECKING, overload\n"
        "class Shown:\n"
        '    """Documented."""\n'
        "    def method(self): pass\n"
        "    @property\n"
        "    def size(self): return 1\n"
        "    @size.setter\n"
        "    def size(self, value): pass\n"
        "    def _private(self): pass\n"
        "    def __len__(self): return 0\n"
        "class _Hidden:\n"
        "    def method(self): pass\n"
        "if TYPE_CHECKING:\n"
        "    def guarded(): pass\n"
        "@overload\n"
        "def over(x: int) -> int: ...\n"
        "def over(x):\n"
        '    """Documented."""\n'
    )
    found = [line.split(": ", 1)[1] for line in undocumented(source, tmp_path)]
    assert found == ["Shown.method", "Shown.size", "guarded"]

"""Griffe extension: the Sphinx (reStructuredText) marks in schedlab's docstrings, made Markdown.

schedlab's numpydoc docstrings name other objects the Sphinx way, e.g.
``:class:`~schedlab.model.contracts.machine.MachineView``` or ``:func:`gantt```. Markdown has no
roles, so mkdocstrings would print them as they are (":func:" and the name in code). This
extension rewrites each role before the docstring is parsed, into an mkdocstrings
cross-reference ``[`MachineView`][schedlab.model.contracts.machine.MachineView]`` when the name
resolves to a documented object on a page of the reference, and into plain code
otherwise (a name outside schedlab, a private one, an undocumented one): a link that
could not resolve would fail ``mkdocs build --strict``.

A leading ``~`` shows only the last part of the name, as in Sphinx.

A paragraph that ends in ``::`` introduces a literal block in reStructuredText; the
indented block already is a code block in Markdown, so the ``::`` becomes ``:`` (or goes,
after a space), as Sphinx prints it.

An attribute documented the Sphinx way, by ``#:`` comment lines right above it (or one
after it on the same line), as every ``Config`` field of schedlab is, gets those lines as
its docstring, so the reference shows it (griffe reads only docstrings).

The source stays as it is, so ``help()`` and editors show the docstrings unchanged.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import griffe

#: a Sphinx Python-domain role: :class:`name`, :py:func:`~a.b.c`, ...
ROLE = re.compile(r":(?:py:)?(?:mod|func|class|meth|attr|data|exc|obj|const):`(?P<tilde>~?)(?P<name>[^`]+)`")
#: reStructuredText's literal-block marker at the end of a line: "... as follows::"
LITERAL_MARKER = re.compile(r"(?P<space>[ \t]?)::$", re.MULTILINE)


def _walk(obj: griffe.Object) -> Any:
    """Every object of a package, once (aliases, i.e. re-exported names, are skipped)."""
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _walk(member)


def _documented(path: str, collection: griffe.ModulesCollection) -> str | None:
    """The canonical path of the object ``path`` names, if the reference renders it."""
    try:
        target = collection[path]
        if target.is_alias:
            target = target.final_target
    except (KeyError, griffe.AliasResolutionError, griffe.CyclicAliasError):
        return None
    canonical = target.canonical_path
    parts = canonical.split(".")
    if parts[0] != "schedlab" or any(part.startswith("_") for part in parts[1:]):
        return None  # outside schedlab, or private: not on a page
    if not target.is_module and not target.docstring:
        return None  # show_if_no_docstring is off
    return canonical


def _full_path(name: str, scope: griffe.Object) -> str | None:
    """The dotted path a role's name stands for, seen from the object whose docstring holds it."""
    if name.startswith("schedlab."):
        return name
    head, _, rest = name.partition(".")
    try:
        resolved = scope.resolve(head)
    except (griffe.NameResolutionError, griffe.AliasResolutionError, KeyError, ValueError):
        return None
    return f"{resolved}.{rest}" if rest else resolved


def rewrite(docstring: str, scope: griffe.Object, collection: griffe.ModulesCollection) -> str:
    """The docstring with each role replaced by a cross-reference or by code, and no ``::`` marker."""

    def one(match: re.Match[str]) -> str:
        name = match["name"].strip().lstrip(".").removesuffix("()")
        shown = name.rsplit(".", 1)[-1] if match["tilde"] else name
        full = _full_path(name, scope)
        target = _documented(full, collection) if full else None
        return f"[`{shown}`][{target}]" if target else f"`{shown}`"

    return without_literal_markers(ROLE.sub(one, docstring))


def without_literal_markers(docstring: str) -> str:
    """``as follows::`` -> ``as follows:`` and ``text ::`` -> ``text``, as Sphinx prints them."""
    return LITERAL_MARKER.sub(lambda m: "" if m["space"] else ":", docstring)


def comment_doc(lines: list[str], lineno: int) -> tuple[str, int] | None:
    """The ``#:`` documentation of the statement on line ``lineno`` (1-based), and its first line."""
    code, _, trailing = lines[lineno - 1].partition("#:")
    if code.strip() and trailing.strip():
        return trailing.strip(), lineno
    first, text = lineno - 1, []
    while first > 0 and lines[first - 1].lstrip().startswith("#:"):
        text.insert(0, lines[first - 1].lstrip()[2:].strip())
        first -= 1
    return ("\n".join(text), first + 1) if text else None


class SphinxRoles(griffe.Extension):
    """Read ``#:`` comments as attribute docstrings; rewrite every docstring's roles once loaded."""

    def on_attribute_instance(self, *, attr: griffe.Attribute, **kwargs: Any) -> None:
        """Give an attribute without a docstring its ``#:`` comment, if it has one."""
        if attr.docstring is not None or not attr.lineno or not isinstance(attr.filepath, Path):
            return
        found = comment_doc(attr.lines_collection[attr.filepath], attr.lineno)
        if found:
            attr.docstring = griffe.Docstring(found[0], lineno=found[1], parent=attr)

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        """Rewrite roles in all docstrings of ``pkg`` (names resolve only once it is whole)."""
        for obj in _walk(pkg):
            if obj.docstring is not None and ":" in obj.docstring.value:
                obj.docstring.value = rewrite(obj.docstring.value, obj, loader.modules_collection)

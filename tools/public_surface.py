"""The public surface of ``schedlab``: its import paths and the names they export (``__all__``).

Run from the repository root: ``python tools/public_surface.py [REV ...]``. Each column is the
work tree, or a git revision (``701568a``: before issue 34's renames). Read from the source
with ``ast`` (nothing is imported): a module is public where no part of its path starts with
``_``; its exports are the strings of its ``__all__`` (a module without one exports nothing
here). ``--list`` prints every path and its names instead, one a line, for a diff.
"""

from __future__ import annotations

import ast
import sys

from house_moves import tree_texts


def surface(texts: dict[str, str]) -> dict[str, list[str]]:
    """Import path -> the names its ``__all__`` lists, for every public module of ``schedlab/``."""
    out: dict[str, list[str]] = {}
    for name, text in texts.items():
        if not (name.startswith("schedlab/") and name.endswith(".py")):
            continue
        parts = name.removesuffix(".py").split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if any(p.startswith("_") for p in parts):
            continue
        out[".".join(parts)] = _all(text)
    return out


def _all(text: str) -> list[str]:
    for node in ast.parse(text).body:
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and node.value is not None:
            value = node.value
            if isinstance(value, ast.List | ast.Tuple):
                return [e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def main(argv: list[str]) -> int:
    listing = "--list" in argv
    columns = [a for a in argv if a != "--list"] or [None]
    tables = {rev or "work tree": surface(tree_texts(rev, {".py"})) for rev in columns}
    if listing:
        for title, table in tables.items():
            for path in sorted(table):
                print(f"{title}\t{path}\t{' '.join(table[path])}")
        return 0
    print("| | " + " | ".join(tables) + " |")
    print("|---|" + "---|" * len(tables))
    rows = {
        "import paths (public modules)": lambda t: len(t),
        "modules with an __all__": lambda t: sum(1 for names in t.values() if names),
        "exported names (sum of __all__)": lambda t: sum(len(names) for names in t.values()),
        "distinct exported names": lambda t: len({n for names in t.values() for n in names}),
    }
    for label, count in rows.items():
        print(f"| {label} | " + " | ".join(str(count(t)) for t in tables.values()) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

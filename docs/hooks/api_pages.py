"""MkDocs hook: the API reference pages, one per subpackage of schedlab, generated at build time.

Each page ``reference/<subpackage>.md`` holds the subpackage's own docstring, then one
mkdocstrings section (``::: schedlab.<subpackage>.<module>``) per public module, in the
order of the source tree. The modules are listed from the files under ``schedlab/``, not
by importing the package, so a new module appears in the reference without anyone
editing a page, and building the site needs none of schedlab's optional extras.

A module is public when no part of its dotted name starts with ``_`` (``plots/_mpl.py``
is private). ``docs/reference/index.md`` is written by hand; these pages are not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

PACKAGE = "schedlab"


def public_modules(package_dir: Path, dotted: str) -> list[str]:
    """The dotted names of the public modules under one subpackage, in source-tree order.

    Parameters
    ----------
    package_dir
        The subpackage's folder (``schedlab/model``).
    dotted
        Its dotted name (``schedlab.model``).

    Returns
    -------
    list of str
        Modules first, then each nested package followed by its own modules
        (``schedlab.model.formats.swf``, ``schedlab.model.formats.swf.reader``, ...).
    """
    names = []
    for path in sorted(package_dir.glob("*.py")):
        if not path.stem.startswith("_"):
            names.append(f"{dotted}.{path.stem}")
    for sub in sorted(p for p in package_dir.iterdir() if (p / "__init__.py").is_file()):
        if not sub.name.startswith("_"):
            names.append(f"{dotted}.{sub.name}")
            names.extend(public_modules(sub, f"{dotted}.{sub.name}"))
    return names


def page_text(package_dir: Path, dotted: str) -> str:
    """The Markdown of one subpackage's reference page."""
    lines = [
        f"# `{dotted}`",
        "",
        # the package's docstring only: its members are rendered under their own modules
        f"::: {dotted}",
        "    options:",
        "      show_root_heading: false",
        "      members: false",
        "",
    ]
    for module in public_modules(package_dir, dotted):
        lines += [f"::: {module}", ""]
    return "\n".join(lines)


def subpackages(root: Path) -> list[str]:
    """The names of schedlab's top-level subpackages (``model``, ``processes``, ...)."""
    return sorted(p.name for p in (root / PACKAGE).iterdir() if (p / "__init__.py").is_file())


def on_files(files: Files, config: MkDocsConfig, **kwargs: Any) -> Files:
    """Add ``reference/<subpackage>.md`` for every subpackage of schedlab."""
    root = Path(config.config_file_path).parent
    for name in subpackages(root):
        text = page_text(root / PACKAGE / name, f"{PACKAGE}.{name}")
        files.append(File.generated(config, f"reference/{name}.md", content=text))
    return files

"""MkDocs hook: every tutorial, and every solution page, is also a Jupyter notebook on the site.

The Markdown page is the one source. :func:`lesson_notebook` turns it into a notebook with
jupytext (its Markdown format reads each ```python fence as a code cell, and keeps every
other fence, ```text, ```bash or a bare one, in the Markdown around it), and then:

- a ```text block right after a code cell is the output the page shows for that block
  (``tests/test_tutorials.py`` checks that the code prints it). It becomes the cell's
  output, so the notebook reads like one that has been run; running it prints the same;
- relative links to other pages (``02_shared_resources.md``) are rewritten by the
  caller's ``link``, since a notebook is read away from the ``.md`` files;
- a first cell says where the notebook came from and where to start Jupyter.

:func:`lesson_notebook` is a pure function of the text (no MkDocs in it), so
``tests/test_notebooks.py`` converts with the very code the site uses and executes the
result. The hook (``hooks:`` in mkdocs.yml) adds each notebook to the site's files
(``tutorials/01_events_and_clock.ipynb`` beside its page, so ``--strict`` checks the
links to it) and puts a "Download this lesson as a notebook" link at the top of each page.

schedlab does not import this module: jupytext is needed only to build the site and in
the tests (the ``docs`` extra).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jupytext
import nbformat

#: the pages that become notebooks, as paths under docs/: the lessons and their solutions
NOTEBOOK_PAGE = re.compile(r"^tutorials/(solutions/)?\d\d_[^/]+\.md$")
#: a ```text fence at the very start of a Markdown cell: the output shown for the code cell before it
SHOWN_OUTPUT = re.compile(r"\A```text\n(?P<text>.*?)```[ \t]*(?:\n|\Z)", re.DOTALL)
#: a Markdown link to a relative page: [text](target.md) or [text](target.md#anchor)
PAGE_LINK = re.compile(r"(?<!!)\[(?P<text>[^\]\n]+)\]\((?P<target>[^)\s:#]+\.md)(?P<anchor>#[^)\s]*)?\)")

KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}


def lesson_notebook(markdown: str, source: str = "", link: Callable[[str], str] | None = None) -> nbformat.NotebookNode:
    """The notebook of one tutorial (or solution) page.

    Parameters
    ----------
    markdown
        The page's Markdown text.
    source
        The page's path in the repository (``docs/tutorials/01_events_and_clock.md``),
        named in the notebook's first cell; none when empty.
    link
        Maps a relative ``.md`` link target to the one the notebook should show (the
        site's URL of that page); links are left as they are when ``None``.

    Returns
    -------
    nbformat.NotebookNode
        A version-4 notebook for the ``python3`` kernel, not executed: each code cell
        carries as its output the text the page shows under it, if any.
    """
    nb = jupytext.reads(markdown, fmt="md")
    cells: list[nbformat.NotebookNode] = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            shown = SHOWN_OUTPUT.match(cell.source)
            if shown and cells and cells[-1].cell_type == "code":
                cells[-1].outputs = [nbformat.v4.new_output("stream", name="stdout", text=shown["text"])]
                cell.source = cell.source[shown.end() :].strip("\n")
            if link is not None:
                cell.source = PAGE_LINK.sub(
                    lambda m: f"[{m['text']}]({link(m['target'])}{m['anchor'] or ''})", cell.source
                )
            if cell.source.strip():
                _append_markdown(cells, cell.source)
        elif cell.source.startswith("%%"):
            # jupytext reads a ```bash fence as a %%bash cell: shell lines are shown, never run, as on the page
            magic, _, body = cell.source.partition("\n")
            _append_markdown(cells, f"```{magic[2:].split()[0]}\n{body}\n```")
        else:
            cells.append(nbformat.v4.new_code_cell(cell.source))
    if source:
        cells.insert(
            0,
            nbformat.v4.new_markdown_cell(
                f"*This notebook is generated from `{source}` in the schedlab repository, by jupytext. "
                "Start Jupyter in the repository's root folder (`jupyter lab` there): the code reads "
                "`scenarios/` and the traces in `../shared/traces` from there, and writes figures to "
                "`results/tutorials/`. Lesson 3 says how to point at the traces from elsewhere.*"
            ),
        )
    out = nbformat.v4.new_notebook(cells=cells)
    out.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}}
    nbformat.validate(out)
    return out


def _append_markdown(cells: list[nbformat.NotebookNode], text: str) -> None:
    """Add Markdown after the cells, joined to a Markdown cell that ends them."""
    if cells and cells[-1].cell_type == "markdown":
        cells[-1].source += "\n\n" + text
    else:
        cells.append(nbformat.v4.new_markdown_cell(text))


def notebook_uri(page_uri: str) -> str:
    """``tutorials/01_events_and_clock.md`` -> ``tutorials/01_events_and_clock.ipynb``."""
    return page_uri[: -len(".md")] + ".ipynb"


# ---- the MkDocs hook -------------------------------------------------------------------------------------------


def _site_link(page_uri: str, config: Any) -> Callable[[str], str]:
    """Where a notebook's relative page link should point: the page on the site."""
    base = posixpath.dirname(page_uri)
    site_url = (config.get("site_url") or "").rstrip("/")

    def link(target: str) -> str:
        uri = posixpath.normpath(posixpath.join(base, target))[: -len(".md")]
        uri = (
            (uri[: -len("README")] if uri.endswith("README") else uri + "/")
            if config.get("use_directory_urls", True)
            else uri + ".html"
        )
        return (
            f"{site_url}/{uri}"
            if site_url
            else posixpath.relpath(uri or ".", base or ".") + ("/" if uri.endswith("/") else "")
        )

    return link


def on_files(files: Any, config: Any) -> Any:
    """Add ``<page>.ipynb`` beside every lesson and solution page."""
    from mkdocs.structure.files import File

    for page in [f for f in files if NOTEBOOK_PAGE.match(f.src_uri)]:
        text = Path(page.abs_src_path).read_text(encoding="utf-8")
        nb = lesson_notebook(text, source=f"docs/{page.src_uri}", link=_site_link(page.src_uri, config))
        files.append(File.generated(config, notebook_uri(page.src_uri), content=nbformat.writes(nb)))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Put the download link under the page's title."""
    if not NOTEBOOK_PAGE.match(page.file.src_uri):
        return markdown
    what = "these solutions" if "/solutions/" in page.file.src_uri else "this lesson"
    name = posixpath.basename(notebook_uri(page.file.src_uri))
    download = f'[Download {what} as a notebook]({name}){{ download="{name}" }}'
    title, _, rest = markdown.partition("\n")
    return f"{title}\n\n{download}\n{rest}" if title.startswith("# ") else f"{download}\n\n{markdown}"


if __name__ == "__main__":  # python3 docs/hooks/notebooks.py [OUT]: every lesson and solution as a notebook
    import sys

    root = Path(__file__).resolve().parent.parent
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "results/notebooks")
    for page in sorted((root / "tutorials").glob("**/[0-9][0-9]_*.md")):
        uri = page.relative_to(root).as_posix()
        target = out / notebook_uri(uri).removeprefix("tutorials/")
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(lesson_notebook(page.read_text(encoding="utf-8"), source=f"docs/{uri}"), target)
        print(f"wrote {target}")

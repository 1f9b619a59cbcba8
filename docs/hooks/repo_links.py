"""MkDocs hook: links from a docs page to a file of the repository outside ``docs/``.

The Markdown pages are read in two places: in a repository browser, where a relative link
such as ``[mmc](../scenarios/mmc.py)`` opens the script, and on this site, whose pages
are built from ``docs/`` alone, where the same link points nowhere. This hook keeps the
source as it is (so the link still works in the repository) and rewrites it for the
site: to ``repo_url/blob/main/<path>`` when ``mkdocs.yml`` names a ``repo_url``, else to
the link's text with the repository path beside it in code.

Only links whose target exists in the repository are rewritten. A link to a file that
does not exist is left alone, so MkDocs still reports it and ``--strict`` fails.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

#: an inline Markdown link to a relative target: [text](target) or [text](target#anchor)
LINK = re.compile(r"(?<!!)\[(?P<text>[^\]\n]+)\]\((?P<target>[^)\s:#]+)(?P<anchor>#[^)\s]*)?\)")
#: fenced code blocks, whose text is never a link
FENCE = re.compile(r"^(```|~~~).*?^\1", re.DOTALL | re.MULTILINE)


def outside_target(page_src: Path, target: str, docs_dir: Path, root: Path) -> str | None:
    """The repository path a relative link points to, when that is outside docs_dir and exists."""
    resolved = (page_src.parent / target).resolve()
    if resolved.is_relative_to(docs_dir) or not resolved.is_relative_to(root) or not resolved.exists():
        return None
    return resolved.relative_to(root).as_posix()


def rewrite(
    markdown: str, page_src: Path, docs_dir: Path, root: Path, repo_url: str | None, page_uri: str | None = None
) -> str:
    """The page's Markdown with its outside-docs links made ones the site can show.

    ``page_uri`` is the page's place on the site (``benchmarks.md``) when its source lies
    outside docs_dir (``benchmarks/README.md``): its links into docs_dir are then made
    relative to that place.
    """

    def one(match: re.Match[str]) -> str:
        path = outside_target(page_src, match["target"], docs_dir, root)
        if path is None:
            resolved = (page_src.parent / match["target"]).resolve()
            if page_uri and not page_src.is_relative_to(docs_dir) and resolved.is_relative_to(docs_dir):
                here = (docs_dir / page_uri).parent
                return f"[{match['text']}]({Path(os.path.relpath(resolved, here)).as_posix()}{match['anchor'] or ''})"
            return match[0]
        text = match["text"]
        if repo_url:
            kind = "tree" if (root / path).is_dir() else "blob"
            return f"[{text}]({repo_url.rstrip('/')}/{kind}/main/{path}{match['anchor'] or ''})"
        if text.strip("`") == path or text.strip("`").endswith(Path(path).name):
            return f"`{path}`"  # the text already names the file
        return f"{text} (`{path}`)"

    pieces, last = [], 0
    for fence in FENCE.finditer(markdown):  # leave code blocks as they are
        pieces.append(LINK.sub(one, markdown[last : fence.start()]))
        pieces.append(fence[0])
        last = fence.end()
    pieces.append(LINK.sub(one, markdown[last:]))
    return "".join(pieces)


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files, **kwargs: Any) -> str:
    """Rewrite the links of pages read from docs/ (generated pages have no source file)."""
    if page.file.abs_src_path is None:
        return markdown
    docs_dir = Path(config.docs_dir).resolve()
    root = Path(config.config_file_path).parent.resolve()
    source = Path(page.file.abs_src_path).resolve()
    return rewrite(markdown, source, docs_dir, root, config.repo_url, page.file.src_uri)

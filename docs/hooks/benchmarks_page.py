"""MkDocs hook: the site's Benchmarks page is ``benchmarks/README.md``, read where it lives.

The benchmarks' README sits beside the scripts it describes, outside ``docs/``, and is
read there in the repository. Rather than keep a copy in ``docs/`` that would drift, the
site takes the file itself as the source of ``benchmarks.md`` at every build (links in it
to other repository files are handled by ``repo_links.py`` like any page's).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

#: said under the page's title, so a reader knows where the scripts are
WHERE = "*This page is `benchmarks/README.md`; the scripts it names are in the repository's `benchmarks/` folder.*"


def on_files(files: Files, config: MkDocsConfig, **kwargs: Any) -> Files:
    """Add ``benchmarks.md``, whose source is the repository's ``benchmarks/README.md``."""
    readme = Path(config.config_file_path).parent / "benchmarks" / "README.md"
    files.append(File.generated(config, "benchmarks.md", abs_src_path=str(readme)))
    return files


def on_page_markdown(markdown: str, page: Page, **kwargs: Any) -> str:
    """Say under the title that the page is the benchmarks' README."""
    if page.file.src_uri != "benchmarks.md":
        return markdown
    title, _, rest = markdown.partition("\n")
    return f"{title}\n\n{WHERE}\n{rest}" if title.startswith("# ") else f"{WHERE}\n\n{markdown}"

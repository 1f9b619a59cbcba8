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


def on_files(files: Files, config: MkDocsConfig, **kwargs: Any) -> Files:
    """Add ``benchmarks.md``, whose source is the repository's ``benchmarks/README.md``."""
    readme = Path(config.config_file_path).parent / "benchmarks" / "README.md"
    files.append(File.generated(config, "benchmarks.md", abs_src_path=str(readme)))
    return files

"""The documentation site builds with ``mkdocs build --strict`` (the ``docs`` extra).

``--strict`` turns every warning into a failure: a link to a page or anchor that does
not exist, a page missing from the build, a docstring mkdocstrings cannot render. The
build goes to a temporary folder, so the repository is left as it was. Without the
``docs`` extra the build tests are skipped; the run-time check below always runs.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SUBPACKAGES = ["envs", "experiment", "learners", "model", "plots", "policies", "processes", "replay", "topologies"]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site, built once for this module's tests."""
    for extra in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python", "jupytext", "nbformat"):
        pytest.importorskip(extra, reason="the docs extra: pip install -e '.[docs]'")
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # Material's banner about its successor, on stderr
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr[-4000:]
    return out


def test_site_builds_strict(site):
    assert (site / "index.html").is_file()
    for page in ["tutorials/01_events_and_clock", "architecture", "papers", "benchmarks", "reference"]:
        assert (site / page / "index.html").is_file(), page
    assert (site / "tutorials" / "01_events_and_clock.ipynb").is_file()  # docs/hooks/notebooks.py


def test_every_public_module_has_a_section_in_the_api_reference(site):
    for name in SUBPACKAGES:
        html = (site / "reference" / name / "index.html").read_text()
        folder = ROOT / "schedlab" / name
        modules = [p.relative_to(folder) for p in folder.rglob("*.py")]
        public = [p for p in modules if not any(part.startswith("_") for part in p.parts)]
        assert public, name
        for path in public:
            dotted = ".".join(("schedlab", name, *path.with_suffix("").parts))
            assert f'id="{dotted}"' in html, f"{dotted} has no section in reference/{name}"


def test_docstrings_render_without_sphinx_marks(site):
    # docs/hooks/griffe_sphinx.py turns :class:`X` into a link or code, and "follows::" into "follows:"
    for page in (site / "reference").rglob("index.html"):
        html = page.read_text()
        assert not re.search(r":(mod|func|class|meth|attr|data|exc):<code>", html), page
        assert "::</p>" not in html, page


def test_schedlab_does_not_import_the_site_tools():
    code = (
        "import sys, schedlab.model, schedlab.processes, schedlab.policies, schedlab.learners, "
        "schedlab.topologies, schedlab.experiment, schedlab.plots\n"
        "print(sorted(m for m in ('mkdocs', 'material', 'mkdocstrings', 'griffe') if m in sys.modules))"
    )
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[]"


def _hook(name: str):
    """A module of docs/hooks, loaded from its file as MkDocs loads it."""
    pytest.importorskip("mkdocs")
    spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / "hooks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_links_out_of_docs_become_repository_paths_on_the_site():
    rewrite = _hook("repo_links").rewrite
    page, docs = ROOT / "docs" / "guide.md", ROOT / "docs"
    text = "Run [the M/M/c scenario](../scenarios/mmc.py); see [models](models.md) or [gone](../nope.py).\n"
    assert rewrite(text, page, docs, ROOT, None) == (
        "Run the M/M/c scenario (`scenarios/mmc.py`); see [models](models.md) or [gone](../nope.py).\n"
    )  # a missing target is left for --strict to report
    assert "(https://example.org/schedlab/blob/main/scenarios/mmc.py)" in rewrite(
        text, page, docs, ROOT, "https://example.org/schedlab"
    )
    readme = ROOT / "benchmarks" / "README.md"  # the Benchmarks page: its source lies outside docs/
    link = rewrite("[traces](../docs/traces.md#x)", readme, docs, ROOT, None, "benchmarks.md")
    assert link == "[traces](traces.md#x)"
    fenced = "```python\n# [x](../scenarios/mmc.py)\n```\n"
    assert rewrite(fenced, page, docs, ROOT, None) == fenced  # code is never rewritten


def test_the_api_pages_list_every_public_module_and_no_private_one():
    modules = _hook("api_pages").public_modules(ROOT / "schedlab" / "plots", "schedlab.plots")
    assert "schedlab.plots.gantt" in modules and "schedlab.plots._mpl" not in modules
    nested = _hook("api_pages").public_modules(ROOT / "schedlab" / "model", "schedlab.model")
    assert nested.index("schedlab.model.formats.swf") < nested.index("schedlab.model.formats.swf.reader")


def test_sphinx_comments_and_literal_markers():
    pytest.importorskip("griffe")
    sphinx = _hook("griffe_sphinx")
    lines = ["    #: the machine's CPUs", "    #: (whole units)", "    cpus: int = 4", "    x: int = 1  #: one"]
    assert sphinx.comment_doc(lines, 3) == ("the machine's CPUs\n(whole units)", 1)
    assert sphinx.comment_doc(lines, 4) == ("one", 4)
    assert sphinx.without_literal_markers("as follows::\n\n    x = 1") == "as follows:\n\n    x = 1"

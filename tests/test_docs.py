"""Every Python code block in README.md and docs/*.md runs (Ciw-style executed docs).

Each block here runs alone, in a fresh namespace. The tutorials (docs/tutorials/*.md)
are run by tests/test_tutorials.py instead: page by page, top to bottom in one
namespace, with each shown output compared with what the block prints.

Blocks whose first line is a comment naming a file (``# scenarios/example.py``) are
written to a temporary file and loaded as a scenario instead of executed in-line; a
scenario's ``report`` hook, if it has one, is then called as ``schedlab run`` calls it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def _blocks():
    for doc in DOCS:
        for i, code in enumerate(BLOCK.findall(doc.read_text())):
            yield pytest.param(doc, code, id=f"{doc.name}-{i}")


@pytest.mark.parametrize("doc, code", list(_blocks()))
def test_doc_block_runs(doc, code, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    first = code.splitlines()[0]
    if first.startswith("# scenarios/"):
        if "dask" in code:
            pytest.importorskip("dask.distributed")
        from schedlab.experiment import run
        from schedlab.experiment.scenario import load_scenario

        script = tmp_path / Path(first[2:]).name
        script.write_text(code)
        results = run(script, reps=2, quick=True, executor="serial")
        assert results.rows
        report = getattr(load_scenario(script).module, "report", None)
        if callable(report):  # as `schedlab run` does after saving the results
            out = tmp_path / "out"
            results.save(out)
            written = report(results, out) or []
            assert all(Path(path).exists() for path in written)
        return
    if "dask" in code:
        pytest.importorskip("dask.distributed")
    exec(compile(code, f"{doc.name}", "exec"), {"__name__": "__doc_example__"})


def test_docs_exist():
    assert len(DOCS) >= 3 and all(os.path.getsize(d) > 0 for d in DOCS)
    # the architecture and the four model kinds' contracts (docs/models.md: every example runs above)
    names = {d.name for d in DOCS}
    assert {"architecture.md", "models.md", "scenarios.md"} <= names
    assert len(BLOCK.findall((ROOT / "docs" / "models.md").read_text())) >= 12  # a policy, learner, topology x 4
    tutorials = sorted((ROOT / "docs" / "tutorials").glob("[0-9][0-9]_*.md"))
    assert len(tutorials) == 10 and all(os.path.getsize(t) > 0 for t in tutorials)

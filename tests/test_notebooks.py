"""Every tutorial is also a notebook, made from its Markdown by jupytext, and the notebook runs.

The conversion is the one the documentation site uses (``docs/hooks/notebooks.py``,
loaded here by path: it is build code, not part of schedlab). Each lesson's notebook
is executed top to bottom in a real ``python3`` kernel by nbclient, from the
repository root (where a student starts Jupyter), and each code cell must print what
the page shows under it. The budgets are the lessons' own (every lesson runs in
seconds; ``tests/test_tutorials.py`` runs the same code as Markdown).

Skipped when jupytext, nbclient or ipykernel is missing (the ``docs`` extra).
"""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import pytest

jupytext = pytest.importorskip("jupytext")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
nbformat = pytest.importorskip("nbformat")

ROOT = Path(__file__).resolve().parent.parent
TUTORIALS = sorted((ROOT / "docs" / "tutorials").glob("[0-9][0-9]_*.md"))
SOLUTIONS = sorted((ROOT / "docs" / "tutorials" / "solutions").glob("[0-9][0-9]_*.md"))
#: seconds one cell may take in the kernel: far above what any lesson's cell needs (a few seconds)
CELL_TIMEOUT = 300


def _hook():
    spec = importlib.util.spec_from_file_location("notebooks_hook", ROOT / "docs" / "hooks" / "notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hook = _hook()


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.rstrip().splitlines()]


def _stdout(cell) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream" and o.name == "stdout")


@pytest.mark.parametrize("page", TUTORIALS + SOLUTIONS, ids=[p.stem for p in TUTORIALS + SOLUTIONS])
def test_page_converts_to_a_notebook_of_its_code_and_shown_outputs(page):
    text = page.read_text()
    nb = hook.lesson_notebook(text, source=str(page.relative_to(ROOT)))
    code = [c for c in nb.cells if c.cell_type == "code"]
    # one code cell per ```python block, in order, each exactly the block's code
    blocks = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    assert [c.source for c in code] == [b.rstrip("\n") for b in blocks]
    # every ```text block became the output of the cell above it: none is left in the Markdown
    shown = re.findall(r"```python\n.*?```\s*\n```text\n(.*?)```", text, re.DOTALL)
    assert [_stdout(c) for c in code if c.outputs] == shown
    assert not any("```text" in c.source for c in nb.cells if c.cell_type == "markdown")
    assert nb.metadata["kernelspec"]["name"] == "python3"


def test_links_to_other_pages_are_rewritten_for_the_notebook():
    nb = hook.lesson_notebook(
        "# T\n\nSee [tutorial 2](02_shared_resources.md#a) and [x](https://a.org/b.md).\n",
        link=lambda target: f"https://site/{target[:-3]}/",
    )
    assert (
        nb.cells[0].source
        == "# T\n\nSee [tutorial 2](https://site/02_shared_resources/#a) and [x](https://a.org/b.md)."
    )


#: run before each lesson in the shared kernel: the names the last lesson defined go, and the working
#: folder is the root again. Not %reset, which also deletes __main__.__spec__, which a process pool's
#: spawned workers read (lesson 6)
FRESH_NAMESPACE = """\
for _name in [n for n in globals() if not n.startswith("_") and n not in ("In", "Out", "get_ipython", "exit", "quit")]:
    del globals()[_name]
import os
os.chdir({root!r})
del os"""


@pytest.fixture(scope="module")
def kernel():
    """One python3 kernel for every lesson, started in the repository root, as a student starts Jupyter.

    Starting a kernel and importing schedlab into it costs about 4 s, more than most
    lessons take to run (measured: the seven lessons in 64 s with a kernel each), so the
    lessons share one and each starts from an empty namespace (``FRESH_NAMESPACE``): a lesson
    that forgets an import still fails, as it would in a fresh kernel.
    """
    from jupyter_client.manager import start_new_kernel

    env = {**os.environ, "MPLBACKEND": "Agg"}  # figures saved to files, none drawn inline
    km, kc = start_new_kernel(kernel_name="python3", cwd=str(ROOT), env=env)
    yield km, kc
    kc.stop_channels()
    km.shutdown_kernel(now=True)


@pytest.mark.parametrize("page", TUTORIALS, ids=[p.stem for p in TUTORIALS])
def test_lesson_notebook_runs_in_a_kernel_and_prints_what_the_page_shows(page, kernel):
    text = page.read_text()
    if "dask" in text:
        pytest.importorskip("dask.distributed")
    if "gymnasium" in text:
        pytest.importorskip("gymnasium")
    if "schedlab.plots" in text:
        pytest.importorskip("matplotlib")
    nb = hook.lesson_notebook(text, source=str(page.relative_to(ROOT)))
    shown = {i: _stdout(c) for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.outputs}
    nb.cells.insert(0, nbformat.v4.new_code_cell(FRESH_NAMESPACE.format(root=str(ROOT))))
    km, kc = kernel
    client = nbclient.NotebookClient(nb, km=km, timeout=CELL_TIMEOUT)
    client.kc = kc  # the shared kernel's client: not a constructor argument; a km it did not start is not shut down
    client.execute()  # raises CellExecutionError, with the cell and its traceback, if a cell fails
    nb.cells.pop(0)
    for i, want in shown.items():
        assert _lines(_stdout(nb.cells[i])) == _lines(want), f"{page.name}, cell {i}: prints other than the page"


def test_the_hook_links_pages_on_the_site_and_puts_the_download_link_under_the_title():
    lesson = hook._site_link("tutorials/01_events_and_clock.md", {"site_url": None, "use_directory_urls": True})
    assert lesson("02_shared_resources.md") == "02_shared_resources/"
    assert lesson("../traces.md") == "../traces/"
    assert lesson("README.md") == "./"
    on_site = {"site_url": "https://x.org/", "use_directory_urls": True}
    solution = hook._site_link("tutorials/solutions/03_policies.md", on_site)
    assert solution("../03_policies.md") == "https://x.org/tutorials/03_policies/"

    class Page:
        class file:
            src_uri = "tutorials/solutions/03_policies.md"

    text = hook.on_page_markdown("# Tutorial 3 — solutions\n\nThese are", Page, {}, None)
    link = '[Download these solutions as a notebook](03_policies.ipynb){ download="03_policies.ipynb" }'
    assert text.splitlines()[:3] == ["# Tutorial 3 — solutions", "", link]

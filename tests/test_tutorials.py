"""Every tutorial in docs/tutorials, and every page of solutions to its exercises, runs and prints what it shows.

A tutorial page is run as a student runs it: its ```python blocks in order, in one
namespace (a later block uses names an earlier one defined), from the repository root.
Where a ```text block follows a ```python block, it is the block's expected output and
must equal what the block prints (seeded runs print the same numbers every time). No
block prints an internal name (a private attribute or class): a lesson speaks in the
names a student can use.
Each lesson ends with exercises; their solutions (docs/tutorials/solutions/, one page per
lesson) run on their own, the same way, so a solution that stops working fails the suite.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TUTORIALS = sorted((ROOT / "docs" / "tutorials").glob("[0-9][0-9]_*.md"))
SOLUTIONS = sorted((ROOT / "docs" / "tutorials" / "solutions").glob("[0-9][0-9]_*.md"))
#: a python block, and the text block right after it if there is one (its expected output)
BLOCK = re.compile(r"```python\n(.*?)```(?:\s*\n```text\n(.*?)```)?", re.DOTALL)
#: "about 150 lines of code" per tutorial (issue 9)
MAX_CODE_LINES = 150
#: an internal name in printed output: a private attribute (``source._run``) or class (``_Allocated``)
INTERNAL = re.compile(r"\._\w|\b_[A-Za-z]\w*")


def _blocks(page: Path) -> list[tuple[str, str | None]]:
    return [(m.group(1), m.group(2)) for m in BLOCK.finditer(page.read_text())]


@pytest.mark.parametrize(
    "page", TUTORIALS + SOLUTIONS, ids=[p.stem for p in TUTORIALS] + [f"solutions-{p.stem}" for p in SOLUTIONS]
)
def test_tutorial_runs_and_prints_what_it_shows(page, monkeypatch):
    monkeypatch.chdir(ROOT)
    text = page.read_text()
    if "dask" in text:
        pytest.importorskip("dask.distributed")
    if "gymnasium" in text:
        pytest.importorskip("gymnasium")
    if "schedlab.plots" in text:  # the plot extra
        pytest.importorskip("matplotlib").use("Agg")  # no window, in CI or anywhere
    namespace: dict = {"__name__": "__tutorial__"}
    for i, (code, expected) in enumerate(_blocks(page)):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"{page.name} block {i}", "exec"), namespace)
        internal = INTERNAL.findall(out.getvalue())
        assert not internal, f"{page.name} block {i} prints internal names: {internal[:5]}"
        if expected is not None:
            got = [line.rstrip() for line in out.getvalue().rstrip().splitlines()]
            want = [line.rstrip() for line in expected.rstrip().splitlines()]
            assert got == want, f"{page.name} block {i}: the output differs from the page"


@pytest.mark.parametrize("page", TUTORIALS, ids=[p.stem for p in TUTORIALS])
def test_tutorial_is_short(page):
    lines = sum(len([x for x in code.splitlines() if x.strip()]) for code, _ in _blocks(page))
    assert 0 < lines <= MAX_CODE_LINES, f"{page.name}: {lines} lines of code"


def test_all_ten_tutorials_are_indexed_in_order():
    assert [p.name[:2] for p in TUTORIALS] == [f"{i:02d}" for i in range(1, 11)]
    for index in (ROOT / "docs" / "tutorials" / "README.md", ROOT / "README.md"):
        text = index.read_text()
        places = [text.find(p.name) for p in TUTORIALS]
        assert -1 not in places and places == sorted(places), f"{index}: tutorials missing or out of order"


def test_every_lesson_ends_with_exercises_and_links_its_solutions():
    assert [p.name for p in SOLUTIONS] == [p.name for p in TUTORIALS]
    for page in TUTORIALS:
        text = page.read_text()
        exercises = text[text.find("## Exercises") :]
        assert "## Exercises" in text and f"(solutions/{page.name})" in exercises, f"{page.name}: no exercises"
        assert 2 <= len(re.findall(r"^\d\. ", exercises, re.MULTILINE)) <= 4, f"{page.name}: 2 to 4 exercises"


def test_tutorial_links_resolve():
    for page in [*TUTORIALS, *SOLUTIONS, ROOT / "docs" / "tutorials" / "README.md"]:
        for target in re.findall(r"\]\(([^)#:]+\.md)\)", page.read_text()):
            assert (page.parent / target).resolve().is_file(), f"{page.name}: broken link {target}"

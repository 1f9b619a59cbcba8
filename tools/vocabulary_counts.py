"""How often each word of the vocabulary's choices is used, in code and in text: issue 34's table (every old name kept).

Run from the repository root: ``python tools/vocabulary_counts.py [REV ...]``. Each column is
the work tree, or a git revision (``701568a``: before the renames). A use is one part of a
word: ``load_log`` is a use of "trace", ``LoadedLog`` one of "log", ``machine_procs`` one of
"procs"; singular and plural count together. "names" are the identifiers of every ``.py``
file; "text" is their comments and strings (docstrings, messages) and every ``.md`` file.
The chosen word of each concept is first (docs/architecture.md, "Vocabulary").
"""

from __future__ import annotations

import io
import re
import sys
import tokenize
from collections import Counter

from house_moves import tree_texts

#: concept -> its words, the vocabulary's first (singular: a plural counts as its singular)
CONCEPTS: dict[str, tuple[str, ...]] = {
    "processors": ("cpu", "proc", "core", "processor"),
    "input workload": ("log", "trace", "workload"),
    "where a job ran": ("machine", "where", "station"),
    "node failures": ("failure", "fault", "fail", "outage"),
    "who decides": ("policy", "agent", "broker", "decider"),
}

_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_PLURAL = {"cpus": "cpu", "procs": "proc", "cores": "core", "processors": "processor", "logs": "log",
           "traces": "trace", "workloads": "workload", "machines": "machine", "stations": "station",
           "failures": "failure", "faults": "fault", "fails": "fail", "outages": "outage",
           "policies": "policy", "agents": "agent", "brokers": "broker", "deciders": "decider"}  # fmt: skip


def _pieces(name: str, text: str) -> list[tuple[str, str]]:
    """``(kind, piece)``: a ``.py`` file's identifiers ("names"), its comments and strings ("text")."""
    if name.endswith(".md"):
        return [("text", text)]
    if not name.endswith(".py"):
        return []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return [("text", text)]
    kinds = {tokenize.NAME: "names", tokenize.STRING: "text", tokenize.COMMENT: "text"}
    return [(kinds[t.type], t.string) for t in tokens if t.type in kinds]


def counts(texts: dict[str, str]) -> dict[str, Counter[str]]:
    """``{"names": Counter, "text": Counter}`` of every word part, lower case, plurals folded."""
    out: dict[str, Counter[str]] = {"names": Counter(), "text": Counter()}
    for name, text in texts.items():
        for kind, piece in _pieces(name, text):
            for token in _TOKEN.findall(piece.replace("_", " ")):
                for part in _PART.findall(token):
                    word = part.lower()
                    out[kind][_PLURAL.get(word, word)] += 1
    return out


def main(argv: list[str]) -> int:
    columns = argv or [None]
    tables = {rev or "work tree": counts(tree_texts(rev)) for rev in columns}
    head = "| concept | word | " + " | ".join(f"{c} names | {c} text" for c in tables) + " |"
    print(head)
    print("|" + "---|" * (2 + 2 * len(tables)))
    for concept, words in CONCEPTS.items():
        for i, word in enumerate(words):
            cells = " | ".join(f"{t['names'][word]} | {t['text'][word]}" for t in tables.values())
            print(f"| {concept if i == 0 else ''} | {word}{' (chosen)' if i == 0 else ''} | {cells} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

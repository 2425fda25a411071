"""Branch facts: the condition of each branch with where it is written (the line a
dead variant branch is reported on), and the guards it runs under."""

from __future__ import annotations

import ast
from pathlib import Path

from pdlint.facts import indexer as index
from pdlint.facts.exprs import text

SOURCE = """\
def route(cfg, items):
    if cfg.method == "tree":
        pass
    elif cfg.method in ("chain", "lookup"):
        pass
    while items:
        items.pop()
    width = 2 if cfg.wide else 1
    match cfg.kind:
        case "a":
            pass
        case _:
            pass
"""


def test_each_branch_condition_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "mod.py"
    path.write_text(SOURCE)
    facts = index.index_module(str(path), "mod.py", ast.parse(SOURCE), SOURCE)
    (fn,) = facts.functions
    found = [(text(cond), span[:2], len(guards)) for cond, span, guards in fn.branches]
    assert found == [
        ("cfg.method == 'tree'", (2, 8), 0),
        ("cfg.method in 'chain', 'lookup'", (4, 10), 1),  # under the if's test failing
        ("items", (6, 11), 0),
        ("cfg.wide", (8, 18), 0),
        ("cfg.kind in 'a'", (10, 14), 0),
    ]

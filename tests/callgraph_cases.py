"""Call-graph cases in PyCG's format, scored as PyCG's micro-benchmark scores them.

A case is a folder with ``main.py`` (and any modules or packages beside it) and
``callgraph.json``, the expected graph (see ../shared/pycg-micro-benchmark/README.md).
Not a test module: the benchmark's test and the project's own cases import from here.
"""

from __future__ import annotations

import ast
import json
import os
from collections import defaultdict
from pathlib import Path

from click.testing import CliRunner

from pdlint.cli import cli

Edges = set[tuple[str, str]]
Scored = tuple[str, Edges, Edges]  # case name, expected edges, found edges


def edges_of(graph: dict[str, list[str]]) -> Edges:
    """The (caller, callee) pairs of a graph in PyCG's format."""
    return {(a, b) for a, callees in graph.items() for b in callees}


def defined_classes(case: Path) -> set[str]:
    """Dotted names of the classes the case defines (a class as a callee is not
    counted when the expected graph leaves it out, as the benchmark's README says)."""
    out = set()
    for path in case.rglob("*.py"):
        parts = list(path.relative_to(case).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        tree = ast.parse(path.read_text())

        def walk(body: list[ast.stmt], prefix: str) -> None:
            for node in body:
                if isinstance(node, ast.ClassDef):
                    out.add(f"{prefix}.{node.name}")
                    walk(node.body, f"{prefix}.{node.name}")
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    walk(node.body, f"{prefix}.{node.name}")

        walk(tree.body, ".".join(parts))
    return out


def run_case(case: Path) -> Edges:
    """The edges ``pdlint graph --all --format pycg`` gives with ``case`` as cwd."""
    here = os.getcwd()
    os.chdir(case)
    try:
        result = CliRunner().invoke(cli, ["graph", "--all", "--format", "pycg"])
    finally:
        os.chdir(here)
    assert result.exit_code == 0, result.output
    return edges_of(json.loads(result.stdout))


def score_case(case: Path) -> tuple[Edges, Edges]:
    """The expected edges of ``case`` and those pdlint finds (classes the case
    defines and the expected graph leaves out are not counted as callees)."""
    expected = edges_of(json.loads((case / "callgraph.json").read_text()))
    classes = defined_classes(case) - {b for _, b in expected}
    found = {(a, b) for a, b in run_case(case) if b not in classes}
    return expected, found


def score(root: Path) -> tuple[dict[str, list[Scored]], list[str]]:
    """Per category, each case's (name, expected, found) edges under ``root``
    (``<category>/<case>/callgraph.json``); the report lines."""
    by_category: dict[str, list[Scored]] = defaultdict(list)
    for expected_file in sorted(root.glob("*/*/callgraph.json")):
        case = expected_file.parent
        expected, found = score_case(case)
        by_category[case.parent.name].append((case.name, expected, found))
    lines = []
    for category, cases in sorted(by_category.items()):
        exact = sum(1 for _, e, f in cases if e == f)
        tp = sum(len(e & f) for _, e, f in cases)
        fp = sum(len(f - e) for _, e, f in cases)
        fn = sum(len(e - f) for _, e, f in cases)
        lines.append(f"{category:<13} {exact:>2}/{len(cases):<2} exact  tp={tp} fp={fp} fn={fn}")
        for name, e, f in cases:
            if e != f:
                lines.append(f"    {name}: missing {sorted(e - f)} extra {sorted(f - e)}")
    return by_category, lines


def totals(by_category: dict[str, list[Scored]]) -> tuple[int, int, float, float]:
    """Exact cases, cases, edge precision and edge recall over all cases."""
    cases = [c for cs in by_category.values() for c in cs]
    exact = sum(1 for _, e, f in cases if e == f)
    tp = sum(len(e & f) for _, e, f in cases)
    found = sum(len(f) for _, _, f in cases)
    expected = sum(len(e) for _, e, _ in cases)
    return exact, len(cases), tp / max(found, 1), tp / max(expected, 1)

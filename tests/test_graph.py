"""The call graph's own storage against networkx, on every fixture: the same edges,
call sites, callers and reach (networkx's own traversal is the oracle)."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import pytest
from pdlint_helpers import FIXTURES

from pdlint.api import FactsMemo
from pdlint.cache import FactStore
from pdlint.discover import discover
from pdlint.graph import CallGraph, heuristic_entries
from pdlint.model import Model
from pdlint.program import Program

PACKAGES = sorted(p for p in FIXTURES.iterdir() if p.is_dir())


def _graph(package: Path) -> tuple[CallGraph, list[str]]:
    files, _ = discover([str(package)], ())
    memo: FactsMemo = {}
    program = Program([(f, None) for f in files], FactStore(None), "salt", memo=memo)
    model = Model(program.load_all())
    entries = heuristic_entries(model) or sorted(model.functions)[:3]
    return CallGraph(model, entries), entries


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_graph_is_networkx_graph(package: Path) -> None:
    graph, entries = _graph(package)
    oracle = graph.to_networkx()
    assert len(graph) == oracle.number_of_nodes()
    for node in oracle.nodes:
        assert node in graph
        assert sorted(graph.callers(node)) == sorted(oracle.predecessors(node))
        for callee in oracle.successors(node):
            assert graph.sites(node, callee) == oracle[node][callee]["sites"]
            assert graph.sites(node, callee)
    assert graph.sites("no such function", entries[0] if entries else "x") == []

    reached = graph.reach(entries, lambda fn, site: True)
    expected = set(entries) & set(oracle.nodes)
    for entry in expected.copy():
        expected |= nx.descendants(oracle, entry)
    assert set(reached) == expected
    for node, link in reached.items():  # each step is an edge with that call site
        if link is not None:
            caller, site = link
            assert site in oracle[caller][node]["sites"]


def test_reach_follows_only_allowed_sites() -> None:
    graph, entries = _graph(FIXTURES / "relay_gap")
    everything = graph.reach(entries, lambda fn, site: True)
    assert len(everything) > len(entries)
    assert set(graph.reach(entries, lambda fn, site: False)) == set(entries)

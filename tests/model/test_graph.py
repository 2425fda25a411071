"""The call graph's own storage against networkx, on every fixture: the same edges,
call sites, callers, reach, ancestors and outermost entries (networkx's own
traversals are the oracle), and on generated call graphs with cycles."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pdlint_helpers import fixture, fixture_dirs

from pdlint.api import FactsMemo
from pdlint.cache.store import FactStore
from pdlint.engine.program import Program
from pdlint.facts.indexer import index_module
from pdlint.model.callgraph import CallGraph
from pdlint.model.entries import heuristic_entries
from pdlint.model.names import Model
from pdlint.source.discover import discover
from pdlint.source.read import parse_source

PACKAGES = sorted(p for p in fixture_dirs() if p.is_dir())


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
    assert_entries_as_networkx(graph, sorted(oracle.nodes)[:6] + entries)


def networkx_roots_only(oracle: nx.DiGraph, entries: list[str]) -> list[str]:
    """Entries not reachable from another entry, as networkx computed them."""
    entry_set = set(entries)
    keep = []
    for entry in entries:
        ancestors = nx.ancestors(oracle, entry) & entry_set
        if not ancestors or entry in nx.descendants(oracle, entry):
            keep.append(entry)
    return keep or entries


def assert_entries_as_networkx(graph: CallGraph, entries: list[str]) -> None:
    oracle = graph.to_networkx()
    for node in oracle.nodes:
        assert graph.ancestors(node) == nx.ancestors(oracle, node)
    entries = [e for e in dict.fromkeys(entries) if e in oracle]
    assert graph.roots_only(entries) == networkx_roots_only(oracle, entries)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(min_value=1, max_value=7).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=14),
            st.lists(st.integers(0, n - 1), min_size=1, max_size=4),
        )
    )
)
def test_outermost_entries_are_networkx_ones(
    case: tuple[int, list[tuple[int, int]], list[int]],
) -> None:
    """Functions calling each other (cycles and self-calls included): the entries
    kept are those networkx's ancestors keep, and every ancestor set is its own."""
    count, calls, picked = case
    lines = []
    for i in range(count):
        lines.append(f"def f{i}():")
        lines.extend(f"    f{b}()" for a, b in calls if a == i)
        lines.append("    return None")
    text = "\n".join(lines) + "\n"
    parsed = parse_source("m.py", text.encode())
    assert parsed.tree is not None
    model = Model([index_module("m.py", "m.py", parsed.tree, parsed.text)])
    entries = [f"m.f{i}" for i in picked]
    graph = CallGraph(model, entries)
    assert_entries_as_networkx(graph, entries)


def test_reach_follows_only_allowed_sites() -> None:
    graph, entries = _graph(fixture("relay_gap"))
    everything = graph.reach(entries, lambda fn, site: True)
    assert len(everything) > len(entries)
    assert set(graph.reach(entries, lambda fn, site: False)) == set(entries)

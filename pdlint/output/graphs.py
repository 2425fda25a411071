"""Writers of the resolved call graph: PyCG's JSON, plain JSON, DOT and GraphML."""

from __future__ import annotations

import json
from typing import Any

GRAPH_FORMATS = ("pycg", "json", "dot", "graphml")
NEEDS_NETWORKX = ("dot", "graphml")


def to_pycg(edges: dict[str, set[str]]) -> str:
    """PyCG's format: each caller to its sorted callees, callees listed as nodes too."""
    nodes = {n: sorted(c) for n, c in edges.items()}
    for callees in list(nodes.values()):
        for callee in callees:
            nodes.setdefault(callee, [])
    return json.dumps(dict(sorted(nodes.items())), indent=2) + "\n"


def to_json(edges: dict[str, set[str]], roots: list[str], stats: dict[str, Any]) -> str:
    """networkx's node-link JSON (``networkx.node_link_graph`` reads it back as a
    ``DiGraph``), with the roots and the counts of resolved and dropped calls as the
    graph's attributes; written without importing networkx."""
    nodes = sorted(set(edges) | {c for cs in edges.values() for c in cs})
    pairs = sorted((a, b) for a, cs in edges.items() for b in cs)
    doc = {
        "directed": True,
        "multigraph": False,
        "graph": {"roots": sorted(roots), **stats},
        "nodes": [{"id": n} for n in nodes],
        "edges": [{"source": a, "target": b} for a, b in pairs],
    }
    return json.dumps(doc, indent=2) + "\n"


def to_networkx(edges: dict[str, set[str]]) -> Any:
    """A ``networkx.DiGraph`` of the edges (networkx must be installed)."""
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_nodes_from(sorted(set(edges) | {c for cs in edges.values() for c in cs}))
    graph.add_edges_from(sorted((a, b) for a, cs in edges.items() for b in cs))
    return graph


def _quote(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(edges: dict[str, set[str]]) -> str:
    """Graphviz DOT of the networkx graph (no pydot needed)."""
    graph = to_networkx(edges)
    lines = ["digraph callgraph {"]
    lines += [f"  {_quote(n)};" for n in graph.nodes]
    lines += [f"  {_quote(a)} -> {_quote(b)};" for a, b in graph.edges]
    lines.append("}")
    return "\n".join(lines) + "\n"


def to_graphml(edges: dict[str, set[str]]) -> str:
    """GraphML, written by networkx."""
    import networkx as nx

    return "\n".join(nx.generate_graphml(to_networkx(edges))) + "\n"

"""The call graph (networkx) from the decode entry points, and entry discovery."""

from __future__ import annotations

import fnmatch
from collections import deque
from collections.abc import Callable, Iterable

import networkx as nx

from pdlint.facts import CallFact, FunctionFacts
from pdlint.model import Model

EdgeFilter = Callable[[FunctionFacts, CallFact], bool]


def heuristic_entries(model: Model) -> list[str]:
    """Functions whose qualified name has both ``disagg`` and ``decode``."""
    return sorted(q for q in model.functions if "disagg" in q.lower() and "decode" in q.lower())


def match_entries(model: Model, patterns: Iterable[str]) -> list[str]:
    """Functions whose qualified name matches a pattern (exact, glob or suffix)."""
    out = set()
    for pattern in patterns:
        for qual in model.functions:
            if (
                qual == pattern
                or fnmatch.fnmatchcase(qual, pattern)
                or qual.endswith("." + pattern)
            ):
                out.add(qual)
    return sorted(out)


class CallGraph:
    """Edges from callers to callees with the call sites, grown from roots."""

    def __init__(self, model: Model, roots: Iterable[str]) -> None:
        self.model = model
        self.graph: nx.DiGraph = nx.DiGraph()
        self.dropped = 0
        queue = deque(sorted(set(roots)))
        self.graph.add_nodes_from(queue)
        seen = set(queue)
        while queue:
            caller = queue.popleft()
            fn = model.functions[caller]
            for call in fn.calls:
                targets = model.call_targets(fn, call.func)
                if not targets:
                    self.dropped += 1
                for target in targets:
                    if self.graph.has_edge(caller, target):
                        self.graph[caller][target]["sites"].append(call)
                    else:
                        self.graph.add_edge(caller, target, sites=[call])
                    if target not in seen:
                        seen.add(target)
                        queue.append(target)

    def roots_only(self, entries: list[str]) -> list[str]:
        """Entries not reachable from another entry (the outermost loops)."""
        entry_set = set(entries)
        keep = []
        for entry in entries:
            ancestors = nx.ancestors(self.graph, entry) & entry_set
            if not ancestors or entry in nx.descendants(self.graph, entry):
                keep.append(entry)
        return keep or entries

    def reach(
        self, entries: list[str], allowed: EdgeFilter
    ) -> dict[str, tuple[str, CallFact] | None]:
        """Breadth-first reach over allowed call sites: node -> (caller, site)."""
        parent: dict[str, tuple[str, CallFact] | None] = {
            e: None for e in entries if e in self.graph
        }
        queue = deque(parent)
        while queue:
            caller = queue.popleft()
            fn = self.model.functions[caller]
            for callee in sorted(self.graph.successors(caller)):
                if callee in parent:
                    continue
                for site in self.graph[caller][callee]["sites"]:
                    if allowed(fn, site):
                        parent[callee] = (caller, site)
                        queue.append(callee)
                        break
        return parent

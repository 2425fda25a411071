"""The handoff check's run: on the code the relay check's entry points reach."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from pdlint.checks.base import Context, Run
from pdlint.checks.handoff.analysis import SoftReads
from pdlint.checks.handoff.pack import HandoffPack
from pdlint.checks.relay.graph import GraphRun
from pdlint.facts.types import FunctionFacts
from pdlint.findings import Finding
from pdlint.model.callgraph import match_entries
from pdlint.model.locations import entry_steps


class HandoffRun(Run):
    """The handoff check on the graph of the relay check's last run."""

    def __init__(self, context: Context, graph: Run) -> None:
        assert isinstance(graph, GraphRun)
        self.section: HandoffPack = context.section
        self.graph = graph

    def run(self) -> Iterator[Finding]:
        graph = self.graph
        model = graph.model
        parents = graph.graph.reach(graph.roots, lambda fn, site: True)
        named = self.section.preconditions
        preconditions = set(match_entries(model, named)) if named else set()
        reads = SoftReads(model, self.section.payloads, preconditions)
        out: list[Finding] = []
        for qual in sorted(parents):
            fn = model.functions[qual]
            callers: list[FunctionFacts] = []
            link = parents[qual]
            while link is not None and len(callers) < 20:
                callers.append(model.functions[link[0]])
                link = parents[link[0]]
            out += reads.findings(fn, partial(entry_steps, model, parents, qual), callers)
        return iter(out)

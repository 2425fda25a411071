"""The mode check's run: on the relay check's graph, with the packs' mode names."""

from __future__ import annotations

from collections.abc import Iterator

from pdlint.checks.base import Context, Run
from pdlint.checks.modes.analysis import ModeAnalysis
from pdlint.checks.modes.pack import ModePack
from pdlint.checks.relay.graph import GraphRun
from pdlint.findings import Finding


class ModeRun(Run):
    """The mode check on the relays and roots of the relay check's last run."""

    def __init__(self, context: Context, graph: Run) -> None:
        assert isinstance(graph, GraphRun)
        self.section: ModePack = context.section
        self.graph = graph

    def run(self) -> Iterator[Finding]:
        graph = self.graph
        modes = ModeAnalysis(
            graph.check,
            bypass_modes=self.section.bypass_modes,
            placeholder_factories=self.section.placeholder_factories,
        )
        return modes.run(graph.check.found_relays(), graph.roots)

"""The mode check's run: on the relay check's graph, with the packs' mode names."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from pdlint.checks.base import Context, Run
from pdlint.checks.modes.pack import ModePack
from pdlint.checks.relay.graph import GraphRun
from pdlint.findings import Finding

if TYPE_CHECKING:
    from pdlint.checks.modes.check import ModeCheck


class ModeRun(Run):
    """The mode check on the relays and roots of the relay check's last run."""

    def __init__(self, check: type[ModeCheck], context: Context, graph: Run) -> None:
        assert isinstance(graph, GraphRun)
        self.make = check
        self.section: ModePack = context.section
        self.graph = graph

    def run(self) -> Iterator[Finding]:
        graph = self.graph
        modes = self.make(
            graph.check,
            bypass_modes=self.section.bypass_modes,
            placeholder_factories=self.section.placeholder_factories,
        )
        return modes.run(graph.check.found_relays(), graph.roots)

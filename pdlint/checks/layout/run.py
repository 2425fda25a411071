"""The layout check's run: the check itself, through the contract's hooks."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from pdlint.checks.base import Run
from pdlint.findings import Finding

if TYPE_CHECKING:
    from pdlint.checks.layout.analysis import LayoutAnalysis


class LayoutRun(Run):
    """PDL201's check: it loads in phases (a first query, then the next)."""

    def __init__(self, check: LayoutAnalysis) -> None:
        self.check = check

    def run(self) -> Iterator[Finding]:
        return self.check.run()

    def first_phase(self, prefetch: Callable[[list[str]], None]) -> object:
        return self.check.plan.first_phase(prefetch)

    def load_next(self) -> object:
        return self.check.plan.load_next()

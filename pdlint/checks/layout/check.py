"""The layout check: PDL201 handoff-layout-asymmetry.

Its declaration alone: the analysis (:mod:`pdlint.checks.layout.analysis`) is
imported when the check runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from pdlint.checks.base import Check, Context, Loading, Run
from pdlint.checks.layout.catalogue import RULES
from pdlint.checks.layout.pack import LayoutNames
from pdlint.checks.layout.words import LOADED_LATER, SCANNED_WORDS, growing_near

if TYPE_CHECKING:
    from pdlint.settings.packs import Pack


class LayoutCheck(Check):
    """Handoff lists, the peer's copies of them and the offsets into those."""

    rules = RULES
    pack_section = LayoutNames
    isolated = True  # its own model on a lazy run: the same findings whatever else loads

    # the files it scans and loads itself, in phases (see loading_plan)
    loading = Loading(scanned=SCANNED_WORDS, later=LOADED_LATER)

    @classmethod
    def read_packs(cls, packs: Sequence[Pack]) -> LayoutNames:
        names = LayoutNames()
        for pack in packs:
            names = names.merged(pack.layout)
        return names

    @classmethod
    def scanned_for(cls, packs: Iterable[Pack]) -> tuple[tuple[str, ...], ...]:
        # a grow word near a pack's role-local setting (so the loading plan reads
        # them from the scan, not from every file's lower-cased text)
        return growing_near(w for pack in packs for w in pack.layout.role_local)

    @classmethod
    def begin(cls, context: Context) -> Run:
        from pdlint.checks.layout.analysis import LayoutAnalysis
        from pdlint.checks.layout.run import LayoutRun

        return LayoutRun(LayoutAnalysis(context.model, context.section))

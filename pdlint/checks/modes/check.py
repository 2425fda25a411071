"""The mode check: PDL102 mode-bypass and PDL103 masked-state.

Its declaration alone: the analysis (:mod:`pdlint.checks.modes.analysis`) is
imported when the check runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pdlint.checks.base import Check, Context, Run
from pdlint.checks.modes.catalogue import RULES
from pdlint.checks.modes.pack import ModePack
from pdlint.checks.relay.check import RelayCheck

if TYPE_CHECKING:
    from pdlint.settings.packs import Pack


class ModeCheck(Check):
    """Batch modes that bypass the relay, and placeholders that mask gaps."""

    rules = RULES
    pack_section = ModePack
    requires = (RelayCheck,)  # it reads the relays of the relay check's run

    @classmethod
    def read_packs(cls, packs: Sequence[Pack]) -> ModePack:
        return ModePack.of(packs)

    @classmethod
    def begin(cls, context: Context) -> Run:
        from pdlint.checks.modes.run import ModeRun

        return ModeRun(context, context.required[RelayCheck])

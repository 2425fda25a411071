"""The handoff check: PDL301 soft-handoff-precondition.

Its declaration alone: the analysis (:mod:`pdlint.checks.handoff.run`) is imported
when the check runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pdlint.checks.base import Check, Context, Run
from pdlint.checks.handoff.catalogue import RULES
from pdlint.checks.handoff.pack import HandoffPack
from pdlint.checks.relay.check import RelayCheck

if TYPE_CHECKING:
    from pdlint.settings.packs import Pack


class HandoffCheck(Check):
    """Decode handlers that read the handoff payload softly and go on without it."""

    rules = RULES
    pack_section = HandoffPack
    requires = (RelayCheck,)  # the code reached from the entry points: its graph

    @classmethod
    def read_packs(cls, packs: Sequence[Pack]) -> HandoffPack:
        return HandoffPack.of(packs)

    @classmethod
    def begin(cls, context: Context) -> Run:
        from pdlint.checks.handoff.run import HandoffRun

        return HandoffRun(context, context.required[RelayCheck])
